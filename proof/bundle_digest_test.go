package proof_test

import (
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"

	"seald.dev/seald/jcs"
	"seald.dev/seald/proof"
)

// digestByMap is the version 2 digest spelled the long way: the proof's JSON as a map, its signature
// member deleted, in canonical form. Digest must give the same bytes, or every bundle signed so far would
// stop verifying, here and in the offline verifiers.
func digestByMap(t *testing.T, p *proof.Bundle) [32]byte {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "signature")
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	c, err := jcs.Canonicalize(b)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(append([]byte("seald proof v2\n"), c...))
}

// TestProofDigestIsTheCanonicalFormWithoutSignature checks Digest against digestByMap on proofs with every
// member set or empty, characters encoding/json escapes, and a signature that must not count.
func TestProofDigestIsTheCanonicalFormWithoutSignature(t *testing.T) {
	full := proof.Bundle{Version: 2, Reference: "D-00000000-0000-4000-8000-000000000001", Hash: strings.Repeat("ab", 32),
		CID: "bafkreib", Network: "POLYGON", ChainID: "137", ChainName: "Polygon <dev> & \"test\" é \u2028", Contract: "0xC0",
		TokenID: "18446744073709551615", Leaf: "0x01", MerklePath: []string{"0x02", "0x03"}, Root: "0x04", TxHash: "0x05",
		BlockNumber: 1 << 53, KeyID: "0123456789abcdef", PublicKey: "cHVi", Signature: "c2ln"}
	empty := proof.Bundle{Version: 2}
	nilPath := full
	nilPath.MerklePath = nil
	emptyPath := full
	emptyPath.MerklePath = []string{}
	for name, p := range map[string]proof.Bundle{"full": full, "empty": empty, "nil path": nilPath, "empty path": emptyPath} {
		if got, want := p.Digest(), digestByMap(t, &p); got != want {
			t.Errorf("%s: digest %x, want %x", name, got, want)
		}
		unsigned := p
		unsigned.Signature = ""
		if p.Digest() != unsigned.Digest() {
			t.Errorf("%s: the signature changes the digest", name)
		}
	}
}

// TestManifestLinkIsNotSigned: the manifest member is an unsigned link; a bundle with it has the digest of
// the same bundle without it, so bundles signed before it existed, and verifiers that do not know it, agree.
func TestManifestLinkIsNotSigned(t *testing.T) {
	p := proof.Bundle{Version: 2, Reference: "D-00000000-0000-4000-8000-000000000001", Hash: strings.Repeat("ab", 32),
		Network: "POLYGON", ChainID: "137", TokenID: "42", KeyID: "0123456789abcdef", PublicKey: "cHVi"}
	linked := p
	linked.Manifest = "https://seal.example/batches/POLYGON/41"
	if p.Digest() != linked.Digest() {
		t.Error("the manifest link changes the digest")
	}
	if got, want := p.Digest(), digestByMap(t, &p); got != want {
		t.Errorf("a bundle without a manifest: digest %x, want %x", got, want)
	}
}

func BenchmarkProofDigest(b *testing.B) {
	p := proof.Bundle{Version: 2, Reference: "D-00000000-0000-4000-8000-000000000001", Hash: strings.Repeat("ab", 32),
		CID: "bafkreib", Network: "POLYGON", ChainID: "137", ChainName: "Polygon", Contract: "0xC0", TokenID: "42",
		KeyID: "0123456789abcdef", PublicKey: "cHVi"}
	for b.Loop() {
		p.Digest()
	}
}
