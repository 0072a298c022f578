package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/jcs"
	"seald.dev/seald/secret"
	"seald.dev/seald/service"
	"seald.dev/seald/sqlite"
)

// authenticatedRoutes reads routes.go and returns the routes ("METHOD /path") whose handler is wrapped in
// s.authenticate.
func authenticatedRoutes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "routes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 3 {
			return true
		}
		if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "handle" {
			return true
		}
		wrap, ok := call.Args[2].(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := wrap.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "authenticate" {
			return true
		}
		m, _ := strconv.Unquote(call.Args[0].(*ast.BasicLit).Value)
		p, _ := strconv.Unquote(call.Args[1].(*ast.BasicLit).Value)
		out = append(out, m+" "+p)
		return true
	})
	return out
}

// TestRouteWithoutAuthenticationChangesNothing mounts every authenticated operation that changes state or
// shows an owner's data WITHOUT the authenticate middleware, as a route added by mistake would be, on a real
// Service and store, and calls it with a request that would succeed for the owner. Each must answer 401 in
// its envelope, and the store must be as it was: a missing caller grants nothing. (The verifications are left
// out: without a caller they read as an anonymous caller, PUBLIC records only, and change nothing.)
func TestRouteWithoutAuthenticationChangesNothing(t *testing.T) {
	ctx := t.Context()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "seald.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	secrets, err := secret.Generate()
	if err != nil {
		t.Fatal(err)
	}
	svc := &service.Service{Store: st, Secrets: secrets, Canonicalize: jcs.Canonicalize, Webhooks: st,
		Chains: map[string]seald.Chain{
			seald.NetworkPolygon: {Network: seald.NetworkPolygon, ChainID: "1337", Contract: "0x0000000000000000000000000000000000000001"},
			seald.NetworkEOS:     {Network: seald.NetworkEOS, ChainID: "17777", Contract: "0x0000000000000000000000000000000000000002"},
		}}
	tn, err := svc.CreateTenant(ctx, seald.Operator(), seald.TenantRequest{Business: "Acme", Project: "Docs"})
	if err != nil {
		t.Fatal(err)
	}
	owner, err := svc.Authenticate(ctx, tn.SubscriptionKey, tn.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := svc.Seal(ctx, owner, &seald.SealRequest{Data: []byte(`{"a":1}`), To: "a@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	hook, _, err := svc.CreateWebhook(ctx, owner, seald.WebhookRequest{URL: "https://hooks.example.test/x"})
	if err != nil {
		t.Fatal(err)
	}
	ref := rec.Reference

	s := &Server{Service: svc, Logger: slog.New(slog.DiscardHandler), Credentials: &service.Credentials{Service: svc, Statuses: st}}
	s.Handler() // sets the limits and failure tables up
	type call struct {
		h      http.HandlerFunc
		target string
		body   string
	}
	calls := map[string]call{
		"POST /svc-data/data/authentication/ipfs/sm-polygon/email": {s.sealOn("POLYGON"), "", `{"data":{"b":2},"to":"a@example.com"}`},
		"POST /svc-data/data/authentication/ipfs/sm-eos/email":     {s.sealOn("EOS"), "", `{"data":{"b":2},"to":"a@example.com"}`},
		"POST /svc-file/api/v1/ovi/generator":                      {s.generate, "", `{"data":{"b":2}}`},
		"GET /authentication-status/get/status":                    {s.status, "?reference=" + ref, ""},
		"PUT /authentication-status/update/status":                 {s.updateStatus, "", `{"reference":"` + ref + `","status":"REVOKED","reason":"x"}`},
		"GET /authentication-status/history":                       {s.history, "?reference=" + ref, ""},
		"POST /authentication/erase":                               {s.erase, "", `{"reference":"` + ref + `","reason":"x"}`},
		"PUT /tenant/update":                                       {s.updateTenant, "", `{"name":"Renamed"}`},
		"POST /webhooks":                                           {s.createWebhook, "", `{"url":"https://hooks.example.test/y"}`},
		"GET /webhooks":                                            {s.listWebhooks, "", ""},
		"DELETE /webhooks/{id}":                                    {s.deleteWebhook, "", ""},
		"GET /webhooks/{id}/deliveries":                            {s.listDeliveries, "", ""},
		"POST /webhooks/deliveries/{id}/replay":                    {s.replayDelivery, "", ""},
		"GET /svc-data/data/download":                              {s.download, "?reference=" + ref, ""},
		"GET /verification/api/v1/disclosure":                      {s.disclosure, "?reference=" + ref, ""},
		"GET /verification/api/v1/credential":                      {s.credential, "?reference=" + ref, ""},
		"POST /tenant/identity":                                    {s.setIdentity, "", `{"domain":"acme.example"}`},
		"GET /tenant/identity":                                     {s.getIdentity, "", ""},
		"POST /tenant/identity/check":                              {s.checkIdentity, "", ""},
	}
	for _, route := range authenticatedRoutes(t) {
		if _, ok := calls[route]; !ok && !strings.HasPrefix(route, "GET "+verifyPrefix) && !strings.HasPrefix(route, "POST "+verifyPrefix) {
			t.Errorf("route %s is not checked here: add it to calls", route)
		}
	}
	for route, c := range calls {
		t.Run(route, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc(route, c.h) // no s.authenticate: the mistake this test guards against
			method, path, _ := strings.Cut(route, " ")
			path = strings.ReplaceAll(path, "{id}", hook.ID)
			var body io.Reader
			if c.body != "" {
				body = strings.NewReader(c.body)
			}
			req := httptest.NewRequest(method, path+c.target, body)
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			w := httptest.NewRecorder()
			s.observe(mux).ServeHTTP(w, req)
			var env struct {
				Success *bool   `json:"success"`
				Error   *string `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
				t.Fatalf("%d %q: %v", w.Code, w.Body.String(), err)
			}
			if w.Code != http.StatusUnauthorized || env.Success == nil || *env.Success || env.Error == nil ||
				*env.Error != seald.ErrorMessage(seald.ErrNoCaller) {
				t.Fatalf("answered %d %s, want 401 with the message of ErrNoCaller", w.Code, w.Body.String())
			}
		})
	}

	// Nothing changed: the one record as sealed, no audit trail, no other record, the name, the webhook.
	got, err := st.Record(ctx, ref)
	if err != nil || got.Status != seald.StatusActive || got.Erased() || !got.UpdatedAt.Equal(rec.UpdatedAt) {
		t.Errorf("record changed: %+v %v", got, err)
	}
	if trail, err := st.AuditTrail(ctx, ref); err != nil || len(trail) != 0 {
		t.Errorf("audit trail: %v %v", trail, err)
	}
	if rs, err := st.RecordsByHash(ctx, rec.Hash); err != nil || len(rs) != 1 {
		t.Errorf("%d records of the data (%v)", len(rs), err)
	}
	sum := sha256.Sum256([]byte(`{"b":2}`)) // the canonical form of the data the seal calls sent
	if rs, err := st.RecordsByHash(ctx, hex.EncodeToString(sum[:])); err != nil && seald.ErrorCode(err) != seald.ENOTFOUND || len(rs) != 0 {
		t.Errorf("records were sealed: %d (%v)", len(rs), err)
	}
	if b, err := st.Business(ctx, owner.Business.BusinessID); err != nil || b.Name != "Acme" {
		t.Errorf("business: %+v %v", b, err)
	}
	if hooks, err := st.ProjectWebhooks(ctx, owner.Project.ProjectID); err != nil || len(hooks) != 1 {
		t.Errorf("webhooks: %d %v", len(hooks), err)
	}
	if !slices.ContainsFunc(authenticatedRoutes(t), func(r string) bool { return strings.Contains(r, "/tenant/update") }) {
		t.Error("routes.go was not read")
	}
}
