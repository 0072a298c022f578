package seald

import (
	"context"

	"seald.dev/seald/proof"
)

// BatchContents is what the manifest of a batch is made of (proof.BatchManifest, issue 41): the confirmed
// batch, and per token, in token order, what its node in the batch's tree is computed from. Nothing in it is
// a record's data: a content leaf is opaque once paired with its blind, and a commitment is to salted
// members.
type BatchContents struct {
	Batch  *Batch
	Tokens []BatchToken
}

// BatchToken is one token of a batch: its content leaf (0x hex) and, for a record sealed with selective
// disclosure, its blind and disclosure commitment (lowercase hex, Record.DisclosureBlind and
// Record.Disclosure; empty otherwise).
type BatchToken struct {
	TokenID    uint64
	Leaf       string
	Blind      string
	Commitment string
}

// BatchManifests reads what a batch's manifest is made of (the stores implement it).
type BatchManifests interface {
	// BatchContents returns the CONFIRMED batch of network that holds tokenID, with its tokens in order;
	// ENOTFOUND when no confirmed batch holds it.
	BatchContents(ctx context.Context, network string, tokenID uint64) (*BatchContents, error)
}

// ManifestBuilder makes the manifest of a batch on chain ch from its contents (evm.BuildManifest): the nodes
// are keccak256 hashes of the chain's tree, which the domain leaves to the chain's package.
type ManifestBuilder func(ch Chain, c *BatchContents) (*proof.BatchManifest, error)
