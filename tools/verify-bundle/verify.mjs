#!/usr/bin/env node
// verify.mjs checks a seald proof bundle on its own, sharing no code with seald: it reads the format as
// docs/api.md describes it and asks a node of the chain, through ethers, what the contract says. It exists so
// that the format stays checkable by anyone; CI runs it beside `seald proof verify` on good and tampered
// bundles and expects the same verdicts.
//
//   node verify.mjs BUNDLE --rpc URL (--trust FILE | --no-trust) [--issuer-doc DID.json]
//
// A version 3 bundle names its issuer (docs/identity.md): the checker prints "Sealed by NAME, DOMAIN, domain
// verified on DATE" or "Sealed by NAME (self-declared name; no verified domain)" and what it relied on. With
// --issuer-doc (the business's DID document, a saved copy of https://DOMAIN/.well-known/did.json) the bundle
// must also be signed by a key that document lists for assertions.
//
// Exit status: 0 valid and not revoked, 1 not valid, 2 could not check, 3 valid but revoked.
import { readFileSync } from "node:fs";
import { createHash, createPublicKey, verify as edVerify } from "node:crypto";
import { Contract, Interface, JsonRpcProvider, getAddress, keccak256, concat, toBeHex, zeroPadValue } from "ethers";

class Invalid extends Error {}
class Unchecked extends Error {}

function args(argv) {
  const out = { file: null, rpc: null, trust: null, noTrust: false, issuerDoc: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--rpc") out.rpc = argv[++i];
    else if (a === "--trust") out.trust = argv[++i];
    else if (a === "--no-trust") out.noTrust = true;
    else if (a === "--issuer-doc") out.issuerDoc = argv[++i];
    else if (!out.file) out.file = a;
    else throw new Unchecked(`unexpected argument ${a}`);
  }
  if (!out.file || !out.rpc || (!out.trust && !out.noTrust)) {
    throw new Unchecked("usage: verify.mjs BUNDLE --rpc URL (--trust FILE | --no-trust) [--issuer-doc DID.json]");
  }
  return out;
}

// The bundle alone, whether the file holds it bare, in an API answer or in `seald verify --json --proof`.
function bundleOf(doc) {
  if (doc && doc.data && doc.data.proof) return doc.data.proof;
  if (doc && doc.proof) return doc.proof;
  return doc;
}

// RFC 8785 for what a bundle holds (strings, integers, arrays, objects): keys sorted by UTF-16 code units,
// strings as JSON.stringify writes them, integers in their shortest form.
function canonical(v) {
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  if (v !== null && typeof v === "object") {
    return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
  }
  return JSON.stringify(v);
}

const sha256 = (b) => createHash("sha256").update(b).digest();

function digest(p) {
  if (p.version === 1) {
    const fields = { version: String(p.version), reference: p.reference, hash: p.hash, cid: p.cid, network: p.network,
      chain_id: p.chain_id, contract: p.contract, token_id: p.token_id };
    return sha256("seald record digest\n" + JSON.stringify(fields));
  }
  const rest = { ...p };
  delete rest.signature;
  delete rest.manifest; // an unsigned link to the batch's manifest
  if (p.version >= 3 && p.issuer) {
    rest.issuer = { ...p.issuer };
    delete rest.issuer.signature;
  }
  return sha256((p.version >= 3 ? "seald proof v3\n" : "seald proof v2\n") + canonical(rest));
}

// The issuer block of a version 3 bundle, in words: who sealed it, and what that rests on.
function didDomain(did) {
  const parts = String(did || "").replace(/^did:web:/, "").split(":");
  parts[0] = parts[0].replace(/%3a/i, ":");
  return parts.join("/");
}
function describeIssuer(iss, checked) {
  if (!iss) return "It names no issuer (a bundle made before issuer blocks).";
  if (iss.status === "domain-verified") {
    const d = didDomain(iss.did);
    return `Sealed by ${iss.name}, ${d}, domain verified on ${String(iss.verified_at).slice(0, 10)}` +
      (checked ? `; signed by its key ${iss.key_id}, listed in the DID document ${checked}` :
        `; relied on the issuer block under the service's signature (give --issuer-doc with ${d}'s DID document to check its key)`);
  }
  return `Sealed by ${iss.name} (self-declared name; no verified domain); relied on the service's signature alone`;
}

// base58btc, for a Multikey's publicKeyMultibase.
function base58(s) {
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  let n = 0n;
  for (const c of s) {
    const v = alphabet.indexOf(c);
    if (v < 0) throw new Invalid("publicKeyMultibase is not base58btc");
    n = n * 58n + BigInt(v);
  }
  let hex = n.toString(16);
  if (hex.length % 2) hex = "0" + hex;
  const lead = s.match(/^1*/)[0].length;
  return Buffer.concat([Buffer.alloc(lead), Buffer.from(n === 0n ? "" : hex, "hex")]);
}

// The Ed25519 keys a DID document lists for assertions, by method id.
function didKeys(doc) {
  const abs = (id) => (String(id).startsWith("#") ? doc.id + id : id);
  const methods = new Map((doc.verificationMethod || []).map((m) => [abs(m.id), m]));
  const out = new Map();
  for (const ref of doc.assertionMethod || []) {
    const m = typeof ref === "string" ? methods.get(abs(ref)) : ref;
    if (!m || m.controller !== doc.id) continue;
    let raw = null;
    if (typeof m.publicKeyMultibase === "string" && m.publicKeyMultibase.startsWith("z")) {
      const b = base58(m.publicKeyMultibase.slice(1));
      if (b.length === 34 && b[0] === 0xed && b[1] === 0x01) raw = b.subarray(2);
    } else if (m.publicKeyJwk && m.publicKeyJwk.crv === "Ed25519") {
      raw = Buffer.from(m.publicKeyJwk.x, "base64url");
    }
    if (raw && raw.length === 32) out.set(abs(m.id), raw);
  }
  return out;
}

// checkIssuer checks that the bundle is signed by the key of the DID document's business.
function checkIssuer(p, doc) {
  const iss = p.issuer;
  if (p.version < 3 || !iss) throw new Invalid(`the bundle names no issuer: it is not signed by ${doc.id}'s key`);
  if (iss.status !== "domain-verified") throw new Invalid(`it was sealed by "${iss.name}", a self-declared name: it is not signed by ${doc.id}'s key`);
  if (iss.did !== doc.id) throw new Invalid(`it was sealed by ${iss.name} (${iss.did}), not by ${doc.id}`);
  const raw = didKeys(doc).get(iss.key_id);
  if (!raw) throw new Invalid(`it is signed by key ${iss.key_id}, which the DID document of ${doc.id} does not list for assertions`);
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
  if (!edVerify(null, digest(p), key, Buffer.from(iss.signature || "", "base64"))) {
    throw new Invalid(`the signature by ${doc.id}'s key ${iss.key_id} does not match this bundle`);
  }
}

function checkSignature(p) {
  const raw = Buffer.from(p.public_key || "", "base64");
  if (raw.length !== 32) throw new Invalid("public_key is not an Ed25519 key");
  if (p.version >= 2 && sha256(raw).toString("hex").slice(0, 16) !== p.key_id) {
    throw new Invalid("key_id does not name the public key");
  }
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
  if (!edVerify(null, digest(p), key, Buffer.from(p.signature || "", "base64"))) {
    throw new Invalid("the signature does not match the bundle");
  }
}

// The trust root (version 2) lists, per chain, every contract the issuer anchored on with the blocks in
// which it did, and every key with its status: a compromised key is trusted for nothing, a retired one only
// for anchors made before its retirement (checked in onChain: the anchor's block against the key's
// retired_blocks for the chain, else the block's time against retired_at).
function checkTrust(p, trust) {
  if (trust.version !== 2) throw new Unchecked(`trust root version ${trust.version} is not supported (want 2)`);
  const entries = (trust.networks || [])
    .filter((n) => n.chain_id === p.chain_id)
    .flatMap((n) => (n.contracts || []).filter((c) => c.contract.toLowerCase() === p.contract.toLowerCase()));
  if (!entries.length) throw new Invalid(`chain ${p.chain_id} and contract ${p.contract} are not the issuer's`);
  const contract = entries.find((c) => p.block_number >= c.from_block && (c.to_block == null || p.block_number <= c.to_block));
  if (!contract) throw new Invalid(`contract ${p.contract} did not anchor for the issuer in block ${p.block_number}`);
  const key = (trust.keys || []).find((k) => k.public_key === p.public_key && (p.version < 2 || k.key_id === p.key_id));
  if (!key) throw new Invalid("the signing key is not one the issuer lists");
  if (key.status === "compromised") throw new Invalid(`signing key ${key.key_id} is marked compromised by the issuer`);
  if (key.status !== "current" && key.status !== "retired") throw new Invalid(`signing key ${key.key_id} has status ${key.status}`);
  return { contract, key };
}

// The leaf binds the token id and the hash (prefix 0x00); nodes hash a sorted pair (prefix 0x01).
function rootFromPath(p) {
  const token = BigInt(p.token_id);
  let node = keccak256(concat(["0x00", zeroPadValue(toBeHex(token), 32), "0x" + p.hash]));
  if (node !== p.leaf) throw new Invalid("the hash does not match the leaf of the token");
  for (const sib of p.merkle_path) {
    const [a, b] = node.toLowerCase() <= sib.toLowerCase() ? [node, sib] : [sib, node];
    node = keccak256(concat(["0x01", a, b]));
  }
  if (node !== p.root) throw new Invalid("the Merkle path does not lead to the root");
  return token;
}

const abi = new Interface([
  "function rootOf(uint256) view returns (bytes32)",
  "function verify(uint256, bytes32, bytes32[]) view returns (bool)",
  "function isRevoked(uint256) view returns (bool)",
  "function anchor(bytes32 root, uint256 firstTokenId, uint256 count)",
]);

async function onChain(p, rpc, net, token) {
  const provider = new JsonRpcProvider(rpc, undefined, { staticNetwork: true, batchMaxCount: 1 });
  const ask = async (what, f) => {
    try {
      return await f();
    } catch (e) {
      if (e instanceof Invalid) throw e;
      if (e.code === "CALL_EXCEPTION") throw new Invalid(`${what}: the contract refused`);
      throw new Unchecked(`the node did not answer (${what}): ${e.shortMessage || e.message}`);
    }
  };
  const chainId = await ask("chain id", async () => (await provider.send("eth_chainId", [])));
  if (BigInt(chainId).toString() !== p.chain_id) throw new Invalid(`the node is on chain ${BigInt(chainId)}, not ${p.chain_id}`);
  const registry = new Contract(p.contract, abi, provider);
  const root = await ask("rootOf", () => registry.rootOf(token));
  if (root !== p.root) throw new Invalid("the contract holds another root for the token");
  if (!(await ask("verify", () => registry.verify(token, "0x" + p.hash, p.merkle_path)))) {
    throw new Invalid("the contract does not verify the proof");
  }
  const tx = await ask("transaction", () => provider.getTransaction(p.tx_hash));
  if (!tx) throw new Invalid("the anchoring transaction is not on the chain");
  const receipt = await ask("receipt", () => provider.getTransactionReceipt(p.tx_hash));
  if (!receipt || receipt.status !== 1 || receipt.blockNumber !== p.block_number) {
    throw new Invalid("the anchoring transaction did not succeed in the bundle's block");
  }
  if (!tx.to || getAddress(tx.to) !== getAddress(p.contract)) throw new Invalid("the transaction was not sent to the contract");
  let call;
  try {
    call = abi.decodeFunctionData("anchor", tx.data);
  } catch {
    throw new Invalid("the transaction did not call anchor");
  }
  if (call.root !== p.root || token < call.firstTokenId || token >= call.firstTokenId + call.count) {
    throw new Invalid("the transaction did not anchor this root for the token");
  }
  if (net && getAddress(tx.from) !== getAddress(net.contract.anchorer)) {
    throw new Invalid(`the transaction was sent by ${tx.from}, not the issuer's anchoring address`);
  }
  const covered = net && (net.key.retired_blocks || []).find((b) => b.chain_id === p.chain_id);
  if (net && net.key.status === "retired" && covered) {
    // The chain's head when the key was retired: anchors up to it were made before (block times are whole seconds).
    if (receipt.blockNumber > covered.block) {
      throw new Invalid(`signing key ${net.key.key_id} was retired at block ${covered.block} of chain ${p.chain_id}, before the anchor's block`);
    }
  } else if (net && net.key.status === "retired") {
    const block = await ask("block", () => provider.getBlock(receipt.blockNumber));
    if (block.timestamp >= Date.parse(net.key.retired_at) / 1000) {
      throw new Invalid(`signing key ${net.key.key_id} was retired at ${net.key.retired_at}, before the anchor's block`);
    }
  }
  return ask("isRevoked", () => registry.isRevoked(token));
}

async function main() {
  const a = args(process.argv.slice(2));
  let doc, trust, didDoc;
  try {
    doc = JSON.parse(readFileSync(a.file, "utf8"));
    trust = a.trust ? JSON.parse(readFileSync(a.trust, "utf8")) : null;
    didDoc = a.issuerDoc ? JSON.parse(readFileSync(a.issuerDoc, "utf8")) : null;
  } catch (e) {
    throw new Unchecked(e.message);
  }
  const p = bundleOf(doc);
  if (!p || (p.version !== 1 && p.version !== 2 && p.version !== 3) || typeof p.hash !== "string" || !/^[0-9a-f]{64}$/.test(p.hash)) {
    throw new Invalid("not a seald proof bundle");
  }
  if ((p.version === 3) !== (p.issuer !== undefined && p.issuer !== null)) {
    throw new Invalid(p.version === 3 ? "the version 3 bundle lacks its issuer" : `a version ${p.version} bundle has no issuer member`);
  }
  const net = trust ? checkTrust(p, trust) : null;
  checkSignature(p);
  if (didDoc) checkIssuer(p, didDoc);
  const token = rootFromPath(p);
  const revoked = await onChain(p, a.rpc, net, token);
  issuerLine = p.version >= 3 ? describeIssuer(p.issuer, didDoc ? a.issuerDoc : null) : "";
  return revoked ? 3 : 0;
}

let issuerLine = "";

main().then(
  (code) => {
    console.log(code === 3 ? "REVOKED" : "ok");
    if (issuerLine) console.log(issuerLine);
    process.exit(code);
  },
  (e) => {
    if (e instanceof Invalid) {
      console.log("INVALID: " + e.message);
      process.exit(1);
    }
    console.log("UNCHECKED: " + e.message);
    process.exit(2);
  },
);
