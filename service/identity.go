package service

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/didweb"
)

func identityKeyPurpose(businessID, keyID string) string {
	return "identity-key:" + businessID + "#" + keyID
}

// identityOwner checks that c is a caller of a business: the identity belongs to the business, so any of
// its projects' keys may manage it; nobody and the operator (who has no business) may not.
func identityOwner(c *seald.Caller) error {
	switch {
	case c == nil:
		return errNoCaller()
	case c.IsOperator() || c.Business == nil:
		return seald.Errorf(seald.EUNAUTHORIZED, "a domain identity belongs to a business: call with the keys of one of its projects")
	}
	return nil
}

func (s *Service) identities() (seald.Identities, error) {
	if s.Identities == nil {
		return nil, seald.Errorf(seald.EUNAVAILABLE, "domain identities are not available on this instance")
	}
	return s.Identities, nil
}

// newIdentityKey makes a key for a business, its seed sealed with the master key.
func (s *Service) newIdentityKey(businessID string, now time.Time) (seald.IdentityKey, error) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return seald.IdentityKey{}, err
	}
	id := seald.NewID("key-")
	sealed, err := s.Secrets.SealString(base64.RawStdEncoding.EncodeToString(priv.Seed()), identityKeyPurpose(businessID, id))
	if err != nil {
		return seald.IdentityKey{}, err
	}
	return seald.IdentityKey{ID: id, Public: pub, Sealed: sealed, CreatedAt: now}, nil
}

// SetIdentity sets the domain of the caller's business (making its first key at the first call), or rotates
// its key, and returns the identity and the DID document to publish. Setting the domain it already has changes
// nothing; another domain makes the identity pending again.
func (s *Service) SetIdentity(ctx context.Context, c *seald.Caller, req seald.IdentityRequest) (*seald.Identity, *didweb.Document, error) {
	if err := identityOwner(c); err != nil {
		return nil, nil, err
	}
	store, err := s.identities()
	if err != nil {
		return nil, nil, err
	}
	domain, err := didweb.NormalizeDomain(req.Domain)
	if err != nil {
		return nil, nil, seald.Errorf(seald.EINVALID, "domain: %v", err)
	}
	did, err := didweb.DID(domain)
	if err != nil {
		return nil, nil, seald.Errorf(seald.EINVALID, "domain: %v", err)
	}
	biz, now := c.Business.BusinessID, s.now()
	old, err := store.Identity(ctx, biz)
	if err != nil && seald.ErrorCode(err) != seald.ENOTFOUND {
		return nil, nil, err
	}
	if old != nil && old.DID == did && !req.RotateKey {
		return old, seald.IdentityDocument(old), nil
	}
	id := &seald.Identity{BusinessID: biz, Domain: domain, DID: did, State: seald.IdentityPending, CreatedAt: now, UpdatedAt: now}
	var prev *time.Time
	if old != nil {
		prev, id.CreatedAt, id.Keys = &old.UpdatedAt, old.CreatedAt, old.Keys
		if !old.UpdatedAt.Before(now) {
			id.UpdatedAt = old.UpdatedAt.Add(time.Millisecond) // the compare-and-set needs a new value
		}
	}
	if old == nil || req.RotateKey {
		k, err := s.newIdentityKey(biz, now)
		if err != nil {
			return nil, nil, err
		}
		id.Keys = append([]seald.IdentityKey{k}, id.Keys...)
	}
	if err := store.SaveIdentity(ctx, id, prev); err != nil {
		return nil, nil, err
	}
	return id, seald.IdentityDocument(id), nil
}

// IdentityOf returns the identity of the caller's business and its DID document; ENOTFOUND when no domain is
// set.
func (s *Service) IdentityOf(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error) {
	if err := identityOwner(c); err != nil {
		return nil, nil, err
	}
	store, err := s.identities()
	if err != nil {
		return nil, nil, err
	}
	id, err := store.Identity(ctx, c.Business.BusinessID)
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		return nil, nil, seald.Errorf(seald.ENOTFOUND, "this business has no domain: set one with POST /tenant/identity")
	}
	if err != nil {
		return nil, nil, err
	}
	return id, seald.IdentityDocument(id), nil
}

// CheckIdentity fetches the DID document of the caller's business's domain now and saves the outcome:
// verified (with the time), or why not. A failed check is an answer, not an error.
func (s *Service) CheckIdentity(ctx context.Context, c *seald.Caller) (*seald.Identity, *didweb.Document, error) {
	id, _, err := s.IdentityOf(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	id, err = s.checkIdentity(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return id, seald.IdentityDocument(id), nil
}

// checkIdentity fetches and checks one identity's document and saves the outcome. A verified identity
// whose document no longer holds its current key lapses; a pending one stays pending.
func (s *Service) checkIdentity(ctx context.Context, id *seald.Identity) (*seald.Identity, error) {
	store, err := s.identities()
	if err != nil {
		return nil, err
	}
	if s.FetchDID == nil {
		return nil, seald.Errorf(seald.EUNAVAILABLE, "this instance cannot fetch DID documents")
	}
	if len(id.Keys) == 0 {
		return nil, seald.Errorf(seald.EINTERNAL, "the identity of %s has no key", id.BusinessID)
	}
	reason := ""
	b, err := s.FetchDID.Fetch(ctx, id.DID)
	if err == nil {
		var doc *didweb.Document
		if doc, err = didweb.Parse(b); err == nil {
			_, err = doc.Check(id.DID, id.Keys[0].Public)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // shutting down: not the domain's fault
		}
		reason = err.Error()
		if len(reason) > seald.MaxDescription {
			reason = reason[:seald.MaxDescription]
		}
	}
	now := s.now()
	ch := &seald.IdentityCheck{BusinessID: id.BusinessID, DID: id.DID, CheckedAt: now, Reason: reason}
	switch {
	case reason == "" && id.State == seald.IdentityVerified && id.VerifiedAt != nil:
		ch.State, ch.VerifiedAt = seald.IdentityVerified, id.VerifiedAt
	case reason == "":
		ch.State, ch.VerifiedAt = seald.IdentityVerified, &now
	case id.State == seald.IdentityPending:
		ch.State = seald.IdentityPending
	default:
		ch.State = seald.IdentityLapsed
	}
	out, err := store.SaveIdentityCheck(ctx, ch)
	if err != nil {
		return nil, err
	}
	if ch.State == seald.IdentityLapsed && id.State == seald.IdentityVerified && s.Logger != nil {
		s.Logger.Warn("domain identity lapsed", "business", id.BusinessID, "did", id.DID, "reason", reason)
	}
	return out, nil
}

// RecheckIdentities checks again up to limit verified identities last checked more than IdentityRecheck ago,
// and returns how many it checked; those whose document no longer holds their key lapse. Each check saves its
// own outcome, so a sweep cut short leaves the rest for the next one.
func (s *Service) RecheckIdentities(ctx context.Context, limit int) (int, error) {
	if s.Identities == nil || s.FetchDID == nil {
		return 0, nil
	}
	due, err := s.Identities.IdentitiesToCheck(ctx, seald.IdentityVerified, s.now().Add(-seald.IdentityRecheck), limit)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range due {
		if _, err := s.checkIdentity(ctx, id); err != nil && seald.ErrorCode(err) != seald.ECONFLICT {
			return n, err
		}
		n++
	}
	return n, nil
}

// IdentitySigner returns the current private key of a business's identity, opened with the master key, and
// its key id, for signing what the business issues; ENOTFOUND when the business has no identity.
func (s *Service) IdentitySigner(ctx context.Context, businessID string) (ed25519.PrivateKey, *seald.Identity, error) {
	store, err := s.identities()
	if err != nil {
		return nil, nil, err
	}
	id, err := store.Identity(ctx, businessID)
	if err != nil {
		return nil, nil, err
	}
	if len(id.Keys) == 0 {
		return nil, nil, seald.Errorf(seald.EINTERNAL, "the identity of %s has no key", businessID)
	}
	priv, err := s.openIdentityKey(businessID, id)
	if err != nil {
		return nil, nil, err
	}
	return priv, id, nil
}

// openIdentityKey opens the sealed seed of id's current key (its first) and checks it against the public key.
func (s *Service) openIdentityKey(businessID string, id *seald.Identity) (ed25519.PrivateKey, error) {
	k := id.Keys[0]
	seed, err := s.Secrets.OpenString(k.Sealed, identityKeyPurpose(businessID, k.ID))
	if err != nil {
		return nil, err
	}
	b, err := base64.RawStdEncoding.DecodeString(seed)
	if err != nil || len(b) != ed25519.SeedSize {
		return nil, errors.New("seald: an identity key's sealed seed is not an Ed25519 seed")
	}
	priv := ed25519.NewKeyFromSeed(b)
	if !priv.Public().(ed25519.PublicKey).Equal(k.Public) {
		return nil, errors.New("seald: an identity key's seed does not match its public key")
	}
	return priv, nil
}
