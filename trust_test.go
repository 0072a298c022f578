package seald_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/secret"
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

// TestTrustRootCheck: a bundle is the issuer's only when its chain and contract are listed, its anchor's block
// is within the contract's range, and its key is listed and not compromised; a retired key only for anchors
// made before its retirement (CheckChain).
func TestTrustRootCheck(t *testing.T) {
	current, retired, compromised, stranger := newSigner(t), newSigner(t), newSigner(t), newSigner(t)
	retiredAt := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	key := func(s testSigner, status string) seald.TrustKey {
		k := seald.TrustKey{KeyID: seald.KeyID(s.PublicKey()), Algorithm: "Ed25519",
			PublicKey: base64.StdEncoding.EncodeToString(s.PublicKey()), Status: status}
		if status != "current" {
			k.RetiredAt = &retiredAt
		}
		return k
	}
	ten := uint64(10)
	doc, _ := json.Marshal(seald.TrustRoot{Version: 2, Issuer: "https://seal.example",
		Keys: []seald.TrustKey{key(current, "current"), key(retired, "retired"), key(compromised, "compromised")},
		Networks: []seald.TrustNetwork{{Network: "POLYGON", ChainID: "137", Contracts: []seald.TrustContract{
			{Contract: "0x00000000000000000000000000000000000000DD", Anchorer: "0x00000000000000000000000000000000000000ee", FromBlock: 0, ToBlock: &ten},
			{Contract: "0x00000000000000000000000000000000000000AA", Anchorer: "0x00000000000000000000000000000000000000bb", FromBlock: 11},
		}}}})
	root, err := seald.ParseTrustRoot(doc)
	if err != nil {
		t.Fatal(err)
	}
	signed := func(s testSigner, edit func(p *seald.Proof)) *seald.Proof {
		p := sampleProof(seald.ProofVersion)
		p.Contract, p.BlockNumber = "0x00000000000000000000000000000000000000aa", 20
		if edit != nil {
			edit(p)
		}
		p.Sign(s)
		return p
	}
	old := func(p *seald.Proof) { p.Contract, p.BlockNumber = "0x00000000000000000000000000000000000000dd", 9 }
	for name, c := range map[string]struct {
		p    *seald.Proof
		want string
	}{
		"current key":                   {signed(current, nil), ""},
		"retired key":                   {signed(retired, nil), ""},
		"old contract within its range": {signed(current, old), ""},
		"old contract after its range":  {signed(current, func(p *seald.Proof) { old(p); p.BlockNumber = 11 }), "only in blocks 0 to 10"},
		"new contract before its range": {signed(current, func(p *seald.Proof) { p.BlockNumber = 10 }), "only in blocks from 11"},
		"compromised key":               {signed(compromised, nil), "marked compromised"},
		"unlisted key":                  {signed(stranger, nil), "not one the issuer lists"},
		"other contract":                {signed(current, func(p *seald.Proof) { p.Contract = "0x00000000000000000000000000000000000000cc" }), "not the issuer's"},
		"other chain":                   {signed(current, func(p *seald.Proof) { p.ChainID = "80002" }), "not the issuer's"},
		"key id mismatch":               {func() *seald.Proof { p := signed(stranger, nil); p.PublicKey = key(current, "").PublicKey; return p }(), "not one the issuer lists"},
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
	bad := strings.Replace(string(doc), `"key_id":"`+seald.KeyID(current.PublicKey()), `"key_id":"0000000000000000`, 1)
	if _, err := seald.ParseTrustRoot([]byte(bad)); err == nil {
		t.Error("a trust root whose key id does not name its key was accepted")
	}
	v1 := strings.Replace(string(doc), `"version":2`, `"version":1`, 1)
	if _, err := seald.ParseTrustRoot([]byte(v1)); err == nil {
		t.Error("a version 1 trust root was accepted")
	}
}

// TestTrustRootSignedAcrossRotations: the service's trust root is signed by each key not compromised; after
// a rotation the new root continues the pinned one (signed by its current key), a root signed by a stranger
// does not, and once the pinned root's key is compromised nothing continues it. Retired contracts are listed
// with their range and the current one starts after them.
func TestTrustRootSignedAcrossRotations(t *testing.T) {
	k, err := secret.Generate()
	if err != nil {
		t.Fatal(err)
	}
	svc := &seald.Service{Secrets: k, PublicURL: "https://seal.example/", Chains: map[string]seald.Chain{
		"POLYGON": {Network: "POLYGON", ChainID: "137", Contract: "0x00000000000000000000000000000000000000AA", Anchorer: "0x00000000000000000000000000000000000000BB"}}}
	served := func() *seald.TrustRoot {
		b, err := json.MarshalIndent(svc.TrustRoot(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		r, err := seald.ParseTrustRoot(b)
		if err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		if err := r.CheckSigned(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := served()
	if first.Issuer != "https://seal.example" || len(first.Keys) != 1 || first.Keys[0].CurrentFrom == nil {
		t.Errorf("first root: %+v", first)
	}
	if err := k.Rotate(false, true); err != nil {
		t.Fatal(err)
	}
	to := uint64(41)
	if err := k.RetireContract(seald.ContractRange{Network: "POLYGON", ChainID: "137", Contract: "0x00000000000000000000000000000000000000Cc",
		Anchorer: "0x00000000000000000000000000000000000000Dd", FromBlock: 3, ToBlock: &to}); err != nil {
		t.Fatal(err)
	}
	second := served()
	if err := second.Continues(first); err != nil {
		t.Errorf("the root after a rotation does not continue the pinned one: %v", err)
	}
	cs := second.Networks[0].Contracts
	if len(cs) != 2 || cs[0].FromBlock != 3 || *cs[0].ToBlock != 41 || cs[1].FromBlock != 42 || cs[1].ToBlock != nil {
		t.Errorf("contract history: %+v", cs)
	}
	if second.Keys[1].Status != "retired" || second.Keys[1].RetiredAt == nil {
		t.Errorf("the old key after the rotation: %+v", second.Keys[1])
	}
	forged := *second
	forged.Signatures = nil
	b, _ := json.Marshal(forged)
	stripped, _ := seald.ParseTrustRoot(b)
	if stripped.Continues(first) == nil || stripped.CheckSigned() == nil {
		t.Error("an unsigned root continues the pinned one")
	}
	if _, err := k.Compromise(first.Keys[0].KeyID); err != nil {
		t.Fatal(err)
	}
	third := served()
	if third.Continues(first) == nil {
		t.Error("a root continues a pinned one whose key is now compromised")
	}
	if err := third.Continues(second); err != nil {
		t.Errorf("the root after marking an old key compromised does not continue the one pinned before: %v", err)
	}
	if third.Keys[1].Status != "compromised" || third.Keys[1].CompromisedAt == nil {
		t.Errorf("the compromised key: %+v", third.Keys[1])
	}
	rotated, err := k.Compromise(third.Keys[0].KeyID)
	if err != nil || !rotated || k.SigningKeys()[0].ID == third.Keys[0].KeyID {
		t.Errorf("marking the current key compromised: rotated %v %v", rotated, err)
	}
}
