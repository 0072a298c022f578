package openapicheck_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"seald.dev/seald/httpapi"
	"seald.dev/seald/internal/openapicheck"
)

const verification = `{"success":true,"data":{"owner":{"business":{"id":"b1","business_id":"B-1","name":"n","description":"","logo":"","website":"","date_registered":"2026-01-02T03:04:05.678Z"},"project_id":"P-1","project":{"id":"p1","project_id":"P-1","name":"p","description":"","logo":"","privacy":"PUBLIC","business_id":"B-1"},"business_id":"B-1"},"is_data_downloadable":true,"blockchain":{"token_id":"7","blockchain_network":"POLYGON","revoked_on_chain":false},"ipfs":{"ipfs_gateway_link":"http://x/ipfs/bafkreiabc","cid":"bafkreiabc"},"privacy":"PUBLIC","details":{"reference":"D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69","pipeline":"ipfs/sm-polygon/email","created_time":"2026-01-02T03:04:05.678Z","updated_time":"2026-01-02T03:04:05.678Z","mimetype":"application/json","encrypted_file":"ipfs://bafkreiabc","hash":"` + hash + `"},"status":"ACTIVE","misc":{"is_email":true,"is_encrypted":true,"is_signed":true,"has_password":false}}}`

const hash = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"

// TestCheckerCatchesMismatches runs exchanges with a server that answers what each case says, and asserts
// which of them the checker reports: a checker that reports nothing would pass the end-to-end test vacuously.
func TestCheckerCatchesMismatches(t *testing.T) {
	cases := []struct {
		name, method, path, body string
		status                   int
		answer                   string
		noRequestID              bool
		want                     string // "" for no problem, else a fragment of the problem
	}{
		{"conforming verification", "GET", "/verification/api/v1/verify/hash?hash=" + hash, "", 200, verification, false, ""},
		{"wrong member type", "GET", "/verification/api/v1/verify/hash?hash=" + hash, "", 200, strings.Replace(verification, `"is_email":true`, `"is_email":"yes"`, 1), false, "does not match"},
		{"member missing", "GET", "/verification/api/v1/verify/hash?hash=" + hash, "", 200, strings.Replace(verification, `"status":"ACTIVE",`, ``, 1), false, "does not match"},
		{"bad datetime", "GET", "/verification/api/v1/verify/hash?hash=" + hash, "", 200, strings.Replace(verification, `"updated_time":"2026-01-02T03:04:05.678Z"`, `"updated_time":"yesterday"`, 1), false, "does not match"},
		{"plain envelope on a verification error", "GET", "/verification/api/v1/verify/hash?hash=" + hash, "", 404, `{"success":false,"data":null,"error":"no record"}`, false, "does not match"},
		{"verification error envelope", "GET", "/verification/api/v1/verify/hash?hash=" + hash, "", 404, `{"success":false,"data":"no record"}`, false, ""},
		{"undocumented status code", "GET", "/authentication-status/get/status?reference=D-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69", "", 418, `{"success":false,"data":null,"error":"teapot"}`, false, "does not match"},
		{"no X-Request-Id", "GET", "/healthz", "", 200, `{"success":true,"data":{"status":"alive"},"error":null}`, true, "does not match"},
		{"server accepts a forbidden request", "POST", "/svc-file/api/v1/ovi/generator", `{"data":[1]}`, 201, `{"success":true,"data":{"reference":"I-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69","encrypted_ovi":"abc","verification_link":"http://x/v/I-0b9c2f1e-5d7a-4c3b-8a9e-1f2d3c4b5a69"},"error":null}`, false, "forbids"},
		{"server refuses a forbidden request", "POST", "/svc-file/api/v1/ovi/generator", `{"data":[1]}`, 400, `{"success":false,"data":null,"error":"data must be a JSON object"}`, false, ""},
		{"unknown path answered 404", "GET", "/nope", "", 404, `{"success":false,"data":null,"error":"no such operation"}`, false, ""},
		{"unknown path answered 200", "GET", "/nope", "", 200, `{"success":true}`, false, "no operation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				if !c.noRequestID {
					w.Header().Set("X-Request-Id", "r1")
				}
				w.WriteHeader(c.status)
				w.Write([]byte(c.answer))
			}))
			defer srv.Close()
			check, err := openapicheck.New(httpapi.OpenAPI)
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Ocp-Apim-Subscription-Key", "s")
			req.Header.Set("Api-Key", "a")
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := (&http.Client{Transport: check.Transport(nil)}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			problems := strings.Join(check.Problems(), "\n")
			switch {
			case c.want == "" && problems != "":
				t.Errorf("unexpected problems: %s", problems)
			case c.want != "" && !strings.Contains(problems, c.want):
				t.Errorf("problems %q do not contain %q", problems, c.want)
			}
		})
	}
}

// TestRequestIDsThatReadAsNumbers: a request id is a string whatever its characters. A random hex id made of
// decimal digits around one "e" reads as a float, and the checker once failed it as "got number, want
// string" (an e2e run met one); a client's own id may be "true".
func TestRequestIDsThatReadAsNumbers(t *testing.T) {
	for _, id := range []string{"123456789012345678901234", "8802e61993417720594235", "0e1", "1.5", "true", "inf", "r1"} {
		t.Run(id, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.Header().Set("X-Request-Id", id)
				w.Write([]byte(`{"success":true,"data":{"status":"alive"},"error":null}`))
			}))
			defer srv.Close()
			check, err := openapicheck.New(httpapi.OpenAPI)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := (&http.Client{Transport: check.Transport(nil)}).Get(srv.URL + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("X-Request-Id"); got != id {
				t.Errorf("the caller got X-Request-Id %q, want %q as the server sent it", got, id)
			}
			if problems := check.Problems(); len(problems) > 0 {
				t.Errorf("X-Request-Id %q: %s", id, strings.Join(problems, "\n"))
			}
		})
	}
}
