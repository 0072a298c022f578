package service

import (
	"context"
	"strings"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// PublicRecord finds the record a public link names: a D- or I- reference, or an encrypted OVI. Anything
// that names no record, including a malformed reference and an OVI that is not this service's (tampered,
// truncated, sealed under another key), is ENOTFOUND: the page answers "no such record", and a link that
// can never be valid is not a client error worth telling apart from one that is simply unknown.
func (s *Service) PublicRecord(ctx context.Context, id string) (*seald.PublicRecord, error) {
	r, err := s.publicLookup(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Privacy != seald.PrivacyPublic {
		return &seald.PublicRecord{Private: true, Status: r.Status, Development: s.Chains[r.Network].Development}, nil
	}
	v, err := s.verification(ctx, nil, r)
	if err != nil {
		return nil, err
	}
	pr := &seald.PublicRecord{
		Status: r.Status, Reference: r.Reference, Hash: r.Hash, CID: r.CID, Network: r.Network,
		Chain: s.Chains[r.Network], Development: s.Chains[r.Network].Development, TokenID: r.TokenID, RevokedOnChain: r.RevokedOnChain, CreatedAt: r.CreatedAt,
		ErasedAt: r.ErasedAt, Business: v.Business, Project: v.Project,
	}
	if pr.Issuer, _, err = s.recordIssuer(ctx, r, false); err != nil {
		return nil, err
	}
	if r.TokenID != 0 && r.BatchID != 0 {
		b, err := s.Store.Batch(ctx, r.BatchID)
		if err != nil {
			return nil, err
		}
		if b.State == seald.BatchConfirmed {
			pr.TxHash, pr.BlockNumber = b.TxHash, b.BlockNumber
		} else {
			pr.TokenID = 0 // not anchored until its batch is confirmed, as in the proof bundle
		}
	}
	if r.Status == seald.StatusRevoked {
		if pr.RevokeReason, err = s.revokeReason(ctx, r.Reference); err != nil {
			return nil, err
		}
	}
	if r.RevokedOnChain {
		rv, err := s.Store.Revocation(ctx, r.Network, r.TokenID)
		if err == nil && rv.State == seald.BatchConfirmed {
			pr.RevokeTx, pr.RevokedAt = rv.TxHash, rv.UpdatedAt
		} else if err != nil && seald.ErrorCode(err) != seald.ENOTFOUND {
			return nil, err
		}
	}
	return pr, nil
}

// TokenURIBase is the tokenURI prefix of a network's contract: the service's token metadata, to which the
// contract appends the decimal token id.
func (s *Service) TokenURIBase(network string) string {
	return strings.TrimRight(s.PublicURL, "/") + "/tokens/" + network + "/"
}

// TokenMetadata returns the metadata of an anchored token of a network; ENOTFOUND for a token that is not
// minted (or not yet confirmed) there.
func (s *Service) TokenMetadata(ctx context.Context, network, tokenID string) (*seald.TokenMetadata, error) {
	notFound := seald.Errorf(seald.ENOTFOUND, "no token %s on %s", tokenID, network)
	net, err := seald.ParseNetwork(network)
	if err != nil || net != network {
		return nil, notFound
	}
	id, ok, err := seald.ParseTokenID(tokenID)
	if err != nil || !ok {
		return nil, notFound
	}
	r, err := s.Store.RecordByToken(ctx, network, id)
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	b, err := s.Store.Batch(ctx, r.BatchID)
	if err != nil {
		return nil, err
	}
	if b.State != seald.BatchConfirmed {
		return nil, notFound
	}
	m := &seald.TokenMetadata{Name: "seald record #" + tokenID, Attributes: []seald.TokenTrait{{TraitType: "network", Value: network}}}
	if r.Privacy != seald.PrivacyPublic {
		m.Description = "A private sealed record: that it exists, and when it was anchored, is all that is public."
		return m, nil
	}
	m.Description = "Sealed record " + r.Reference + ": the SHA-256 " + r.Hash + " of its data is anchored by this token."
	m.ExternalURL = s.VerificationLink(r.Reference)
	m.Image = strings.TrimRight(s.PublicURL, "/") + "/v/" + r.Reference + "/qr.png"
	m.Attributes = append(m.Attributes, seald.TokenTrait{TraitType: "status", Value: string(r.Status)},
		seald.TokenTrait{TraitType: "hash", Value: r.Hash})
	return m, nil
}

// PublicProof returns the proof bundle of the record a public link names, for anyone: only for a PUBLIC
// record, and once it is anchored; ENOTFOUND otherwise, as the page.
func (s *Service) PublicProof(ctx context.Context, id string) (*proof.Bundle, error) {
	r, err := s.publicLookup(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Privacy != seald.PrivacyPublic {
		return nil, seald.Errorf(seald.ENOTFOUND, "no sealed record under this reference")
	}
	return s.proof(ctx, r)
}

// publicLookup finds the record a public link names (see PublicRecord).
func (s *Service) publicLookup(ctx context.Context, id string) (*seald.Record, error) {
	notFound := seald.Errorf(seald.ENOTFOUND, "no sealed record under this reference")
	var r *seald.Record
	var err error
	if strings.HasPrefix(id, seald.PrefixAuthentication) || strings.HasPrefix(id, seald.PrefixGenerator) {
		if seald.ParseReference(id) != nil {
			return nil, notFound
		}
		r, err = s.Store.Record(ctx, id)
	} else {
		ref, hash, derr := s.Secrets.DecryptOVI(id)
		if derr != nil {
			return nil, notFound
		}
		r, err = s.Store.Record(ctx, ref)
		if err == nil && r.Hash != hash {
			return nil, notFound
		}
	}
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}
