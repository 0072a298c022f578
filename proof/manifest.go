package proof

import (
	"encoding/json"
	"fmt"
)

// A batch manifest (issue 41) makes a batch auditable now that each content leaf is blinded: it lists, per
// token of the batch in order, the node that stands for the token on the content side of the batch's tree
// (its content leaf paired with its blind, or the leaf alone when it has no disclosure commitment) and its
// disclosure leaf when it has one. From it anyone recomputes the root the chain holds (evm.ManifestRoot) and
// sees that the batch holds exactly one content node and at most one disclosure node per token, and nothing
// else. It reveals nothing a bundle does not: a blinded node is opaque without its blind, and a disclosure
// leaf commits to salted members. It is not signed: everything in it is checked against the chain.

// ManifestVersion is the version of the manifest format.
const ManifestVersion = 1

// BatchManifest is the published manifest of one batch (GET /batches/{network}/{token_id}).
type BatchManifest struct {
	Version      int             `json:"version"`
	Network      string          `json:"network"`
	ChainID      string          `json:"chain_id"`
	Contract     string          `json:"contract"`
	FirstTokenID uint64          `json:"first_token_id"`
	Count        int             `json:"count"`
	Root         string          `json:"root"` // 0x and 64 hex digits, as anchored
	TxHash       string          `json:"tx_hash"`
	BlockNumber  uint64          `json:"block_number"`
	Tokens       []ManifestToken `json:"tokens"`
}

// ManifestToken is one token of a batch: its content node, and its disclosure leaf when it has one.
type ManifestToken struct {
	TokenID        uint64 `json:"token_id"`
	ContentNode    string `json:"content_node"`
	DisclosureNode string `json:"disclosure_node,omitempty"`
}

// ParseManifest decodes a batch manifest, bare or in an API answer's data member, and checks its shape (not
// its truth: evm.CheckManifest recomputes its root and asks the chain).
func ParseManifest(b []byte) (*BatchManifest, error) {
	var m BatchManifest
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(b, &env) == nil && len(env.Data) > 0 && env.Data[0] == '{' {
		b = env.Data
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, refuse("not a batch manifest: %v", err)
	}
	if m.Version != ManifestVersion {
		return nil, refuse("batch manifest version %d is not supported (want %d)", m.Version, ManifestVersion)
	}
	for _, f := range []struct{ name, v string }{
		{"network", m.Network}, {"chain_id", m.ChainID}, {"contract", m.Contract}, {"root", m.Root}, {"tx_hash", m.TxHash},
	} {
		if f.v == "" {
			return nil, refuse("batch manifest: %s is missing", f.name)
		}
	}
	if m.Count <= 0 || len(m.Tokens) != m.Count {
		return nil, refuse("batch manifest: it lists %d tokens for a batch of %d", len(m.Tokens), m.Count)
	}
	return &m, nil
}

// String names the batch for messages: its network, chain and token range.
func (m *BatchManifest) String() string {
	return fmt.Sprintf("the batch of tokens %d to %d on %s (chain %s)", m.FirstTokenID, m.FirstTokenID+uint64(max(m.Count, 1))-1, m.Network, m.ChainID)
}
