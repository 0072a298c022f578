package seald

import (
	"context"
	"strings"
	"time"

	"seald.dev/seald/proof"
)

// PublicRecord is what the public verification page may show of a record, to anyone without keys. The
// privacy rule is applied here, not in the page's templates: for a PRIVATE record only Private and Status are
// set, so no owner data, hash, CID or token can reach the page by a template mistake.
type PublicRecord struct {
	// Private is true for a record of a PRIVATE project.
	Private bool
	Status  Status
	// Development: the record's network is seald's embedded development chain. Set for a PRIVATE record
	// too, whose page must not read as a verdict either.
	Development bool

	// The rest is left empty for a PRIVATE record.
	Reference      string
	Hash           string // lowercase hex SHA-256 of the canonical data
	CID            string // empty until stored on IPFS
	Network        string
	Chain          Chain  // the network's contract and explorer
	TokenID        uint64 // 0 until anchored
	TxHash         string // the anchoring transaction, once its batch is confirmed
	BlockNumber    uint64 // its block
	RevokedOnChain bool
	RevokeTx       string    // the revocation's transaction, once included
	RevokedAt      time.Time // when its inclusion was seen
	RevokeReason   string    // why the owner revoked it, as the audit trail has it (revokereason.go)
	CreatedAt      time.Time
	ErasedAt       time.Time // when the record's data was erased; zero while it is kept
	Business       *Business
	Project        *Project
}

// PublicRecord finds the record a public link names: a D- or I- reference, or an encrypted OVI. Anything
// that names no record, including a malformed reference and an OVI that is not this service's (tampered,
// truncated, sealed under another key), is ENOTFOUND: the page answers "no such record", and a link that
// can never be valid is not a client error worth telling apart from one that is simply unknown.
func (s *Service) PublicRecord(ctx context.Context, id string) (*PublicRecord, error) {
	r, err := s.publicLookup(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Privacy != PrivacyPublic {
		return &PublicRecord{Private: true, Status: r.Status, Development: s.Chains[r.Network].Development}, nil
	}
	v, err := s.verification(ctx, nil, r)
	if err != nil {
		return nil, err
	}
	pr := &PublicRecord{
		Status: r.Status, Reference: r.Reference, Hash: r.Hash, CID: r.CID, Network: r.Network,
		Chain: s.Chains[r.Network], Development: s.Chains[r.Network].Development, TokenID: r.TokenID, RevokedOnChain: r.RevokedOnChain, CreatedAt: r.CreatedAt,
		ErasedAt: r.ErasedAt, Business: v.Business, Project: v.Project,
	}
	if r.TokenID != 0 && r.BatchID != 0 {
		b, err := s.Store.Batch(ctx, r.BatchID)
		if err != nil {
			return nil, err
		}
		if b.State == BatchConfirmed {
			pr.TxHash, pr.BlockNumber = b.TxHash, b.BlockNumber
		} else {
			pr.TokenID = 0 // not anchored until its batch is confirmed, as in the proof bundle
		}
	}
	if r.Status == StatusRevoked {
		if pr.RevokeReason, err = s.revokeReason(ctx, r.Reference); err != nil {
			return nil, err
		}
	}
	if r.RevokedOnChain {
		rv, err := s.Store.Revocation(ctx, r.Network, r.TokenID)
		if err == nil && rv.State == BatchConfirmed {
			pr.RevokeTx, pr.RevokedAt = rv.TxHash, rv.UpdatedAt
		} else if err != nil && ErrorCode(err) != ENOTFOUND {
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

// TokenMetadata is the ERC-721 metadata JSON of a token (the document tokenURI names), for wallets and
// explorers. A PRIVATE record's says that it exists and nothing more.
type TokenMetadata struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	ExternalURL string       `json:"external_url,omitempty"`
	Image       string       `json:"image,omitempty"`
	Attributes  []TokenTrait `json:"attributes"`
}

// TokenTrait is one attribute of a token's metadata.
type TokenTrait struct {
	TraitType string `json:"trait_type"`
	Value     string `json:"value"`
}

// TokenMetadata returns the metadata of an anchored token of a network; ENOTFOUND for a token that is not
// minted (or not yet confirmed) there.
func (s *Service) TokenMetadata(ctx context.Context, network, tokenID string) (*TokenMetadata, error) {
	notFound := Errorf(ENOTFOUND, "no token %s on %s", tokenID, network)
	net, err := ParseNetwork(network)
	if err != nil || net != network {
		return nil, notFound
	}
	id, ok, err := ParseTokenID(tokenID)
	if err != nil || !ok {
		return nil, notFound
	}
	r, err := s.Store.RecordByToken(ctx, network, id)
	if ErrorCode(err) == ENOTFOUND {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	b, err := s.Store.Batch(ctx, r.BatchID)
	if err != nil {
		return nil, err
	}
	if b.State != BatchConfirmed {
		return nil, notFound
	}
	m := &TokenMetadata{Name: "seald record #" + tokenID, Attributes: []TokenTrait{{TraitType: "network", Value: network}}}
	if r.Privacy != PrivacyPublic {
		m.Description = "A private sealed record: that it exists, and when it was anchored, is all that is public."
		return m, nil
	}
	m.Description = "Sealed record " + r.Reference + ": the SHA-256 " + r.Hash + " of its data is anchored by this token."
	m.ExternalURL = s.VerificationLink(r.Reference)
	m.Image = strings.TrimRight(s.PublicURL, "/") + "/v/" + r.Reference + "/qr.png"
	m.Attributes = append(m.Attributes, TokenTrait{TraitType: "status", Value: string(r.Status)},
		TokenTrait{TraitType: "hash", Value: r.Hash})
	return m, nil
}

// PublicProof returns the proof bundle of the record a public link names, for anyone: only for a PUBLIC
// record, and once it is anchored; ENOTFOUND otherwise, as the page.
func (s *Service) PublicProof(ctx context.Context, id string) (*proof.Bundle, error) {
	r, err := s.publicLookup(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Privacy != PrivacyPublic {
		return nil, Errorf(ENOTFOUND, "no sealed record under this reference")
	}
	return s.proof(ctx, r)
}

// publicLookup finds the record a public link names (see PublicRecord).
func (s *Service) publicLookup(ctx context.Context, id string) (*Record, error) {
	notFound := Errorf(ENOTFOUND, "no sealed record under this reference")
	var r *Record
	var err error
	if strings.HasPrefix(id, PrefixAuthentication) || strings.HasPrefix(id, PrefixGenerator) {
		if ParseReference(id) != nil {
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
	if ErrorCode(err) == ENOTFOUND {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}
