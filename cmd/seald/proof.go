package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/ethclient"

	"seald"
	"seald/evm"
	"seald/internal/wiring"
)

// proofVerify checks a proof bundle against a chain's RPC endpoint, without calling seald: it exits non-zero
// naming what failed. FILE may be a bare bundle or a whole verification answer with ?proof=1.
func proofVerify(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg wiring.Config
	fs := wiring.FlagSet("proof verify", &cfg, false)
	fs.SetOutput(stderr)
	rpc := fs.String("rpc", "", "JSON-RPC URL of a node of the bundle's chain")
	var file string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if err := wiring.Parse(fs, args, getenv); err != nil {
		return err
	}
	if file == "" {
		file = fs.Arg(0)
	}
	if file == "" || *rpc == "" {
		return fmt.Errorf("usage: seald proof verify FILE --rpc URL")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	p, err := seald.ParseProof(unwrapProof(b))
	if err != nil {
		return fmt.Errorf("%s: %v", file, seald.ErrorMessage(err))
	}
	client, err := ethclient.DialContext(ctx, *rpc)
	if err != nil {
		return fmt.Errorf("--rpc: %w", err)
	}
	defer client.Close()
	if err := evm.VerifyProof(ctx, client, p); err != nil {
		return fmt.Errorf("proof of %s is NOT valid: %w", p.Reference, err)
	}
	fmt.Fprintf(stdout, "ok: %s (hash %s) is anchored as token %s of contract %s on chain %s in block %d, not revoked, signed by %s\n",
		p.Reference, p.Hash, p.TokenID, p.Contract, p.ChainID, p.BlockNumber, p.PublicKey)
	return nil
}

// unwrapProof accepts either a bundle or a verification answer ({"success":…,"data":{…,"proof":{…}}}).
func unwrapProof(b []byte) []byte {
	var answer struct {
		Data struct {
			Proof json.RawMessage `json:"proof"`
		} `json:"data"`
	}
	if json.Unmarshal(b, &answer) == nil && len(answer.Data.Proof) > 0 {
		return answer.Data.Proof
	}
	return b
}
