package wiring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/evm"
)

// openChains sets up the anchorer of each configured network: POLYGON on the embedded chain or an RPC URL,
// EOS (EOS EVM) only when --eos-chain is given.
func openChains(ctx context.Context, cfg *Config, logger *slog.Logger, p *Parts, closers *CloseList) error {
	// Config.Validate has checked the settings of both networks.
	polygonNet, err := polygonNetwork(cfg)
	if err != nil {
		return err
	}
	eosNet, err := eosNetwork(cfg)
	if err != nil {
		return err
	}
	var polygon *evm.Anchorer
	if cfg.EmbeddedChain() {
		e, err := evm.OpenEmbedded(filepath.Join(cfg.DataDir, "chain"), evm.EmbeddedOptions{RPCAddr: cfg.ChainRPCAddr, AnchorGasLimit: cfg.AnchorGasLimit,
			Deploy: deployOptions(cfg, seald.NetworkPolygon)})
		if err != nil && cfg.ChainRPCAddr != "" && strings.Contains(err.Error(), "address already in use") {
			return fmt.Errorf("--chain-rpc-addr %s is in use by another program: give another host:port, or an empty value to serve no chain JSON-RPC", cfg.ChainRPCAddr)
		}
		if err != nil {
			return fmt.Errorf("open embedded chain: %w", err)
		}
		closers.Add("chain", e.Close)
		if polygon, err = e.Anchorer(ctx, seald.NetworkPolygon); err != nil {
			return err
		}
		if cfg.ChainRPCAddr != "" {
			logger.Info("embedded chain JSON-RPC", "url", e.RPCURL(), "contract", e.Contract().Hex())
			if _, ok := cfg.PublicRPC[seald.NetworkPolygon]; !ok {
				// The page's proof check asks the chain the records are on: here, this machine's own.
				if cfg.PublicRPC == nil {
					cfg.PublicRPC = PublicRPCs{}
				}
				cfg.PublicRPC[seald.NetworkPolygon] = e.RPCURL()
			}
		}
		logger.Warn("POLYGON records are anchored on seald's embedded development chain, not on Polygon: "+
			"their proofs show nothing beyond this machine; give --chain the RPC URL of a Polygon (or Amoy) node to anchor for real",
			"chain", polygon.Chain().Name())
	} else {
		a, err := dialChain(ctx, cfg, polygonNet)
		if err != nil {
			return err
		}
		polygon = a
		warnNotPublic(logger, a.Chain())
		// The RPC URL is left out: providers put their API key in it. The contract is what every other
		// instance needs as --contract.
		logger.Info("anchoring", "network", seald.NetworkPolygon, "chain_id", a.Chain().ChainID,
			"contract", a.Chain().Contract, "signer", a.Address().Hex(), "finality", string(a.Finality()),
			"confirmations", a.Confirmations())
	}
	closers.Add("polygon anchorer", func() error { polygon.Close(); return nil })
	p.add(polygon, cfg.ExplorerURL, cfg.PublicRPC[seald.NetworkPolygon])
	if cfg.EOSChain != "" {
		a, err := dialChain(ctx, cfg, eosNet)
		if err != nil {
			return err
		}
		closers.Add("eos anchorer", func() error { a.Close(); return nil })
		warnNotPublic(logger, a.Chain())
		p.add(a, cfg.EOSExplorerURL, cfg.PublicRPC[seald.NetworkEOS])
		logger.Info("anchoring", "network", seald.NetworkEOS, "chain", a.Chain().Name(), "contract", a.Chain().Contract,
			"signer", a.Address().Hex(), "tx_type", string(eosNet.txType), "finality", string(a.Finality()), "confirmations", a.Confirmations())
	}
	return nil
}

// warnNotPublic warns at start when a network's node serves a chain id that is not a public network's
// (seald.PublicChain): its records are development records, which the page, the API and the CLI say are not
// proven.
func warnNotPublic(logger *slog.Logger, ch seald.Chain) {
	if _, ok := seald.PublicChain(ch.ChainID); !ok {
		logger.Warn(ch.Network+" records are anchored on chain "+ch.ChainID+", which is not a public Polygon (137, Amoy 80002) or "+
			"EOS EVM (17777, testnet 15557) network: they are development records, shown as not proven; give the RPC URL "+
			"of a node of a public network to anchor for real", "chain", ch.Name())
	}
}

// network is one RPC network's settings, with the flags they came from for messages.
type network struct {
	name, flag    string // POLYGON, --chain
	url, keyFile  string
	contract      string
	chainID       uint64 // the chain id the node must serve; 0: any
	chainIDFlag   string
	txType        evm.TxType
	ceiling       *big.Int
	confirmations uint64
	// confirmationsGiven tells an EOS count given by --eos-confirmations from the --confirmations fallback.
	confirmationsGiven bool
	finality           string // auto, finalized or confirmations (--finality)
}

// EOSFinalConfirmations is the confirmations count EOS takes on EOS EVM's own chains (mainnet 17777, testnet
// 15557) when --eos-confirmations is not given. EOS EVM's RPC answers "finalized" with the genesis block (its
// node never records a finalized block, docs/operations.md), so finality there is counted in blocks. Since
// EOS's Savanna consensus a native block is irreversible within 9 native blocks (4.5 s) of the head in
// normal operation, and an EVM block is built from two native blocks (1 s): 12 EVM blocks are twice that.
const EOSFinalConfirmations = 12

// eosEVMChains are the chain ids of EOS EVM mainnet and testnet.
var eosEVMChains = map[uint64]bool{17777: true, 15557: true}

func polygonNetwork(cfg *Config) (network, error) {
	n := network{name: seald.NetworkPolygon, flag: "--chain", url: cfg.Chain, keyFile: cfg.ChainKeyFile, contract: cfg.Contract,
		confirmations: cfg.Confirmations, finality: cfg.Finality}
	if err := n.checkFinality("--finality"); err != nil {
		return n, err
	}
	return n, n.fees(cfg.TxType, "--tx-type", cfg.GasPriceCeiling, "--gas-price-ceiling")
}

func eosNetwork(cfg *Config) (network, error) {
	n := network{name: seald.NetworkEOS, flag: "--eos-chain", url: cfg.EOSChain, keyFile: cfg.EOSKeyFile, contract: cfg.EOSContract,
		chainID: cfg.EOSChainID, chainIDFlag: "--eos-chain-id", confirmations: cfg.EOSConfirmations.Or(cfg.Confirmations), confirmationsGiven: cfg.EOSConfirmations.Given,
		finality: cfg.EOSFinality}
	if err := n.checkFinality("--eos-finality"); err != nil {
		return n, err
	}
	return n, n.fees(cfg.EOSTxType, "--eos-tx-type", cfg.EOSGasPriceCeiling, "--eos-gas-price-ceiling")
}

func (n *network) checkFinality(flag string) error {
	if n.finality == "" || n.finality == "auto" {
		return nil
	}
	if _, err := evm.ParseFinality(n.finality); err != nil {
		return fmt.Errorf("%s: %v (or auto)", flag, err)
	}
	return nil
}

// blocks is the confirmations count on the chain chainID: the flag's, except for EOS on EOS EVM's own chains
// without --eos-confirmations, where it is at least EOSFinalConfirmations.
func (n network) blocks(chainID uint64) uint64 {
	if n.name == seald.NetworkEOS && !n.confirmationsGiven && eosEVMChains[chainID] {
		return max(n.confirmations, EOSFinalConfirmations)
	}
	return n.confirmations
}

// rule is the finality rule of the network on the chain chainID. auto is "finalized" on Polygon PoS and its
// Amoy and Mumbai testnets, whose nodes (bor) serve the finalized block from Heimdall's milestones, and
// "confirmations" everywhere else: on EOS EVM, whose RPC answers "finalized" with the genesis block (see
// EOSFinalConfirmations), and on development chains (geth --dev finalizes only every 32 blocks).
func (n network) rule(chainID uint64) evm.Finality {
	if f, err := evm.ParseFinality(n.finality); err == nil {
		return f
	}
	if n.name == seald.NetworkPolygon {
		switch chainID {
		case 137, 80002, 80001:
			return evm.FinalityFinalized
		}
	}
	return evm.FinalityConfirmations
}

func (n *network) fees(txType, typeFlag, ceiling, ceilingFlag string) error {
	t, err := evm.ParseTxType(txType)
	if err != nil {
		return fmt.Errorf("%s: %v", typeFlag, err)
	}
	n.txType = t
	if strings.TrimSpace(ceiling) == "" {
		return nil // evm.DefaultFeeCeiling
	}
	if n.ceiling, err = ParseGwei(ceiling); err != nil {
		return fmt.Errorf("%s: %v", ceilingFlag, err)
	}
	return nil
}

// probe checks that the URL is an EVM JSON-RPC endpoint serving the configured chain id, before any key
// is used or contract deployed there.
func (n network) probe(ctx context.Context) (uint64, error) {
	client, err := ethclient.DialContext(ctx, n.url)
	if err != nil {
		return 0, fmt.Errorf("%s is not an EVM JSON-RPC endpoint: %v", n.flag, err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	id, err := client.ChainID(ctx)
	if err != nil {
		return 0, fmt.Errorf("%s is not an EVM JSON-RPC endpoint: eth_chainId failed: %v", n.flag, err)
	}
	if n.chainID != 0 && (!id.IsUint64() || id.Uint64() != n.chainID) {
		return 0, fmt.Errorf("%s serves chain id %s, not the %d of %s (EOS EVM mainnet is 17777, its testnet 15557)",
			n.flag, id, n.chainID, n.chainIDFlag)
	}
	if !id.IsUint64() {
		return 0, nil
	}
	return id.Uint64(), nil
}

func (p *Parts) add(a *evm.Anchorer, explorer, publicRPC string) {
	ch := a.Chain()
	ch.Explorer = strings.TrimRight(explorer, "/")
	ch.PublicRPC = publicRPC
	p.Anchorers[ch.Network] = a
	p.Chains[ch.Network] = ch
	p.Checks["chain_"+strings.ToLower(ch.Network)] = func(ctx context.Context) error {
		_, err := a.NextTokenID(ctx)
		return err
	}
}

// dialChain connects to a network's node over RPC. Without a contract address it uses the one deployed by
// an earlier start (kept in the data dir), or deploys the SealRegistry and keeps its address.
func dialChain(ctx context.Context, cfg *Config, n network) (*evm.Anchorer, error) {
	if n.keyFile == "" {
		return nil, fmt.Errorf("%s %s needs a signer key file (%s-key-file)", n.flag, n.url, n.flag)
	}
	key, err := evm.LoadKeyFile(n.keyFile)
	if err != nil {
		return nil, err
	}
	chainID, err := n.probe(ctx)
	if err != nil {
		return nil, err
	}
	saved := filepath.Join(cfg.DataDir, "contract-"+strings.ToLower(n.name)+".json")
	contract := n.contract
	if contract == "" {
		var rec struct{ Address, RPC string }
		if b, err := os.ReadFile(saved); err == nil && json.Unmarshal(b, &rec) == nil && rec.Address != "" {
			contract = rec.Address
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if contract == "" {
		client, err := ethclient.DialContext(ctx, n.url)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.flag, err)
		}
		o := deployOptions(cfg, n.name)
		o.TxType, o.FeeCeiling = n.txType, n.ceiling
		addr, err := evm.DeployWith(ctx, client, key, o)
		client.Close()
		if err != nil {
			return nil, fmt.Errorf("deploy SealRegistry on %s: %w", n.name, err)
		}
		contract = addr.Hex()
		if err := WritePrivateJSON(saved, map[string]string{"address": contract, "rpc": n.url}); err != nil {
			return nil, err
		}
	}
	if !common.IsHexAddress(contract) {
		return nil, fmt.Errorf("contract address %q of %s is not an address", contract, n.name)
	}
	return evm.DialAnchorer(ctx, n.url, common.HexToAddress(contract), key, n.name, evm.Options{Confirmations: n.blocks(chainID),
		Finality: n.rule(chainID), AnchorGasLimit: cfg.AnchorGasLimit, TxType: n.txType, FeeCeiling: n.ceiling})
}

// deployOptions are the settings of a contract seald deploys: the tokenURI prefix is the service's token
// metadata (Service.TokenURIBase), known once the public URL is, and the Transfer events are those of
// --contract-transfer-events.
func deployOptions(cfg *Config, network string) evm.DeployOptions {
	o := evm.DeployOptions{PerTokenTransfers: cfg.TransferEvents == "per-token"}
	if cfg.PublicURL != "" {
		o.BaseURI = strings.TrimRight(cfg.PublicURL, "/") + "/tokens/" + network + "/"
	}
	return o
}

// blockTimes reads block times from each network's anchorer, for the verification page.
type blockTimes map[string]seald.Anchorer

func (b blockTimes) BlockTime(ctx context.Context, network string, block uint64) (time.Time, error) {
	a, ok := b[network].(interface {
		BlockTime(ctx context.Context, block uint64) (time.Time, error)
	})
	if !ok {
		return time.Time{}, fmt.Errorf("no chain for network %s", network)
	}
	return a.BlockTime(ctx, block)
}
