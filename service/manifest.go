package service

import (
	"context"
	"strconv"
	"strings"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// BatchManifest returns the manifest of the confirmed batch of a network that holds a token, for anyone:
// token ids and the roots on chain are public, and the manifest shows no record's data (BatchContents).
// ENOTFOUND for an unknown network, a malformed token id, a token no confirmed batch holds, or when this
// service publishes no manifests.
func (s *Service) BatchManifest(ctx context.Context, network, tokenID string) (*proof.BatchManifest, error) {
	notFound := seald.Errorf(seald.ENOTFOUND, "no confirmed batch holds token %s on %s", tokenID, network)
	ch, known := s.Chains[network]
	id, ok, err := seald.ParseTokenID(tokenID)
	if !known || err != nil || !ok || s.BuildManifest == nil {
		return nil, notFound
	}
	c, err := s.Store.BatchContents(ctx, network, id)
	if seald.ErrorCode(err) == seald.ENOTFOUND {
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
