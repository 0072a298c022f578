package proof_test

import (
	"strings"
	"testing"

	"seald.dev/seald/proof"
)

// FuzzParseProof: a bundle from anywhere is refused (an *proof.Error) or of the right shape, and checking its
// signature never panics.
func FuzzParseProof(f *testing.F) {
	f.Add([]byte(`{"version":1,"reference":"D-x","hash":"` + strings.Repeat("a", 64) + `","network":"POLYGON","chain_id":"1","contract":"0x1","token_id":"1","leaf":"0x1","root":"0x1","tx_hash":"0x1","public_key":"a","signature":"b"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := proof.Parse(b)
		if err != nil {
			if !proof.IsRefusal(err) {
				t.Fatalf("error %v is not a refusal", err)
			}
			return
		}
		if !proof.IsHash(p.Hash) || p.Version < 1 || p.Version > proof.Version {
			t.Fatalf("accepted a bundle of the wrong shape: %+v", p)
		}
		_ = p.VerifySignature() // must not panic
	})
}

func TestProofSignature(t *testing.T) {
	s := newSigner(t)
	p := &proof.Bundle{Version: 1, Reference: "D-1", Hash: strings.Repeat("a", 64), CID: "bafk", Network: "POLYGON",
		ChainID: "137", Contract: "0xC", TokenID: "5"}
	p.Sign(s)
	if err := p.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*proof.Bundle){
		"hash":     func(p *proof.Bundle) { p.Hash = strings.Repeat("b", 64) },
		"token":    func(p *proof.Bundle) { p.TokenID = "6" },
		"chain":    func(p *proof.Bundle) { p.ChainID = "1" },
		"contract": func(p *proof.Bundle) { p.Contract = "0xD" },
	} {
		q := *p
		mutate(&q)
		if q.VerifySignature() == nil {
			t.Errorf("signature still verifies after changing the %s", name)
		}
	}
}
