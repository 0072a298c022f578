package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"os"

	"seald.dev/seald/didweb"
	"seald.dev/seald/proof"
)

// issuerCheck is `seald proof verify --issuer DOMAIN` / `--issuer-doc FILE` for a bundle or a presentation
// (issue 41): the DID document of the domain, fetched over HTTPS (TLS verified against the system roots,
// SSL_CERT_FILE honoured) or read from a saved copy, whose keys listed for assertions must have signed the
// file's issuer block.
type issuerCheck struct {
	did  string
	keys map[string]ed25519.PublicKey
	from string // where the document came from, for the verdict
}

// loadIssuer resolves the issuer to check a file against: domain's DID document, or the file doc (whose id
// must then be did:web:domain when both are given). Neither given: nil.
func loadIssuer(ctx context.Context, domain, doc string) (*issuerCheck, error) {
	if domain == "" && doc == "" {
		return nil, nil
	}
	var did string
	if domain != "" {
		var err error
		if did, err = didweb.DID(domain); err != nil {
			return nil, usageError("--issuer %q: %v", domain, err)
		}
	}
	var b []byte
	var from string
	if doc != "" {
		var err error
		if b, err = os.ReadFile(doc); err != nil {
			return nil, exitWith(exitUnchecked, "--issuer-doc: %v", err)
		}
		from = "the DID document " + doc
	} else {
		var err error
		if b, err = (&didweb.Fetcher{}).Fetch(ctx, did); err != nil {
			return nil, exitWith(exitUnchecked, "--issuer %s: could not resolve its DID document: %v", domain, err)
		}
		from, _ = didweb.DocumentURL(did)
		from = "the DID document at " + from
	}
	d, err := didweb.Parse(b)
	if err != nil {
		return nil, exitWith(exitUnchecked, "--issuer: %v", err)
	}
	if did == "" {
		if _, err := didweb.Domain(d.ID); err != nil {
			return nil, exitWith(exitUnchecked, "--issuer-doc %s: %v", doc, err)
		}
		did = d.ID
	}
	if d.ID != did {
		return nil, exitWith(exitUnchecked, "--issuer-doc %s is the DID document of %s, not of %s", doc, d.ID, did)
	}
	keys := d.Keys()
	if len(keys) == 0 {
		return nil, exitWith(exitInvalid, "the DID document of %s lists no Ed25519 key for assertions: nothing is signed by this issuer", did)
	}
	return &issuerCheck{did: did, keys: keys, from: from}, nil
}

// verdict is the line that names who sealed the file, and what that rests on.
func (c *issuerCheck) verdict(iss *proof.Issuer) string {
	if c != nil {
		return fmt.Sprintf("%s; signed by its key %s, listed in %s", proof.DescribeIssuer(iss), iss.KeyID, c.from)
	}
	s := proof.DescribeIssuer(iss)
	switch {
	case iss == nil:
		return s
	case iss.Status == proof.IssuerDomainVerified:
		return s + " (as the issuer block, signed by the service, says; the domain's own key was not checked: " +
			"give --issuer " + proof.Domain(iss.DID) + " to check it)"
	}
	return s
}
