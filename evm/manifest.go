package evm

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// A batch manifest (issue 41) makes a batch auditable again now that each content leaf is blinded: it lists,
// per token of the batch in order, the node that stands for the token on the content side of the tree (its
// content leaf paired with its blind, or the leaf alone when it has no disclosure commitment) and its
// disclosure leaf when it has one. From it anyone recomputes the root the chain holds (BatchTree's shape:
// the content side over the content nodes, the disclosure side over the disclosure leaves in token order, the
// root pairing the two, or the content side alone without disclosure leaves), and so sees that the batch holds
// exactly one content node and at most one disclosure node per token, and nothing else. It reveals nothing a
// bundle does not: a blinded node is opaque without its blind, and a disclosure leaf commits to salted members.

// ManifestVersion is the version of the manifest format.
const ManifestVersion = 1

// BatchManifest is the published manifest of one batch.
type BatchManifest struct {
	Version      int             `json:"version"`
	Network      string          `json:"network"`
	ChainID      string          `json:"chain_id,omitempty"`
	Contract     string          `json:"contract,omitempty"`
	BatchID      int64           `json:"batch_id"`
	FirstTokenID uint64          `json:"first_token_id"`
	Count        int             `json:"count"`
	Root         string          `json:"root"` // 0x and 64 hex digits, as anchored
	Tokens       []ManifestToken `json:"tokens"`
}

// ManifestToken is one token of a batch: its content node, and its disclosure leaf when it has one.
type ManifestToken struct {
	TokenID        uint64 `json:"token_id"`
	ContentNode    string `json:"content_node"`
	DisclosureNode string `json:"disclosure_node,omitempty"`
}

// ContentNode is a token's node on the content side of its batch's tree: its content leaf paired with its
// blind, or the leaf alone (blind nil).
func ContentNode(leaf [32]byte, blind *[32]byte) [32]byte {
	if blind == nil {
		return leaf
	}
	return hashPair(leaf, *blind)
}

// ManifestRoot recomputes the root of a manifest's batch after checking its shape: version, tokens
// first_token_id..first_token_id+count-1 in order, each once, with one content node of 32 bytes and at most
// one disclosure node. It reports how many disclosure nodes the batch holds.
func (m *BatchManifest) ManifestRoot() (root [32]byte, disclosures int, err error) {
	if m.Version != ManifestVersion {
		return root, 0, fmt.Errorf("manifest version %d is not %d", m.Version, ManifestVersion)
	}
	if m.Count <= 0 || len(m.Tokens) != m.Count {
		return root, 0, fmt.Errorf("the manifest lists %d tokens for a batch of %d", len(m.Tokens), m.Count)
	}
	content := make([][32]byte, 0, m.Count)
	var disclosure [][32]byte
	for i, t := range m.Tokens {
		if want := m.FirstTokenID + uint64(i); t.TokenID != want {
			return root, 0, fmt.Errorf("token %d of the manifest is %d, want %d: tokens must be the batch's, in order, each once", i, t.TokenID, want)
		}
		c, err := manifestNode(t.ContentNode)
		if err != nil {
			return root, 0, fmt.Errorf("token %d: content_node: %v", t.TokenID, err)
		}
		content = append(content, c)
		if t.DisclosureNode != "" {
			d, err := manifestNode(t.DisclosureNode)
			if err != nil {
				return root, 0, fmt.Errorf("token %d: disclosure_node: %v", t.TokenID, err)
			}
			disclosure = append(disclosure, d)
		}
	}
	croot, err := MerkleRoot(content)
	if err != nil {
		return root, 0, err
	}
	if len(disclosure) == 0 {
		return croot, 0, nil
	}
	droot, err := MerkleRoot(disclosure)
	if err != nil {
		return root, 0, err
	}
	return hashPair(croot, droot), len(disclosure), nil
}

// Check recomputes the manifest's root and compares it with its own root and with the root read on chain
// (nil: not compared).
func (m *BatchManifest) Check(onChain *[32]byte) error {
	root, _, err := m.ManifestRoot()
	if err != nil {
		return err
	}
	if hexutil.Encode(root[:]) != m.Root {
		return fmt.Errorf("the manifest's tokens recompute root %s, not the %s it states", hexutil.Encode(root[:]), m.Root)
	}
	if onChain != nil && *onChain != root {
		return fmt.Errorf("the manifest's root %s is not the root on chain %s", m.Root, hexutil.Encode(onChain[:]))
	}
	return nil
}

func manifestNode(s string) ([32]byte, error) {
	var out [32]byte
	b, err := hexutil.Decode(s)
	if err != nil {
		return out, err
	}
	if len(b) != 32 {
		return out, errors.New("not 32 bytes")
	}
	copy(out[:], b)
	return out, nil
}
