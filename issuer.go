package seald

import (
	"context"
	"crypto/ed25519"

	"seald.dev/seald/proof"
)

// Every proof bundle, disclosure package and presentation names the business that sealed it, inside what the
// service signs (issue 41, proof/issuer.go): its id and name, and, while its domain is verified by did:web
// (identity.go), its DID, when it was verified, and a signature by its identity key. A business without a
// verified domain, or whose domain lapsed, is named self-declared and signs nothing.

// recordIssuer is the issuer block of r's business as it stands now, and the business's current identity key
// when its domain is verified (nil otherwise).
func (s *Service) recordIssuer(ctx context.Context, r *Record) (*proof.Issuer, ed25519.PrivateKey, error) {
	b, err := s.business(ctx, r.BusinessID, s.now())
	if err != nil {
		return nil, nil, err
	}
	who := &proof.Issuer{BusinessID: b.BusinessID, Name: b.Name, Status: proof.IssuerSelfDeclared}
	if s.Identities == nil {
		return who, nil, nil
	}
	priv, id, err := s.IdentitySigner(ctx, b.BusinessID)
	switch {
	case ErrorCode(err) == ENOTFOUND:
		return who, nil, nil
	case err != nil:
		return nil, nil, err
	case id.State != IdentityVerified || id.VerifiedAt == nil:
		return who, nil, nil
	}
	at := id.VerifiedAt.UTC()
	who.Status, who.DID, who.VerifiedAt, who.KeyID = proof.IssuerDomainVerified, id.DID, &at, id.DID+"#"+id.Keys[0].ID
	return who, priv, nil
}

// signProof signs a bundle made for r: its issuer block (with the business's signature while its domain is
// verified), then the service's signature over the whole.
func (s *Service) signProof(ctx context.Context, r *Record, p *proof.Bundle) error {
	who, priv, err := s.recordIssuer(ctx, r)
	if err != nil {
		return err
	}
	p.SignAs(s.Secrets, who, priv)
	return nil
}
