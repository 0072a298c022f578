package service_test

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/didweb"
	"seald.dev/seald/jcs"
	"seald.dev/seald/proof"
	"seald.dev/seald/service"
)

// identityEnv is a Service on a real SQLite store, fetching DID documents with the real fetcher from an HTTPS
// server on loopback that plays the business's domain, and a clock the test moves.
type identityEnv struct {
	svc    *service.Service
	a, b   *seald.Caller
	domain string // host:port of the HTTPS server
	now    time.Time

	mu  sync.Mutex
	doc []byte // what the domain serves at /.well-known/did.json; nil: 404
}

func newIdentityEnv(t *testing.T) *identityEnv {
	t.Helper()
	st, secrets := storeAndKeys(t)
	e := &identityEnv{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		doc := e.doc
		e.mu.Unlock()
		if doc == nil || r.URL.Path != "/.well-known/did.json" {
			http.NotFound(w, r)
			return
		}
		w.Write(doc)
	}))
	t.Cleanup(srv.Close)
	e.domain = strings.TrimPrefix(srv.URL, "https://")
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	e.svc = &service.Service{Store: st, Secrets: secrets, Canonicalize: jcs.Canonicalize, Identities: st, Chains: devPolygon(),
		FetchDID: &didweb.Fetcher{RootCAs: roots}, Now: func() time.Time { return e.now }}
	e.a = signUp(t, e.svc, seald.TenantRequest{Business: "Acme", Project: "Docs"})
	e.b = signUp(t, e.svc, seald.TenantRequest{Business: "Other", Project: "Docs"})
	return e
}

func (e *identityEnv) publish(t *testing.T, doc *didweb.Document) {
	t.Helper()
	var b []byte
	if doc != nil {
		var err error
		if b, err = json.Marshal(doc); err != nil {
			t.Fatal(err)
		}
	}
	e.mu.Lock()
	e.doc = b
	e.mu.Unlock()
}

func TestIdentityVerifyAndLapse(t *testing.T) {
	e := newIdentityEnv(t)
	ctx := t.Context()
	id, doc, err := e.svc.SetIdentity(ctx, e.a, seald.IdentityRequest{Domain: e.domain})
	if err != nil {
		t.Fatal(err)
	}
	wantDID := "did:web:" + strings.Replace(e.domain, ":", "%3A", 1)
	if id.DID != wantDID || id.State != seald.IdentityPending || len(doc.VerificationMethod) != 1 {
		t.Fatalf("SetIdentity = %+v, %+v", id, doc)
	}

	t.Run("check before publishing stays pending", func(t *testing.T) {
		got, _, err := e.svc.CheckIdentity(ctx, e.a)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != seald.IdentityPending || !strings.Contains(got.Reason, "404") || got.CheckedAt == nil {
			t.Fatalf("check = %s %q", got.State, got.Reason)
		}
	})
	t.Run("another key published is refused", func(t *testing.T) {
		pub, _, _ := ed25519.GenerateKey(nil)
		e.publish(t, didweb.NewDocument(id.DID, []didweb.Key{{Fragment: "k", Public: pub}}))
		got, _, err := e.svc.CheckIdentity(ctx, e.a)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != seald.IdentityPending || !strings.Contains(got.Reason, "does not list the key") {
			t.Fatalf("check = %s %q", got.State, got.Reason)
		}
	})
	e.publish(t, doc)
	got, _, err := e.svc.CheckIdentity(ctx, e.a)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != seald.IdentityVerified || got.VerifiedAt == nil || !got.VerifiedAt.Equal(e.now) || got.Reason != "" {
		t.Fatalf("check after publishing = %+v", got)
	}

	t.Run("the daily re-check waits a day", func(t *testing.T) {
		e.now = e.now.Add(seald.IdentityRecheck - time.Minute)
		e.publish(t, nil)
		n, err := e.svc.RecheckIdentities(ctx, 10)
		if err != nil || n != 0 {
			t.Fatalf("RecheckIdentities before a day = %d, %v", n, err)
		}
	})
	t.Run("a document removed lapses at the daily re-check", func(t *testing.T) {
		e.now = e.now.Add(2 * time.Minute)
		n, err := e.svc.RecheckIdentities(ctx, 10)
		if err != nil || n != 1 {
			t.Fatalf("RecheckIdentities = %d, %v", n, err)
		}
		got, _, err := e.svc.IdentityOf(ctx, e.a)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != seald.IdentityLapsed || got.VerifiedAt != nil || !strings.Contains(got.Reason, "404") {
			t.Fatalf("after the re-check = %+v", got)
		}
	})
	t.Run("published again verifies again", func(t *testing.T) {
		e.publish(t, doc)
		got, _, err := e.svc.CheckIdentity(ctx, e.a)
		if err != nil || got.State != seald.IdentityVerified {
			t.Fatalf("check = %+v, %v", got, err)
		}
	})
}

func TestIdentityRotateKeepsOldKeys(t *testing.T) {
	e := newIdentityEnv(t)
	ctx := t.Context()
	first, _, err := e.svc.SetIdentity(ctx, e.a, seald.IdentityRequest{Domain: e.domain})
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := e.svc.SetIdentity(ctx, e.a, seald.IdentityRequest{Domain: strings.ToUpper(e.domain)})
	if err != nil || len(again.Keys) != 1 || again.Keys[0].ID != first.Keys[0].ID {
		t.Fatalf("the same domain again made a change: %+v, %v", again, err)
	}
	e.now = e.now.Add(time.Second)
	rotated, doc, err := e.svc.SetIdentity(ctx, e.a, seald.IdentityRequest{Domain: e.domain, RotateKey: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rotated.Keys) != 2 || rotated.Keys[1].ID != first.Keys[0].ID || rotated.State != seald.IdentityPending {
		t.Fatalf("rotated = %+v", rotated)
	}
	if keys := doc.Keys(); len(keys) != 2 || doc.VerificationMethod[0].ID != rotated.DID+"#"+rotated.Keys[0].ID {
		t.Fatalf("document after rotation = %+v", doc)
	}
	priv, id, err := e.svc.IdentitySigner(ctx, e.a.Business.BusinessID)
	if err != nil {
		t.Fatal(err)
	}
	if !ed25519.Verify(id.Keys[0].Public, []byte("m"), ed25519.Sign(priv, []byte("m"))) {
		t.Fatal("IdentitySigner does not sign with the current key")
	}
}

func TestIdentityAuthority(t *testing.T) {
	e := newIdentityEnv(t)
	ctx := t.Context()
	if _, _, err := e.svc.SetIdentity(ctx, e.a, seald.IdentityRequest{Domain: e.domain}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.IdentityOf(ctx, e.b); seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Errorf("another business's IdentityOf = %v, want ENOTFOUND", err)
	}
	for name, c := range map[string]*seald.Caller{"nobody": nil, "operator": seald.Operator()} {
		if _, _, err := e.svc.SetIdentity(ctx, c, seald.IdentityRequest{Domain: e.domain}); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("%s SetIdentity = %v, want EUNAUTHORIZED", name, err)
		}
		if _, _, err := e.svc.CheckIdentity(ctx, c); seald.ErrorCode(err) != seald.EUNAUTHORIZED {
			t.Errorf("%s CheckIdentity = %v, want EUNAUTHORIZED", name, err)
		}
	}
	for _, d := range []string{"", "https://acme.example", "acme.example?x", "[::1]:443"} {
		if _, _, err := e.svc.SetIdentity(ctx, e.a, seald.IdentityRequest{Domain: d}); seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("SetIdentity(%q) = %v, want EINVALID", d, err)
		}
	}
}

// The public record page says a business's domain is verified from the identity's state alone: a view never
// opens the business's private key (that is for signing a proof). With the sealed key made unreadable, the
// page still names the verified domain, and a proof, which must be signed with it, fails.
func TestPublicPageOpensNoIdentityKey(t *testing.T) {
	e := newIdentityEnv(t)
	ctx := t.Context()
	_, doc, err := e.svc.SetIdentity(ctx, e.a, seald.IdentityRequest{Domain: e.domain})
	if err != nil {
		t.Fatal(err)
	}
	e.publish(t, doc)
	if got, _, err := e.svc.CheckIdentity(ctx, e.a); err != nil || got.State != seald.IdentityVerified {
		t.Fatalf("check = %+v, %v", got, err)
	}
	rec, err := e.svc.Seal(ctx, e.a, &seald.SealRequest{Data: []byte(`{"page":1}`), To: "a@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.svc.Identities.Identity(ctx, e.a.Business.BusinessID)
	if err != nil {
		t.Fatal(err)
	}
	prev := id.UpdatedAt
	id.Keys[0].Sealed = "unreadable"
	if err := e.svc.Identities.SaveIdentity(ctx, id, &prev); err != nil {
		t.Fatal(err)
	}

	pr, err := e.svc.PublicRecord(ctx, rec.Reference)
	if err != nil {
		t.Fatalf("the page of a record whose business key is unreadable: %v", err)
	}
	if pr.Issuer == nil || pr.Issuer.Status != proof.IssuerDomainVerified || pr.Issuer.DID != id.DID {
		t.Fatalf("the page's issuer = %+v, want the verified domain %s", pr.Issuer, id.DID)
	}
	if _, _, err := e.svc.IdentitySigner(ctx, e.a.Business.BusinessID); err == nil {
		t.Fatal("the unreadable key opened: the test proves nothing")
	}
}
