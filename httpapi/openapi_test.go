package httpapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"seald.dev/seald/internal/openapicheck"
)

// othersRoutes are served beside the API but are not its operations: the Prometheus text of /metrics and the
// HTML verification page with its assets (/v/), described in docs/api.md. They are left out of the document.
// The page's JSON documents (proof bundles, token metadata) are operations like any other.
var othersRoutes = []string{"GET /metrics", "GET /v/", "GET /assets/"}

func TestOpenAPIServedAndValid(t *testing.T) {
	h := (&Server{}).Handler()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/openapi.json", nil))
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("GET /openapi.json: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	if w.Body.String() != string(OpenAPI) {
		t.Error("the served document is not the embedded one")
	}
	c, err := openapicheck.New(w.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.Body.String(), `"openapi": "3.1.0"`) {
		t.Error("not an OpenAPI 3.1.0 document")
	}
	ids := map[string]bool{}
	for _, op := range c.Operations() {
		if ids[op.ID] {
			t.Errorf("operationId %s is used twice", op.ID)
		}
		ids[op.ID] = true
	}
}

// TestOpenAPIMatchesRoutes reads routes.go and compares its routes with the document's operations, both ways,
// so that neither can change without the other.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "routes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var routes []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		lit := func(i int) string {
			if i >= len(call.Args) {
				return ""
			}
			b, ok := call.Args[i].(*ast.BasicLit)
			if !ok || b.Kind != token.STRING {
				return ""
			}
			s, _ := strconv.Unquote(b.Value)
			return s
		}
		switch fn := call.Fun.(type) {
		case *ast.Ident: // handle("GET", "/path", h)
			if fn.Name == "handle" && lit(0) != "" && lit(1) != "" {
				routes = append(routes, lit(0)+" "+lit(1))
			}
		case *ast.SelectorExpr: // mux.Handle("GET /path", h)
			if (fn.Sel.Name == "Handle" || fn.Sel.Name == "HandleFunc") && strings.Contains(lit(0), " /") {
				routes = append(routes, lit(0))
			}
		}
		return true
	})
	if len(routes) < 15 {
		t.Fatalf("found only %d routes in routes.go: %v", len(routes), routes)
	}
	ops, err := openapicheck.Operations(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, op := range ops {
		documented = append(documented, op.Method+" "+op.Path)
	}
	for _, r := range routes {
		if !slices.Contains(documented, r) && !slices.Contains(othersRoutes, r) {
			t.Errorf("route %s is not in openapi.json", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(routes, d) {
			t.Errorf("openapi.json documents %s, which routes.go does not serve", d)
		}
	}
	// Each documented operation answers through the real mux (not the catch-all 404), keys or not.
	h := (&Server{Service: nil, Page: http.NotFoundHandler()}).routes()
	for _, op := range ops {
		if op.Path == "/ipfs/{cid}" {
			continue // mounted only when a gateway is configured
		}
		req := httptest.NewRequest(op.Method, op.Path, nil)
		if _, pattern := h.(*http.ServeMux).Handler(req); pattern != op.Method+" "+op.Path {
			t.Errorf("%s %s is routed to %q", op.Method, op.Path, pattern)
		}
	}
}
