package seald

import "time"

// Privacy says who can see a project's records.
type Privacy string

// Privacy values. A record takes its project's privacy when it is created.
const (
	PrivacyPublic  Privacy = "PUBLIC"
	PrivacyPrivate Privacy = "PRIVATE"
)

// Business is an enterprise subscriber. ID is the row id (a UUID); BusinessID is the public identifier shown
// in verification results ("biz_" and 16 base32 characters).
type Business struct {
	ID             string
	BusinessID     string
	Name           string
	Description    string
	Logo           string
	Website        string
	DateRegistered time.Time
}

// Project is one project of a business; its API key authenticates calls, and its privacy and network apply
// to the records it seals.
type Project struct {
	ID           string
	ProjectID    string // "prj_" and 16 base32 characters
	BusinessID   string // the business's BusinessID
	Name         string
	Description  string
	Logo         string
	Privacy      Privacy
	Network      string // POLYGON (default) or EOS
	Downloadable bool   // owners may download the stored copy of their records
	CreatedAt    time.Time
	// RateLimit and RateBurst are the requests per second, and the burst, each API key of the project may
	// make; 0 takes the server's defaults.
	RateLimit float64
	RateBurst int
	// Retain is how long the stored copies of the project's records are kept after they were sealed;
	// past it they are erased (Service.EraseExpired). Zero keeps them for ever.
	Retain time.Duration
}

// KeyKind says what a key authenticates.
type KeyKind string

// Key kinds: the subscription key (header Ocp-Apim-Subscription-Key) identifies a business, the API key
// (header Api-Key) one project of it.
const (
	KeySubscription KeyKind = "subscription"
	KeyProject      KeyKind = "project"
)

// Key is an issued credential. The secret itself is shown once at issue and never stored: only its SHA-256
// digest (Digest, lowercase hex) and its first characters (Prefix), so keys can be listed.
type Key struct {
	ID         string // "key_" and 16 base32 characters
	Kind       KeyKind
	BusinessID string // public business id
	ProjectID  string // public project id; empty for subscription keys
	Prefix     string
	Digest     string
	CreatedAt  time.Time
	ExpiresAt  *time.Time // set when the key is rotated: it keeps working until then
	RevokedAt  *time.Time
	// Sealed is the subscription secret sealed with the service's master key, so that the operator's CLI can
	// hand it to a new project of the same business; empty for API keys, which exist only as digests.
	Sealed string
}

// Active reports whether the key authenticates at time now.
func (k *Key) Active(now time.Time) bool {
	if k.RevokedAt != nil {
		return false
	}
	return k.ExpiresAt == nil || now.Before(*k.ExpiresAt)
}

// Caller is the party a Service method acts for: a project of a business, authenticated by its two keys
// (Service.Authenticate), or the operator (Operator). Authority is explicit and fails closed: a nil *Caller
// is nobody, and every method that changes state, or shows a record's owner-only details, refuses it with
// EUNAUTHORIZED rather than guessing who it might be. Only the read-only verifications (Service.Verify and
// the public page) take nil, as an anonymous reader who sees PUBLIC records only.
type Caller struct {
	Business *Business
	Project  *Project
	KeyID    string // the API key's id, for rate limits and audit

	operator bool // set by Operator only: no literal outside this package can make one
}

// ActorOperator is the actor the audit trail records for a change made by the operator.
const ActorOperator = "cli"

// Operator returns the operator's caller: the party of seald's operator commands, who holds the master key
// and the database and may act on any record of any business. It has no business, project or key, so it
// cannot seal or keep webhooks (those belong to a project). Nothing on the HTTP side makes one: an API
// request is a project's caller or nobody.
func Operator() *Caller { return &Caller{operator: true} }

// IsOperator reports whether c is the operator's caller (Operator).
func (c *Caller) IsOperator() bool { return c != nil && c.operator }

// owns reports whether c is a project's caller of the given business.
func (c *Caller) owns(businessID string) bool {
	return c != nil && !c.operator && c.Business != nil && c.Business.BusinessID == businessID
}

// actor is what the audit trail records as the author of c's changes: the API key, or ActorOperator.
func (c *Caller) actor() string {
	if c.IsOperator() {
		return ActorOperator
	}
	return c.KeyID
}

// ErrNoCaller is the answer to a call that names nobody (a nil *Caller): a route that forgot authentication
// gets a 401, not the rights of whoever a missing caller once meant.
var ErrNoCaller = Errorf(EUNAUTHORIZED, "this operation needs a caller: send the Ocp-Apim-Subscription-Key and Api-Key headers")

func errNoCaller() error { return ErrNoCaller }

// projectCaller checks that c is a project's caller, for the operations that belong to a project (sealing,
// webhooks): nobody is EUNAUTHORIZED, and so is the operator, who has no project.
func projectCaller(c *Caller) error {
	switch {
	case c == nil:
		return errNoCaller()
	case c.operator || c.Project == nil || c.Business == nil:
		return Errorf(EUNAUTHORIZED, "this operation belongs to a project: call it with the project's keys")
	}
	return nil
}
