// compile.js compiles the seald contracts with solc-js (the version pinned in package-lock.json) through the
// compiler's standard JSON interface, and writes each contract's ABI and bytecode into OUTDIR:
//
//   node compile.js OUTDIR
//
// Files written: <Name>.abi (JSON), <Name>.bin (creation code, hex), <Name>.bin-runtime (deployed code, hex).
// The output depends only on the sources, node_modules (locked) and the settings below, so the test in
// evm/registry can recompile into a temporary directory and compare byte for byte with the committed files.
'use strict';

const fs = require('fs');
const path = require('path');
const solc = require('solc');

// The EVM version is pinned instead of taking the compiler's default, because the bytecode must only use
// opcodes the target chain executes. Polygon PoS mainnet runs the Prague rules since the Bhilai hard fork
// (block 73,440,256, July 2025; Bor's mainnet config sets pragueBlock at Bhilai). Its later forks (Rio,
// Madhugiri, Dandeli, Lisovo) changed consensus and precompile pricing but scheduled no Osaka block, so
// Osaka-only opcodes such as CLZ (EIP-7939) do not exist there. EOS EVM, seald's other network, also
// executes Prague-era bytecode without the Osaka additions.
const EVM_VERSION = 'prague';

// The contracts seald builds. PlainERC721 is only the baseline of the gas benchmark.
const SOURCES = ['SealRegistry.sol', 'test/PlainERC721.sol'];
const CONTRACTS = [
  ['SealRegistry.sol', 'SealRegistry'],
  ['test/PlainERC721.sol', 'PlainERC721'],
];

function findImports(name) {
  const file = path.join(__dirname, 'node_modules', name);
  if (!name.startsWith('@openzeppelin/contracts/') || !fs.existsSync(file)) {
    return { error: `import not found: ${name}` };
  }
  return { contents: fs.readFileSync(file, 'utf8') };
}

function main() {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node compile.js OUTDIR');
    process.exit(2);
  }
  const sources = {};
  for (const name of SOURCES) {
    sources[name] = { content: fs.readFileSync(path.join(__dirname, name), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  let failed = false;
  for (const e of output.errors || []) {
    console.error(e.formattedMessage || e.message);
    if (e.severity === 'error') failed = true;
  }
  if (failed) process.exit(1);

  fs.mkdirSync(out, { recursive: true });
  for (const [file, name] of CONTRACTS) {
    const c = output.contracts[file][name];
    fs.writeFileSync(path.join(out, `${name}.abi`), JSON.stringify(c.abi) + '\n');
    fs.writeFileSync(path.join(out, `${name}.bin`), c.evm.bytecode.object + '\n');
    fs.writeFileSync(path.join(out, `${name}.bin-runtime`), c.evm.deployedBytecode.object + '\n');
  }
  console.error(`compiled ${CONTRACTS.length} contracts with solc ${solc.version()} for ${EVM_VERSION} into ${out}`);
}

main();
