package httpapi

import (
	_ "embed"
	"net/http"
)

// OpenAPI is the OpenAPI 3.1 document of the whole API: the seed's operations and those API.md adds, with
// both envelopes, every status code an operation gives, and the formats of identifiers. It is written by hand
// (it is the contract, not a by-product of the code); tests keep it honest: every route is in it and every
// operation in it is a route, and every request and response of the end-to-end test is validated against it.
//
//go:embed openapi.json
var OpenAPI []byte

// openapi serves the document as it is embedded.
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(OpenAPI)
}
