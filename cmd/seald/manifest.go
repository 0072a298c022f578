package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/evm"
	"seald.dev/seald/proof"
)

// maxManifest bounds a manifest read from a URL: a batch of 100,000 tokens is about 20 MB.
const maxManifest = 64 << 20

// batchGiven reports whether the command line of proof verify gives --batch, which takes the place of FILE.
func batchGiven(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "batch" {
			return true
		}
	}
	return false
}

// manifestVerify checks a batch manifest (GET /batches/{network}/{token_id}, a file or its URL) against the
// chain, without trusting seald: it recomputes the root from the manifest's nodes, asks the contract for the
// batch of its first token (exactly its token range, with that root) and checks the anchoring transaction,
// so that the batch holds exactly one content node and at most one disclosure node per token and nothing
// else. With a trust root, the chain, contract, block and anchoring address must be the issuer's.
func manifestVerify(ctx context.Context, where, rpc string, src *trustSource, stdout io.Writer) error {
	b, err := readManifest(ctx, where)
	if err != nil {
		return exitWith(exitUnchecked, "--batch: %v", err)
	}
	m, err := proof.ParseManifest(b)
	if err != nil {
		return exitWith(exitInvalid, "batch manifest %s is NOT valid: %s", where, seald.ErrorMessage(err))
	}
	var match *proof.TrustMatch
	if src != nil {
		if match, err = src.root.CheckAnchor(m.ChainID, m.Contract, m.BlockNumber); err != nil {
			return exitWith(exitInvalid, "%s is NOT valid: %s", m, seald.ErrorMessage(err))
		}
	}
	client, err := ethclient.DialContext(ctx, rpc)
	if err != nil {
		return exitWith(exitUnchecked, "--rpc: %v", err)
	}
	defer client.Close()
	check, err := evm.CheckManifest(ctx, client, m)
	if seald.ErrorCode(err) == seald.EUNAVAILABLE {
		return exitWith(exitUnchecked, "could not check %s: %v (--rpc %s)", m, err, rpc)
	}
	if err != nil {
		return exitWith(exitInvalid, "%s is NOT valid: %s", m, seald.ErrorMessage(err))
	}
	if match != nil && !strings.EqualFold(check.Sender, match.Contract.Anchorer) {
		return exitWith(exitInvalid, "%s is NOT valid: its anchoring transaction was sent by %s, not by the issuer's anchoring address %s",
			m, check.Sender, match.Contract.Anchorer)
	}
	what := fmt.Sprintf("%s: its %d tokens have %d content nodes and %d disclosure nodes, one content node and at most one "+
		"disclosure node each and nothing else; they recompute root %s, which contract %s holds for exactly these tokens, "+
		"anchored by %s in block %d (%s), sent by %s", m, check.Tokens, check.Tokens, check.Disclosures, m.Root, m.Contract,
		m.TxHash, m.BlockNumber, check.Anchored.Format(time.RFC3339), check.Sender)
	if src != nil {
		what += "; the issuer " + src.from + " lists the chain, the contract for that block and the anchoring address"
		if match.Network.Development {
			what += " (a development chain: it proves nothing beyond the issuer's own machine)"
		}
	} else {
		what += "; NOT checked against a trust root (--no-trust): the chain and contract are only the manifest's own claims"
	}
	fmt.Fprintf(stdout, "ok: %s\n", what)
	return nil
}

// readManifest reads a manifest from a file, or GETs it from an http(s) URL (bounded in size and time; no
// trust is put in where it came from: the chain decides).
func readManifest(ctx context.Context, where string) ([]byte, error) {
	if !strings.HasPrefix(where, "http://") && !strings.HasPrefix(where, "https://") {
		return os.ReadFile(where)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", where, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxManifest+1))
	if err == nil && len(b) > maxManifest {
		err = fmt.Errorf("%s: more than %d bytes", where, maxManifest)
	}
	return b, err
}

// batchVerify is proof verify --batch: the same --rpc and trust root rules as for a bundle.
func batchVerify(ctx context.Context, where, rpc, trust string, noTrust bool, pinDir string, repin bool, stdout, stderr io.Writer) error {
	if rpc == "" {
		return usageError("proof verify --batch needs --rpc URL: a node of the batch's chain")
	}
	if trust == "" && !noTrust {
		return usageError("no trust root: give --trust with the issuer's trust root (a file, or https://ISSUER%s), "+
			"or --no-trust to check without one", trustRootSuffix)
	}
	if trust != "" && noTrust {
		return usageError("--trust and --no-trust: give one")
	}
	var src *trustSource
	if trust != "" {
		var err error
		if src, err = loadTrust(ctx, trust, pinDir, repin); err != nil {
			return exitWith(exitUnchecked, "--trust: %v", err)
		}
		if src.note != "" {
			defer fmt.Fprintln(stderr, src.note)
		}
	}
	return manifestVerify(ctx, where, rpc, src, stdout)
}
