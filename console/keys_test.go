package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"seald.dev/seald"
)

// TestKeys: issue and rotate show the new secret once (never in a URL); rotation passes the chosen overlap;
// revoke needs the confirmation box; the Service's refusals come back in its words; every change needs the
// CSRF token.
func TestKeys(t *testing.T) {
	e := newEnv(t)
	var calls []string
	e.svc.ProjectKeysFn = func(context.Context, *seald.Caller) ([]*seald.Key, error) {
		return []*seald.Key{{ID: "key_1", Kind: seald.KeyProject}, {ID: "key_2", Kind: seald.KeyProject}}, nil
	}
	e.svc.IssueProjectKeyFn = func(context.Context, *seald.Caller) (string, *seald.Key, error) {
		calls = append(calls, "issue")
		return "ak_issued-secret", &seald.Key{ID: "key_3"}, nil
	}
	e.svc.RotateProjectKeyFn = func(_ context.Context, _ *seald.Caller, id string, overlap time.Duration) (string, *seald.Key, error) {
		calls = append(calls, "rotate "+id+" "+overlap.String())
		return "ak_rotated-secret", &seald.Key{ID: "key_4"}, nil
	}
	e.svc.RevokeProjectKeyFn = func(_ context.Context, _ *seald.Caller, id string) (*seald.Key, error) {
		if id == "key_1" {
			return nil, seald.Errorf(seald.EINVALID, "key key_1 is the project's last active API key: issue another before revoking it")
		}
		calls = append(calls, "revoke "+id)
		return &seald.Key{ID: id}, nil
	}
	cookie, csrf := e.signIn()
	w := e.do("GET", "/console/keys", cookie, nil)
	wantStatus(t, "keys page", w, http.StatusOK)
	if !strings.Contains(w.Body.String(), "key_1</code> (this session)") {
		t.Error("the session's own key is not marked")
	}

	wantStatus(t, "issue without the token", e.do("POST", "/console/keys", cookie, url.Values{}), http.StatusForbidden)
	for _, step := range []struct {
		path   string
		form   url.Values
		secret string
	}{
		{"/console/keys", url.Values{"csrf": {csrf}}, "ak_issued-secret"},
		{"/console/keys/key_2/rotate", url.Values{"csrf": {csrf}, "overlap": {"24h"}}, "ak_rotated-secret"},
	} {
		w := e.do("POST", step.path, cookie, step.form)
		wantStatus(t, step.path, w, http.StatusSeeOther)
		loc := w.Header().Get("Location")
		if strings.Contains(loc, step.secret) {
			t.Errorf("%s: the secret is in the URL %q", step.path, loc)
		}
		if b := e.do("GET", loc, cookie, nil).Body.String(); !strings.Contains(b, step.secret) {
			t.Errorf("%s: the secret is not shown after the action", step.path)
		}
		if b := e.do("GET", loc, cookie, nil).Body.String(); strings.Contains(b, step.secret) {
			t.Errorf("%s: the secret is shown a second time", step.path)
		}
	}
	wantStatus(t, "rotate with an overlap not offered", e.do("POST", "/console/keys/key_2/rotate", cookie,
		url.Values{"csrf": {csrf}, "overlap": {"9999h"}}), http.StatusBadRequest)
	wantStatus(t, "revoke unconfirmed", e.do("POST", "/console/keys/key_2/revoke", cookie, url.Values{"csrf": {csrf}}), http.StatusBadRequest)
	w = e.do("POST", "/console/keys/key_1/revoke", cookie, url.Values{"csrf": {csrf}, "confirm": {"yes"}})
	wantStatus(t, "revoke the last key", w, http.StatusBadRequest)
	if !strings.Contains(w.Body.String(), "last active API key") {
		t.Error("the Service's refusal is not shown")
	}
	wantStatus(t, "revoke", e.do("POST", "/console/keys/key_2/revoke", cookie, url.Values{"csrf": {csrf}, "confirm": {"yes"}}), http.StatusSeeOther)
	if got := strings.Join(calls, ", "); got != "issue, rotate key_2 24h0m0s, revoke key_2" {
		t.Errorf("calls: %s", got)
	}
}
