package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"seald.dev/seald"
)

// TestWebhooks: add shows the signing secret once (never in a URL), list, remove, deliveries with their
// answers, replay; another project's webhook and a delivery of another webhook are 404; every change needs
// the CSRF token.
func TestWebhooks(t *testing.T) {
	e := newEnv(t)
	const secret = "whsec_only-once"
	hook := &seald.Webhook{ID: "wh_aaaaaaaaaaaaaaaa", URL: "https://hooks.example.test/x", Events: seald.EventTypes}
	var created []seald.WebhookRequest
	var deleted, replayed []string
	e.svc.CreateWebhookFn = func(_ context.Context, c *seald.Caller, req seald.WebhookRequest) (*seald.Webhook, string, error) {
		if !strings.HasPrefix(req.URL, "https://") {
			return nil, "", seald.Errorf(seald.EINVALID, "url must be an https URL")
		}
		created = append(created, req)
		return hook, secret, nil
	}
	e.svc.ListWebhooksFn = func(context.Context, *seald.Caller) ([]*seald.Webhook, error) { return []*seald.Webhook{hook}, nil }
	e.svc.WebhookDeliveriesFn = func(_ context.Context, c *seald.Caller, id string) (*seald.Webhook, []*seald.Delivery, error) {
		if id != hook.ID {
			return nil, nil, seald.Errorf(seald.ENOTFOUND, "no webhook %s", id)
		}
		return hook, []*seald.Delivery{{ID: "whd_1", WebhookID: hook.ID, EventType: seald.EventRecordCompleted,
			Reference: mine, State: "FAILED", Attempts: 3, LastStatusCode: 500}}, nil
	}
	e.svc.DeleteWebhookFn = func(_ context.Context, c *seald.Caller, id string) (*seald.Webhook, error) {
		if id != hook.ID {
			return nil, seald.Errorf(seald.ENOTFOUND, "no webhook %s", id)
		}
		deleted = append(deleted, id)
		return hook, nil
	}
	e.svc.ReplayDeliveryFn = func(_ context.Context, c *seald.Caller, id string) (*seald.Delivery, error) {
		replayed = append(replayed, id)
		return &seald.Delivery{ID: id}, nil
	}
	cookie, csrf := e.signIn()
	wantStatus(t, "webhooks page", e.do("GET", "/console/webhooks", cookie, nil), http.StatusOK)

	w := e.do("POST", "/console/webhooks", cookie, url.Values{"csrf": {csrf}, "url": {"http://plain"}})
	wantStatus(t, "bad URL", w, http.StatusBadRequest)
	if !strings.Contains(w.Body.String(), "url must be an https URL") {
		t.Error("the API's message is not shown")
	}
	wantStatus(t, "add without the token", e.do("POST", "/console/webhooks", cookie, url.Values{"url": {hook.URL}}), http.StatusForbidden)
	w = e.do("POST", "/console/webhooks", cookie, url.Values{"csrf": {csrf}, "url": {hook.URL},
		"events": {"record.completed", "record.erased"}})
	wantStatus(t, "add", w, http.StatusSeeOther)
	loc := w.Header().Get("Location")
	if strings.Contains(loc, secret) || len(created) != 1 || strings.Join(created[0].Events, ",") != "record.completed,record.erased" {
		t.Fatalf("add: to %q, created %+v", loc, created)
	}
	w = e.do("GET", loc, cookie, nil)
	if !strings.Contains(w.Body.String(), secret) || !strings.Contains(w.Body.String(), "HTTP 500") {
		t.Errorf("the webhook's page after adding lacks its secret or its deliveries:\n%s", w.Body.String())
	}
	if w = e.do("GET", loc, cookie, nil); strings.Contains(w.Body.String(), secret) {
		t.Error("the secret is shown a second time")
	}

	wantStatus(t, "replay without the token", e.do("POST", "/console/webhooks/"+hook.ID+"/deliveries/whd_1/replay", cookie, url.Values{}), http.StatusForbidden)
	w = e.do("POST", "/console/webhooks/"+hook.ID+"/deliveries/whd_1/replay", cookie, url.Values{"csrf": {csrf}})
	wantStatus(t, "replay", w, http.StatusSeeOther)
	wantStatus(t, "replay of a delivery of another webhook", e.do("POST", "/console/webhooks/"+hook.ID+"/deliveries/whd_2/replay", cookie,
		url.Values{"csrf": {csrf}}), http.StatusNotFound)
	wantStatus(t, "another project's webhook", e.do("GET", "/console/webhooks/wh_bbbbbbbbbbbbbbbb", cookie, nil), http.StatusNotFound)
	wantStatus(t, "remove another project's webhook", e.do("POST", "/console/webhooks/wh_bbbbbbbbbbbbbbbb/delete", cookie,
		url.Values{"csrf": {csrf}}), http.StatusNotFound)
	w = e.do("POST", "/console/webhooks/"+hook.ID+"/delete", cookie, url.Values{"csrf": {csrf}})
	wantStatus(t, "remove", w, http.StatusSeeOther)
	if strings.Join(replayed, ",") != "whd_1" || strings.Join(deleted, ",") != hook.ID {
		t.Errorf("replayed %v, deleted %v", replayed, deleted)
	}
}
