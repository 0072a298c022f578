package seald_test

import (
	"strings"
	"testing"

	"seald.dev/seald/secret"

	"seald.dev/seald"
)

func FuzzParseProof(f *testing.F) {
	f.Add([]byte(`{"version":1,"reference":"D-x","hash":"` + strings.Repeat("a", 64) + `","network":"POLYGON","chain_id":"1","contract":"0x1","token_id":"1","leaf":"0x1","root":"0x1","tx_hash":"0x1","public_key":"a","signature":"b"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := seald.ParseProof(b)
		if err != nil {
			if seald.ErrorCode(err) != seald.EINVALID {
				t.Fatalf("error %v is not EINVALID", err)
			}
			return
		}
		if !seald.IsHash(p.Hash) || p.Version < 1 || p.Version > seald.ProofVersion {
			t.Fatalf("accepted a bundle of the wrong shape: %+v", p)
		}
		_ = p.VerifySignature() // must not panic
	})
}

func FuzzQueryParameters(f *testing.F) {
	for _, s := range []string{"1", "0", "00", "115792089237316195423570985008687907853269984665640564039457584007913129639935",
		"115792089237316195423570985008687907853269984665640564039457584007913129639936", "-1", "0x1",
		"D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69", "I-0B9C2F1E-5D7A-4C3B-8A9E-1F2D3C4B5A69", "eos", "POLYGON"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok, err := seald.ParseTokenID(s)
		if err == nil && ok && id == 0 {
			t.Fatal("token id 0 accepted as a seald token")
		}
		if err != nil && seald.ErrorCode(err) != seald.EINVALID {
			t.Fatal(err)
		}
		if err := seald.ParseReference(s); err == nil && (len(s) != 38 || strings.ToLower(s[2:]) != s[2:]) {
			t.Fatalf("reference %q accepted", s)
		}
		if n, err := seald.ParseNetwork(s); err == nil && n != seald.NetworkPolygon && n != seald.NetworkEOS {
			t.Fatalf("network %q", n)
		}
	})
}

func TestProofSignature(t *testing.T) {
	s, _ := secret.Generate()
	p := &seald.Proof{Version: 1, Reference: "D-1", Hash: strings.Repeat("a", 64), CID: "bafk", Network: "POLYGON",
		ChainID: "137", Contract: "0xC", TokenID: "5"}
	p.Sign(s)
	if err := p.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*seald.Proof){
		"hash":     func(p *seald.Proof) { p.Hash = strings.Repeat("b", 64) },
		"token":    func(p *seald.Proof) { p.TokenID = "6" },
		"chain":    func(p *seald.Proof) { p.ChainID = "1" },
		"contract": func(p *seald.Proof) { p.Contract = "0xD" },
	} {
		q := *p
		mutate(&q)
		if q.VerifySignature() == nil {
			t.Errorf("signature still verifies after changing the %s", name)
		}
	}
}
