package main

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/evm"
	"seald.dev/seald/proof"
)

// discloseCommand makes a presentation of chosen members from a disclosure package, offline
// (docs/disclosure.md): `seald disclose PACKAGE --members name,degree [-o FILE]`.
func discloseCommand(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("disclose", "PACKAGE --members PATH,... [-o FILE]", stderr)
	members := fs.String("members", "", "the members to disclose, comma separated: dotted names (grades.math, items.0) or JSON pointers (/grades/math)")
	out := fs.String("o", "", "file to write the presentation to (default: standard output)")
	pos, err := parseArgs(fs, args, getenv, "PACKAGE")
	if err != nil {
		return err
	}
	if strings.TrimSpace(*members) == "" {
		fs.Usage()
		return usageError("disclose needs --members: the members to show, comma separated")
	}
	var ptrs []string
	for _, m := range strings.Split(*members, ",") {
		p, err := proof.ParseMemberPath(m)
		if err != nil {
			return usageError("--members: %s", seald.ErrorMessage(err))
		}
		ptrs = append(ptrs, p)
	}
	b, err := os.ReadFile(pos[0])
	if err != nil {
		return exitWith(exitUnchecked, "%v", err)
	}
	pkg, err := proof.ParseDisclosurePackage(b)
	if err != nil {
		return exitWith(exitInvalid, "%s: %s", pos[0], seald.ErrorMessage(err))
	}
	pr, err := pkg.Present(ptrs)
	if err != nil {
		return exitWith(exitInvalid, "%s", seald.ErrorMessage(err))
	}
	// The holder's own check, before the file is handed out: the chosen disclosures are the payload's.
	if _, err := pr.Reveal(); err != nil {
		return exitWith(exitInvalid, "%s: %s", pos[0], seald.ErrorMessage(err))
	}
	j, err := json.MarshalIndent(pr, "", "  ")
	if err != nil {
		return err
	}
	j = append(j, '\n')
	if *out == "" {
		_, err = stdout.Write(j)
		return err
	}
	return os.WriteFile(*out, j, 0o644)
}

// fileType is the type member of a file read by `seald proof verify` (a presentation's or a package's, bare or
// in the API's envelope), or "".
func fileType(b []byte) string {
	var t struct {
		Type string `json:"type"`
		Data struct {
			Type string `json:"type"`
		} `json:"data"`
	}
	if json.Unmarshal(b, &t) != nil {
		return ""
	}
	return cmp.Or(t.Type, t.Data.Type)
}

// presentationVerify is `seald proof verify` of a presentation: the disclosures against the payload, the
// payload's commitment against the root the contract holds for the token, the anchoring transaction and its
// sender against the trust root, and the token's revocation. Exit codes as for a bundle.
func presentationVerify(ctx context.Context, b []byte, file, rpc string, src *trustSource, who *issuerCheck, stdout, stderr io.Writer) error {
	p, err := proof.ParsePresentation(b)
	if err != nil {
		return exitWith(exitInvalid, "%s: %v", file, seald.ErrorMessage(err))
	}
	var match *proof.TrustMatch
	if src != nil {
		if src.note != "" {
			defer fmt.Fprintln(stderr, src.note)
		}
		if match, err = src.root.CheckAnchor(p.ChainID, p.Contract, p.BlockNumber); err != nil {
			return exitWith(exitInvalid, "presentation of token %s is NOT valid: %v", p.TokenID, err)
		}
	}
	// The disclosures first: an altered one needs no chain to be refused.
	revealed, err := p.Reveal()
	if err != nil {
		return exitWith(exitInvalid, "presentation of token %s is NOT valid: %s", p.TokenID, seald.ErrorMessage(err))
	}
	if who != nil {
		// The business's signature over the SD-JWT's claims, which must say what the presentation says; the
		// chain then proves the commitment.
		if err := p.CheckIssuer(who.did, hex.EncodeToString(revealed.Commitment[:]), who.keys); err != nil {
			return exitWith(exitInvalid, "presentation of token %s is NOT signed by the issuer %s: %s", p.TokenID, proof.Domain(who.did), seald.ErrorMessage(err))
		}
	}
	iss, err := p.Issuer()
	if err != nil {
		return exitWith(exitInvalid, "presentation of token %s is NOT valid: %s", p.TokenID, seald.ErrorMessage(err))
	}
	client, err := ethclient.DialContext(ctx, rpc)
	if err != nil {
		return exitWith(exitUnchecked, "--rpc: %v", err)
	}
	defer client.Close()
	rv, check, err := evm.CheckPresentation(ctx, client, p)
	if seald.ErrorCode(err) == seald.EUNAVAILABLE {
		return exitWith(exitUnchecked, "could not check the presentation of token %s: %v (--rpc %s)", p.TokenID, err, rpc)
	}
	if err != nil {
		return exitWith(exitInvalid, "presentation of token %s is NOT valid: %s", p.TokenID, seald.ErrorMessage(err))
	}
	sdjwt := ""
	if match != nil {
		if err := match.CheckChain(&proof.Bundle{BlockNumber: p.BlockNumber}, check.Sender, check.Anchored); err != nil {
			return exitWith(exitInvalid, "presentation of token %s is NOT valid: %v", p.TokenID, err)
		}
		// The issuer's signature, as for a bundle: the anchor alone proves only that the anchoring address
		// stored a commitment. Checked with the key's validity window against the chain's anchor time.
		k, err := src.root.CheckPresentation(p, hex.EncodeToString(rv.Commitment[:]), check.Anchored)
		if err != nil {
			return exitWith(exitInvalid, "presentation of token %s is NOT valid: %v", p.TokenID, err)
		}
		sdjwt = "; its SD-JWT form is signed by the issuer's key " + k.KeyID
	}
	chain := trustedChainName(match, p.ChainID)
	what := fmt.Sprintf("the disclosed members (%s) were sealed in token %s of contract %s on %s, anchored in block %d (%s) by %s",
		proof.DescribePaths(rv.Paths), p.TokenID, p.Contract, chain, p.BlockNumber, check.Anchored.Format(time.RFC3339), check.Sender)
	if src != nil {
		what += "; the issuer " + src.from + " lists the chain, the contract for that block and the anchoring address"
		if match.Network.Development {
			what += " (a development chain: it proves nothing beyond the issuer's own machine)"
		}
	} else {
		what += "; NOT checked against a trust root (--no-trust): the chain, contract and anchoring address are only the presentation's own claims"
	}
	what += sdjwt
	if check.Revoked {
		fmt.Fprintf(stdout, "REVOKED: %s; the token is revoked on chain\n%s\n", what, rv.Members)
		return &exitError{code: exitRevoked, err: fmt.Errorf("token %s is revoked on chain", p.TokenID)}
	}
	fmt.Fprintf(stdout, "ok: %s; not revoked\n%s\n", what, rv.Members)
	fmt.Fprintln(stdout, who.verdict(iss))
	return nil
}

// trustedChainName is the chain in words as the trust root names it, never as the file does: a file may say
// "Polygon PoS" of any chain. Without a trust root (--no-trust) it is only the chain id.
func trustedChainName(m *proof.TrustMatch, chainID string) string {
	if m != nil && m.Network.ChainName != "" {
		return m.Network.ChainName
	}
	return "chain " + chainID
}
