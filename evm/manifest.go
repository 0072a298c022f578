package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// The batch manifest (proof.BatchManifest, issue 41) in terms of the batch's tree: BuildManifest makes it
// from what the store keeps of a batch, ManifestRoot recomputes the root from it with BatchTree's shape (the
// content side over the content nodes, the disclosure side over the disclosure leaves in token order, the
// root pairing the two, or the content side alone without disclosure leaves), and CheckManifest compares that
// root with the one the chain holds for the batch's tokens.

// ContentNode is a token's node on the content side of its batch's tree: its content leaf paired with its
// blind, or the leaf alone (blind nil).
func ContentNode(leaf [32]byte, blind *[32]byte) [32]byte {
	if blind == nil {
		return leaf
	}
	return hashPair(leaf, *blind)
}

// BuildManifest makes the manifest of a confirmed batch on chain ch from its contents. Every token must have
// a blind: a content leaf published alone would let anyone confirm a guess of a record's data (a private
// one's too), which no bundle of another record lets them do, so a batch sealed before blinded leaves has no
// manifest (ENOTFOUND). The root recomputed from the manifest must be the batch's, or it is EINTERNAL.
func BuildManifest(ch seald.Chain, c *seald.BatchContents) (*proof.BatchManifest, error) {
	b := c.Batch
	if b == nil || len(c.Tokens) != b.Count {
		return nil, errors.New("evm: a batch's contents without its tokens")
	}
	m := &proof.BatchManifest{Version: proof.ManifestVersion, Network: b.Network, ChainID: ch.ChainID, Contract: ch.Contract,
		FirstTokenID: b.FirstTokenID, Count: b.Count, Root: b.Root, TxHash: b.TxHash, BlockNumber: b.BlockNumber,
		Tokens: make([]proof.ManifestToken, len(c.Tokens))}
	for i, t := range c.Tokens {
		if t.Blind == "" || t.Commitment == "" {
			return nil, seald.Errorf(seald.ENOTFOUND, "the batch of token %d on %s was sealed before content leaves were blinded: "+
				"its manifest would show its records' leaves, and is not published", t.TokenID, b.Network)
		}
		leaf, err := decodeNode(t.Leaf)
		if err != nil {
			return nil, fmt.Errorf("evm: token %d: leaf: %w", t.TokenID, err)
		}
		blind, err := decodeHash(t.Blind)
		if err != nil {
			return nil, fmt.Errorf("evm: token %d: blind: %w", t.TokenID, err)
		}
		commitment, err := decodeHash(t.Commitment)
		if err != nil {
			return nil, fmt.Errorf("evm: token %d: commitment: %w", t.TokenID, err)
		}
		cn, dn := ContentNode(leaf, &blind), DisclosureLeaf(t.TokenID, commitment)
		m.Tokens[i] = proof.ManifestToken{TokenID: t.TokenID, ContentNode: hexutil.Encode(cn[:]), DisclosureNode: hexutil.Encode(dn[:])}
	}
	if err := CheckManifestRoot(m); err != nil {
		return nil, fmt.Errorf("evm: the manifest of batch %d: %w", b.ID, err)
	}
	return m, nil
}

// ManifestRoot recomputes the root of a manifest's batch after checking its shape: version, tokens
// first_token_id..first_token_id+count-1 in order, each once, with one content node of 32 bytes and at most
// one disclosure node. It reports how many disclosure nodes the batch holds.
func ManifestRoot(m *proof.BatchManifest) (root [32]byte, disclosures int, err error) {
	if m.Version != proof.ManifestVersion {
		return root, 0, fmt.Errorf("manifest version %d is not %d", m.Version, proof.ManifestVersion)
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

// CheckManifestRoot recomputes the manifest's root and compares it with the root it states.
func CheckManifestRoot(m *proof.BatchManifest) error {
	root, _, err := ManifestRoot(m)
	if err != nil {
		return err
	}
	if !strings.EqualFold(hexutil.Encode(root[:]), m.Root) {
		return fmt.Errorf("the manifest's tokens recompute root %s, not the %s it states", hexutil.Encode(root[:]), m.Root)
	}
	return nil
}

// ManifestCheck is what CheckManifest found: how many tokens and disclosure nodes the batch holds, and, as
// CheckProof does for a bundle, who sent the anchoring transaction and the time of its block.
type ManifestCheck struct {
	Tokens, Disclosures int
	Sender              string
	Anchored            time.Time
}

// CheckManifest checks a batch manifest against the chain client talks to, with no call to seald: the
// manifest's tokens recompute its root (ManifestRoot: one content node and at most one disclosure node per
// token, nothing else), the node is on the manifest's chain, the contract's batch of its first token is
// exactly its token range with that root, and the transaction is the anchor that stored it in the stated
// block. An invalid manifest is EINVALID naming what failed; a node that cannot answer is EUNAVAILABLE.
func CheckManifest(ctx context.Context, client *ethclient.Client, m *proof.BatchManifest) (*ManifestCheck, error) {
	root, disclosures, err := ManifestRoot(m)
	if err != nil {
		return nil, rejected("%v", err)
	}
	if !strings.EqualFold(hexutil.Encode(root[:]), m.Root) {
		return nil, rejected("the manifest's tokens recompute root %s, not the %s it states", hexutil.Encode(root[:]), m.Root)
	}
	oc, err := rootOnChain(ctx, client, m.ChainID, m.Contract, m.FirstTokenID, root, m.Root)
	if err != nil {
		return nil, err
	}
	out, err := oc.call(oc.reg.PackBatchOf(oc.tok))
	if err != nil {
		return nil, unavailable("batchOf", err)
	}
	b, err := oc.reg.UnpackBatchOf(out)
	if err != nil {
		return nil, rejected("contract %s: batchOf: %v", oc.contract.Hex(), err)
	}
	if b.Root != root || !b.FirstTokenId.IsUint64() || b.FirstTokenId.Uint64() != m.FirstTokenID ||
		!b.Count.IsUint64() || b.Count.Uint64() != uint64(m.Count) {
		return nil, rejected("contract %s holds root %s for tokens %s to %s, not %s for tokens %d to %d: the manifest is not that batch's, whole",
			oc.contract.Hex(), hexutil.Encode(b.Root[:]), b.FirstTokenId, new(big.Int).Sub(new(big.Int).Add(b.FirstTokenId, b.Count), big.NewInt(1)),
			m.Root, m.FirstTokenID, m.FirstTokenID+uint64(m.Count)-1)
	}
	anchor := &proof.Bundle{TxHash: m.TxHash, BlockNumber: m.BlockNumber, Root: m.Root}
	check, err := checkAnchorTx(ctx, client, anchor, oc.contract, m.FirstTokenID, root, oc.id)
	if err != nil {
		return nil, err
	}
	return &ManifestCheck{Tokens: m.Count, Disclosures: disclosures, Sender: check.Sender, Anchored: check.Anchored}, nil
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
