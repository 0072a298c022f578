package httpapi_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"

	"seald.dev/seald"
	"seald.dev/seald/httpapi"
	"seald.dev/seald/proof"
	"seald.dev/seald/wire"
)

func TestUpdateTenant(t *testing.T) {
	a := newAPI(t)
	var got seald.TenantUpdate
	a.svc.UpdateTenantFn = func(_ context.Context, _ *seald.Caller, u seald.TenantUpdate) (*seald.Business, *seald.Project, error) {
		got = u
		b := *owner.Business
		if u.Name != nil {
			b.Name = *u.Name
		}
		if u.ProjectID == "" {
			return &b, nil, nil
		}
		p := *owner.Project
		p.Name = *u.ProjectName
		return &b, &p, nil
	}
	var o wire.Owner
	a.do("PUT", "/tenant/update", `{"name":"Acme Ltd"}`).ok(t, 200, &o, "success", "data", "error")
	if got.BusinessID != "biz_acme" || got.ProjectID != "" || *got.Name != "Acme Ltd" || o.Business.Name != "Acme Ltd" ||
		o.Project.Name != "Docs" || o.Project.Retain != "forever" {
		t.Errorf("update %+v, answer %+v", got, o)
	}
	a.do("PUT", "/tenant/update", `{"project_name":"Invoices"}`).ok(t, 200, &o, "success", "data", "error")
	if got.ProjectID != "prj_docs" || o.Project.Name != "Invoices" {
		t.Errorf("update %+v, answer %+v", got, o)
	}
	a.do("PUT", "/tenant/update", `{"colour":"red"}`).plainError(t, 400, `unknown member "colour": give name, description`)
	a.do("PUT", "/tenant/update", `{}`).plainError(t, 400, "nothing to change")
	a.do("PUT", "/tenant/update", `{"name":7}`).plainError(t, 400, "name must be a string")
}

func TestWebhookOperations(t *testing.T) {
	a := newAPI(t)
	hook := &seald.Webhook{ID: "wh_1", URL: "https://hooks.example.test/x", Events: seald.EventTypes, CreatedAt: created}
	delivery := &seald.Delivery{ID: "whd_1", WebhookID: "wh_1", EventID: "evt_1", EventType: seald.EventRecordCompleted,
		Reference: ref, State: seald.DeliveryPending, RunAt: created, CreatedAt: created}
	notFound := func(id string) error { return seald.Errorf(seald.ENOTFOUND, "no webhook %s", id) }
	a.svc.CreateWebhookFn = func(_ context.Context, _ *seald.Caller, req seald.WebhookRequest) (*seald.Webhook, string, error) {
		if len(req.Events) != 1 || req.Events[0] != "record.failed" {
			t.Errorf("request %+v", req)
		}
		return hook, "whsec_x", nil
	}
	a.svc.ListWebhooksFn = func(context.Context, *seald.Caller) ([]*seald.Webhook, error) { return []*seald.Webhook{hook}, nil }
	a.svc.DeleteWebhookFn = func(_ context.Context, _ *seald.Caller, id string) (*seald.Webhook, error) {
		if id != hook.ID {
			return nil, notFound(id)
		}
		return hook, nil
	}
	a.svc.WebhookDeliveriesFn = func(_ context.Context, _ *seald.Caller, id string) (*seald.Webhook, []*seald.Delivery, error) {
		return hook, []*seald.Delivery{delivery}, nil
	}
	a.svc.ReplayDeliveryFn = func(_ context.Context, _ *seald.Caller, id string) (*seald.Delivery, error) {
		if id != delivery.ID {
			return nil, seald.Errorf(seald.ENOTFOUND, "no delivery %s", id)
		}
		return delivery, nil
	}

	var w wire.Webhook
	a.do("POST", "/webhooks", `{"url":"https://hooks.example.test/x","events":["record.failed"]}`).ok(t, 201, &w, "success", "data", "error")
	if w.ID != "wh_1" || w.Secret != "whsec_x" || len(w.Events) != len(seald.EventTypes) || w.CreatedAt != "2026-01-02T03:04:05.006Z" {
		t.Errorf("created %+v", w)
	}
	a.do("POST", "/webhooks", `{"events":[]}`).plainError(t, 400, "url is required")
	a.do("POST", "/webhooks", `{"url":"https://x","events":"all"}`).plainError(t, 400, "events must be an array of strings")
	a.do("POST", "/webhooks", `{"url":"https://x","secret":"mine"}`).plainError(t, 400, `unknown member "secret": give url and events`)

	var l wire.WebhookList
	a.do("GET", "/webhooks", "").ok(t, 200, &l, "success", "data", "error")
	if len(l.Webhooks) != 1 || l.Webhooks[0].Secret != "" {
		t.Errorf("list %+v", l)
	}
	a.do("DELETE", "/webhooks/wh_1", "").ok(t, 200, &w, "success", "data", "error")
	a.do("DELETE", "/webhooks/wh_2", "").plainError(t, 404, "no webhook wh_2")

	var dl wire.DeliveryList
	a.do("GET", "/webhooks/wh_1/deliveries", "").ok(t, 200, &dl, "success", "data", "error")
	if dl.WebhookID != "wh_1" || len(dl.Deliveries) != 1 || dl.Deliveries[0].NextAttemptAt != "2026-01-02T03:04:05.006Z" {
		t.Errorf("deliveries %+v", dl)
	}
	var d wire.Delivery
	a.do("POST", "/webhooks/deliveries/whd_1/replay", "").ok(t, 201, &d, "success", "data", "error")
	if d.ID != "whd_1" || d.State != "PENDING" {
		t.Errorf("replay %+v", d)
	}
	a.do("POST", "/webhooks/deliveries/whd_9/replay", "").plainError(t, 404, "no delivery whd_9")
	r := a.do("PUT", "/webhooks", "")
	r.plainError(t, 405, "PUT is not allowed here; use GET or HEAD or POST")
	if r.header.Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("Allow %q", r.header.Get("Allow"))
	}
}

func TestAuthentication(t *testing.T) {
	a := newAPI(t, func(s *httpapi.Server) { s.AuthFailuresPerMinute = 2 })
	a.svc.StatusFn = func(context.Context, *seald.Caller, string) (*seald.Record, error) { return record, nil }
	target := "/authentication-status/get/status?reference=" + ref
	a.do("GET", target, "", "Api-Key: ak_second").plainError(t, 400, "the Api-Key header is given more than once; send it once")
	a.do("GET", "/verification/api/v1/verify/reference?reference="+ref, "", "-Api-Key", "Api-Key: ak_wrong").
		verifyError(t, 401, "invalid subscription key or API key")
	a.do("GET", target, "", "-Api-Key", "Api-Key: ak_wrong").plainError(t, 401, "invalid subscription key or API key")
	r := a.do("GET", target, "", "-Api-Key", "Api-Key: ak_wrong")
	r.plainError(t, 429, "too many failed authentications from this client")
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// A valid pair is served whatever the same client failed before.
	a.do("GET", target, "").ok(t, 200, nil, "success", "data", "error")

	t.Run("rate limit per key", func(t *testing.T) {
		a := newAPI(t, func(s *httpapi.Server) { s.RatePerSecond, s.RateBurst = 0.001, 1 })
		a.svc.StatusFn = func(context.Context, *seald.Caller, string) (*seald.Record, error) { return record, nil }
		a.do("GET", target, "").ok(t, 200, nil, "success", "data", "error")
		r := a.do("GET", target, "")
		r.plainError(t, 429, "rate limit of this API key exceeded")
		if r.header.Get("Retry-After") != "1000" { // one request at 0.001 a second: the next token in 1000 s
			t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
		}
	})
	t.Run("store down is not a 401", func(t *testing.T) {
		a := newAPI(t)
		a.svc.AuthenticateFn = func(context.Context, string, string) (*seald.Caller, error) {
			return nil, &seald.Error{Code: seald.EUNAVAILABLE, Message: "the database is not answering", Err: errBoom}
		}
		a.do("GET", target, "").plainError(t, 503, "the database is not answering")
	})
}

func TestUnknownPathAndInternalErrors(t *testing.T) {
	a := newAPI(t)
	a.do("GET", "/nope", "").plainError(t, 404, "no such operation: /nope")
	a.do("GET", "/verification/api/v1/verify/nope", "").verifyError(t, 404, "no such operation")

	// An internal error is logged, and answered with a generic message and no detail.
	a.svc.StatusFn = func(context.Context, *seald.Caller, string) (*seald.Record, error) {
		return nil, errors.Join(errBoom, errors.New("more detail"))
	}
	r := a.do("GET", "/authentication-status/get/status?reference="+ref, "")
	r.plainError(t, 500, "internal error")
	if strings.Contains(r.body, "fire") {
		t.Errorf("the detail leaked: %s", r.body)
	}
	// A panic is a 500 in the envelope too, with the request id.
	a.svc.StatusFn = func(context.Context, *seald.Caller, string) (*seald.Record, error) { panic("bug") }
	r = a.do("GET", "/authentication-status/get/status?reference="+ref, "", "X-Request-Id: req-42")
	r.plainError(t, 500, "internal error")
	if r.header.Get("X-Request-Id") != "req-42" {
		t.Errorf("X-Request-Id %q", r.header.Get("X-Request-Id"))
	}
	if id := a.do("GET", "/nope", "", "X-Request-Id: bad id\x01").header.Get("X-Request-Id"); len(id) != 24 {
		t.Errorf("an unsafe request id is replaced by a fresh one: %q", id)
	}
}

func TestPublicOperations(t *testing.T) {
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	down := errors.New("connection refused")
	a := newAPI(t, func(s *httpapi.Server) {
		s.Ready = func(*http.Request) map[string]error {
			return map[string]error{"database": nil, "chain_polygon": nil, "ipfs": down}
		}
	})
	a.svc.PublicKeyFn = func() ed25519.PublicKey { return pub }
	a.svc.TrustRootFn = func() *proof.TrustRoot { return &proof.TrustRoot{Version: 1, Issuer: "https://verify.example.test"} }
	a.svc.ChainFn = func(network string) (seald.Chain, bool) {
		return seald.Chain{Network: network, ChainID: "80002"}, network == seald.NetworkPolygon
	}
	var k wire.PublicKey
	a.do("GET", "/.well-known/seald-key", "", "-Api-Key").ok(t, 200, &k, "success", "data", "error")
	if k.Algorithm != "Ed25519" || k.PublicKey != base64.StdEncoding.EncodeToString(pub) {
		t.Errorf("key %+v", k)
	}
	r := a.do("GET", "/.well-known/seald-trust.json", "", "-Api-Key")
	if r.code != 200 || !strings.Contains(r.body, `"issuer": "https://verify.example.test"`) || r.members["success"] != nil {
		t.Errorf("trust root: %d %s", r.code, r.body)
	}
	a.do("GET", "/healthz", "").ok(t, 200, nil, "success", "data", "error")
	var checks map[string]string
	r = a.do("GET", "/readyz", "")
	r.envelope(t, 503, false, "success", "data", "error")
	_ = jsonInto(r, &checks)
	if checks["database"] != "ok" || checks["ipfs"] != "connection refused" || !strings.HasPrefix(checks["chain_polygon"], "ok: ") {
		t.Errorf("checks %v", checks)
	}
	if r := a.do("GET", "/openapi.json", ""); r.code != 200 || r.header.Get("Cache-Control") != "public, max-age=300" {
		t.Errorf("openapi.json: %d %v", r.code, r.header)
	}
}
