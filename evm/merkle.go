package evm

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/crypto"
)

// The Merkle tree of a batch, computed exactly as SealRegistry.verify recomputes it on chain:
//
//	leaf  = keccak256(0x00 || uint256(tokenID) || contentHash)
//	inner = keccak256(0x01 || min(a, b) || max(a, b))
//
// The prefixes keep leaves and inner nodes apart, so no inner node can pass for a leaf. Pairs are sorted
// before hashing, so a proof is only the list of siblings, without left/right bits. A level with an odd
// number of nodes promotes its last node unchanged to the next level: it is never paired with itself,
// which would let two different batches share a root. A batch of one has its leaf as root and an empty
// proof.

// LeafHash is the Merkle leaf of a token: it binds the token id to the record's content hash, so a proof
// for one token cannot be replayed for another token of the same batch.
func LeafHash(tokenID uint64, contentHash [32]byte) [32]byte {
	var buf [1 + 32 + 32]byte
	buf[0] = 0x00
	new(big.Int).SetUint64(tokenID).FillBytes(buf[1:33])
	copy(buf[33:], contentHash[:])
	return crypto.Keccak256Hash(buf[:])
}

// hashPair is the inner node over two children, in sorted order.
func hashPair(a, b [32]byte) [32]byte {
	if bytes.Compare(a[:], b[:]) > 0 {
		a, b = b, a
	}
	var buf [1 + 32 + 32]byte
	buf[0] = 0x01
	copy(buf[1:33], a[:])
	copy(buf[33:], b[:])
	return crypto.Keccak256Hash(buf[:])
}

// MerkleRoot is the root over leaves in order; it is what the anchor transaction stores.
func MerkleRoot(leaves [][32]byte) ([32]byte, error) {
	if len(leaves) == 0 {
		return [32]byte{}, errors.New("merkle: no leaves")
	}
	level := append([][32]byte(nil), leaves...)
	for len(level) > 1 {
		level = nextLevel(level)
	}
	return level[0], nil
}

// MerkleProofs returns the root and, for each leaf, its path of siblings from the leaf up to the root. One
// pass builds every proof, so a batch of n leaves costs O(n log n) instead of n separate tree builds.
func MerkleProofs(leaves [][32]byte) (root [32]byte, proofs [][][32]byte, err error) {
	if len(leaves) == 0 {
		return [32]byte{}, nil, errors.New("merkle: no leaves")
	}
	proofs = make([][][32]byte, len(leaves))
	// pos[i] is the index of leaf i's ancestor in the current level.
	pos := make([]int, len(leaves))
	for i := range pos {
		pos[i] = i
	}
	level := append([][32]byte(nil), leaves...)
	for len(level) > 1 {
		for i, p := range pos {
			sib := p ^ 1
			if sib < len(level) {
				proofs[i] = append(proofs[i], level[sib])
			}
			pos[i] = p / 2
		}
		level = nextLevel(level)
	}
	return level[0], proofs, nil
}

func nextLevel(level [][32]byte) [][32]byte {
	next := make([][32]byte, 0, (len(level)+1)/2)
	for i := 0; i+1 < len(level); i += 2 {
		next = append(next, hashPair(level[i], level[i+1]))
	}
	if len(level)%2 == 1 {
		next = append(next, level[len(level)-1])
	}
	return next
}

// VerifyMerkle reports whether proof leads from leaf to root. It is the Go twin of the contract's verify, so
// a bundle can be checked offline before asking the chain.
func VerifyMerkle(leaf [32]byte, proof [][32]byte, root [32]byte) bool {
	h := leaf
	for _, sib := range proof {
		h = hashPair(h, sib)
	}
	return h == root
}

// DisclosureLeaf is the Merkle leaf of a record's selective-disclosure commitment (proof.BuildSD): it binds the
// token id to the commitment under its own prefix, so it can never pass for a content leaf or an inner node.
func DisclosureLeaf(tokenID uint64, commitment [32]byte) [32]byte {
	var buf [1 + 32 + 32]byte
	buf[0] = 0x02
	new(big.Int).SetUint64(tokenID).FillBytes(buf[1:33])
	copy(buf[33:], commitment[:])
	return crypto.Keccak256Hash(buf[:])
}

// BatchTree is the Merkle tree of a batch (issue 35). Without any disclosure commitment it is exactly
// MerkleProofs over the content leaves, as before. With some, record i's node is its content leaf paired
// with its blinding node (a secret of seald's) when it has a commitment, else the leaf alone; the content
// side is the tree over those nodes, the disclosure side the tree over the disclosure leaves in token order,
// and the root pairs the two:
//
//	root = hashPair(contentRoot, disclosureRoot)
//
// A content leaf's proof is [blind,] its path in the content side, disclosureRoot; the contract's verify and
// every existing verifier accept it unchanged. A disclosure leaf's proof is its path in the disclosure side,
// then contentRoot. No node of a disclosure proof is a function of content hashes alone (each holds a blind
// no presentation shows), so a presentation lets no one confirm a guess of the hidden members.
func BatchTree(first uint64, hashes [][32]byte, commitments, blinds []*[32]byte) (root [32]byte, proofs, dproofs [][][32]byte, err error) {
	n := len(hashes)
	if n == 0 {
		return root, nil, nil, errors.New("merkle: no leaves")
	}
	if (commitments != nil && len(commitments) != n) || len(blinds) != len(commitments) {
		return root, nil, nil, errors.New("merkle: commitments and blinds must match the hashes")
	}
	nodes := make([][32]byte, n)
	proofs = make([][][32]byte, n)
	var dleaves [][32]byte
	var dindex []int
	for i, h := range hashes {
		nodes[i] = LeafHash(first+uint64(i), h)
		if commitments != nil && commitments[i] != nil {
			if blinds[i] == nil {
				return root, nil, nil, errors.New("merkle: a commitment without its blind")
			}
			proofs[i] = [][32]byte{*blinds[i]}
			nodes[i] = hashPair(nodes[i], *blinds[i])
			dleaves = append(dleaves, DisclosureLeaf(first+uint64(i), *commitments[i]))
			dindex = append(dindex, i)
		}
	}
	croot, cproofs, err := MerkleProofs(nodes)
	if err != nil {
		return root, nil, nil, err
	}
	for i := range proofs {
		proofs[i] = append(proofs[i], cproofs[i]...)
	}
	if len(dleaves) == 0 {
		return croot, proofs, make([][][32]byte, n), nil
	}
	droot, dp, err := MerkleProofs(dleaves)
	if err != nil {
		return root, nil, nil, err
	}
	for i := range proofs {
		proofs[i] = append(proofs[i], droot)
	}
	dproofs = make([][][32]byte, n)
	for j, i := range dindex {
		dproofs[i] = append(dp[j], croot)
	}
	return hashPair(croot, droot), proofs, dproofs, nil
}
