package didweb_test

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"seald.dev/seald/didweb"
)

func TestDIDMapping(t *testing.T) {
	for _, c := range []struct{ domain, did, url string }{
		{"acme.example", "did:web:acme.example", "https://acme.example/.well-known/did.json"},
		{"ACME.example.", "did:web:acme.example", "https://acme.example/.well-known/did.json"},
		{"127.0.0.1:8443", "did:web:127.0.0.1%3A8443", "https://127.0.0.1:8443/.well-known/did.json"},
		{"acme.example/dept/eu", "did:web:acme.example:dept:eu", "https://acme.example/dept/eu/did.json"},
		{"acme.example:8443/u", "did:web:acme.example%3A8443:u", "https://acme.example:8443/u/did.json"},
	} {
		did, err := didweb.DID(c.domain)
		if err != nil || did != c.did {
			t.Errorf("DID(%q) = %q, %v; want %q", c.domain, did, err, c.did)
			continue
		}
		u, err := didweb.DocumentURL(did)
		if err != nil || u != c.url {
			t.Errorf("DocumentURL(%q) = %q, %v; want %q", did, u, err, c.url)
		}
		d, err := didweb.Domain(did)
		if err != nil {
			t.Errorf("Domain(%q): %v", did, err)
		}
		if back, _ := didweb.DID(d); back != did {
			t.Errorf("Domain(%q) = %q does not map back", did, d)
		}
	}
}

func TestDomainRefusals(t *testing.T) {
	for _, d := range []string{"", "https://acme.example", "acme.example?x=1", "acme.example#f", "user@acme.example",
		"acme.example:0", "acme.example:99999", "acme.example:x", "-acme.example", "acme..example", "ac me.example",
		"[::1]:443", "acme.example/../x", "acme.example/a%2Fb", "ünï.example", strings.Repeat("a", 300)} {
		if _, err := didweb.DID(d); err == nil {
			t.Errorf("DID(%q) accepted", d)
		}
	}
	for _, did := range []string{"did:key:z6Mk", "did:web:", "did:web:ACME.example", "did:web:acme.example%3A0443"} {
		if _, err := didweb.Domain(did); err == nil {
			t.Errorf("Domain(%q) accepted", did)
		}
	}
}

func TestMultibase(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(nil)
	s := didweb.Multibase(pub)
	if !strings.HasPrefix(s, "z6Mk") {
		t.Fatalf("Multibase = %q, want z6Mk...", s)
	}
	back, err := didweb.ParseMultibase(s)
	if err != nil || !back.Equal(pub) {
		t.Fatalf("ParseMultibase: %v", err)
	}
	// The Ed25519 key of the W3C eddsa-rdfc-2022 test vectors, whose Multikey is published with them.
	const w3c = "z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2"
	k, err := didweb.ParseMultibase(w3c)
	if err != nil || didweb.Multibase(k) != w3c {
		t.Fatalf("W3C Multikey: %v", err)
	}
	for _, bad := range []string{"", "6Mk", "uAAAA", "z6LS", "z" + strings.Repeat("1", 40)} {
		if _, err := didweb.ParseMultibase(bad); err == nil {
			t.Errorf("ParseMultibase(%q) accepted", bad)
		}
	}
}

func TestDocumentCheck(t *testing.T) {
	const did = "did:web:acme.example"
	old, _, _ := ed25519.GenerateKey(nil)
	cur, _, _ := ed25519.GenerateKey(nil)
	other, _, _ := ed25519.GenerateKey(nil)
	b, err := json.Marshal(didweb.NewDocument(did, []didweb.Key{{Fragment: "k2", Public: cur}, {Fragment: "k1", Public: old}}))
	if err != nil {
		t.Fatal(err)
	}
	d, err := didweb.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []ed25519.PublicKey{cur, old} {
		if _, err := d.Check(did, k); err != nil {
			t.Errorf("Check of a listed key: %v", err)
		}
	}
	if id, _ := d.Check(did, cur); id != did+"#k2" {
		t.Errorf("Check id = %q", id)
	}
	if _, err := d.Check(did, other); !errors.Is(err, didweb.ErrKeyMissing) {
		t.Errorf("Check of another key = %v, want ErrKeyMissing", err)
	}
	if _, err := d.Check("did:web:other.example", cur); err == nil {
		t.Error("Check under another DID accepted")
	}
	if len(d.Keys()) != 2 {
		t.Errorf("Keys = %v", d.Keys())
	}

	t.Run("jwk and relative ids", func(t *testing.T) {
		doc := `{"id":"` + did + `","verificationMethod":[{"id":"#j","type":"JsonWebKey","controller":"` + did +
			`","publicKeyJwk":{"kty":"OKP","crv":"Ed25519","x":"` + base64.RawURLEncoding.EncodeToString(cur) + `"}}],"assertionMethod":["#j"]}`
		d, err := didweb.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Check(did, cur); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		mb := didweb.Multibase(cur)
		for name, doc := range map[string]string{
			"not listed for assertions": `{"id":"` + did + `","verificationMethod":[{"id":"` + did + `#k","type":"Multikey","controller":"` + did + `","publicKeyMultibase":"` + mb + `"}],"authentication":["` + did + `#k"]}`,
			"another controller":        `{"id":"` + did + `","verificationMethod":[{"id":"` + did + `#k","type":"Multikey","controller":"did:web:evil.example","publicKeyMultibase":"` + mb + `"}],"assertionMethod":["` + did + `#k"]}`,
			"unknown type":              `{"id":"` + did + `","assertionMethod":[{"id":"` + did + `#k","type":"EcdsaSecp256k1","controller":"` + did + `","publicKeyMultibase":"` + mb + `"}]}`,
		} {
			d, err := didweb.Parse([]byte(doc))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if _, err := d.Check(did, cur); err == nil {
				t.Errorf("%s: accepted", name)
			}
		}
		for name, doc := range map[string]string{"not JSON": "<html>", "no id": `{"verificationMethod":[]}`,
			"too large": `{"id":"` + did + `","x":"` + strings.Repeat("a", didweb.MaxDocument) + `"}`} {
			if _, err := didweb.Parse([]byte(doc)); err == nil {
				t.Errorf("Parse %s: accepted", name)
			}
		}
	})
}

// server starts an HTTPS server on loopback and returns the DID of its address and a fetcher trusting it.
func server(t *testing.T, h http.HandlerFunc) (string, *didweb.Fetcher, *httptest.Server) {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	did, err := didweb.DID(strings.TrimPrefix(srv.URL, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return did, &didweb.Fetcher{RootCAs: pool}, srv
}

func TestFetch(t *testing.T) {
	ctx := context.Background()
	t.Run("document", func(t *testing.T) {
		did, f, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/.well-known/did.json" {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte(`{"id":"x"}`))
		})
		b, err := f.Fetch(ctx, did)
		if err != nil || string(b) != `{"id":"x"}` {
			t.Fatalf("Fetch = %q, %v", b, err)
		}
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		did, _, _ := server(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) })
		if _, err := (&didweb.Fetcher{}).Fetch(ctx, did); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("Fetch with the system roots = %v, want a certificate error", err)
		}
	})
	t.Run("not found", func(t *testing.T) {
		did, f, _ := server(t, http.NotFound)
		if _, err := f.Fetch(ctx, did); err == nil || !strings.Contains(err.Error(), "404") {
			t.Fatalf("Fetch = %v, want 404", err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		did, f, _ := server(t, func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, didweb.MaxDocument+1)) })
		if _, err := f.Fetch(ctx, did); err == nil || !strings.Contains(err.Error(), "larger") {
			t.Fatalf("Fetch = %v, want too large", err)
		}
	})
	t.Run("redirect to another origin", func(t *testing.T) {
		_, _, other := server(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"id":"x"}`)) })
		did, f, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/.well-known/did.json", http.StatusFound)
		})
		f.RootCAs.AddCert(other.Certificate())
		if _, err := f.Fetch(ctx, did); err == nil || !strings.Contains(err.Error(), "another origin") {
			t.Fatalf("Fetch = %v, want a refused redirect", err)
		}
	})
	t.Run("redirect within the origin", func(t *testing.T) {
		did, f, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/.well-known/did.json" {
				http.Redirect(w, r, "/doc.json", http.StatusFound)
				return
			}
			w.Write([]byte(`{"id":"y"}`))
		})
		if b, err := f.Fetch(ctx, did); err != nil || string(b) != `{"id":"y"}` {
			t.Fatalf("Fetch = %q, %v", b, err)
		}
	})
	t.Run("dial guard", func(t *testing.T) {
		did, f, _ := server(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) })
		refused := errors.New("refused by the guard")
		f.DialContext = func(context.Context, string, string) (net.Conn, error) { return nil, refused }
		if _, err := f.Fetch(ctx, did); !errors.Is(err, refused) {
			t.Fatalf("Fetch = %v, want the guard's refusal", err)
		}
	})
}
