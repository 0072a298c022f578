package seald

import (
	"context"
	"crypto/ed25519"
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

// IdentityDocument is the DID document a business publishes: every key of the identity, the current first.
func IdentityDocument(id *Identity) *didweb.Document {
	keys := make([]didweb.Key, len(id.Keys))
	for i, k := range id.Keys {
		keys[i] = didweb.Key{Fragment: k.ID, Public: k.Public}
	}
	return didweb.NewDocument(id.DID, keys)
}
