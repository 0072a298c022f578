package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald/evm"
	"seald.dev/seald/internal/wiring"
	"seald.dev/seald/secret"
)

// chainHeads reads, for `keys rotate --signing`, the head of each chain the service anchors on: the embedded
// chain in the data dir (serve must be stopped: it holds the chain) or the --chain and --eos-chain RPC URLs.
// Read after the key is retired, a head is a block every anchor made before the retirement is at or below.
// A chain that cannot be read is reported and skipped: its anchors are then ordered by time, as before.
func chainHeads(ctx context.Context, cfg *wiring.Config, stderr io.Writer) map[string]uint64 {
	heads := map[string]uint64{}
	read := func(what string, client *ethclient.Client) {
		id, err := client.ChainID(ctx)
		if err == nil {
			var head uint64
			if head, err = client.BlockNumber(ctx); err == nil {
				heads[id.String()] = head
				return
			}
		}
		fmt.Fprintf(stderr, "keys rotate: the head of %s could not be read (%v): the retirement on that chain is by time only\n", what, err)
	}
	dial := func(what, url string) {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		client, err := ethclient.DialContext(ctx, url)
		if err != nil {
			fmt.Fprintf(stderr, "keys rotate: %s: %v: the retirement on that chain is by time only\n", what, err)
			return
		}
		defer client.Close()
		read(what, client)
	}
	if cfg.EmbeddedChain() {
		dir := filepath.Join(cfg.DataDir, "chain")
		if _, err := os.Stat(dir); err == nil {
			e, err := evm.OpenEmbedded(dir, evm.EmbeddedOptions{})
			if err != nil {
				fmt.Fprintf(stderr, "keys rotate: the embedded chain: %v (stop serve first): the retirement on it is by time only\n", err)
			} else {
				read("the embedded chain", e.Client())
				e.Close()
			}
		}
	} else {
		dial("--chain", cfg.Chain)
	}
	if cfg.EOSChain != "" {
		dial("--eos-chain", cfg.EOSChain)
	}
	return heads
}

// recordRetiredBlocks sets the heads read by chainHeads on the signing key just retired.
func recordRetiredBlocks(k *secret.Keys, retiredID string, heads map[string]uint64, stdout io.Writer) error {
	for chain, head := range heads {
		if err := k.SetRetiredBlock(retiredID, chain, head); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "signing key %s covers anchors up to block %d of chain %s\n", retiredID, head, chain)
	}
	return nil
}
