// Package webhook sends record events to the projects' endpoints over HTTP: it signs each body with the
// endpoint's secret per Standard Webhooks (https://www.standardwebhooks.com: webhook-id, webhook-timestamp and
// webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<unix>.<body>">, which the official libraries verify),
// and, beside it for receivers written against it before, in the scheme Stripe made familiar (Seald-Signature:
// t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">). It refuses to connect to loopback, private, link-local and
// other internal addresses unless the operator allowed them. The check runs on the address actually dialled,
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

// Allow is the operator's allow-list of destinations that would otherwise be refused: address ranges, and
// host names allowed whatever they resolve to.
type Allow struct {
	Prefixes []netip.Prefix
	Hosts    []string // lower case, without port
}

// ParseAllow reads a comma-separated list of CIDRs, addresses and host names (the --webhook-allow flag).
func ParseAllow(v string) (Allow, error) {
	var a Allow
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			a.Prefixes = append(a.Prefixes, p.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(f); err == nil {
			ip = ip.Unmap()
			a.Prefixes = append(a.Prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		if strings.ContainsAny(f, "/:@ ") {
			return Allow{}, fmt.Errorf("%q is not an address, CIDR or host name", f)
		}
		a.Hosts = append(a.Hosts, strings.ToLower(strings.TrimSuffix(f, ".")))
	}
	return a, nil
}

func (a Allow) host(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	for _, x := range a.Hosts {
		if x == h {
			return true
		}
	}
	return false
}

func (a Allow) addr(ip netip.Addr) bool {
	for _, p := range a.Prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// sharedAddressSpace is 100.64.0.0/10 (carrier-grade NAT, RFC 6598), internal although not "private".
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// Internal reports why ip is an address deliveries are refused by default, or "" when it is public.
func Internal(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local address (cloud metadata services live there)"
	case ip.IsUnspecified():
		return "an unspecified address"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	case sharedAddressSpace.Contains(ip):
		return "a shared (carrier-grade NAT) address"
	}
	return ""
}

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
var ErrRefused = errors.New("refused destination")

// Refused is the error of a destination the allow-list does not admit.
func refused(what, host string) error {
	return seald.Permanent(fmt.Errorf("%w: %s is %s; an operator may allow it with --webhook-allow", ErrRefused, host, what))
}

// CheckURL refuses a webhook URL whose host is a literal internal address that is not allowed: a name is
// checked only when it is dialled, since what it resolves to may change.
func (s *Sender) CheckURL(u *url.URL) error {
	h := u.Hostname()
	if s.Allow.host(h) {
		return nil
	}
	ip, err := netip.ParseAddr(h)
	if err != nil {
		return nil
	}
	if why := Internal(ip); why != "" && !s.Allow.addr(ip.Unmap()) {
		return seald.Errorf(seald.EINVALID, "%s is %s, to which this seald does not deliver (its operator may allow it with --webhook-allow)", h, why)
	}
	return nil
}

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
		trusted := s.Allow.host(host)
		d := &net.Dialer{Timeout: timeout, Control: func(_, address string, _ syscall.RawConn) error {
			// Called with the resolved address right before connecting to it.
			if trusted {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return seald.Permanent(fmt.Errorf("%w: cannot read the address %q", ErrRefused, address))
			}
			ip := ap.Addr().Unmap()
			if why := Internal(ip); why != "" && !s.Allow.addr(ip) {
				return refused(why, ip.String()+" ("+host+")")
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
