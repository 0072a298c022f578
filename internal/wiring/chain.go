package wiring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald"
	"seald/evm"
)

// openChains sets up the anchorer of each configured network: POLYGON on the embedded chain or an RPC URL,
// EOS (EOS EVM) only when --eos-chain is given.
func openChains(ctx context.Context, cfg *Config, logger *slog.Logger, p *Parts, closers *CloseList) error {
	switch cfg.TransferEvents {
	case "", "consecutive", "per-token":
	default:
		return fmt.Errorf("--contract-transfer-events must be consecutive or per-token, not %q", cfg.TransferEvents)
	}
	var polygon *evm.Anchorer
	if cfg.Chain == "" || cfg.Chain == "embedded" {
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
		}
		logger.Warn("POLYGON records are anchored on seald's embedded development chain, not on Polygon: "+
			"their proofs show nothing beyond this machine; give --chain the RPC URL of a Polygon (or Amoy) node to anchor for real",
			"chain", polygon.Chain().Name())
	} else {
		a, err := dialChain(ctx, cfg, seald.NetworkPolygon, cfg.Chain, cfg.ChainKeyFile, cfg.Contract)
		if err != nil {
			return err
		}
		polygon = a
		// The RPC URL is left out: providers put their API key in it. The contract is what every other
		// instance needs as --contract.
		logger.Info("anchoring", "network", seald.NetworkPolygon, "chain_id", a.Chain().ChainID,
			"contract", a.Chain().Contract, "signer", a.Address().Hex())
	}
	closers.Add("polygon anchorer", func() error { polygon.Close(); return nil })
	p.add(polygon, cfg.ExplorerURL)
	if cfg.EOSChain != "" {
		a, err := dialChain(ctx, cfg, seald.NetworkEOS, cfg.EOSChain, cfg.EOSKeyFile, cfg.EOSContract)
		if err != nil {
			return err
		}
		closers.Add("eos anchorer", func() error { a.Close(); return nil })
		p.add(a, cfg.EOSExplorerURL)
	}
	return nil
}

func (p *Parts) add(a *evm.Anchorer, explorer string) {
	ch := a.Chain()
	ch.Explorer = strings.TrimRight(explorer, "/")
	p.Anchorers[ch.Network] = a
	p.Chains[ch.Network] = ch
	p.Checks["chain_"+strings.ToLower(ch.Network)] = func(ctx context.Context) error {
		_, err := a.NextTokenID(ctx)
		return err
	}
}

// dialChain connects to a network's node over RPC. Without a contract address it uses the one deployed by
// an earlier start (kept in the data dir), or deploys the SealRegistry and keeps its address.
func dialChain(ctx context.Context, cfg *Config, network, url, keyFile, contract string) (*evm.Anchorer, error) {
	flagName := "--chain"
	if network == seald.NetworkEOS {
		flagName = "--eos-chain"
	}
	if keyFile == "" {
		return nil, fmt.Errorf("%s %s needs a signer key file (%s-key-file)", flagName, url, flagName)
	}
	key, err := evm.LoadKeyFile(keyFile)
	if err != nil {
		return nil, err
	}
	saved := filepath.Join(cfg.DataDir, "contract-"+strings.ToLower(network)+".json")
	if contract == "" {
		var rec struct{ Address, RPC string }
		if b, err := os.ReadFile(saved); err == nil && json.Unmarshal(b, &rec) == nil && rec.Address != "" {
			contract = rec.Address
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if contract == "" {
		client, err := ethclient.DialContext(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flagName, err)
		}
		addr, err := evm.DeployWith(ctx, client, key, deployOptions(cfg, network))
		client.Close()
		if err != nil {
			return nil, fmt.Errorf("deploy SealRegistry on %s: %w", network, err)
		}
		contract = addr.Hex()
		if err := WritePrivateJSON(saved, map[string]string{"address": contract, "rpc": url}); err != nil {
			return nil, err
		}
	}
	if !common.IsHexAddress(contract) {
		return nil, fmt.Errorf("contract address %q of %s is not an address", contract, network)
	}
	return evm.DialAnchorer(ctx, url, common.HexToAddress(contract), key, network, evm.Options{Confirmations: cfg.Confirmations, AnchorGasLimit: cfg.AnchorGasLimit})
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
