// Package httpapi serves seald's HTTP API: the seed's operations to the letter (paths, members, envelopes,
// headers) and the few that API.md adds. It translates between HTTP and the domain Service; every rule lives
// in the Service.
package httpapi

import (
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"seald.dev/seald"
)

// DefaultBodyLimit bounds the request bodies of a Server that does not say: 1 MiB.
const DefaultBodyLimit = 1 << 20

// Server is the HTTP API. Set the fields, then use Handler.
type Server struct {
	// Service is the domain the API translates to (a *service.Service; a mock.Service in handler tests).
	Service Service
	Logger  *slog.Logger
	// BodyLimit bounds request bodies (default 1 MiB).
	BodyLimit int64
	// RatePerSecond and RateBurst bound each API key's requests; a non-positive rate turns the limit off.
	RatePerSecond float64
	RateBurst     int
	// AuthFailuresPerMinute bounds failed authentications per client (default 30; negative: off).
	AuthFailuresPerMinute float64
	// TrustedProxies are the proxies whose X-Forwarded-For names the client (throttle.go); none by default.
	TrustedProxies []netip.Prefix
	// GatewayURL is the base of ipfs_gateway_link ("{GatewayURL}/ipfs/{cid}").
	GatewayURL string
	// Gateway serves /ipfs/{cid}; nil when IPFS is not embedded.
	Gateway http.Handler
	// Page serves the public verification page /v/{reference}; nil to leave it out.
	Page http.Handler
	// Console serves the businesses' console under /console/; nil to leave it out.
	Console http.Handler
	// ValidCID reports whether s is a well-formed CID (package ipfs); nil accepts any non-empty value.
	ValidCID func(s string) bool
	// CanonicalCID returns the form seald stores of a valid CID (CIDv1, base32); nil keeps it as given.
	CanonicalCID func(s string) string
	// Ready reports whether the parts the service depends on answer, by name.
	Ready func(r *http.Request) map[string]error
	// Metrics, when set, is told each request's route, status and duration.
	Metrics func(route string, status int, d time.Duration)
	// MetricsHandler serves /metrics when set.
	MetricsHandler http.Handler
	// Credentials issues records as verifiable credentials and serves their public documents; nil leaves
	// the credential operations out.
	Credentials seald.CredentialService

	limits           *limiters
	failures         *failureTable
	passwordFailures *failureTable // wrong download passwords, per record and per key
	answers          answers       // encoded verification answers (answers.go)
}

// Handler returns the API with its middleware.
func (s *Server) Handler() http.Handler {
	if s.BodyLimit <= 0 {
		s.BodyLimit = DefaultBodyLimit
	}
	s.limits = newLimiters(s.RatePerSecond, max(s.RateBurst, 1))
	fpm := s.AuthFailuresPerMinute
	if fpm == 0 {
		fpm = 30
	}
	if fpm > 0 {
		s.failures = newFailureTable(fpm, maxClients)
		s.passwordFailures = newFailureTable(fpm, maxClients)
	}
	return s.observe(s.routes())
}

// Timeouts are the server timeouts cmd/seald sets, so that a slow client cannot hold a connection forever.
var Timeouts = struct{ ReadHeader, Read, Write, Idle time.Duration }{
	ReadHeader: 5 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second, Idle: 120 * time.Second,
}
