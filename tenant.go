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

// Caller is the authenticated party of a request: a project of a business.
type Caller struct {
	Business *Business
	Project  *Project
	KeyID    string // the API key's id, for rate limits and audit
}
