package seald

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"time"

	"seald.dev/seald/didweb"
)

// A business proves a domain it controls with did:web (issue 41): seald makes an Ed25519 key for the business,
// the business publishes a DID document holding its public half at https://<domain>/.well-known/did.json, and
// seald fetches that document to check it. The private half never leaves seald: it is sealed with the
// service's master key (KeyWrapper, bound to the business and the key), as the subscription secrets are, so
// that a copy of the database alone signs nothing and a rotation of the master key keeps it readable.

// IdentityState is where a business's domain verification stands.
type IdentityState string

// Identity states: pending until a check finds the key in the published document, verified from then on,
// lapsed when a later check (the owner's or the daily one) no longer finds it. A lapsed identity is verified
// again by the next check that finds the key.
const (
	IdentityPending  IdentityState = "pending"
	IdentityVerified IdentityState = "verified"
	IdentityLapsed   IdentityState = "lapsed"
)

// IdentityRecheck is how old a verified identity's last check may grow before the periodic sweep
// (Service.RecheckIdentities) fetches its document again.
const IdentityRecheck = 24 * time.Hour

// Identity is a business's claim to a domain, and the keys its DID document must hold.
type Identity struct {
	BusinessID string
	Domain     string // normalized: "acme.example", "127.0.0.1:8443", "acme.example/dept"
	DID        string // "did:web:acme.example"
	State      IdentityState
	// VerifiedAt is when the domain was verified, by the first successful check since it was set or since it
	// lapsed; nil unless State is verified.
	VerifiedAt *time.Time
	CheckedAt  *time.Time // the latest check, whatever its outcome; nil before the first
	Reason     string     // why the latest check failed; "" after a success
	// Keys are the business's keys, the current one first: the document lists them all, so that what an older
	// key signed keeps verifying after a rotation.
	Keys      []IdentityKey
	CreatedAt time.Time
	UpdatedAt time.Time
}

// IdentityKey is one Ed25519 key of a business.
type IdentityKey struct {
	ID        string // the fragment of its verification method: did#ID
	Public    ed25519.PublicKey
	Sealed    string // the private key's seed, sealed with the master key (KeyWrapper, purpose identityKeyPurpose)
	CreatedAt time.Time
}

// IdentityCheck is the outcome of one check, as the store saves it.
type IdentityCheck struct {
	BusinessID string
	DID        string // the DID checked: the outcome is saved only while the identity still names it
	State      IdentityState
	VerifiedAt *time.Time
	CheckedAt  time.Time
	Reason     string
}

// Identities persists the businesses' identities.
type Identities interface {
	// Identity returns a business's identity; ENOTFOUND when it has none.
	Identity(ctx context.Context, businessID string) (*Identity, error)
	// SaveIdentity inserts id when prev is nil (ECONFLICT when the business has one), or replaces the one
	// whose UpdatedAt is *prev (ECONFLICT when another change came first): a change made on a stale read is
	// refused, never lost.
	SaveIdentity(ctx context.Context, id *Identity, prev *time.Time) error
	// SaveIdentityCheck saves a check's outcome, only while the identity names c.DID (ECONFLICT otherwise: the
	// domain changed while it was checked), and returns the identity after it.
	SaveIdentityCheck(ctx context.Context, c *IdentityCheck) (*Identity, error)
	// IdentitiesToCheck lists up to limit identities in state whose latest check is before (or who have none),
	// the oldest checked first.
	IdentitiesToCheck(ctx context.Context, state IdentityState, before time.Time, limit int) ([]*Identity, error)
}

// DIDFetcher fetches the DID document of a did:web DID (package didweb), through the service's outbound guard.
type DIDFetcher interface {
	Fetch(ctx context.Context, did string) ([]byte, error)
}

// IdentityRequest is what the owner asks of POST /tenant/identity.
type IdentityRequest struct {
	Domain string
	// RotateKey makes a new current key; the older ones stay in the document. The identity is pending again
	// until the document with the new key is published and checked.
	RotateKey bool
}

func identityKeyPurpose(businessID, keyID string) string {
	return "identity-key:" + businessID + "#" + keyID
}

// identityOwner checks that c is a caller of a business: the identity belongs to the business, so any of
// its projects' keys may manage it; nobody and the operator (who has no business) may not.
func identityOwner(c *Caller) error {
	switch {
	case c == nil:
		return errNoCaller()
	case c.operator || c.Business == nil:
		return Errorf(EUNAUTHORIZED, "a domain identity belongs to a business: call with the keys of one of its projects")
	}
	return nil
}

func (s *Service) identities() (Identities, error) {
	if s.Identities == nil {
		return nil, Errorf(EUNAVAILABLE, "domain identities are not available on this instance")
	}
	return s.Identities, nil
}

// newIdentityKey makes a key for a business, its seed sealed with the master key.
func (s *Service) newIdentityKey(businessID string, now time.Time) (IdentityKey, error) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return IdentityKey{}, err
	}
	id := NewID("key-")
	sealed, err := s.Secrets.SealString(base64.RawStdEncoding.EncodeToString(priv.Seed()), identityKeyPurpose(businessID, id))
	if err != nil {
		return IdentityKey{}, err
	}
	return IdentityKey{ID: id, Public: pub, Sealed: sealed, CreatedAt: now}, nil
}

// SetIdentity sets the domain of the caller's business (making its first key at the first call), or rotates
// its key, and returns the identity and the DID document to publish. Setting the domain it already has changes
// nothing; another domain makes the identity pending again.
func (s *Service) SetIdentity(ctx context.Context, c *Caller, req IdentityRequest) (*Identity, *didweb.Document, error) {
	if err := identityOwner(c); err != nil {
		return nil, nil, err
	}
	store, err := s.identities()
	if err != nil {
		return nil, nil, err
	}
	domain, err := didweb.NormalizeDomain(req.Domain)
	if err != nil {
		return nil, nil, Errorf(EINVALID, "domain: %v", err)
	}
	did, err := didweb.DID(domain)
	if err != nil {
		return nil, nil, Errorf(EINVALID, "domain: %v", err)
	}
	biz, now := c.Business.BusinessID, s.now()
	old, err := store.Identity(ctx, biz)
	if err != nil && ErrorCode(err) != ENOTFOUND {
		return nil, nil, err
	}
	if old != nil && old.DID == did && !req.RotateKey {
		return old, IdentityDocument(old), nil
	}
	id := &Identity{BusinessID: biz, Domain: domain, DID: did, State: IdentityPending, CreatedAt: now, UpdatedAt: now}
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
		id.Keys = append([]IdentityKey{k}, id.Keys...)
	}
	if err := store.SaveIdentity(ctx, id, prev); err != nil {
		return nil, nil, err
	}
	return id, IdentityDocument(id), nil
}

// IdentityDocument is the DID document a business publishes: every key of the identity, the current first.
func IdentityDocument(id *Identity) *didweb.Document {
	keys := make([]didweb.Key, len(id.Keys))
	for i, k := range id.Keys {
		keys[i] = didweb.Key{Fragment: k.ID, Public: k.Public}
	}
	return didweb.NewDocument(id.DID, keys)
}

// IdentityOf returns the identity of the caller's business and its DID document; ENOTFOUND when no domain is
// set.
func (s *Service) IdentityOf(ctx context.Context, c *Caller) (*Identity, *didweb.Document, error) {
	if err := identityOwner(c); err != nil {
		return nil, nil, err
	}
	store, err := s.identities()
	if err != nil {
		return nil, nil, err
	}
	id, err := store.Identity(ctx, c.Business.BusinessID)
	if ErrorCode(err) == ENOTFOUND {
		return nil, nil, Errorf(ENOTFOUND, "this business has no domain: set one with POST /tenant/identity")
	}
	if err != nil {
		return nil, nil, err
	}
	return id, IdentityDocument(id), nil
}

// CheckIdentity fetches the DID document of the caller's business's domain now and saves the outcome:
// verified (with the time), or why not. A failed check is an answer, not an error.
func (s *Service) CheckIdentity(ctx context.Context, c *Caller) (*Identity, *didweb.Document, error) {
	id, _, err := s.IdentityOf(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	id, err = s.checkIdentity(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return id, IdentityDocument(id), nil
}

// checkIdentity fetches and checks one identity's document and saves the outcome. A verified identity
// whose document no longer holds its current key lapses; a pending one stays pending.
func (s *Service) checkIdentity(ctx context.Context, id *Identity) (*Identity, error) {
	store, err := s.identities()
	if err != nil {
		return nil, err
	}
	if s.FetchDID == nil {
		return nil, Errorf(EUNAVAILABLE, "this instance cannot fetch DID documents")
	}
	if len(id.Keys) == 0 {
		return nil, Errorf(EINTERNAL, "the identity of %s has no key", id.BusinessID)
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
		if len(reason) > MaxDescription {
			reason = reason[:MaxDescription]
		}
	}
	now := s.now()
	ch := &IdentityCheck{BusinessID: id.BusinessID, DID: id.DID, CheckedAt: now, Reason: reason}
	switch {
	case reason == "" && id.State == IdentityVerified && id.VerifiedAt != nil:
		ch.State, ch.VerifiedAt = IdentityVerified, id.VerifiedAt
	case reason == "":
		ch.State, ch.VerifiedAt = IdentityVerified, &now
	case id.State == IdentityPending:
		ch.State = IdentityPending
	default:
		ch.State = IdentityLapsed
	}
	out, err := store.SaveIdentityCheck(ctx, ch)
	if err != nil {
		return nil, err
	}
	if ch.State == IdentityLapsed && id.State == IdentityVerified && s.Logger != nil {
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
	due, err := s.Identities.IdentitiesToCheck(ctx, IdentityVerified, s.now().Add(-IdentityRecheck), limit)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range due {
		if _, err := s.checkIdentity(ctx, id); err != nil && ErrorCode(err) != ECONFLICT {
			return n, err
		}
		n++
	}
	return n, nil
}

// IdentitySigner returns the current private key of a business's identity, opened with the master key, and
// its key id, for signing what the business issues; ENOTFOUND when the business has no identity.
func (s *Service) IdentitySigner(ctx context.Context, businessID string) (ed25519.PrivateKey, *Identity, error) {
	store, err := s.identities()
	if err != nil {
		return nil, nil, err
	}
	id, err := store.Identity(ctx, businessID)
	if err != nil {
		return nil, nil, err
	}
	if len(id.Keys) == 0 {
		return nil, nil, Errorf(EINTERNAL, "the identity of %s has no key", businessID)
	}
	k := id.Keys[0]
	seed, err := s.Secrets.OpenString(k.Sealed, identityKeyPurpose(businessID, k.ID))
	if err != nil {
		return nil, nil, err
	}
	b, err := base64.RawStdEncoding.DecodeString(seed)
	if err != nil || len(b) != ed25519.SeedSize {
		return nil, nil, errors.New("seald: an identity key's sealed seed is not an Ed25519 seed")
	}
	priv := ed25519.NewKeyFromSeed(b)
	if !priv.Public().(ed25519.PublicKey).Equal(k.Public) {
		return nil, nil, errors.New("seald: an identity key's seed does not match its public key")
	}
	return priv, id, nil
}
