package e2e

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// didHost is an HTTPS server on loopback that plays a business's domain for did:web: it answers
// /.well-known/did.json with the document last published (404 before, and after publish(nil)). Its
// certificate is trusted through caFile only (SSL_CERT_FILE for the processes that must reach it).
type didHost struct {
	URL    string // https://127.0.0.1:port
	Domain string // 127.0.0.1:port, as a business claims it
	CAFile string

	mu  sync.Mutex
	doc []byte
}

// startDIDHost starts a didHost that the test's end closes.
func startDIDHost(t *testing.T) *didHost {
	t.Helper()
	h := &didHost{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		b := h.doc
		h.mu.Unlock()
		if b == nil || r.URL.Path != "/.well-known/did.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/did+json")
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	h.URL, h.Domain = srv.URL, strings.TrimPrefix(srv.URL, "https://")
	h.CAFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(h.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// publish serves doc as the domain's DID document from now on; nil removes it.
func (h *didHost) publish(doc []byte) {
	h.mu.Lock()
	h.doc = doc
	h.mu.Unlock()
}
