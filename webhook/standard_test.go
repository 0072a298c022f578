package webhook

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	stripewebhook "github.com/stripe/stripe-go/v84/webhook"

	"seald.dev/seald"
)

// testSecret is a secret in the form seald makes them: whsec_ and 32 bytes in standard base64.
var testSecret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789ABCDEF"))

// received is what a test endpoint got: the raw body and the headers.
type received struct {
	body   []byte
	header http.Header
}

// deliver sends one event with a real Sender to a loopback endpoint and returns what the endpoint got.
func deliver(t *testing.T, secret, eventID string, body []byte, now time.Time) received {
	t.Helper()
	var mu sync.Mutex
	var got []received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, received{b, r.Header.Clone()})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	s := &Sender{Allow: Allow{Prefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}}
	if code, err := s.Send(context.Background(), srv.URL, secret, eventID, seald.EventRecordCompleted, body, now); err != nil || code != 204 {
		t.Fatalf("Send: %d %v", code, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("%d deliveries, want 1", len(got))
	}
	return got[0]
}

// standardForm is a secret as a Standard Webhooks library takes it: whsec_ and the key in standard base64.
// A secret made before issue 31 (URL-safe base64) is converted so, as docs/webhooks.md says.
func standardForm(secret string) string {
	b64 := strings.TrimPrefix(secret, "whsec_")
	if _, err := base64.StdEncoding.DecodeString(b64); err == nil {
		return secret
	}
	b64 = strings.NewReplacer("-", "+", "_", "/").Replace(b64)
	return "whsec_" + b64 + strings.Repeat("=", (4-len(b64)%4)%4)
}

// TestDeliveriesVerifyWithTheirLibraries: a delivery verifies with the official Standard Webhooks library
// (webhook-id, webhook-timestamp, webhook-signature) and, its Seald-Signature given as Stripe-Signature, with
// Stripe's own library; both refuse it once its body, id, timestamp or secret differ. A secret of the old
// URL-safe form signs the same way, its key given to the library in standard base64.
func TestDeliveriesVerifyWithTheirLibraries(t *testing.T) {
	var raw [32]byte
	for { // an old secret with a character only the URL-safe alphabet has
		if _, err := rand.Read(raw[:]); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(base64.RawURLEncoding.EncodeToString(raw[:]), "-_") {
			break
		}
	}
	old := "whsec_" + base64.RawURLEncoding.EncodeToString(raw[:])
	body := []byte(`{"id":"evt_gq3tmmzrgeytmnbq","type":"record.completed","created":1764000000,"data":{"reference":"D-1"}}`)
	for name, secret := range map[string]string{"new secret": testSecret, "old secret": old} {
		t.Run(name, func(t *testing.T) {
			now := time.Now()
			got := deliver(t, secret, "evt_gq3tmmzrgeytmnbq", body, now)
			h := got.header
			if h.Get("webhook-id") != "evt_gq3tmmzrgeytmnbq" || h.Get("webhook-id") != h.Get(EventIDHeader) ||
				h.Get("webhook-timestamp") != strconv.FormatInt(now.Unix(), 10) || !strings.HasPrefix(h.Get("webhook-signature"), "v1,") {
				t.Errorf("Standard Webhooks headers: %v", h)
			}
			std, err := standardwebhooks.NewWebhook(standardForm(secret))
			if err != nil {
				t.Fatal(err)
			}
			if err := std.Verify(got.body, h); err != nil {
				t.Errorf("Standard Webhooks' library refuses the delivery: %v", err)
			}
			if err := stripewebhook.ValidatePayload(got.body, h.Get(SignatureHeader), secret); err != nil {
				t.Errorf("Stripe's library refuses the delivery's Seald-Signature: %v", err)
			}

			tampered := bytes.Replace(got.body, []byte("D-1"), []byte("D-2"), 1)
			if std.Verify(tampered, h) == nil || stripewebhook.ValidatePayload(tampered, h.Get(SignatureHeader), secret) == nil {
				t.Error("a tampered body verifies")
			}
			for header, value := range map[string]string{"webhook-id": "evt_other", "webhook-timestamp": strconv.FormatInt(now.Unix()-1, 10),
				"webhook-signature": "v1," + base64.StdEncoding.EncodeToString(make([]byte, 32))} {
				changed := h.Clone()
				changed.Set(header, value)
				if std.Verify(got.body, changed) == nil {
					t.Errorf("Standard Webhooks' library accepts a delivery with %s %s", header, value)
				}
			}
			stale := deliver(t, secret, "evt_gq3tmmzrgeytmnbq", body, now.Add(-time.Hour))
			if std.Verify(stale.body, stale.header) == nil || stripewebhook.ValidatePayload(stale.body, stale.header.Get(SignatureHeader), secret) == nil {
				t.Error("a delivery signed an hour ago verifies")
			}
			other, err := standardwebhooks.NewWebhook("whsec_" + base64.StdEncoding.EncodeToString([]byte("another key of thirty-two bytes!")))
			if err != nil {
				t.Fatal(err)
			}
			if other.Verify(got.body, h) == nil || stripewebhook.ValidatePayload(got.body, h.Get(SignatureHeader), "whsec_other") == nil {
				t.Error("the delivery verifies with another secret")
			}
		})
	}
}

// TestSecretKey: the key of a secret is the bytes of its base64 in either alphabet; anything else is refused
// rather than signed with a key no receiver holds.
func TestSecretKey(t *testing.T) {
	if k, err := SecretKey(testSecret); err != nil || string(k) != "0123456789abcdef0123456789ABCDEF" {
		t.Errorf("SecretKey(%s) = %q %v", testSecret, k, err)
	}
	if k, err := SecretKey("whsec_-_-_"); err != nil || !bytes.Equal(k, []byte{0xfb, 0xff, 0xbf, 0xfb}[:len(k)]) {
		t.Errorf("SecretKey of URL-safe base64 = %x %v", k, err)
	}
	for _, bad := range []string{"", "sk_abc", "whsec_!!!!"} {
		if _, err := SecretKey(bad); err == nil {
			t.Errorf("SecretKey(%q) accepted", bad)
		}
	}
}
