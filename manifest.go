package seald

import (
	"context"
	"strconv"
	"strings"

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

// BatchManifest returns the manifest of the confirmed batch of a network that holds a token, for anyone:
// token ids and the roots on chain are public, and the manifest shows no record's data (BatchContents).
// ENOTFOUND for an unknown network, a malformed token id, a token no confirmed batch holds, or when this
// service publishes no manifests.
func (s *Service) BatchManifest(ctx context.Context, network, tokenID string) (*proof.BatchManifest, error) {
	notFound := Errorf(ENOTFOUND, "no confirmed batch holds token %s on %s", tokenID, network)
	ch, known := s.Chains[network]
	id, ok, err := ParseTokenID(tokenID)
	if !known || err != nil || !ok || s.BuildManifest == nil {
		return nil, notFound
	}
	c, err := s.Store.BatchContents(ctx, network, id)
	if ErrorCode(err) == ENOTFOUND {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	return s.BuildManifest(ch, c)
}

// ManifestURL is where the manifest of the batch that holds a token is published (BatchManifest).
func (s *Service) ManifestURL(network string, tokenID uint64) string {
	return strings.TrimRight(s.PublicURL, "/") + "/batches/" + network + "/" + strconv.FormatUint(tokenID, 10)
}
