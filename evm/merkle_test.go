package evm

import (
	"testing"
)

func leavesFor(n int) [][32]byte {
	hashes := contentHashes("merkle", n)
	leaves := make([][32]byte, n)
	for i, h := range hashes {
		leaves[i] = LeafHash(uint64(i+1), h)
	}
	return leaves
}

func TestMerkleShape(t *testing.T) {
	l := leavesFor(5)
	tests := []struct {
		name   string
		leaves [][32]byte
		want   [32]byte
	}{
		{"one leaf is its own root", l[:1], l[0]},
		{"two leaves", l[:2], hashPair(l[0], l[1])},
		{"odd leaf promoted, not duplicated", l[:3], hashPair(hashPair(l[0], l[1]), l[2])},
		{"five leaves", l[:5], hashPair(hashPair(hashPair(l[0], l[1]), hashPair(l[2], l[3])), l[4])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MerkleRoot(tt.leaves)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("root %x, want %x", got, tt.want)
			}
		})
	}
	if _, err := MerkleRoot(nil); err == nil {
		t.Error("MerkleRoot of no leaves: no error")
	}
	if _, _, err := MerkleProofs(nil); err == nil {
		t.Error("MerkleProofs of no leaves: no error")
	}
}

func TestHashPairIsSortedAndDomainSeparated(t *testing.T) {
	l := leavesFor(2)
	if hashPair(l[0], l[1]) != hashPair(l[1], l[0]) {
		t.Error("hashPair depends on order")
	}
	// An inner node over two children must differ from the leaf hash of the same 64 bytes: the prefix
	// keeps the two kinds apart.
	if hashPair(l[0], l[1]) == LeafHash(0, l[1]) {
		t.Error("inner node equals a leaf")
	}
}

func TestMerkleProofsVerify(t *testing.T) {
	for n := 1; n <= 40; n++ {
		leaves := leavesFor(n)
		root, proofs, err := MerkleProofs(leaves)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := MerkleRoot(leaves); root != want {
			t.Fatalf("n=%d: MerkleProofs root differs from MerkleRoot", n)
		}
		for i, leaf := range leaves {
			if !VerifyMerkle(leaf, proofs[i], root) {
				t.Fatalf("n=%d: proof of leaf %d does not verify", n, i)
			}
			other := leaves[(i+1)%n]
			if n > 1 && VerifyMerkle(other, proofs[i], root) {
				t.Fatalf("n=%d: proof of leaf %d verifies another leaf", n, i)
			}
			if len(proofs[i]) > 0 {
				bad := append([][32]byte(nil), proofs[i]...)
				bad[0][0] ^= 1
				if VerifyMerkle(leaf, bad, root) {
					t.Fatalf("n=%d: tampered proof of leaf %d verifies", n, i)
				}
				if VerifyMerkle(leaf, proofs[i][:len(proofs[i])-1], root) {
					t.Fatalf("n=%d: truncated proof of leaf %d verifies", n, i)
				}
			}
		}
	}
}

func TestLeafBindsTokenAndHash(t *testing.T) {
	h := contentHashes("leaf", 2)
	if LeafHash(1, h[0]) == LeafHash(2, h[0]) {
		t.Error("leaf ignores the token id")
	}
	if LeafHash(1, h[0]) == LeafHash(1, h[1]) {
		t.Error("leaf ignores the content hash")
	}
}

func BenchmarkMerkleProofs1024(b *testing.B) {
	leaves := leavesFor(1024)
	for b.Loop() {
		if _, _, err := MerkleProofs(leaves); err != nil {
			b.Fatal(err)
		}
	}
}
