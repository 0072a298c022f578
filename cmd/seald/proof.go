package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/evm"
	"seald.dev/seald/jcs"
	"seald.dev/seald/proof"
)

// Exit statuses of `seald proof verify` and `seald verify`, for scripts (docs/cli.md).
const (
	exitInvalid     = 1 // the proof is not valid (or, for verify, no such record)
	exitUnchecked   = 2 // it could not be checked: a node, file or trust root was unreachable or missing (as exitUsage)
	exitRevoked     = 3 // valid, but the token is revoked on chain (verify: the record is REVOKED)
	exitSuspended   = 4 // verify: the record is SUSPENDED
	trustRootSuffix = "/.well-known/seald-trust.json"
)

// exitError is an error that main turns into a given exit status.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitWith(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// exitCode is the exit status of err: 0 for nil and -h, the exitError's code (exitUsage for a command given
// wrongly), else 1.
func exitCode(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0 // -h printed the usage asked for
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return 1
}

// proofVerify checks a proof bundle, or a selective-disclosure presentation (disclose.go), against a chain's RPC endpoint and the issuer's trust root, without
// calling seald; or a record's credential, either form (credverify.go). FILE may be a bare bundle, an API answer with ?proof=1, or the output of
// `seald verify --json --proof`.
func proofVerify(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("proof verify", "FILE --rpc URL (--trust FILE|URL [--trust-repin] | --no-trust) [--data FILE] [--issuer DOMAIN] [--issuer-doc FILE]\n"+
		"   or: seald proof verify --batch FILE|URL --rpc URL (--trust FILE|URL [--trust-repin] | --no-trust)", stderr)
	rpc := fs.String("rpc", "", "JSON-RPC URL of a node of the bundle's chain")
	trust := fs.String("trust", "", "the issuer's trust root: a file, or its URL (https://ISSUER"+trustRootSuffix+")")
	noTrust := fs.Bool("no-trust", false, "check without a trust root: the issuer is then whoever the bundle says")
	pinDir := fs.String("trust-pin-dir", trustPinDir(), "where trust roots fetched by URL are pinned, one file per origin")
	repin := fs.Bool("trust-repin", false, "pin the trust root fetched from --trust URL even though it is not signed by the pinned one's key")
	dataFile := fs.String("data", "", "a file holding the sealed JSON data: its canonical hash must be the bundle's")
	issuerDoc := fs.String("issuer-doc", "", "the issuer's DID document (a file, e.g. a saved copy), instead of resolving its did:web")
	issuerDomain := fs.String("issuer", "", "the domain whose did:web key must have signed the file (https://DOMAIN/.well-known/did.json)")
	batch := fs.String("batch", "", "check a batch manifest (a file, or its URL: a bundle's manifest member) instead of FILE")
	names := []string{"FILE"}
	if batchGiven(args) {
		names = nil
	}
	pos, err := parseArgs(fs, args, getenv, names...)
	if err != nil {
		return err
	}
	if *batch != "" {
		if len(pos) > 0 || *dataFile != "" {
			return usageError("proof verify --batch checks a batch manifest: give no FILE and no --data")
		}
		return batchVerify(ctx, *batch, *rpc, *trust, *noTrust, *pinDir, *repin, stdout, stderr)
	}
	if len(pos) == 0 {
		fs.Usage()
		return usageError("proof verify needs FILE or --batch")
	}
	file := pos[0]
	if b, err := os.ReadFile(file); err == nil {
		if vc, sd := credentialFile(b); vc != nil || sd != "" {
			if *issuerDomain != "" {
				return usageError("--issuer checks a proof bundle or a presentation; a credential names its issuer's DID itself (--issuer-doc FILE pins its document)")
			}
			return credentialVerify(ctx, vc, sd, credentialCheck{file: file, issuerDoc: *issuerDoc, rpc: *rpc, stdout: stdout, stderr: stderr},
				*trust, *pinDir, *repin, *dataFile)
		}
	}
	if *rpc == "" {
		fs.Usage()
		return usageError("proof verify needs --rpc URL: a node of the bundle's chain")
	}
	if *trust == "" && !*noTrust {
		return usageError("no trust root: give --trust with the issuer's trust root (a file, or https://ISSUER%s), "+
			"or --no-trust to check without one", trustRootSuffix)
	}
	if *trust != "" && *noTrust {
		return usageError("--trust and --no-trust: give one")
	}
	who, err := loadIssuer(ctx, *issuerDomain, *issuerDoc)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return exitWith(exitUnchecked, "%v", err)
	}
	if fileType(b) == proof.TypeDisclosurePackage {
		return exitWith(exitInvalid, "%s is a disclosure package, which reveals every member: make a presentation of some with `seald disclose %s --members ...` and verify that", file, file)
	}
	if fileType(b) == proof.TypePresentation {
		if *dataFile != "" {
			return usageError("--data: a presentation shows only some members; there is no whole data to compare")
		}
		var src *trustSource
		if *trust != "" {
			if src, err = loadTrust(ctx, *trust, *pinDir, *repin); err != nil {
				return exitWith(exitUnchecked, "--trust: %v", err)
			}
		}
		return presentationVerify(ctx, b, file, *rpc, src, who, stdout, stderr)
	}
	p, err := proof.Parse(unwrapProof(b))
	if err != nil {
		return exitWith(exitInvalid, "%s: %v", file, seald.ErrorMessage(err))
	}
	var src *trustSource
	var match *proof.TrustMatch
	if *trust != "" {
		if src, err = loadTrust(ctx, *trust, *pinDir, *repin); err != nil {
			return exitWith(exitUnchecked, "--trust: %v", err)
		}
		if src.note != "" {
			// After the verdict, which scripts read first.
			defer fmt.Fprintln(stderr, src.note)
		}
		if match, err = src.root.Check(p); err != nil {
			return exitWith(exitInvalid, "proof of %s is NOT valid: %v", p.Reference, err)
		}
	}
	if who != nil {
		// The business's signature over the same digest as the service's: no chain is needed to refuse it.
		if err := p.CheckIssuer(who.did, who.keys); err != nil {
			return exitWith(exitInvalid, "proof of %s is NOT signed by the issuer %s: %s", p.Reference, proof.Domain(who.did), seald.ErrorMessage(err))
		}
	}
	if *dataFile != "" {
		data, err := os.ReadFile(*dataFile)
		if err != nil {
			return exitWith(exitUnchecked, "--data: %v", err)
		}
		c, err := jcs.Canonicalize(bytes.TrimSpace(data))
		if err != nil {
			return exitWith(exitInvalid, "--data: %s has no canonical JSON form: %v", *dataFile, err)
		}
		sum := sha256.Sum256(c)
		if got := hex.EncodeToString(sum[:]); got != p.Hash {
			return exitWith(exitInvalid, "proof of %s is NOT valid for this data: the data's hash is %s, the bundle's %s", p.Reference, got, p.Hash)
		}
	}
	client, err := ethclient.DialContext(ctx, *rpc)
	if err != nil {
		return exitWith(exitUnchecked, "--rpc: %v", err)
	}
	defer client.Close()
	check, err := evm.CheckProof(ctx, client, p)
	if seald.ErrorCode(err) == seald.EUNAVAILABLE {
		return exitWith(exitUnchecked, "could not check the proof of %s: %v (--rpc %s)", p.Reference, err, *rpc)
	}
	if err != nil {
		return exitWith(exitInvalid, "proof of %s is NOT valid: %v", p.Reference, seald.ErrorMessage(err))
	}
	if match != nil {
		if err := match.CheckChain(p, check.Sender, check.Anchored); err != nil {
			return exitWith(exitInvalid, "proof of %s is NOT valid: %v", p.Reference, err)
		}
	}
	chain := trustedChainName(match, p.ChainID)
	what := fmt.Sprintf("%s (hash %s) is anchored as token %s of contract %s on %s in block %d (%s), sent by %s, signed by key %s",
		p.Reference, p.Hash, p.TokenID, p.Contract, chain, p.BlockNumber, check.Anchored.Format(time.RFC3339), check.Sender,
		keyName(p))
	if *dataFile != "" {
		what += "; the data matches"
	}
	if src != nil {
		what += "; the issuer " + src.from + " lists the chain, the contract for that block, the anchoring address and the key"
		if match.Network.Development {
			what += " (a development chain: it proves nothing beyond the issuer's own machine)"
		}
	} else {
		what += "; NOT checked against a trust root (--no-trust): the chain, contract, anchoring address and key are only the bundle's own claims"
	}
	if check.Revoked {
		fmt.Fprintf(stdout, "REVOKED: %s; the token is revoked on chain\n", what)
		return &exitError{code: exitRevoked, err: fmt.Errorf("%s is revoked on chain", p.Reference)}
	}
	fmt.Fprintf(stdout, "ok: %s; not revoked\n", what)
	fmt.Fprintln(stdout, who.verdict(p.Issuer))
	return nil
}

func keyName(p *proof.Bundle) string {
	if p.KeyID != "" {
		return p.KeyID
	}
	return p.PublicKey
}

// unwrapProof accepts a bare bundle, an API answer ({"success":…,"data":{…,"proof":{…}}}) or the output of
// `seald verify --json --proof` ({…,"proof":{…}}).
func unwrapProof(b []byte) []byte {
	var shapes struct {
		Proof json.RawMessage `json:"proof"`
		Data  struct {
			Proof json.RawMessage `json:"proof"`
		} `json:"data"`
	}
	if json.Unmarshal(b, &shapes) != nil {
		return b
	}
	if len(shapes.Data.Proof) > 0 && string(shapes.Data.Proof) != "null" {
		return shapes.Data.Proof
	}
	if len(shapes.Proof) > 0 && string(shapes.Proof) != "null" {
		return shapes.Proof
	}
	return b
}

// trustExport writes the issuer's trust root, read from a running serve, after checking its form: the file
// to hand to verifiers (seald proof verify --trust FILE).
func trustExport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var a apiFlags
	fs := newFlagSet("trust export", "[--out FILE]", stderr)
	a.urlFlags(fs)
	out := fs.String("out", "", "file to write (default: standard output)")
	if _, err := a.parse(fs, args, getenv); err != nil {
		return err
	}
	b, _, err := fetchTrustRoot(ctx, strings.TrimRight(a.URL, "/")+trustRootSuffix, false)
	if err != nil {
		return fmt.Errorf("trust export: %v", a.explain(err))
	}
	t, err := proof.ParseTrustRoot(b)
	if err == nil {
		err = t.CheckSigned()
	}
	if err != nil {
		return fmt.Errorf("trust export: %s", seald.ErrorMessage(err))
	}
	// Written as served: re-encoding would keep the signatures valid (they cover the canonical form) but
	// drop any member this seald does not know.
	if *out == "" {
		_, err = stdout.Write(b)
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}
