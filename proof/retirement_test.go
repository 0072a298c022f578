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

// TestRetirementByBlock (issue 41, deliverable 4): a key retired at 23:10:26 with chain 137 at block 20 covers a
// bundle and a presentation anchored in block 20 in that same second (block times are whole seconds: by time
// alone they were refused as "after" the retirement), and not one in block 21 of the same second; on a chain
// the key lists no block for, the time decides, as in a trust root from before retired_blocks.
func TestRetirementByBlock(t *testing.T) {
	current, retired := newSigner(t), newSigner(t)
	retiredAt := time.Date(2026, 11, 28, 23, 10, 26, 0, time.UTC)
	const contract = "0x00000000000000000000000000000000000000aa"
	key := func(s testSigner, status string) proof.TrustKey {
		k := proof.TrustKey{KeyID: proof.KeyID(s.PublicKey()), Algorithm: "Ed25519",
			PublicKey: base64.StdEncoding.EncodeToString(s.PublicKey()), Status: status}
		if status == "retired" {
			k.RetiredAt = &retiredAt
			k.RetiredBlocks = []proof.TrustKeyBlock{{ChainID: "137", Block: 20}}
		}
		return k
	}
	doc, _ := json.Marshal(proof.TrustRoot{Version: 2, Issuer: "https://seal.example",
		Keys: []proof.TrustKey{key(current, "current"), key(retired, "retired")},
		Networks: []proof.TrustNetwork{
			{Network: "POLYGON", ChainID: "137", Contracts: []proof.TrustContract{{Contract: contract, Anchorer: contract}}},
			{Network: "EOS", ChainID: "17777", Contracts: []proof.TrustContract{{Contract: contract, Anchorer: contract}}},
		}})
	root, err := proof.ParseTrustRoot(doc)
	if err != nil {
		t.Fatal(err)
	}
	sameSecond, before := retiredAt.Add(900*time.Millisecond).Truncate(time.Second), retiredAt.Add(-time.Second)

	t.Run("bundle", func(t *testing.T) {
		for name, c := range map[string]struct {
			chain    string
			block    uint64
			anchored time.Time
			refused  string
		}{
			"same second, the last block the key covers": {"137", 20, sameSecond, ""},
			"same second, the next block":                {"137", 21, sameSecond, "retired at block 20 of chain 137"},
			"a later block with an earlier time":         {"137", 21, before, "retired at block 20 of chain 137"},
			"another chain, same second (by time)":       {"17777", 5, sameSecond, "was retired at 2026-11-28T23:10:26Z"},
			"another chain, a second before (by time)":   {"17777", 5, before, ""},
		} {
			p := sampleProof(proof.Version)
			p.ChainID, p.Contract, p.BlockNumber = c.chain, contract, c.block
			p.Sign(retired)
			m, err := root.Check(p)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			err = m.CheckChain(p, contract, c.anchored)
			if c.refused == "" && err != nil || c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)) {
				t.Errorf("%s: %v, want %q", name, err, c.refused)
			}
		}
	})

	t.Run("presentation", func(t *testing.T) {
		canon, _ := jcs.Canonicalize([]byte(`{"name":"Ada","degree":"MSc"}`))
		sd, err := proof.BuildSD(canon, bytes.Repeat([]byte{7}, 32))
		if err != nil {
			t.Fatal(err)
		}
		commitment := hex.EncodeToString(sd.Commitment[:])
		present := func(block uint64) *proof.Presentation {
			anchor := proof.DisclosureAnchor{Network: "POLYGON", ChainID: "137", Contract: contract, TokenID: "7", BlockNumber: block}
			jwt, err := proof.SignIssuerJWT(sd.Payload, root.Issuer, retiredAt, anchor, commitment, retired)
			if err != nil {
				t.Fatal(err)
			}
			var ds []string
			for _, d := range sd.Disclosures {
				ds = append(ds, d.Disclosure)
			}
			pkg := &proof.DisclosurePackage{Type: proof.TypeDisclosurePackage, Version: proof.DisclosureVersion,
				DisclosureAnchor: anchor, SDPayload: sd.Payload, Disclosures: sd.Disclosures, SDJWT: proof.JoinSDJWT(jwt, ds)}
			p, err := pkg.Present([]string{"/name"})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		if _, err := root.CheckPresentation(present(20), commitment, sameSecond); err != nil {
			t.Errorf("block 20, the second of the retirement: %v", err)
		}
		if _, err := root.CheckPresentation(present(21), commitment, sameSecond); err == nil || !strings.Contains(err.Error(), "retired at block 20") {
			t.Errorf("block 21, the second of the retirement: %v", err)
		}
	})
}
