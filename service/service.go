package service

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"log/slog"
	"strings"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/ttlcache"
)

// Service holds the rules of the requests made to seald: who may call, what a valid request is, what a
// caller may see, and which status changes are allowed. It implements the service interfaces (services.go).
// The rules of a record's way through its pipeline are the lifecycle's (lifecycle.go), applied by package
// pipeline. Stores only persist what they are told; the HTTP layer only translates.
type Service struct {
	Store   ServiceStore
	Secrets seald.Secrets
	// Blobs reads stored envelopes back for owner downloads; nil when IPFS is not configured.
	Blobs seald.BlobStore
	// Canonicalize returns the RFC 8785 canonical form of a JSON text (package jcs).
	Canonicalize func(data []byte) ([]byte, error)
	// PublicURL is the base of verification links ("https://verify.example.com").
	PublicURL string
	// Chains describes the networks records can be sealed on; a network absent here is refused.
	Chains map[string]seald.Chain
	// Wake, when set, is called after a record is created so the pipeline picks it up at once.
	Wake func()
	// Crash, when set, is called at the service's crash points with their names: CrashAfterRecordSave in Seal
	// and CrashAfterEraseSave in Erase, each after its commit and before the method returns; the crash tests
	// use it to stop the process between a commit and the API's answer. Production leaves it nil.
	Crash  func(point string)
	Now    func() time.Time
	Logger *slog.Logger
	// CacheTTL is how long this process trusts, without reading the store again, a key pair that
	// authenticated and a business or project it read (DefaultCacheTTL in serve; zero, the default here,
	// turns the cache off). It bounds how stale a key can be: a key revoked or rotated by another process
	// (the operator's CLI, another instance on the same database) stops working here within CacheTTL, while
	// one revoked or rotated through this Service stops at once. A rotated key's own expiry is exact, cached
	// or not. Records are never cached, so a record's status is always current.
	CacheTTL time.Duration
	// MaxBacklog, when above zero, refuses new records of a network (EOVERLOADED) while this many or more of
	// that network wait in the pipeline (Records.CountWaitingByNetwork, read at most once a second): the
	// service pushes back instead of piling up work it cannot finish, and a stalled network (an EOS node
	// down) refuses only its own seals, never another network's.
	MaxBacklog int
	backlog    ttlcache.Value[map[string]int] // records waiting, by network, read at most once a second
	// MaxProjectBacklog, when above zero, also refuses new records of a project while this many or more of
	// that project's wait (Records.CountWaitingByProject, read at most once a second): one business's burst
	// then fills its own share, not the network's whole bound. Zero leaves only MaxBacklog.
	MaxProjectBacklog int
	projectBacklog    ttlcache.Value[map[string]int] // records waiting, by project
	// Webhooks keeps the projects' webhooks and their deliveries; nil turns the webhook operations off.
	Webhooks seald.Webhooks
	// CheckWebhookTarget refuses a webhook URL deliveries could never reach (see WebhookTargetCheck).
	CheckWebhookTarget seald.WebhookTargetCheck
	// WakeWebhooks, when set, is called after a delivery is queued by a replay.
	WakeWebhooks func()
	// ErasureLog, when set, records every erasure outside the database (see ErasureLog).
	ErasureLog seald.ErasureLog
	// Identities keeps the businesses' domain identities (identity.go); nil turns those operations off.
	Identities seald.Identities
	// FetchDID fetches the DID documents of the businesses' domains, through the outbound guard.
	FetchDID seald.DIDFetcher

	cache tenantCache
}

// ServiceStore is what Service uses of the stores: tenants and records, and the batches and revocations a
// record's proof and page are read from.
type ServiceStore interface {
	seald.Tenants
	seald.Records
	Batch(ctx context.Context, id int64) (*seald.Batch, error)
	Revocation(ctx context.Context, network string, tokenID uint64) (*seald.Revocation, error)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC().Truncate(time.Millisecond)
	}
	return time.Now().UTC().Truncate(time.Millisecond)
}

func (s *Service) crashPoint(point string) {
	if s.Crash != nil {
		s.Crash(point)
	}
}

func (s *Service) wake() {
	if s.Wake != nil {
		s.Wake()
	}
}

// VerificationLink is the public page of a reference.
func (s *Service) VerificationLink(reference string) string {
	return strings.TrimRight(s.PublicURL, "/") + "/v/" + reference
}

// TrustRootURL is where the service publishes its trust root (TrustRoot).
func (s *Service) TrustRootURL() string {
	return strings.TrimRight(s.PublicURL, "/") + "/.well-known/seald-trust.json"
}

// PublicKey is the public half of the key that signs proof bundles now.
func (s *Service) PublicKey() ed25519.PublicKey { return s.Secrets.PublicKey() }

// Chain returns the chain records are anchored on for a network, and whether this service anchors there.
func (s *Service) Chain(network string) (seald.Chain, bool) {
	ch, ok := s.Chains[network]
	return ch, ok
}

// errDenied is Authenticate's one failure, made only when it fails.
func errDenied() error {
	return seald.Errorf(seald.EUNAUTHORIZED, "invalid subscription key or API key")
}

// Authenticate checks the two header keys of a request and returns the calling project. Every failure is the
// same EUNAUTHORIZED, whichever key was wrong, so that a caller cannot probe which of the two is valid.
// A pair that authenticated is remembered for CacheTTL under the SHA-256 digests of the two secrets (see
// tenantCache); failures are never remembered, so a key issued anywhere works at once.
func (s *Service) Authenticate(ctx context.Context, subscriptionKey, apiKey string) (*seald.Caller, error) {
	if subscriptionKey == "" {
		return nil, seald.Errorf(seald.EUNAUTHORIZED, "the Ocp-Apim-Subscription-Key header is required")
	}
	if apiKey == "" {
		return nil, seald.Errorf(seald.EUNAUTHORIZED, "the Api-Key header is required")
	}
	if len(subscriptionKey) > maxSecretLen || len(apiKey) > maxSecretLen {
		return nil, errDenied()
	}
	now := s.now()
	pair := pairOf(subscriptionKey, apiKey)
	var gen uint64
	if s.CacheTTL > 0 {
		if c, ok := s.cache.callers.Get(pair, now); ok {
			cc := *c // callers are per request; the business and project they point to are shared, read-only
			return &cc, nil
		}
		gen = s.cache.callers.Generation()
	}
	sub, err := s.activeKey(ctx, pair.sub, seald.KeySubscription, now)
	if err != nil {
		return nil, internalOr(err, errDenied())
	}
	api, err := s.activeKey(ctx, pair.api, seald.KeyProject, now)
	if err != nil {
		return nil, internalOr(err, errDenied())
	}
	if api.BusinessID != sub.BusinessID {
		return nil, errDenied()
	}
	p, err := s.project(ctx, api.ProjectID, now)
	if err != nil {
		return nil, internalOr(err, errDenied())
	}
	b, err := s.business(ctx, p.BusinessID, now)
	if err != nil {
		return nil, internalOr(err, errDenied())
	}
	c := &seald.Caller{Business: b, Project: p, KeyID: api.ID, SubscriptionKeyID: sub.ID}
	if s.CacheTTL > 0 {
		cc := *c
		s.cache.callers.Put(gen, pair, &cc, cacheUntil(now, s.CacheTTL, sub, api), now)
	}
	return c, nil
}

// maxSecretLen bounds a presented secret (real ones are 46 characters), so that a huge header is refused
// before it is hashed.
const maxSecretLen = 200

func (s *Service) activeKey(ctx context.Context, sum [sha256.Size]byte, kind seald.KeyKind, now time.Time) (*seald.Key, error) {
	d := hexDigest(sum)
	k, err := s.Store.KeyByDigest(ctx, d)
	if err != nil {
		return nil, err
	}
	if !digestEqual(k.Digest, d) || k.Kind != kind || !k.Active(now) {
		return nil, seald.Errorf(seald.EUNAUTHORIZED, "key not valid")
	}
	return k, nil
}

// internalOr returns err when it is a fault of seald rather than of the caller's keys (an internal error is
// a 500, a database that is down a 503, never a 401 that would also count against the caller's address) and
// otherwise the given error.
func internalOr(err error, other error) error {
	switch seald.ErrorCode(err) {
	case seald.EINTERNAL, seald.EUNAVAILABLE:
		return err
	}
	return other
}

// visible reports whether the caller may see the record: its own business always, the operator every
// record, anyone else (nil, an anonymous reader, included) only PUBLIC ones.
func visible(c *seald.Caller, r *seald.Record) bool {
	if c.Owns(r.BusinessID) || c.IsOperator() {
		return true
	}
	return r.Privacy == seald.PrivacyPublic
}

// owned returns the record if it belongs to the caller's business, or any record to the operator; to any
// other caller it does not exist. A nil caller is EUNAUTHORIZED, before the reference is even read.
func (s *Service) owned(ctx context.Context, c *seald.Caller, reference string) (*seald.Record, error) {
	if c == nil {
		return nil, errNoCaller()
	}
	if err := seald.ParseReference(reference); err != nil {
		return nil, err
	}
	if c.IsOperator() {
		return s.Store.Record(ctx, reference) // the store's own answer, as the operator's commands have always had
	}
	r, err := s.Store.Record(ctx, reference)
	if err != nil && seald.ErrorCode(err) != seald.ENOTFOUND {
		return nil, err
	}
	if err != nil || !c.Owns(r.BusinessID) {
		return nil, seald.Errorf(seald.ENOTFOUND, "no record with reference %s", reference)
	}
	return r, nil
}
