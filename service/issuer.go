package service

import (
	"context"
	"crypto/ed25519"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// recordIssuer is the issuer block of r's business as it stands now, and, when sign is true, the business's
// current identity key while its domain is verified (nil otherwise). The public page asks without sign: a view
// reads the identity's state and never opens a private key.
func (s *Service) recordIssuer(ctx context.Context, r *seald.Record, sign bool) (*proof.Issuer, ed25519.PrivateKey, error) {
	b, err := s.business(ctx, r.BusinessID, s.now())
	if err != nil {
		return nil, nil, err
	}
	who := &proof.Issuer{BusinessID: b.BusinessID, Name: b.Name, Status: proof.IssuerSelfDeclared}
	if s.Identities == nil {
		return who, nil, nil
	}
	id, err := s.Identities.Identity(ctx, b.BusinessID)
	switch {
	case seald.ErrorCode(err) == seald.ENOTFOUND:
		return who, nil, nil
	case err != nil:
		return nil, nil, err
	case id.State != seald.IdentityVerified || id.VerifiedAt == nil:
		return who, nil, nil
	case len(id.Keys) == 0:
		return nil, nil, seald.Errorf(seald.EINTERNAL, "the identity of %s has no key", b.BusinessID)
	}
	at := id.VerifiedAt.UTC()
	who.Status, who.DID, who.VerifiedAt, who.KeyID = proof.IssuerDomainVerified, id.DID, &at, id.DID+"#"+id.Keys[0].ID
	if !sign {
		return who, nil, nil
	}
	priv, err := s.openIdentityKey(b.BusinessID, id)
	if err != nil {
		return nil, nil, err
	}
	return who, priv, nil
}

// signProof signs a bundle made for r: its issuer block (with the business's signature while its domain is
// verified), then the service's signature over the whole.
func (s *Service) signProof(ctx context.Context, r *seald.Record, p *proof.Bundle) error {
	who, priv, err := s.recordIssuer(ctx, r, true)
	if err != nil {
		return err
	}
	p.SignAs(s.Secrets, who, priv)
	return nil
}
