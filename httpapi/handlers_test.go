package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/mock"
	"seald.dev/seald/service"
)

// Every group of handlers takes only its interface, and the program's one value satisfies them all.
var (
	_ httpapi.Service = (*service.Service)(nil)
	_ httpapi.Service = (*mock.Service)(nil)
)

const (
	subKey = "sk_valid"
	apiKey = "ak_valid"
	ref    = "D-0b6e3f2c-1d3a-4c5e-9f10-2a3b4c5d6e7f"
	hash   = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
)

var (
	created = time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	owner   = &seald.Caller{
		Business: &seald.Business{ID: "b-uuid", BusinessID: "biz_acme", Name: "Acme", DateRegistered: created},
		Project: &seald.Project{ID: "p-uuid", ProjectID: "prj_docs", BusinessID: "biz_acme", Name: "Docs",
			Privacy: seald.PrivacyPublic, Network: seald.NetworkPolygon},
		KeyID: "key_1",
	}
	record = &seald.Record{Reference: ref, Pipeline: seald.PipelinePolygon, BusinessID: "biz_acme", ProjectID: "prj_docs",
		Network: seald.NetworkPolygon, Hash: hash, MimeType: "application/json", Privacy: seald.PrivacyPublic,
		Status: seald.StatusActive, State: seald.StatePending, IsEncrypted: true, Downloadable: true,
		CreatedAt: created, UpdatedAt: created}
)

// testAPI is the API's handler over a fake Service that knows one key pair (subKey, apiKey: owner).
type testAPI struct {
	t   *testing.T
	svc *mock.Service
	srv *httpapi.Server
	h   http.Handler
}

type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// newAPI builds the handler; configure, when given, sets the Server's fields before Handler.
func newAPI(t *testing.T, configure ...func(*httpapi.Server)) *testAPI {
	t.Helper()
	svc := &mock.Service{}
	svc.AuthenticateFn = func(_ context.Context, sub, api string) (*seald.Caller, error) {
		if sub == subKey && api == apiKey {
			c := *owner
			return &c, nil
		}
		return nil, seald.Errorf(seald.EUNAUTHORIZED, "invalid subscription key or API key")
	}
	svc.VerificationLinkFn = func(reference string) string { return "https://verify.example.test/v/" + reference }
	srv := &httpapi.Server{Service: svc, Logger: slog.New(slog.NewTextHandler(logWriter{t}, nil)), GatewayURL: "https://gw.example.test"}
	for _, f := range configure {
		f(srv)
	}
	return &testAPI{t: t, svc: svc, srv: srv, h: srv.Handler()}
}

// response is an answer with its body decoded as an envelope.
type response struct {
	code    int
	header  http.Header
	body    string
	members map[string]json.RawMessage
}

// do sends a request with the owner's keys unless header says otherwise ("Name: value" pairs; "-Name" drops
// one). A body is sent as application/json.
func (a *testAPI) do(method, target, body string, header ...string) *response {
	a.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	req.Header.Set("Ocp-Apim-Subscription-Key", subKey)
	req.Header.Set("Api-Key", apiKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range header {
		if name, ok := strings.CutPrefix(h, "-"); ok {
			req.Header.Del(name)
			continue
		}
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Add(name, value)
	}
	w := httptest.NewRecorder()
	a.h.ServeHTTP(w, req)
	r := &response{code: w.Code, header: w.Header(), body: w.Body.String()}
	_ = json.Unmarshal(w.Body.Bytes(), &r.members)
	return r
}

// plainError checks an error in the {"success","data","error"} envelope: the status, data null, the message.
func (r *response) plainError(t *testing.T, status int, msg string) {
	t.Helper()
	r.envelope(t, status, false, "success", "data", "error")
	if string(r.members["data"]) != "null" {
		t.Errorf("data is %s, want null", r.members["data"])
	}
	var got string
	if err := json.Unmarshal(r.members["error"], &got); err != nil || !strings.Contains(got, msg) {
		t.Errorf("error is %s, want one containing %q", r.members["error"], msg)
	}
}

// verifyError checks an error in the {"success","data"} envelope of the verifications: data is the message.
func (r *response) verifyError(t *testing.T, status int, msg string) {
	t.Helper()
	r.envelope(t, status, false, "success", "data")
	var got string
	if err := json.Unmarshal(r.members["data"], &got); err != nil || !strings.Contains(got, msg) {
		t.Errorf("data is %s, want a message containing %q", r.members["data"], msg)
	}
}

// ok checks a success with its envelope's members and decodes data into v (when not nil).
func (r *response) ok(t *testing.T, status int, v any, members ...string) {
	t.Helper()
	r.envelope(t, status, true, members...)
	if v != nil {
		if err := json.Unmarshal(r.members["data"], v); err != nil {
			t.Fatalf("data %s: %v", r.members["data"], err)
		}
	}
}

func (r *response) envelope(t *testing.T, status int, success bool, members ...string) {
	t.Helper()
	if r.code != status {
		t.Fatalf("status %d, want %d: %s", r.code, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v lack nosniff or no-store", r.header)
	}
	if len(r.members) != len(members) {
		t.Errorf("envelope %s, want the members %v", r.body, members)
	}
	for _, m := range members {
		if _, ok := r.members[m]; !ok {
			t.Errorf("envelope %s lacks %q", r.body, m)
		}
	}
	if string(r.members["success"]) != map[bool]string{true: "true", false: "false"}[success] {
		t.Errorf("success is %s, want %v", r.members["success"], success)
	}
}

var errBoom = errors.New("database on fire: /var/lib/seald/seald.db")

// jsonInto decodes the data member of an answer into v.
func jsonInto(r *response, v any) error { return json.Unmarshal(r.members["data"], v) }
