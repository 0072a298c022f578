package console_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"seald.dev/seald/proof"
	"seald.dev/seald/service"

	"seald.dev/seald"
	"seald.dev/seald/console"
	"seald.dev/seald/mock"
)

var _ console.Source = (*service.Service)(nil)

const (
	goodSub, goodKey = "sub-good", "key-good"
	mine, theirs     = "D-6f1c2a4e-8b3d-4c5e-9f70-1a2b3c4d5e6f", "D-0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d"
)

// env is a console over a fake domain with one project whose record is mine; theirs belongs to another
// business (the fake answers ENOTFOUND for it, as the Service does).
type env struct {
	t        *testing.T
	svc      *mock.Service
	c        *console.Console
	h        http.Handler
	now      time.Time
	mu       sync.Mutex
	changes  []string // "ref status reason" of each ChangeStatus
	erasures []string
	throttle *fakeThrottle
	keyValid bool
}

type fakeThrottle struct{ fails int }

func (f *fakeThrottle) AuthenticationFailed(*http.Request) (bool, int) {
	f.fails++
	return f.fails <= 2, 7
}

func newEnv(t *testing.T) *env {
	e := &env{t: t, now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), throttle: &fakeThrottle{}, keyValid: true}
	biz := &seald.Business{BusinessID: "biz_1", Name: "Acme"}
	proj := &seald.Project{ProjectID: "prj_1", BusinessID: "biz_1", Name: "Diplomas", Network: seald.NetworkPolygon}
	caller := &seald.Caller{Business: biz, Project: proj, KeyID: "key_1"}
	rec := func(ref string) *seald.Record {
		return &seald.Record{Reference: ref, BusinessID: "biz_1", ProjectID: "prj_1", Status: seald.StatusActive,
			State: seald.StateCompleted, Hash: strings.Repeat("ab", 32), TokenID: 3, Network: seald.NetworkPolygon}
	}
	owned := func(ref string) (*seald.Record, error) {
		if ref != mine {
			return nil, seald.Errorf(seald.ENOTFOUND, "no record with reference %s", ref)
		}
		return rec(ref), nil
	}
	e.svc = &mock.Service{}
	e.svc.AuthenticateFn = func(_ context.Context, sub, key string) (*seald.Caller, error) {
		if sub != goodSub || key != goodKey || !e.keyValid {
			return nil, seald.Errorf(seald.EUNAUTHORIZED, "invalid subscription key or API key")
		}
		return caller, nil
	}
	e.svc.HistoryFn = func(_ context.Context, c *seald.Caller, ref string) (*seald.Record, []*seald.StatusChange, error) {
		r, err := owned(ref)
		return r, []*seald.StatusChange{{Reference: ref, From: seald.StatusActive, To: seald.StatusSuspended,
			Actor: "key_1", Reason: "checking", Action: seald.ActionStatus, At: e.now}}, err
	}
	e.svc.VerifyFn = func(_ context.Context, c *seald.Caller, l seald.Lookup) (*seald.Verification, error) {
		switch {
		case l.Reference != "":
			r, err := owned(l.Reference)
			if err != nil {
				return nil, err
			}
			v := &seald.Verification{Record: r, Business: biz, Project: proj}
			if l.Proof {
				v.Proof = &proof.Bundle{Reference: r.Reference}
			}
			return v, nil
		case l.Hash == strings.Repeat("ab", 32):
			return &seald.Verification{Record: rec(mine), Business: biz, Project: proj}, nil
		case l.Hash == strings.Repeat("cd", 32): // another business's PUBLIC record
			r := rec(theirs)
			r.BusinessID = "biz_2"
			return &seald.Verification{Record: r, Business: &seald.Business{}, Project: &seald.Project{}}, nil
		}
		return nil, seald.Errorf(seald.ENOTFOUND, "no record")
	}
	e.svc.ChangeStatusFn = func(_ context.Context, c *seald.Caller, ref, status, reason string) (*seald.Record, *seald.StatusChange, error) {
		r, err := owned(ref)
		if err != nil {
			return nil, nil, err
		}
		e.mu.Lock()
		e.changes = append(e.changes, ref+" "+status+" "+reason)
		e.mu.Unlock()
		return r, &seald.StatusChange{}, nil
	}
	e.svc.EraseFn = func(_ context.Context, c *seald.Caller, ref, reason string) (*seald.Record, bool, error) {
		r, err := owned(ref)
		if err != nil {
			return nil, false, err
		}
		e.erasures = append(e.erasures, ref+" "+reason)
		return r, true, nil
	}
	e.svc.VerificationLinkFn = func(ref string) string { return "https://verify.example.test/v/" + ref }
	e.c = &console.Console{Service: e.svc, Throttle: e.throttle, Idle: 10 * time.Minute, Absolute: time.Hour,
		Now: func() time.Time { e.mu.Lock(); defer e.mu.Unlock(); return e.now }}
	e.h = e.c
	return e
}

func (e *env) advance(d time.Duration) { e.mu.Lock(); e.now = e.now.Add(d); e.mu.Unlock() }

// do sends a request with the cookie (when not empty) and form (a POST when not nil).
func (e *env) do(method, target, cookie string, form url.Values, header ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	r := httptest.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		r.AddCookie(&http.Cookie{Name: "seald_console", Value: cookie})
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// signIn signs in with the good keys and returns the session cookie's value and the page's CSRF token.
func (e *env) signIn() (cookie, csrf string) {
	e.t.Helper()
	w := e.do("POST", "/console/sign-in", "", url.Values{"subscription_key": {goodSub}, "api_key": {goodKey}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/records" {
		e.t.Fatalf("sign-in: %d to %q, want 303 to /console/records", w.Code, w.Header().Get("Location"))
	}
	for _, ck := range w.Result().Cookies() {
		if ck.Name == "seald_console" {
			cookie = ck.Value
		}
	}
	page := e.do("GET", "/console/records/"+mine, cookie, nil)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page.Body.String())
	if page.Code != http.StatusOK || m == nil {
		e.t.Fatalf("record page after sign-in: %d, csrf found %v", page.Code, m != nil)
	}
	return cookie, m[1]
}

func wantStatus(t *testing.T, what string, w *httptest.ResponseRecorder, code int) {
	t.Helper()
	if w.Code != code {
		t.Fatalf("%s: %d, want %d; body:\n%s", what, w.Code, code, w.Body.String())
	}
}

// TestSignIn: the key pair becomes an opaque, HttpOnly, SameSite=Strict cookie scoped to /console/, Secure
// over https; wrong keys are 401 with the API's words and set no cookie.
func TestSignIn(t *testing.T) {
	e := newEnv(t)
	w := e.do("POST", "/console/sign-in", "", url.Values{"subscription_key": {goodSub}, "api_key": {"wrong"}})
	wantStatus(t, "wrong keys", w, http.StatusUnauthorized)
	if len(w.Result().Cookies()) != 0 || !strings.Contains(w.Body.String(), "invalid subscription key or API key") {
		t.Errorf("wrong keys: cookies %v, body without the API's message", w.Result().Cookies())
	}

	for _, https := range []bool{false, true} {
		r := httptest.NewRequest("POST", "/console/sign-in", strings.NewReader(url.Values{"subscription_key": {goodSub}, "api_key": {goodKey}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if https {
			r.TLS = &tls.ConnectionState{}
		}
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, r)
		wantStatus(t, "sign-in", w, http.StatusSeeOther)
		cks := w.Result().Cookies()
		if len(cks) != 1 {
			t.Fatalf("sign-in set %d cookies", len(cks))
		}
		ck := cks[0]
		if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/console/" || ck.Secure != https ||
			len(ck.Value) < 40 || strings.Contains(ck.Value, goodKey) || strings.Contains(ck.Value, goodSub) {
			t.Errorf("cookie over https=%v: %+v", https, ck)
		}
	}
}

// TestSignInThrottled: failed sign-ins count in the API's budget; past it, 429 with Retry-After.
func TestSignInThrottled(t *testing.T) {
	e := newEnv(t)
	bad := url.Values{"subscription_key": {"x"}, "api_key": {"y"}}
	for i, want := range []int{401, 401, 429} {
		w := e.do("POST", "/console/sign-in", "", bad)
		wantStatus(t, "failed sign-in", w, want)
		if want == 429 && w.Header().Get("Retry-After") != "7" {
			t.Errorf("failure %d: Retry-After %q, want 7", i+1, w.Header().Get("Retry-After"))
		}
	}
	e.signIn() // a valid pair is always served
}

// TestSignedOutRefused: without a live session a page goes to the sign-in page and a form is refused.
func TestSignedOutRefused(t *testing.T) {
	e := newEnv(t)
	for _, cookie := range []string{"", "forged-session-id"} {
		for _, path := range []string{"/console/records", "/console/records/" + mine, "/console/search?q=" + mine,
			"/console/records/" + mine + "/proof.json", "/console/records/" + mine + "/revoke"} {
			w := e.do("GET", path, cookie, nil)
			if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/sign-in" {
				t.Errorf("GET %s with cookie %q: %d to %q, want 303 to the sign-in page", path, cookie, w.Code, w.Header().Get("Location"))
			}
		}
		w := e.do("POST", "/console/records/"+mine+"/status", cookie, url.Values{"status": {"SUSPENDED"}})
		wantStatus(t, "POST without a session", w, http.StatusUnauthorized)
	}
	if len(e.changes) != 0 {
		t.Errorf("changes made without a session: %v", e.changes)
	}
}

// TestSignOut ends the session on the server: the old cookie opens nothing afterwards.
func TestSignOut(t *testing.T) {
	e := newEnv(t)
	cookie, csrf := e.signIn()
	wantStatus(t, "sign-out without the CSRF token", e.do("POST", "/console/sign-out", cookie, url.Values{}), http.StatusForbidden)
	w := e.do("POST", "/console/sign-out", cookie, url.Values{"csrf": {csrf}})
	wantStatus(t, "sign-out", w, http.StatusSeeOther)
	if cks := w.Result().Cookies(); len(cks) != 1 || cks[0].MaxAge >= 0 {
		t.Errorf("sign-out cookies: %v, want the cookie cleared", cks)
	}
	w = e.do("GET", "/console/records", cookie, nil)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/sign-in" {
		t.Errorf("old cookie after sign-out: %d to %q", w.Code, w.Header().Get("Location"))
	}
}

// TestSessionExpiry: a session ends after its idle time without use, and after its absolute time however
// much it is used; a key that stops authenticating ends its sessions at once.
func TestSessionExpiry(t *testing.T) {
	e := newEnv(t)
	refused := func(cookie string) bool {
		w := e.do("GET", "/console/records/"+mine, cookie, nil)
		return w.Code == http.StatusSeeOther
	}
	idle, _ := e.signIn()
	e.advance(9 * time.Minute)
	if refused(idle) {
		t.Fatal("session refused within its idle time")
	}
	e.advance(10 * time.Minute)
	if !refused(idle) {
		t.Error("session served after 10 minutes idle")
	}

	busy, _ := e.signIn()
	for i := 0; i < 6; i++ {
		e.advance(9 * time.Minute)
		if refused(busy) {
			t.Fatalf("busy session refused after %d minutes", (i+1)*9)
		}
	}
	e.advance(9 * time.Minute) // 63 minutes after the sign-in
	if !refused(busy) {
		t.Error("session served past its absolute lifetime")
	}

	revoked, _ := e.signIn()
	e.keyValid = false
	if !refused(revoked) {
		t.Error("session served after its key stopped authenticating")
	}
	e.keyValid = true
	if !refused(revoked) {
		t.Error("session of a revoked key came back")
	}
}

// TestCSRF: every change needs the session's own token and, when the browser names one, this origin.
func TestCSRF(t *testing.T) {
	e := newEnv(t)
	cookie, csrf := e.signIn()
	_, other := e.signIn()
	path := "/console/records/" + mine + "/status"
	for name, form := range map[string]url.Values{
		"no token":                {"status": {"SUSPENDED"}},
		"another session's token": {"status": {"SUSPENDED"}, "csrf": {other}},
		"a made-up token":         {"status": {"SUSPENDED"}, "csrf": {"x"}},
	} {
		wantStatus(t, name, e.do("POST", path, cookie, form), http.StatusForbidden)
	}
	ok := url.Values{"status": {"SUSPENDED"}, "csrf": {csrf}}
	wantStatus(t, "cross-site Origin", e.do("POST", path, cookie, ok, "Origin", "https://evil.example"), http.StatusForbidden)
	wantStatus(t, "cross-site fetch", e.do("POST", path, cookie, ok, "Sec-Fetch-Site", "cross-site"), http.StatusForbidden)
	for _, p := range []string{"/revoke", "/erase"} {
		form := url.Values{"reason": {"r"}, "confirm": {"yes"}}
		wantStatus(t, p+" without a token", e.do("POST", "/console/records/"+mine+p, cookie, form), http.StatusForbidden)
	}
	if len(e.changes)+len(e.erasures) != 0 {
		t.Fatalf("forged forms changed records: %v %v", e.changes, e.erasures)
	}
	// Under Referrer-Policy: no-referrer a browser may send Origin: null; the token decides then.
	wantStatus(t, "Origin null with the token", e.do("POST", path, cookie, ok, "Origin", "null"), http.StatusSeeOther)
	e.changes = nil
	w := e.do("POST", path, cookie, ok, "Origin", "http://example.com", "Sec-Fetch-Site", "same-origin")
	wantStatus(t, "the console's own form", w, http.StatusSeeOther)
	if w.Header().Get("Location") != "/console/records/"+mine+"?done=suspended" || len(e.changes) != 1 {
		t.Errorf("suspend: to %q, changes %v", w.Header().Get("Location"), e.changes)
	}
}

// TestOtherTenant404: every URL of a record the caller cannot see answers 404, reads and forms alike (the
// form carrying a valid token of the caller's own session).
func TestOtherTenant404(t *testing.T) {
	e := newEnv(t)
	cookie, csrf := e.signIn()
	base := "/console/records/" + theirs
	for _, p := range []string{"", "/proof.json", "/revoke", "/erase"} {
		wantStatus(t, "GET "+base+p, e.do("GET", base+p, cookie, nil), http.StatusNotFound)
	}
	for p, form := range map[string]url.Values{
		"/status": {"status": {"SUSPENDED"}, "csrf": {csrf}},
		"/revoke": {"reason": {"r"}, "confirm": {"yes"}, "csrf": {csrf}},
		"/erase":  {"reason": {"r"}, "confirm": {"yes"}, "csrf": {csrf}},
	} {
		wantStatus(t, "POST "+base+p, e.do("POST", base+p, cookie, form), http.StatusNotFound)
	}
	w := e.do("GET", "/console/search?q="+strings.Repeat("cd", 32), cookie, nil)
	wantStatus(t, "search finding another business's PUBLIC record", w, http.StatusNotFound)
	if strings.Contains(w.Body.String(), theirs) {
		t.Error("the search named another business's record")
	}
	if len(e.changes)+len(e.erasures) != 0 {
		t.Fatalf("another tenant's record changed: %v %v", e.changes, e.erasures)
	}
}

// TestRevokeAndErase need a reason and the confirmation box, and say that revocation is final and on chain.
func TestRevokeAndErase(t *testing.T) {
	e := newEnv(t)
	cookie, csrf := e.signIn()
	page := e.do("GET", "/console/records/"+mine+"/revoke", cookie, nil)
	wantStatus(t, "revoke page", page, http.StatusOK)
	if b := page.Body.String(); !strings.Contains(b, "Revocation is final") || !strings.Contains(b, "recorded on chain") {
		t.Error("the revoke page does not say revocation is final and recorded on chain")
	}
	for _, action := range []string{"revoke", "erase"} {
		path := "/console/records/" + mine + "/" + action
		wantStatus(t, action+" unconfirmed", e.do("POST", path, cookie, url.Values{"reason": {"r"}, "csrf": {csrf}}), http.StatusBadRequest)
		wantStatus(t, action+" without a reason", e.do("POST", path, cookie, url.Values{"confirm": {"yes"}, "csrf": {csrf}}), http.StatusBadRequest)
		if len(e.changes)+len(e.erasures) != 0 {
			t.Fatalf("%s without confirmation changed: %v %v", action, e.changes, e.erasures)
		}
	}
	w := e.do("POST", "/console/records/"+mine+"/revoke", cookie, url.Values{"reason": {"issued in error"}, "confirm": {"yes"}, "csrf": {csrf}})
	wantStatus(t, "revoke", w, http.StatusSeeOther)
	w = e.do("POST", "/console/records/"+mine+"/erase", cookie, url.Values{"reason": {"asked by the holder"}, "confirm": {"yes"}, "csrf": {csrf}})
	wantStatus(t, "erase", w, http.StatusSeeOther)
	if len(e.changes) != 1 || e.changes[0] != mine+" REVOKED issued in error" || len(e.erasures) != 1 || e.erasures[0] != mine+" asked by the holder" {
		t.Errorf("changes %v, erasures %v", e.changes, e.erasures)
	}
	w = e.do("GET", w.Header().Get("Location"), cookie, nil)
	if !strings.Contains(w.Body.String(), "The record&#39;s data is erased.") {
		t.Errorf("no notice after erasing:\n%s", w.Body.String())
	}
	// Revoking is not a status of the plain status form.
	wantStatus(t, "REVOKED through the status form", e.do("POST", "/console/records/"+mine+"/status", cookie,
		url.Values{"status": {"REVOKED"}, "csrf": {csrf}}), http.StatusBadRequest)
}

// TestRecordsList pages with a cursor (the last reference shown), passes the filters and refuses bad ones in
// the API's words.
func TestRecordsList(t *testing.T) {
	e := newEnv(t)
	var got []seald.RecordQuery
	e.svc.ListRecordsFn = func(_ context.Context, c *seald.Caller, q seald.RecordQuery) (*seald.RecordPage, error) {
		if q.Status != "" && q.Status != seald.StatusSuspended {
			return nil, seald.Errorf(seald.EINVALID, "status must be ACTIVE, SUSPENDED or REVOKED")
		}
		got = append(got, q)
		var rs []*seald.Record
		for i := 0; i < q.Limit; i++ {
			rs = append(rs, &seald.Record{Reference: "D-0000000000" + string(rune('a'+i/10)) + string(rune('0'+i%10)),
				Status: seald.StatusSuspended, State: seald.StateCompleted})
		}
		return &seald.RecordPage{Records: rs}, nil
	}
	cookie, _ := e.signIn()
	w := e.do("GET", "/console/records?status=SUSPENDED&state=COMPLETED&after=D-000000000009", cookie, nil)
	wantStatus(t, "list", w, http.StatusOK)
	want := seald.RecordQuery{Status: seald.StatusSuspended, State: seald.StateCompleted, After: "D-000000000009", Limit: 21}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("ListRecords got %+v, want %+v", got, want)
	}
	b := w.Body.String()
	if n := strings.Count(b, `<a href="/console/records/D-`); n != 20 {
		t.Errorf("%d records shown, want 20", n)
	}
	if !strings.Contains(b, `href="/console/records?after=D-0000000000b9&amp;state=COMPLETED&amp;status=SUSPENDED" rel="next"`) {
		t.Errorf("no next page after the 20th record:\n%s", b)
	}
	wantStatus(t, "bad filter", e.do("GET", "/console/records?status=GONE", cookie, nil), http.StatusBadRequest)

	// The date filter: both days included, in UTC, kept in the next page's link; a date that is none is a 400
	// naming it, and nothing is listed.
	got = nil
	w = e.do("GET", "/console/records?from=2026-11-01&to=2026-11-02", cookie, nil)
	wantStatus(t, "dates", w, http.StatusOK)
	since, until := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	if len(got) != 1 || !got[0].Since.Equal(since) || !got[0].Until.Equal(until) {
		t.Fatalf("ListRecords got %+v, want %s to %s", got, since, until)
	}
	if b := w.Body.String(); !strings.Contains(b, `from=2026-11-01&amp;to=2026-11-02" rel="next"`) || !strings.Contains(b, `value="2026-11-01"`) {
		t.Errorf("the dates are not kept in the form and the next page's link:\n%s", b)
	}
	got = nil
	w = e.do("GET", "/console/records?to=02/11/2026", cookie, nil)
	wantStatus(t, "a bad date", w, http.StatusBadRequest)
	if !strings.Contains(w.Body.String(), "to must be a date as YYYY-MM-DD") || len(got) != 0 {
		t.Errorf("a bad date: listed %d times, body:\n%s", len(got), w.Body.String())
	}
}

// TestRecordsListResume: a filtered page that stopped at its bound before it was full says how many records
// it searched and back to when, with a plain link that searches further back from the last one searched,
// keeping the filters; a page without matches says so in those words, and a last page shows neither.
func TestRecordsListResume(t *testing.T) {
	e := newEnv(t)
	var got []seald.RecordQuery
	pages := map[string]*seald.RecordPage{
		"": {Records: []*seald.Record{{Reference: "D-000000000900", Status: seald.StatusActive, State: seald.StateFailed}},
			Resume: "D-000000000800", ResumeCreated: time.Date(2026, 11, 20, 14, 3, 5, 0, time.UTC)},
		"D-000000000800": {Records: []*seald.Record{}, Resume: "D-000000000700",
			ResumeCreated: time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)},
		"D-000000000700": {Records: []*seald.Record{}},
	}
	e.svc.ListRecordsFn = func(_ context.Context, _ *seald.Caller, q seald.RecordQuery) (*seald.RecordPage, error) {
		got = append(got, q)
		return pages[q.After], nil
	}
	cookie, _ := e.signIn()
	b := e.do("GET", "/console/records?state=FAILED", cookie, nil).Body.String()
	for _, want := range []string{`href="/console/records/D-000000000900"`,
		"No more record matches among the 5,000 searched for this page",
		`<time datetime="2026-11-20T14:03:05Z">2026-11-20 14:03:05 UTC</time>`,
		`<a href="/console/records?after=D-000000000800&amp;state=FAILED" rel="next">Search further back</a>`} {
		if !strings.Contains(b, want) {
			t.Errorf("first page lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(b, "Next page") {
		t.Errorf("a page that is not full has a next page:\n%s", b)
	}
	b = e.do("GET", "/console/records?after=D-000000000800&state=FAILED", cookie, nil).Body.String()
	for _, want := range []string{"No record matches among the 5,000 searched for this page",
		`href="/console/records?after=D-000000000700&amp;state=FAILED" rel="next">Search further back`} {
		if !strings.Contains(b, want) {
			t.Errorf("a page without matches lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(b, "No record matches.") {
		t.Errorf("a page that stopped at its bound says no record matches:\n%s", b)
	}
	b = e.do("GET", "/console/records?after=D-000000000700&state=FAILED", cookie, nil).Body.String()
	if !strings.Contains(b, "No record matches.") || strings.Contains(b, "Search further back") {
		t.Errorf("the last page:\n%s", b)
	}
	if len(got) != 3 || got[1].After != "D-000000000800" || got[1].State != seald.StateFailed || got[2].After != "D-000000000700" {
		t.Errorf("ListRecords got %+v", got)
	}
}

// TestSearch opens the record a reference or hash names.
func TestSearch(t *testing.T) {
	e := newEnv(t)
	cookie, _ := e.signIn()
	for _, q := range []string{mine, strings.Repeat("AB", 32)} {
		w := e.do("GET", "/console/search?q="+q, cookie, nil)
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/records/"+mine {
			t.Errorf("search %s: %d to %q", q, w.Code, w.Header().Get("Location"))
		}
	}
	wantStatus(t, "search for nothing known", e.do("GET", "/console/search?q=42", cookie, nil), http.StatusNotFound)
}

// TestPageHeaders: a strict CSP, no inline script, nothing cached, and the record page shows its history,
// public link and proof download.
func TestPageHeaders(t *testing.T) {
	e := newEnv(t)
	cookie, _ := e.signIn()
	w := e.do("GET", "/console/records/"+mine, cookie, nil)
	h := w.Header()
	if !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") || h.Get("Cache-Control") != "no-store" ||
		h.Get("X-Frame-Options") != "DENY" {
		t.Errorf("headers: %v", h)
	}
	b := w.Body.String()
	for _, want := range []string{"https://verify.example.test/v/" + mine, "/console/records/" + mine + "/proof.json",
		"ACTIVE → SUSPENDED", "checking", "Revoked on chain",
		`<img class="qr" src="/v/` + mine + `/qr.svg"`, `href="/v/` + mine + `/qr.png"`} {
		if !strings.Contains(b, want) {
			t.Errorf("record page lacks %q", want)
		}
	}
	if regexp.MustCompile(`<script(?: [^>]*)?>[^<]`).MatchString(b) || !strings.Contains(b, `<script src="/console/assets/console.js?v=`) ||
		strings.Contains(b, "style=") {
		t.Error("inline script or style on the record page")
	}
	w = e.do("GET", "/console/records/"+mine+"/proof.json", cookie, nil)
	wantStatus(t, "proof", w, http.StatusOK)
	if !strings.Contains(w.Header().Get("Content-Disposition"), mine+".proof.json") {
		t.Errorf("proof download: %v", w.Header())
	}
}

// TestErrorsInTheAPIsWords: a refusal the Service makes reaches the page with its status and message; a
// fault is a generic 500.
func TestErrorsInTheAPIsWords(t *testing.T) {
	e := newEnv(t)
	cookie, _ := e.signIn()
	for code, status := range map[seald.Code]int{seald.EUNAUTHORIZED: 401, seald.ETOOLARGE: 413, seald.EGONE: 410,
		seald.ERATELIMIT: 429, seald.EUNAVAILABLE: 503, seald.EINTERNAL: 500} {
		e.svc.ListRecordsFn = func(context.Context, *seald.Caller, seald.RecordQuery) (*seald.RecordPage, error) {
			return nil, seald.Errorf(code, "refused as %s", code)
		}
		w := e.do("GET", "/console/records", cookie, nil)
		wantStatus(t, string(code), w, status)
		if shown := strings.Contains(w.Body.String(), "refused as"); shown != (status < 500) {
			t.Errorf("%s: message shown %v", code, shown)
		}
	}
}
