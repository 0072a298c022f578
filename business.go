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
	// AttachCredential makes the notification e-mail of the project's records carry the record's W3C VC 2.0
	// credential as an attachment (docs/credentials.md); off by default.
	AttachCredential bool
}
