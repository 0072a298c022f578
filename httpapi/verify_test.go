package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/proof"
	"seald.dev/seald/wire"
)

// verifying makes Verify answer the record for any lookup and remember the lookup it got.
func verifying(a *testAPI, got *seald.Lookup) {
	a.svc.VerifyFn = func(_ context.Context, c *seald.Caller, l seald.Lookup) (*seald.Verification, error) {
		if c == nil || c.KeyID != owner.KeyID {
			a.t.Errorf("Verify got the caller %+v", c)
		}
		*got = l
		return &seald.Verification{Record: record, Business: owner.Business, Project: owner.Project, SameHash: 2}, nil
	}
}

func TestVerifyOperations(t *testing.T) {
	for _, c := range []struct {
		name, method, target, body string
		want                       seald.Lookup
	}{
		{"reference", "GET", "/verification/api/v1/verify/reference?reference=" + ref, "", seald.Lookup{Reference: ref}},
		{"token id", "GET", "/verification/api/v1/verify/token-id?token_id=7&blockchain=polygon", "", seald.Lookup{TokenID: "7", Network: "POLYGON"}},
		{"token id, default network", "GET", "/verification/api/v1/verify/token-id?token_id=7", "", seald.Lookup{TokenID: "7", Network: "POLYGON"}},
		{"cid, made canonical", "GET", "/verification/api/v1/verify/cid?cid=QmX", "", seald.Lookup{CID: "bafyX"}},
		{"hash, 0x and upper case", "GET", "/verification/api/v1/verify/hash?hash=0x" + strings.ToUpper(hash), "", seald.Lookup{Hash: hash}},
		{"data", "POST", "/verification/api/v1/verify/data", `{"data":{"b":1,"a":2},"extra":true}`, seald.Lookup{Data: []byte(`{"b":1,"a":2}`)}},
		{"ovi", "GET", "/verification/api/v1/verify/ovi?ovi=abc", "", seald.Lookup{OVI: "abc"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newAPI(t, func(s *httpapi.Server) { s.CanonicalCID = func(s string) string { return "bafy" + s[2:] } })
			a.svc.ChainFn = func(network string) (seald.Chain, bool) {
				return seald.Chain{Network: network, ChainID: "137"}, network == seald.NetworkPolygon
			}
			var got seald.Lookup
			verifying(a, &got)
			var v wire.Verification
			a.do(c.method, c.target, c.body).ok(t, http.StatusOK, &v, "success", "data")
			if got.Reference != c.want.Reference || got.TokenID != c.want.TokenID || got.Network != c.want.Network ||
				got.CID != c.want.CID || got.Hash != c.want.Hash || string(got.Data) != string(c.want.Data) || got.OVI != c.want.OVI {
				t.Errorf("lookup %+v, want %+v", got, c.want)
			}
			if v.Details.Reference != ref || v.Details.Hash != hash || v.Owner.Business.Name != "Acme" || v.Owner.ProjectID != "prj_docs" ||
				v.Status != "ACTIVE" || v.Privacy != "PUBLIC" || v.RecordsWithHash != 2 || v.Proof != nil ||
				v.Details.CreatedTime != "2026-01-02T03:04:05.006Z" || v.Blockchain.ChainName != "Polygon PoS (chain 137)" {
				t.Errorf("verification %+v", v)
			}
		})
	}
}

func TestVerifyErrors(t *testing.T) {
	a := newAPI(t, func(s *httpapi.Server) { s.ValidCID = func(s string) bool { return strings.HasPrefix(s, "bafy") } })
	a.svc.VerifyFn = func(_ context.Context, _ *seald.Caller, l seald.Lookup) (*seald.Verification, error) {
		if l.Reference == "D-internal" {
			return nil, errBoom
		}
		return nil, seald.Errorf(seald.ENOTFOUND, "no record with reference %s", l.Reference)
	}
	for _, c := range []struct {
		name, method, target, body string
		status                     int
		msg                        string
	}{
		{"no reference", "GET", "/verification/api/v1/verify/reference", "", 400, "query parameter reference is required"},
		{"blank reference", "GET", "/verification/api/v1/verify/reference?reference=%20", "", 400, "query parameter reference is required"},
		{"unknown", "GET", "/verification/api/v1/verify/reference?reference=D-x", "", 404, "no record with reference D-x"},
		{"internal", "GET", "/verification/api/v1/verify/reference?reference=D-internal", "", 500, "internal error"},
		{"no token id", "GET", "/verification/api/v1/verify/token-id", "", 400, "query parameter token_id is required"},
		{"bad network", "GET", "/verification/api/v1/verify/token-id?token_id=1&blockchain=BTC", "", 400, "blockchain must be POLYGON or EOS"},
		{"bad cid", "GET", "/verification/api/v1/verify/cid?cid=nope", "", 400, "cid is not a valid IPFS content identifier"},
		{"no cid", "GET", "/verification/api/v1/verify/cid", "", 400, "query parameter cid is required"},
		{"bad hash", "GET", "/verification/api/v1/verify/hash?hash=abc", "", 400, "hash must be 64 hex digits (SHA-256)"},
		{"no ovi", "GET", "/verification/api/v1/verify/ovi", "", 400, "query parameter ovi is required"},
		{"data missing", "POST", "/verification/api/v1/verify/data", `{}`, 400, "data is required"},
		{"data not an object", "POST", "/verification/api/v1/verify/data", `{"data":[1]}`, 400, "data must be a JSON object"},
		{"malformed JSON", "POST", "/verification/api/v1/verify/data", `{"data":`, 400, "malformed JSON"},
		{"body not an object", "POST", "/verification/api/v1/verify/data", `[]`, 400, "the request body must be a JSON object"},
		{"duplicate member", "POST", "/verification/api/v1/verify/data", `{"data":{},"data":{}}`, 400, `the member "data" is given more than once`},
		{"wrong method", "DELETE", "/verification/api/v1/verify/hash", "", 405, "DELETE is not allowed here; use GET or HEAD"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := a.do(c.method, c.target, c.body)
			r.verifyError(t, c.status, c.msg)
			if c.status == 405 && r.header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow %q", r.header.Get("Allow"))
			}
		})
	}
	t.Run("content type", func(t *testing.T) {
		a.do("POST", "/verification/api/v1/verify/data", `{"data":{}}`, "-Content-Type", "Content-Type: text/plain").
			verifyError(t, 415, `Content-Type must be application/json, not "text/plain"`)
	})
	t.Run("body too large", func(t *testing.T) {
		a := newAPI(t, func(s *httpapi.Server) { s.BodyLimit = 64 })
		a.do("POST", "/verification/api/v1/verify/data", `{"data":{"x":"`+strings.Repeat("a", 100)+`"}}`).
			verifyError(t, 413, "the request body is larger than 64 bytes")
	})
}

func TestVerifyWithProof(t *testing.T) {
	a := newAPI(t)
	var got seald.Lookup
	verifying(a, &got)
	anchored := true
	verify := a.svc.VerifyFn
	a.svc.VerifyFn = func(ctx context.Context, c *seald.Caller, l seald.Lookup) (*seald.Verification, error) {
		v, err := verify(ctx, c, l)
		if err == nil && l.Proof && anchored { // the service answers the proof itself (Lookup.Proof)
			r := v.Record
			v.Proof = &proof.Bundle{Version: proof.Version, Reference: r.Reference, Hash: r.Hash, TokenID: "7", MerklePath: []string{}}
		}
		return v, err
	}
	var v wire.Verification
	a.do("GET", "/verification/api/v1/verify/reference?reference="+ref+"&proof=1", "").ok(t, 200, &v, "success", "data")
	if v.Proof == nil || v.Proof.Reference != ref || v.Proof.TokenID != "7" {
		t.Errorf("proof %+v", v.Proof)
	}
	anchored = false
	r := a.do("GET", "/verification/api/v1/verify/reference?reference="+ref+"&proof=true", "")
	r.ok(t, 200, nil, "success", "data")
	if strings.Contains(r.body, `"proof"`) {
		t.Errorf("a record not anchored yet has a proof member: %s", r.body)
	}
}
