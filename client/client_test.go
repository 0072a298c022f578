package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/client"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/internal/openapicheck"
	"seald.dev/seald/ipfs"
	"seald.dev/seald/jcs"
	"seald.dev/seald/mail"
	"seald.dev/seald/pipeline"
	"seald.dev/seald/secret"
	"seald.dev/seald/service"
	"seald.dev/seald/sqlite"
)

// startService runs the real API over a real Service on SQLite, with the embedded IPFS store and the pipeline's
// store and mail steps (no chain: records stop at IPFS_STORED, which is as far as these tests need). Every
// exchange is checked against openapi.json. It returns the URL, the default tenant and the checker.
func startService(t *testing.T, rate float64) (string, *seald.Tenant, *openapicheck.Checker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	store, err := sqlite.Open(ctx, filepath.Join(dir, "seald.db"))
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := ipfs.OpenEmbedded(filepath.Join(dir, "ipfs"))
	if err != nil {
		t.Fatal(err)
	}
	secrets, err := secret.Generate()
	if err != nil {
		t.Fatal(err)
	}
	outbox, err := mail.NewOutbox(filepath.Join(dir, "outbox"), "seald <seald@localhost>")
	if err != nil {
		t.Fatal(err)
	}
	svc := &service.Service{Store: store, Secrets: secrets, Blobs: blobs,
		Canonicalize: func(b []byte) ([]byte, error) { return jcs.CanonicalizeNamed(b, "data") },
		Chains:       map[string]seald.Chain{"POLYGON": {Network: "POLYGON", ChainID: "137", Contract: "0x5FbDB2315678afecb367f032d93F642f64180aa3"}},
	}
	pipe := &pipeline.Pipeline{Store: store, Secrets: secrets, Blobs: blobs, Mailer: outbox, Link: svc.VerificationLink, Workers: 2}
	svc.Wake = pipe.Wake
	tenant, err := svc.EnsureDefaultTenant(ctx, seald.Operator())
	if err != nil || tenant == nil {
		t.Fatalf("default tenant: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- pipe.Run(ctx) }()
	api := &httpapi.Server{Service: svc, Logger: slog.New(slog.DiscardHandler), RatePerSecond: rate, RateBurst: 1, ValidCID: func(s string) bool { _, err := ipfs.ParseCID(s); return err == nil }}
	check, err := openapicheck.New(httpapi.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.Handler())
	svc.PublicURL = srv.URL
	api.GatewayURL = srv.URL
	t.Cleanup(func() {
		srv.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("pipeline: %v", err)
		}
		store.Close()
		blobs.Close()
		for _, p := range check.Problems() {
			t.Errorf("openapi.json: %s", p)
		}
	})
	return srv.URL, tenant, check
}

func newClient(url string, tenant *seald.Tenant, check *openapicheck.Checker, opts ...client.Option) *client.Client {
	hc := &http.Client{Transport: check.Transport(nil), Timeout: 30 * time.Second}
	return client.New(url, append([]client.Option{client.WithKeys(tenant.SubscriptionKey, tenant.APIKey), client.WithHTTPClient(hc)}, opts...)...)
}

func TestClientOperations(t *testing.T) {
	url, tenant, check := startService(t, 0)
	c := newClient(url, tenant, check)
	ctx := t.Context()
	data := json.RawMessage(`{"invoice":"INV-1","amount":1.0,"big":12345678901234567890}`)

	res, err := c.Authenticate(ctx, client.Polygon, &client.AuthenticationRequest{Data: data, To: "alice@example.com",
		Cc: "bob@example.com", Subject: "Sealed", IsHTML: true, Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Reference, "D-") || len(res.Hash) != 64 {
		t.Fatalf("authenticate: %+v", res)
	}

	var st *client.StatusRecord
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if st, err = c.Status(ctx, res.Reference); err != nil {
			t.Fatal(err)
		}
		if st.State == "IPFS_STORED" || time.Now().After(deadline) {
			break
		}
	}
	if st.State != "IPFS_STORED" || st.CID == "" || st.Hash != res.Hash || !st.HasPassword || st.ErrorMessage != nil || st.Status != "ACTIVE" {
		t.Fatalf("status: %+v", st)
	}

	byRef, err := c.VerifyReference(ctx, res.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if byRef.Details.Hash != res.Hash || byRef.Owner.Business.Name == "" || byRef.Privacy != "PUBLIC" || !byRef.Misc.HasPassword ||
		byRef.IPFS.CID != st.CID || byRef.IPFS.IPFSGatewayLink != url+"/ipfs/"+st.CID {
		t.Errorf("verify by reference: %+v", byRef)
	}
	for name, call := range map[string]func() (*client.Verification, error){
		"hash": func() (*client.Verification, error) { return c.VerifyHash(ctx, res.Hash) },
		"cid":  func() (*client.Verification, error) { return c.VerifyCID(ctx, st.CID) },
		"data": func() (*client.Verification, error) {
			return c.VerifyData(ctx, map[string]any{"amount": 1, "invoice": "INV-1", "big": json.Number("12345678901234567890")})
		},
		"proof": func() (*client.Verification, error) {
			return c.VerifyReference(ctx, res.Reference, client.IncludeProof())
		},
	} {
		v, err := call()
		if err != nil || v.Details.Reference != res.Reference {
			t.Errorf("verify by %s: %+v, %v", name, v, err)
		}
	}

	if _, err := c.Download(ctx, res.Reference, "wrong"); !isStatus(err, 401) {
		t.Errorf("download with a wrong password: %v", err)
	}
	// Download returns the RFC 8785 form: numbers are IEEE doubles there, so 12345678901234567890 reads back
	// as 12345678901234567000, the same double.
	got, err := c.Download(ctx, res.Reference, "pw")
	if err != nil || string(got) != `{"amount":1,"big":12345678901234567000,"invoice":"INV-1"}` {
		t.Errorf("download: %s, %v", got, err)
	}

	// No chain here: the record is never anchored, so its disclosure package is not ready (409, the reason named).
	if _, err := c.DisclosurePackage(ctx, res.Reference, "pw"); !isStatus(err, 409) || !strings.Contains(err.Error(), "not anchored yet") {
		t.Errorf("disclosure package of a record not anchored: %v", err)
	}

	gen, err := c.Generate(ctx, json.RawMessage(`{"doc":"contract.pdf"}`))
	if err != nil || !strings.HasPrefix(gen.Reference, "I-") || gen.VerificationLink != url+"/v/"+gen.Reference {
		t.Fatalf("generate: %+v, %v", gen, err)
	}
	if v, err := c.VerifyOVI(ctx, gen.EncryptedOVI); err != nil || v.Details.Reference != gen.Reference {
		t.Errorf("verify ovi: %+v, %v", v, err)
	}

	ch, err := c.UpdateStatus(ctx, res.Reference, "SUSPENDED", "audit")
	if err != nil || ch.Status != "SUSPENDED" || ch.Msg == "" {
		t.Errorf("update status: %+v, %v", ch, err)
	}
	if _, err := c.UpdateStatus(ctx, res.Reference, "BOGUS", ""); !isStatus(err, 400) {
		t.Errorf("bogus status: %v", err)
	}

	if k, err := c.PublicKey(ctx); err != nil || k.Algorithm != "Ed25519" || k.PublicKey == "" {
		t.Errorf("public key: %+v, %v", k, err)
	}
	if err := c.Healthz(ctx); err != nil {
		t.Error(err)
	}
	if checks, err := c.Readyz(ctx); err != nil || len(checks) != 0 && checks["store"] != "ok" {
		t.Errorf("readyz: %v, %v", checks, err)
	}
	if doc, err := c.OpenAPI(ctx); err != nil || !strings.Contains(string(doc), `"3.1.0"`) {
		t.Errorf("openapi: %v", err)
	}
}

func isStatus(err error, code int) bool {
	var e *client.Error
	return errors.As(err, &e) && e.StatusCode == code
}

// TestClientErrors checks that each envelope's failure becomes an *Error with the message and request id.
func TestClientErrors(t *testing.T) {
	url, tenant, check := startService(t, 0)
	c := newClient(url, tenant, check)
	ctx := t.Context()
	unknown := "D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69"

	_, err := c.VerifyReference(ctx, unknown)
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 404 || !strings.Contains(e.Message, "no record") || e.RequestID == "" || !client.IsNotFound(err) {
		t.Errorf("verification 404: %#v", err)
	}
	if _, err := c.Status(ctx, unknown); !client.IsNotFound(err) {
		t.Errorf("status 404: %v", err)
	}
	if _, err := c.VerifyHash(ctx, "abc"); !isStatus(err, 400) || !strings.Contains(err.Error(), "64 hex") {
		t.Errorf("bad hash: %v", err)
	}
	if _, err := c.VerifyTokenID(ctx, client.Polygon, "999"); !client.IsNotFound(err) {
		t.Errorf("unknown token: %v", err)
	}
	if _, err := c.VerifyTokenID(ctx, "BITCOIN", "1"); !isStatus(err, 400) {
		t.Errorf("unknown network: %v", err)
	}
	if _, err := c.Authenticate(ctx, client.Polygon, &client.AuthenticationRequest{Data: json.RawMessage(`{"x":1}`)}); !isStatus(err, 400) || !strings.Contains(err.Error(), "to is required") {
		t.Errorf("no recipient: %v", err)
	}
	if _, err := c.Authenticate(ctx, client.EOS, &client.AuthenticationRequest{Data: json.RawMessage(`{"x":1}`), To: "a@example.com"}); !isStatus(err, 400) {
		t.Errorf("EOS not enabled: %v", err)
	}
	wrong := newClient(url, &seald.Tenant{SubscriptionKey: "nope", APIKey: "nope"}, check)
	if _, err := wrong.VerifyReference(ctx, unknown); !isStatus(err, 401) {
		t.Errorf("wrong keys: %v", err)
	}
}

// TestClientRetriesAfter429 runs the API with a rate limit of one request per second and a burst of one:
// the second call in a row is answered 429 with Retry-After, which the client honours when asked to.
func TestClientRetriesAfter429(t *testing.T) {
	url, tenant, check := startService(t, 1)
	var calls atomic.Int32
	counting := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		return check.Transport(nil).RoundTrip(r)
	})}
	ctx := t.Context()
	unknown := "D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69"

	plain := client.New(url, client.WithKeys(tenant.SubscriptionKey, tenant.APIKey), client.WithHTTPClient(counting))
	_, _ = plain.Status(ctx, unknown)
	_, err := plain.Status(ctx, unknown)
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 429 || e.RetryAfter <= 0 {
		t.Fatalf("second call without retry: %#v", err)
	}

	retrying := client.New(url, client.WithKeys(tenant.SubscriptionKey, tenant.APIKey), client.WithHTTPClient(counting),
		client.WithRetry(5, 2*time.Second))
	calls.Store(0)
	if _, err := retrying.Status(ctx, unknown); !client.IsNotFound(err) {
		t.Fatalf("with retry: %v, want the 404 behind the 429", err)
	}
	if calls.Load() < 2 {
		t.Errorf("%d calls: the 429 was not retried", calls.Load())
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A 503 of backpressure (X-Seald-Backpressure) is retried after its Retry-After, since nothing was accepted;
// a plain 503, after which a seal may have been stored, is not.
func TestClientRetriesBackpressure(t *testing.T) {
	var calls atomic.Int32
	var backpressure atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			if backpressure.Load() {
				w.Header().Set("X-Seald-Backpressure", "1")
			}
			w.WriteHeader(503)
			w.Write([]byte(`{"success":false,"data":null,"error":"busy"}`))
			return
		}
		w.WriteHeader(201)
		w.Write([]byte(`{"success":true,"data":{"reference":"D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69","hash":"` + strings.Repeat("a", 64) + `"},"error":null}`))
	}))
	defer srv.Close()
	c := client.New(srv.URL, client.WithKeys("s", "a"), client.WithRetry(3, 5*time.Second))
	body := json.RawMessage(`{"data":{"x":1},"to":"a@example.com"}`)

	backpressure.Store(true)
	start := time.Now()
	if _, err := c.AuthenticateJSON(t.Context(), "POLYGON", body); err != nil {
		t.Fatalf("after backpressure: %v", err)
	}
	if calls.Load() != 2 || time.Since(start) < time.Second {
		t.Errorf("%d calls in %s: the backpressure 503 was not retried after its Retry-After", calls.Load(), time.Since(start))
	}

	calls.Store(0)
	backpressure.Store(false)
	_, err := c.AuthenticateJSON(t.Context(), "POLYGON", body)
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 503 || calls.Load() != 1 {
		t.Errorf("a plain 503: %v after %d calls; want it returned at once", err, calls.Load())
	}
}
