package proof_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/proof"
)

type testSigner struct{ k ed25519.PrivateKey }

func (s testSigner) Sign(d []byte) []byte         { return ed25519.Sign(s.k, d) }
func (s testSigner) PublicKey() ed25519.PublicKey { return s.k.Public().(ed25519.PublicKey) }

func newSigner(t *testing.T) testSigner {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testSigner{k}
}

func sampleProof(version int) *proof.Bundle {
	var iss *proof.Issuer
	if version >= 3 {
		iss = &proof.Issuer{BusinessID: "B-1", Name: "Acme University", Status: proof.IssuerSelfDeclared}
	}
	return &proof.Bundle{Issuer: iss, Version: version, Reference: "D-00000000-0000-4000-8000-000000000001", Hash: strings.Repeat("ab", 32),
		CID: "bafkreitest", Network: "POLYGON", ChainID: "137", ChainName: "Polygon PoS (chain 137)",
		Contract: "0x00000000000000000000000000000000000000aa", TokenID: "7", Leaf: "0x01", MerklePath: []string{"0x02"},
		Root: "0x03", TxHash: "0x04", BlockNumber: 9}
}

// Version 2 signs every member: changing any of them, the Merkle path and block included, breaks the
// signature; version 1 bundles (identifying members only) still verify.
func TestProofSignatureCoversEveryMember(t *testing.T) {
	s := newSigner(t)
	p := sampleProof(proof.Version)
	p.Sign(s)
	if err := p.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	if p.KeyID != proof.KeyID(s.PublicKey()) || len(p.KeyID) != 16 {
		t.Errorf("key id %q", p.KeyID)
	}
	for name, change := range map[string]func(p *proof.Bundle){
		"merkle_path":  func(p *proof.Bundle) { p.MerklePath = []string{"0x05"} },
		"block_number": func(p *proof.Bundle) { p.BlockNumber++ },
		"chain_name":   func(p *proof.Bundle) { p.ChainName = "Ethereum" },
		"tx_hash":      func(p *proof.Bundle) { p.TxHash = "0x06" },
		"key_id":       func(p *proof.Bundle) { p.KeyID = strings.Repeat("0", 16) },
	} {
		q := *p
		change(&q)
		if q.VerifySignature() == nil {
			t.Errorf("a bundle with %s changed verifies", name)
		}
	}
	old := sampleProof(1)
	old.Sign(s)
	b, _ := json.Marshal(old)
	parsed, err := proof.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := parsed.VerifySignature(); err != nil {
		t.Errorf("a version 1 bundle: %v", err)
	}
}

// TestTrustRootCheck: a bundle is the issuer's only when its chain and contract are listed, its anchor's block
// is within the contract's range, and its key is listed and not compromised; a retired key only for anchors
// made before its retirement (CheckChain).
func TestTrustRootCheck(t *testing.T) {
	current, retired, compromised, stranger := newSigner(t), newSigner(t), newSigner(t), newSigner(t)
	retiredAt := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	key := func(s testSigner, status string) proof.TrustKey {
		k := proof.TrustKey{KeyID: proof.KeyID(s.PublicKey()), Algorithm: "Ed25519",
			PublicKey: base64.StdEncoding.EncodeToString(s.PublicKey()), Status: status}
		if status != "current" {
			k.RetiredAt = &retiredAt
		}
		return k
	}
	ten := uint64(10)
	doc, _ := json.Marshal(proof.TrustRoot{Version: 2, Issuer: "https://seal.example",
		Keys: []proof.TrustKey{key(current, "current"), key(retired, "retired"), key(compromised, "compromised")},
		Networks: []proof.TrustNetwork{{Network: "POLYGON", ChainID: "137", Contracts: []proof.TrustContract{
			{Contract: "0x00000000000000000000000000000000000000DD", Anchorer: "0x00000000000000000000000000000000000000ee", FromBlock: 0, ToBlock: &ten},
			{Contract: "0x00000000000000000000000000000000000000AA", Anchorer: "0x00000000000000000000000000000000000000bb", FromBlock: 11},
		}}}})
	root, err := proof.ParseTrustRoot(doc)
	if err != nil {
		t.Fatal(err)
	}
	signed := func(s testSigner, edit func(p *proof.Bundle)) *proof.Bundle {
		p := sampleProof(proof.Version)
		p.Contract, p.BlockNumber = "0x00000000000000000000000000000000000000aa", 20
		if edit != nil {
			edit(p)
		}
		p.Sign(s)
		return p
	}
	old := func(p *proof.Bundle) { p.Contract, p.BlockNumber = "0x00000000000000000000000000000000000000dd", 9 }
	for name, c := range map[string]struct {
		p    *proof.Bundle
		want string
	}{
		"current key":                   {signed(current, nil), ""},
		"retired key":                   {signed(retired, nil), ""},
		"old contract within its range": {signed(current, old), ""},
		"old contract after its range":  {signed(current, func(p *proof.Bundle) { old(p); p.BlockNumber = 11 }), "only in blocks 0 to 10"},
		"new contract before its range": {signed(current, func(p *proof.Bundle) { p.BlockNumber = 10 }), "only in blocks from 11"},
		"compromised key":               {signed(compromised, nil), "marked compromised"},
		"unlisted key":                  {signed(stranger, nil), "not one the issuer lists"},
		"other contract":                {signed(current, func(p *proof.Bundle) { p.Contract = "0x00000000000000000000000000000000000000cc" }), "not the issuer's"},
		"other chain":                   {signed(current, func(p *proof.Bundle) { p.ChainID = "80002" }), "not the issuer's"},
		"key id mismatch":               {func() *proof.Bundle { p := signed(stranger, nil); p.PublicKey = key(current, "").PublicKey; return p }(), "not one the issuer lists"},
	} {
		_, err := root.Check(c.p)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}

	m, err := root.Check(signed(retired, nil))
	if err != nil {
		t.Fatal(err)
	}
	anchorer := "0x00000000000000000000000000000000000000BB"
	if err := m.CheckChain(signed(retired, nil), anchorer, retiredAt.Add(-time.Second)); err != nil {
		t.Errorf("a retired key for an anchor before its retirement: %v", err)
	}
	if err := m.CheckChain(signed(retired, nil), anchorer, retiredAt); err == nil || !strings.Contains(err.Error(), "was retired at 2025-03-01T12:00:00Z") {
		t.Errorf("a retired key for an anchor at its retirement: %v", err)
	}
	if err := m.CheckChain(signed(retired, nil), "0x00000000000000000000000000000000000000ee", retiredAt.Add(-time.Hour)); err == nil {
		t.Error("an anchor of the new contract sent by the old contract's anchorer was accepted")
	}
	bad := strings.Replace(string(doc), `"key_id":"`+proof.KeyID(current.PublicKey()), `"key_id":"0000000000000000`, 1)
	if _, err := proof.ParseTrustRoot([]byte(bad)); err == nil {
		t.Error("a trust root whose key id does not name its key was accepted")
	}
	v1 := strings.Replace(string(doc), `"version":2`, `"version":1`, 1)
	if _, err := proof.ParseTrustRoot([]byte(v1)); err == nil {
		t.Error("a version 1 trust root was accepted")
	}
}
