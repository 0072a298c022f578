package httpapi

import (
	"net/http"
	"sort"
	"strings"
)

// routes lists the whole API at a glance. Each path also gets a catch-all that answers 405 with Allow in the
// operation's envelope, and every unknown path a JSON 404, so no HTML or plain-text error reaches a client.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	methods := map[string][]string{}
	handle := func(method, path string, h http.HandlerFunc) {
		mux.HandleFunc(method+" "+path, h)
		methods[path] = append(methods[path], method)
	}

	// The seed's operations.
	handle("GET", "/verification/api/v1/verify/token-id", s.authenticate(s.verifyTokenID))
	handle("GET", "/verification/api/v1/verify/reference", s.authenticate(s.verifyReference))
	handle("GET", "/verification/api/v1/verify/cid", s.authenticate(s.verifyCID))
	handle("GET", "/verification/api/v1/verify/hash", s.authenticate(s.verifyHash))
	handle("POST", "/verification/api/v1/verify/data", s.authenticate(s.verifyData))
	handle("POST", "/svc-data/data/authentication/ipfs/sm-polygon/email", s.authenticate(s.sealOn("POLYGON")))
	handle("GET", "/authentication-status/get/status", s.authenticate(s.status))
	handle("POST", "/svc-file/api/v1/ovi/generator", s.authenticate(s.generate))

	// Beyond the seed (API.md).
	handle("POST", "/svc-data/data/authentication/ipfs/sm-eos/email", s.authenticate(s.sealOn("EOS")))
	handle("PUT", "/authentication-status/update/status", s.authenticate(s.updateStatus))
	handle("GET", "/authentication-status/history", s.authenticate(s.history))
	handle("POST", "/authentication/erase", s.authenticate(s.erase))
	handle("PUT", "/tenant/update", s.authenticate(s.updateTenant))
	handle("POST", "/tenant/identity", s.authenticate(s.setIdentity))
	handle("GET", "/tenant/identity", s.authenticate(s.getIdentity))
	handle("POST", "/tenant/identity/check", s.authenticate(s.checkIdentity))
	handle("POST", "/webhooks", s.authenticate(s.createWebhook))
	handle("GET", "/webhooks", s.authenticate(s.listWebhooks))
	handle("DELETE", "/webhooks/{id}", s.authenticate(s.deleteWebhook))
	handle("GET", "/webhooks/{id}/deliveries", s.authenticate(s.listDeliveries))
	handle("POST", "/webhooks/deliveries/{id}/replay", s.authenticate(s.replayDelivery))
	handle("GET", "/verification/api/v1/verify/ovi", s.authenticate(s.verifyOVI))
	handle("GET", "/svc-data/data/download", s.authenticate(s.download))
	handle("GET", "/verification/api/v1/disclosure", s.authenticate(s.disclosure))
	handle("GET", "/.well-known/seald-key", s.publicKey)
	handle("GET", "/.well-known/seald-trust.json", s.trustRoot)
	handle("GET", "/batches/{network}/{token_id}", s.batchManifest)
	// Records as verifiable credentials and what their verifiers fetch (credentials.go, docs/credentials.md).
	handle("GET", "/verification/api/v1/credential", s.authenticate(s.credential))
	handle("GET", "/.well-known/did.json", s.didDocument)
	handle("GET", "/credentials/contexts/v1", s.credentialContext)
	handle("GET", "/credentials/status/{purpose}/{list}", s.statusList)
	handle("GET", "/credentials/status-tokens/{list}", s.statusListToken)
	handle("GET", "/healthz", s.healthz)
	handle("GET", "/readyz", s.readyz)
	handle("GET", "/openapi.json", s.openapi)
	if s.MetricsHandler != nil {
		mux.Handle("GET /metrics", s.MetricsHandler)
	}
	if s.Gateway != nil {
		mux.Handle("GET /ipfs/{cid}", s.Gateway)
	}
	if s.Page != nil {
		mux.Handle("GET /v/", s.Page)
		mux.Handle("GET /assets/", s.Page)
		// The page's two JSON documents are operations of openapi.json; their errors are JSON too (web).
		mux.Handle("GET /v/{reference}/proof.json", s.Page)
		mux.Handle("GET /tokens/{network}/{token_id}", s.Page)
	}

	if s.Console != nil {
		// The console answers its own paths, errors included, as HTML (package console).
		mux.Handle("/console/", s.Console)
		mux.Handle("/console", s.Console)
	}

	for path, ms := range methods {
		allow := append([]string(nil), ms...)
		if contains(allow, "GET") {
			allow = append(allow, "HEAD")
		}
		sort.Strings(allow)
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			s.writeError(w, r, errMethod(r.Method, allow))
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errNoRoute(r.URL.Path))
	})
	return mux
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}
