package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
)

// verify is this test's own check of a Seald-Signature, written from the documented scheme.
func verify(secret, header string, body []byte) bool {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + string(body)))
	want := hex.EncodeToString(m.Sum(nil))
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			return true
		}
	}
	return false
}

func TestSignMatchesScheme(t *testing.T) {
	body := []byte(`{"id":"evt_x"}`)
	at := time.Unix(1700000000, 0)
	h := Sign("whsec_test", at, body)
	if !strings.HasPrefix(h, "t=1700000000,v1=") || !verify("whsec_test", h, body) {
		t.Errorf("Sign = %q, which the documented check refuses", h)
	}
	if verify("whsec_other", h, body) || verify("whsec_test", h, []byte(`{"id":"evt_y"}`)) {
		t.Error("the signature verifies with another secret or body")
	}
}

// A loopback receiver is refused by default, at dial time, and reached once the operator allows it, by
// address range or by host name; a host name that resolves to loopback (as a rebinding name would) is refused
// although the URL check, which cannot know what a name will resolve to, let it pass.
func TestSenderRefusesInternalUnlessAllowed(t *testing.T) {
	var got atomic.Int32
	var lastSig, lastID string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if verify(testSecret, r.Header.Get(SignatureHeader), b) {
			got.Add(1)
		}
		lastSig, lastID = r.Header.Get(SignatureHeader), r.Header.Get(EventIDHeader)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	ctx := context.Background()
	body := []byte(`{"id":"evt_1"}`)
	now := time.Now()

	var closed Sender
	code, err := closed.Send(ctx, srv.URL, testSecret, "evt_1", seald.EventRecordCompleted, body, now)
	if err == nil || !seald.IsPermanent(err) || !errors.Is(err, ErrRefused) || code != 0 || got.Load() != 0 {
		t.Errorf("default sender to %s: code %d err %v (received %d); want a permanent refusal", srv.URL, code, err, got.Load())
	}
	u, _ := url.Parse(srv.URL)
	if err := closed.CheckURL(u); seald.ErrorCode(err) != seald.EINVALID {
		t.Errorf("CheckURL(%s) = %v, want EINVALID", srv.URL, err)
	}

	port := u.Port()
	named := "http://localhost:" + port + "/hook"
	nu, _ := url.Parse(named)
	// A name is checked at creation on what it resolves to then (localhost: loopback, where it resolves),
	// and again at the dial.
	if err := closed.CheckURL(nu); err != nil && seald.ErrorCode(err) != seald.EINVALID {
		t.Errorf("CheckURL(%s) = %v, want nil or EINVALID", named, err)
	}
	if _, err := closed.Send(ctx, named, testSecret, "evt_1", seald.EventRecordCompleted, body, now); !errors.Is(err, ErrRefused) {
		t.Errorf("default sender to %s: %v, want refused at dial", named, err)
	}

	byRange := &Sender{Allow: Allow{Prefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}}
	if code, err := byRange.Send(ctx, srv.URL, testSecret, "evt_1", seald.EventRecordCompleted, body, now); err != nil || code != 204 {
		t.Errorf("allowed by range: %d %v", code, err)
	}
	allow, err := ParseAllow("localhost, 10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	byName := &Sender{Allow: allow}
	if code, err := byName.Send(ctx, named, testSecret, "evt_2", seald.EventRecordCompleted, body, now); err != nil || code != 204 {
		t.Errorf("allowed by name: %d %v", code, err)
	}
	if got.Load() != 2 || lastID != "evt_2" || lastSig == "" {
		t.Errorf("received %d verified deliveries (last id %q), want 2 with evt_2 last", got.Load(), lastID)
	}
	if _, err := ParseAllow("http://x/"); err == nil {
		t.Error("ParseAllow accepted a URL")
	}
}

// An answer outside 2xx is an error with its status, retried (not permanent); a redirect is not followed.
func TestSenderNon2xx(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/hook", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	s := &Sender{Allow: Allow{Prefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}
	code, err := s.Send(context.Background(), srv.URL+"/hook", testSecret, "evt_1", seald.EventRecordFailed, []byte(`{}`), time.Now())
	if code != 503 || err == nil || seald.IsPermanent(err) {
		t.Errorf("503: code %d err %v, want 503 and a retryable error", code, err)
	}
	code, err = s.Send(context.Background(), srv.URL+"/moved", testSecret, "evt_1", seald.EventRecordFailed, []byte(`{}`), time.Now())
	if code != 302 || err == nil {
		t.Errorf("redirect: code %d err %v, want 302 and an error", code, err)
	}
}

func TestInternal(t *testing.T) {
	for _, c := range []struct {
		ip       string
		internal bool
	}{
		{"127.0.0.1", true}, {"::1", true}, {"10.1.2.3", true}, {"172.16.0.1", true}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"fc00::1", true}, {"0.0.0.0", true}, {"100.64.0.1", true},
		{"::ffff:127.0.0.1", true}, {"224.0.0.1", true}, {"8.8.8.8", false}, {"2001:4860:4860::8888", false},
	} {
		if got := Internal(netip.MustParseAddr(c.ip)) != ""; got != c.internal {
			t.Errorf("Internal(%s) = %v, want %v", c.ip, got, c.internal)
		}
	}
}
