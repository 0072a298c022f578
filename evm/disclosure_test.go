package evm

import (
	"testing"
)

// BatchTree: every content and disclosure proof leads to the root; with no commitment the tree is the one
// MerkleProofs built before; no disclosure proof holds a node computable from content leaves alone.
func TestBatchTree(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 8} {
		hashes := make([][32]byte, n)
		commitments, blinds := make([]*[32]byte, n), make([]*[32]byte, n)
		for i := range hashes {
			hashes[i][0] = byte(i + 1)
			if i != 1 { // record 1 was sealed before selective disclosure
				c, b := [32]byte{0xc0, byte(i)}, [32]byte{0xb0, byte(i)}
				commitments[i], blinds[i] = &c, &b
			}
		}
		plain, pp, dp, err := BatchTree(10, hashes, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		leaves := make([][32]byte, n)
		for i, h := range hashes {
			leaves[i] = LeafHash(10+uint64(i), h)
		}
		old, oldProofs, _ := MerkleProofs(leaves)
		if plain != old || len(pp) != n || len(dp) != n {
			t.Fatalf("n=%d: without commitments the tree changed", n)
		}
		for i := range leaves {
			if !VerifyMerkle(leaves[i], pp[i], plain) || len(pp[i]) != len(oldProofs[i]) {
				t.Fatalf("n=%d: plain proof %d", n, i)
			}
		}
		root, proofs, dproofs, err := BatchTree(10, hashes, commitments, blinds)
		if err != nil {
			t.Fatal(err)
		}
		if root == plain {
			t.Fatalf("n=%d: the commitments left the root unchanged", n)
		}
		for i := range hashes {
			if !VerifyMerkle(leaves[i], proofs[i], root) {
				t.Fatalf("n=%d: content proof %d does not verify", n, i)
			}
			if commitments[i] == nil {
				if dproofs[i] != nil {
					t.Fatalf("n=%d: a disclosure proof for a record without commitment", n)
				}
				continue
			}
			d := DisclosureLeaf(10+uint64(i), *commitments[i])
			if !VerifyMerkle(d, dproofs[i], root) {
				t.Fatalf("n=%d: disclosure proof %d does not verify", n, i)
			}
			if VerifyMerkle(DisclosureLeaf(11+uint64(i), *commitments[i]), dproofs[i], root) {
				t.Fatalf("n=%d: disclosure proof %d verifies for another token", n, i)
			}
			// No node of the path is a content leaf, or a pair of content leaves alone.
			for _, node := range dproofs[i] {
				for j := range leaves {
					if node == leaves[j] {
						t.Fatalf("n=%d: disclosure proof %d shows content leaf %d", n, i, j)
					}
					for k := range leaves {
						if node == hashPair(leaves[j], leaves[k]) {
							t.Fatalf("n=%d: disclosure proof %d shows a pair of content leaves", n, i)
						}
					}
				}
			}
		}
	}
}
