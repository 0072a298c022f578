package proof_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/jcs"
	"seald.dev/seald/proof"
)

// Issue 41's review: a presentation must carry the issuer's signature (its sd_jwt), as a bundle does, and a
// retired key's signature is trusted only for an anchor made before the retirement.
func TestTrustRootCheckPresentation(t *testing.T) {
	current, retired, compromised, stranger := newSigner(t), newSigner(t), newSigner(t), newSigner(t)
	const anchorContract = "0x00000000000000000000000000000000000000aa"
	retiredAt := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	key := func(s testSigner, status string) proof.TrustKey {
		k := proof.TrustKey{KeyID: proof.KeyID(s.PublicKey()), Algorithm: "Ed25519",
			PublicKey: base64.StdEncoding.EncodeToString(s.PublicKey()), Status: status}
		if status != "current" {
			k.RetiredAt = &retiredAt
		}
		return k
	}
	doc, _ := json.Marshal(proof.TrustRoot{Version: 2, Issuer: "https://seal.example",
		Keys:     []proof.TrustKey{key(current, "current"), key(retired, "retired"), key(compromised, "compromised")},
		Networks: []proof.TrustNetwork{{Network: "POLYGON", ChainID: "137", Contracts: []proof.TrustContract{{Contract: anchorContract, Anchorer: anchorContract}}}}})
	root, err := proof.ParseTrustRoot(doc)
	if err != nil {
		t.Fatal(err)
	}
	canon, _ := jcs.Canonicalize([]byte(`{"name":"Ada","degree":"MSc"}`))
	sd, err := proof.BuildSD(canon, bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	commitment := hex.EncodeToString(sd.Commitment[:])
	anchor := proof.DisclosureAnchor{Network: "POLYGON", ChainID: "137", Contract: "0x00000000000000000000000000000000000000aa", TokenID: "7"}
	present := func(s proof.Signer) *proof.Presentation {
		pkg := &proof.DisclosurePackage{Type: proof.TypeDisclosurePackage, Version: proof.DisclosureVersion,
			DisclosureAnchor: anchor, SDPayload: sd.Payload, Disclosures: sd.Disclosures}
		if s != nil {
			jwt, err := proof.SignIssuerJWT(sd.Payload, root.Issuer, retiredAt, anchor, commitment, s)
			if err != nil {
				t.Fatal(err)
			}
			var ds []string
			for _, d := range sd.Disclosures {
				ds = append(ds, d.Disclosure)
			}
			pkg.SDJWT = proof.JoinSDJWT(jwt, ds)
		}
		p, err := pkg.Present([]string{"/name"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	before, after := retiredAt.Add(-time.Second), retiredAt
	for name, c := range map[string]struct {
		p        *proof.Presentation
		anchored time.Time
		refused  string
	}{
		"current key":                        {present(current), after, ""},
		"retired key, anchor before":         {present(retired), before, ""},
		"retired key, anchor at or after":    {present(retired), after, "retired at 2025-03-01T12:00:00Z"},
		"compromised key":                    {present(compromised), before, "does not list"},
		"a stranger's key":                   {present(stranger), before, "does not list"},
		"no sd_jwt (the anchoring key only)": {present(nil), before, "carries no sd_jwt"},
	} {
		k, err := root.CheckPresentation(c.p, commitment, c.anchored)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", name, err)
		case c.refused == "" && k.KeyID == "":
			t.Errorf("%s: no key returned", name)
		case c.refused != "" && (!proof.IsRefusal(err) || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s: %v, want a refusal saying %q", name, err, c.refused)
		}
	}
}
