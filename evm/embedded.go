package evm

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rpc"
)

// DefaultRPCAddr is where the embedded chain serves JSON-RPC unless told otherwise (--chain-rpc-addr): the
// usual port of Ethereum nodes, on loopback only.
const DefaultRPCAddr = "127.0.0.1:8545"

// Files the embedded chain keeps in its directory beside the node's database.
const (
	keyFile      = "chain.key"    // hex private key of the funded account that owns the contract (0600)
	contractFile = "contract.txt" // address of the deployed SealRegistry
	genesisFile  = "genesis.json" // the genesis of the chain, fixed at first start
	nodeName     = "node"         // the go-ethereum node's instance directory
)

// EmbeddedOptions configure OpenEmbedded.
type EmbeddedOptions struct {
	// RPCAddr is the host:port where the chain's JSON-RPC (eth, net, web3) is served over HTTP, so anyone
	// can check anchors without seald; "" serves nothing. Port 0 picks a free port (see RPCURL).
	RPCAddr string
	// ChainID is the chain's EIP-155 id; 0 means DefaultChainID. It is fixed at first start.
	ChainID uint64
	// AnchorGasLimit is the Anchorer's Options.AnchorGasLimit.
	AnchorGasLimit uint64
	// Deploy are the contract's settings at first start (its token URI prefix and Transfer events).
	Deploy DeployOptions
}

// Embedded is seald's default chain: a go-ethereum node running in-process, persisted under a directory,
// with the SealRegistry deployed at first start.
//
// It is assembled by hand (node, eth service, simulated beacon) instead of using the simulated backend
// of go-ethereum's ethclient/simulated package, because that one rewinds to genesis whenever it opens: here
// the hash state scheme with archive mode (no pruning) writes every block's state to disk, so a restart,
// or a kill -9, keeps the chain. A kill -9 may still lose the last blocks written; the anchor leader then
// re-sends the saved transactions, which the node accepts again because their nonces are free once more.
//
// Blocks are produced on demand: the simulated beacon runs with period 0 and seals a block as soon as a
// transaction reaches the pool. A batch is thus included in milliseconds and an idle chain writes nothing,
// but no block ever follows the last transaction on its own, so anchorers on this chain must use 0
// confirmations.
type Embedded struct {
	dir      string
	stack    *node.Node
	eth      *eth.Ethereum
	client   *ethclient.Client
	key      *ecdsa.PrivateKey
	chainID  *big.Int
	contract common.Address
	gasLimit uint64 // EmbeddedOptions.AnchorGasLimit
	// closeWait is the constant closeWait, shorter in tests.
	closeWait time.Duration
}

// OpenEmbedded opens (creating at first use) the embedded chain stored in dir.
func OpenEmbedded(dir string, opts EmbeddedOptions) (*Embedded, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("evm: chain dir: %w", err)
	}
	key, err := loadOrCreateKey(filepath.Join(dir, keyFile))
	if err != nil {
		return nil, fmt.Errorf("evm: chain key: %w", err)
	}
	genesis, err := loadOrCreateGenesis(filepath.Join(dir, genesisFile), opts.ChainID, crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		return nil, err
	}
	e := &Embedded{dir: dir, key: key, chainID: new(big.Int).Set(genesis.Config.ChainID), gasLimit: opts.AnchorGasLimit,
		closeWait: closeWait}
	if err := e.start(genesis, opts.RPCAddr); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.ensureContract(ctx, opts.Deploy); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// loadOrCreateGenesis returns the genesis kept in path, or writes a new one funding owner. Keeping it in a
// file instead of rebuilding it at each start means a later go-ethereum, whose default system contracts
// may differ, still opens the chain instead of finding an incompatible genesis.
func loadOrCreateGenesis(path string, chainID uint64, owner common.Address) (*core.Genesis, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		g := new(core.Genesis)
		if err := json.Unmarshal(b, g); err != nil {
			return nil, fmt.Errorf("evm: %s: %w", path, err)
		}
		if g.Config == nil || g.Config.ChainID == nil {
			return nil, fmt.Errorf("evm: %s has no chain id", path)
		}
		if chainID != 0 && g.Config.ChainID.Uint64() != chainID {
			return nil, fmt.Errorf("evm: the chain in %s has id %s, not %d", filepath.Dir(path), g.Config.ChainID, chainID)
		}
		return g, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("evm: %w", err)
	}
	if chainID == 0 {
		chainID = DefaultChainID
	}
	g := Genesis(new(big.Int).SetUint64(chainID), owner)
	if b, err = json.MarshalIndent(g, "", "  "); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(path, b, 0o600); err != nil {
		return nil, fmt.Errorf("evm: %w", err)
	}
	return g, nil
}

func (e *Embedded) start(genesis *core.Genesis, rpcAddr string) error {
	cfg := node.DefaultConfig
	cfg.Name = nodeName
	cfg.DataDir = e.dir
	cfg.IPCPath = ""
	cfg.HTTPHost, cfg.HTTPPort, cfg.WSHost = "", 0, ""
	cfg.AuthAddr, cfg.AuthPort = "127.0.0.1", 0
	cfg.P2P = p2p.Config{NoDiscovery: true, NoDial: true, MaxPeers: 0, ListenAddr: ""}
	if rpcAddr != "" {
		host, port, err := net.SplitHostPort(rpcAddr)
		if err != nil {
			return fmt.Errorf("evm: chain RPC address %q: %w", rpcAddr, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 0 || p > 65535 {
			return fmt.Errorf("evm: chain RPC address %q: bad port", rpcAddr)
		}
		cfg.HTTPHost, cfg.HTTPPort = host, p
		cfg.HTTPModules = []string{"eth", "net", "web3"}
		cfg.HTTPVirtualHosts = []string{"localhost"} // plus any IP address, which geth always accepts
		// Any web page may read the chain: anchors are public, and sending needs a funded key.
		cfg.HTTPCors = []string{"*"}
	}
	stack, err := node.New(&cfg)
	if err != nil {
		return fmt.Errorf("evm: chain node: %w", err)
	}
	ecfg := ethconfig.Defaults
	ecfg.NetworkId = e.chainID.Uint64()
	ecfg.Genesis = genesis
	ecfg.SyncMode = ethconfig.FullSync
	ecfg.StateScheme = rawdb.HashScheme
	ecfg.NoPruning = true               // archive: every block's state is on disk, so nothing is lost at restart
	ecfg.TransactionHistory = 0         // index every transaction, however old, for proofs
	ecfg.LogNoHistory = true            // no log index: seald finds anchors by transaction hash, never by log search
	ecfg.TxPool.NoLocals = true         // the leader re-sends what it saved; no second journal of transactions
	ecfg.Miner.GasPrice = big.NewInt(1) // the lowest tip the miner takes; also the tip the node suggests
	// Memory caches, in MiB. They live outside the Go heap (pebble's block cache and memtables are C
	// allocations in cgo builds; the trie cache is fastcache, which mmaps its chunks), fill as every batch
	// adds a block and its state, and only then stop growing: with 64 + 32 + 32 they were still filling after
	// 20 minutes of soak, most of its anonymous-memory growth (docs/reliability.md, section 6). A
	// dev-scale chain sealing a few blocks a second needs little: pebble gets 16 (its minimum in geth: a
	// 16 MiB block cache and 2 MiB memtables); in archive mode with the hash scheme geth folds the dirty
	// cache into the clean one, 8 + 8 = 16, which fastcache rounds up to its floor of 32 MiB (512 buckets
	// of one 64 KiB chunk).
	ecfg.DatabaseCache, ecfg.TrieCleanCache, ecfg.TrieDirtyCache, ecfg.SnapshotCache = 16, 8, 8, 0
	backend, err := eth.New(stack, &ecfg)
	if err != nil {
		stack.Close()
		return fmt.Errorf("evm: chain service: %w", err)
	}
	if backend.BlockChain().Config().ChainID.Cmp(e.chainID) != 0 {
		stack.Close()
		return fmt.Errorf("evm: the chain in %s has id %s, not %s", e.dir, backend.BlockChain().Config().ChainID, e.chainID)
	}
	// eth_getLogs and filters live in a service of their own; explorers and wallets expect them.
	filterSystem := filters.NewFilterSystem(backend.APIBackend, filters.Config{
		LogCacheSize: ecfg.FilterLogCacheSize, LogQueryLimit: ecfg.LogQueryLimit, RangeLimit: ecfg.RangeLimit,
	})
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(filterSystem)}})
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, backend)
	if err != nil {
		stack.Close()
		return fmt.Errorf("evm: simulated beacon: %w", err)
	}
	catalyst.RegisterSimulatedBeaconAPIs(stack, beacon) // with period 0 this starts sealing on demand
	stack.RegisterLifecycle(beacon)
	if err := stack.Start(); err != nil {
		stack.Close()
		return fmt.Errorf("evm: start chain node: %w", err)
	}
	e.stack, e.eth = stack, backend
	e.client = ethclient.NewClient(stack.Attach())
	return nil
}

// ensureContract finds the SealRegistry from the file in dir, or deploys it. The deploy is the dev
// account's first transaction, so the contract's address is CreateAddress(account, 0) whatever happens:
// after a crash between deploying and writing the file, or after a kill -9 lost the deploy block, the
// same address comes back.
func (e *Embedded) ensureContract(ctx context.Context, deploy DeployOptions) error {
	from := crypto.PubkeyToAddress(e.key.PublicKey)
	want := crypto.CreateAddress(from, 0)
	path := filepath.Join(e.dir, contractFile)
	if b, err := os.ReadFile(path); err == nil {
		s := strings.TrimSpace(string(b))
		if !common.IsHexAddress(s) {
			return fmt.Errorf("evm: %s does not hold an address", path)
		}
		want = common.HexToAddress(s)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("evm: %w", err)
	}
	code, err := e.client.CodeAt(ctx, want, nil)
	if err != nil {
		return fmt.Errorf("evm: contract code: %w", err)
	}
	if len(code) == 0 {
		nonce, err := e.client.NonceAt(ctx, from, nil)
		if err != nil {
			return fmt.Errorf("evm: dev account nonce: %w", err)
		}
		if nonce != 0 || want != crypto.CreateAddress(from, 0) {
			return fmt.Errorf("evm: the SealRegistry at %s is missing from the chain in %s", want.Hex(), e.dir)
		}
		addr, err := DeployWith(ctx, e.client, e.key, deploy)
		if err != nil {
			return err
		}
		want = addr
		// The receipt can be readable a moment before the block is the head that "latest" reads: wait for
		// the code there, so that the Anchorer made next finds the contract.
		for {
			code, err := e.client.CodeAt(ctx, want, nil)
			if err != nil {
				return fmt.Errorf("evm: contract code: %w", err)
			}
			if len(code) > 0 {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("evm: the deployed SealRegistry at %s never showed in the latest block: %w", want.Hex(), ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	e.contract = want
	return writeFileAtomic(path, []byte(want.Hex()+"\n"), 0o600)
}

// Client is the in-process JSON-RPC client of the chain; it needs no network.
func (e *Embedded) Client() *ethclient.Client { return e.client }

// Key is the funded account's key; it owns the contract.
func (e *Embedded) Key() *ecdsa.PrivateKey { return e.key }

// Contract is the SealRegistry's address.
func (e *Embedded) Contract() common.Address { return e.contract }

// ChainID is the chain's EIP-155 id.
func (e *Embedded) ChainID() *big.Int { return new(big.Int).Set(e.chainID) }

// RPCURL is the http:// URL where the chain serves JSON-RPC, with the port actually bound, or "" when
// it serves none.
func (e *Embedded) RPCURL() string {
	if e.stack == nil {
		return ""
	}
	u := e.stack.HTTPEndpoint()
	if u == "http://" || strings.HasSuffix(u, ":0") {
		return ""
	}
	return u
}

// Anchorer returns an Anchorer over the in-process client with 0 confirmations (see Embedded) under the
// network name.
func (e *Embedded) Anchorer(ctx context.Context, network string) (*Anchorer, error) {
	return NewAnchorer(ctx, e.client, e.contract, e.key, network, Options{PollInterval: 20 * time.Millisecond, AnchorGasLimit: e.gasLimit, Development: true})
}

// closeWait bounds how long Close waits for the pool's transactions to be sealed (see settle).
const closeWait = 10 * time.Second

// Close stops the node, flushing the chain to disk. It first lets the block being sealed finish (settle).
func (e *Embedded) Close() error {
	if e.stack == nil {
		return nil
	}
	if e.client != nil {
		e.client.Close()
	}
	e.settle(e.closeWait)
	err := e.stack.Close()
	e.stack = nil
	return err
}

// settle waits, up to limit, until the pool holds no transaction ready to be sealed. The simulated beacon
// seals on a goroutine of its own as soon as a transaction reaches the pool, and its Stop does not wait
// for that block: a database closed under it fails the block's state reads on several goroutines at once,
// where go-ethereum v1.17.8 records the error without a lock (StateDB.setError, a data race), and the
// transaction, kept in no journal (TxPool.NoLocals), is gone at the next start. A sent transaction is
// queued, then pending, and leaves the pool only when the pool resets to the head of a block that includes
// it, after that block is inserted: an empty pool means no block is being built for one. Past the limit (a
// transaction the miner will not take, one whose nonce leaves a gap) Close goes on.
func (e *Embedded) settle(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		if pending, queued := e.eth.TxPool().Stats(); pending+queued == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}
