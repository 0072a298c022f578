package seald_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"seald.dev/seald"
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

func sampleProof(version int) *seald.Proof {
	return &seald.Proof{Version: version, Reference: "D-00000000-0000-4000-8000-000000000001", Hash: strings.Repeat("ab", 32),
		CID: "bafkreitest", Network: seald.NetworkPolygon, ChainID: "137", ChainName: "Polygon PoS (chain 137)",
		Contract: "0x00000000000000000000000000000000000000aa", TokenID: "7", Leaf: "0x01", MerklePath: []string{"0x02"},
		Root: "0x03", TxHash: "0x04", BlockNumber: 9}
}

// Version 2 signs every member: changing any of them, the Merkle path and block included, breaks the
// signature; version 1 bundles (identifying members only) still verify.
func TestProofSignatureCoversEveryMember(t *testing.T) {
	s := newSigner(t)
	p := sampleProof(seald.ProofVersion)
	p.Sign(s)
	if err := p.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	if p.KeyID != seald.KeyID(s.PublicKey()) || len(p.KeyID) != 16 {
		t.Errorf("key id %q", p.KeyID)
	}
	for name, change := range map[string]func(p *seald.Proof){
		"merkle_path":  func(p *seald.Proof) { p.MerklePath = []string{"0x05"} },
		"block_number": func(p *seald.Proof) { p.BlockNumber++ },
		"chain_name":   func(p *seald.Proof) { p.ChainName = "Ethereum" },
		"tx_hash":      func(p *seald.Proof) { p.TxHash = "0x06" },
		"key_id":       func(p *seald.Proof) { p.KeyID = strings.Repeat("0", 16) },
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
	parsed, err := seald.ParseProof(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := parsed.VerifySignature(); err != nil {
		t.Errorf("a version 1 bundle: %v", err)
	}
}

func TestTrustRootCheck(t *testing.T) {
	current, retired, stranger := newSigner(t), newSigner(t), newSigner(t)
	key := func(s testSigner, status string) seald.TrustKey {
		return seald.TrustKey{KeyID: seald.KeyID(s.PublicKey()), Algorithm: "Ed25519",
			PublicKey: base64.StdEncoding.EncodeToString(s.PublicKey()), Status: status}
	}
	doc, _ := json.Marshal(seald.TrustRoot{Version: 1, Issuer: "https://seal.example", Keys: []seald.TrustKey{key(current, "current"), key(retired, "retired")},
		Networks: []seald.TrustNetwork{{Network: "POLYGON", ChainID: "137", Contract: "0x00000000000000000000000000000000000000AA",
			Anchorer: "0x00000000000000000000000000000000000000bb"}}})
	root, err := seald.ParseTrustRoot(doc)
	if err != nil {
		t.Fatal(err)
	}
	signed := func(s testSigner, edit func(p *seald.Proof)) *seald.Proof {
		p := sampleProof(seald.ProofVersion)
		if edit != nil {
			edit(p)
		}
		p.Sign(s)
		return p
	}
	for name, c := range map[string]struct {
		p    *seald.Proof
		want string
	}{
		"current key":     {signed(current, nil), ""},
		"retired key":     {signed(retired, nil), ""},
		"unlisted key":    {signed(stranger, nil), "not one the issuer lists"},
		"other contract":  {signed(current, func(p *seald.Proof) { p.Contract = "0x00000000000000000000000000000000000000cc" }), "not the issuer's"},
		"other chain":     {signed(current, func(p *seald.Proof) { p.ChainID = "80002" }), "not the issuer's"},
		"key id mismatch": {func() *seald.Proof { p := signed(stranger, nil); p.PublicKey = key(current, "").PublicKey; return p }(), "not one the issuer lists"},
	} {
		_, err := root.Check(c.p)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	bad := strings.Replace(string(doc), `"key_id":"`+seald.KeyID(current.PublicKey()), `"key_id":"0000000000000000`, 1)
	if _, err := seald.ParseTrustRoot([]byte(bad)); err == nil {
		t.Error("a trust root whose key id does not name its key was accepted")
	}
}
