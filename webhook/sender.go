// Package webhook sends record events to the projects' endpoints over HTTP: it signs each body with the
// endpoint's secret per Standard Webhooks (https://www.standardwebhooks.com: webhook-id, webhook-timestamp and
// webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<unix>.<body>">, which the official libraries verify),
// and, beside it for receivers written against it before, in the scheme Stripe made familiar (Seald-Signature:
// t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">). It refuses to connect to any address that is not public
// (package dialguard: the IANA special-purpose registries) unless the operator allowed it. The check runs on the address actually dialled,
// after resolution, so a name that resolves to a public address when the URL is checked and to an internal one
// when it is used (DNS rebinding) is refused all the same.
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/dialguard"
)

// Headers of a delivery: seald's own, and Standard Webhooks' (lower case, as its specification writes them;
// HTTP header names are case-insensitive).
const (
	SignatureHeader = "Seald-Signature"
	EventIDHeader   = "Seald-Event-Id"
	EventTypeHeader = "Seald-Event-Type"

	StandardIDHeader        = "webhook-id"
	StandardTimestampHeader = "webhook-timestamp"
	StandardSignatureHeader = "webhook-signature"
)

// Sign returns the Seald-Signature value of body sent at t with secret: "t=<unix>,v1=<hex HMAC-SHA256 of
// "<unix>.<body>" keyed with the secret's bytes>" (the whole whsec_ string, as Stripe's libraries take it).
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// SecretKey returns the Standard Webhooks key of a secret: the bytes that the base64 after "whsec_" encodes.
// Secrets are made in standard base64, which Standard Webhooks' libraries decode; those made before were in
// the URL-safe alphabet without padding, and are read too (the two alphabets never decode one string to
// different bytes), so an old endpoint gets the same headers as a new one.
func SecretKey(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return nil, errors.New("the webhook secret does not start with whsec_")
	}
	if key, err := base64.StdEncoding.DecodeString(b64); err == nil {
		return key, nil
	}
	key, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil {
		return nil, errors.New("the webhook secret is not whsec_ and base64")
	}
	return key, nil
}

// SignStandard returns the webhook-signature value of body sent as message id at t, per Standard Webhooks:
// "v1," and the standard base64 of HMAC-SHA256, keyed with key (SecretKey), of "<id>.<unix>.<body>".
func SignStandard(key []byte, id string, t time.Time, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(t.Unix(), 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Allow is the operator's allow-list of destinations that would otherwise be refused (dialguard.Allow).
type Allow = dialguard.Allow

// ParseAllow reads a comma-separated list of CIDRs, addresses and host names (the --webhook-allow flag).
func ParseAllow(v string) (Allow, error) { return dialguard.ParseAllow(v) }

// Internal reports why ip is an address deliveries are refused by default, or "" when it is public
// (dialguard.Why: the IANA special-purpose registries, IPv4 wrapped in IPv6 unwrapped).
func Internal(ip netip.Addr) string { return dialguard.Why(ip) }

// DefaultTimeout bounds one delivery attempt of a Sender that does not say.
const DefaultTimeout = 10 * time.Second

// Sender delivers events over HTTP. Its zero value refuses every internal address and waits 10 s for an
// answer.
type Sender struct {
	Allow Allow
	// Timeout bounds one attempt, connection and answer (default 10 s).
	Timeout time.Duration
	// UserAgent is sent with every delivery (default "seald-webhooks").
	UserAgent string

	once   sync.Once
	client *http.Client
}

// ErrRefused marks a delivery refused because of where it would go; it is not retried.
var ErrRefused = dialguard.ErrRefused

// CheckURL refuses a webhook URL whose host is not allowed: a literal internal address, or a name that
// resolves to one now. It is checked again at every dial, since what a name resolves to may change.
func (s *Sender) CheckURL(u *url.URL) error {
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	if err := (dialguard.Guard{Allow: s.Allow}).CheckHost(ctx, nil, u.Hostname()); err != nil {
		return seald.Errorf(seald.EINVALID, "%s, to which this seald does not deliver (its operator may allow it with --webhook-allow)",
			strings.TrimPrefix(err.Error(), dialguard.ErrRefused.Error()+": "))
	}
	return nil
}

// lookupTimeout bounds the resolution of a webhook's host when it is created.
const lookupTimeout = 5 * time.Second

func (s *Sender) init() *http.Client {
	s.once.Do(s.build)
	return s.client
}

func (s *Sender) build() {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		// Control runs with the resolved address right before connecting to it.
		guard := (dialguard.Guard{Allow: s.Allow}).Control(host)
		d := &net.Dialer{Timeout: timeout, Control: func(network, address string, c syscall.RawConn) error {
			if err := guard(network, address, c); err != nil {
				return seald.Permanent(fmt.Errorf("%w; an operator may allow it with --webhook-allow", err))
			}
			return nil
		}}
		return d.DialContext(ctx, network, addr)
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, past the check
		DialContext:           dial,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}
	s.client = &http.Client{Transport: tr, Timeout: timeout,
		// A redirect is an answer, not an instruction: following it would leave the checked URL.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var _ seald.WebhookSender = (*Sender)(nil)

// Send posts one event: its body as given, signed at now with secret. It returns the answer's status code
// (0 when there was none) and an error unless the endpoint answered 2xx. A refused destination is a
// permanent error (seald.IsPermanent).
func (s *Sender) Send(ctx context.Context, target, secret, eventID string, eventType seald.EventType, body []byte, now time.Time) (int, error) {
	c := s.init()
	key, err := SecretKey(secret)
	if err != nil {
		return 0, seald.Permanent(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(string(body)))
	if err != nil {
		return 0, seald.Permanent(err)
	}
	ua := s.UserAgent
	if ua == "" {
		ua = "seald-webhooks"
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", ua)
	req.Header.Set(EventIDHeader, eventID)
	req.Header.Set(EventTypeHeader, string(eventType))
	req.Header.Set(SignatureHeader, Sign(secret, now, body))
	// The event id is the message id: the same at every retry and replay, so that a receiver drops repeats.
	req.Header.Set(StandardIDHeader, eventID)
	req.Header.Set(StandardTimestampHeader, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(StandardSignatureHeader, SignStandard(key, eventID, now, body))
	resp, err := c.Do(req)
	if err != nil {
		if errors.Is(err, ErrRefused) {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return 0, seald.Permanent(err)
		}
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("the endpoint answered %s", resp.Status)
	}
	return resp.StatusCode, nil
}
