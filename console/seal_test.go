package console_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"seald.dev/seald"
)

// TestSeal: pasted JSON Lines seal one record a line through the e-mail pipeline (with the password), no
// e-mail makes generator records, an uploaded file is read, and bad input is refused in the API's words
// before anything is sealed.
func TestSeal(t *testing.T) {
	e := newEnv(t)
	var sealed []string
	n := 0
	ref := func() string {
		n++
		return "D-6f1c2a4e-8b3d-4c5e-9f70-1a2b3c4d5e" + string(rune('a'+n/10)) + string(rune('0'+n%10))
	}
	e.svc.SealFn = func(_ context.Context, c *seald.Caller, req *seald.SealRequest) (*seald.Record, error) {
		pw := ""
		if req.Password != nil {
			pw = *req.Password
		}
		sealed = append(sealed, "seal "+string(req.Data)+" "+req.To+" "+pw)
		return &seald.Record{Reference: ref()}, nil
	}
	e.svc.GenerateFn = func(_ context.Context, c *seald.Caller, data []byte) (*seald.Record, error) {
		sealed = append(sealed, "generate "+string(data))
		return &seald.Record{Reference: ref()}, nil
	}
	cookie, csrf := e.signIn()
	wantStatus(t, "seal page", e.do("GET", "/console/seal", cookie, nil), http.StatusOK)

	w := e.do("POST", "/console/seal", cookie, url.Values{"csrf": {csrf}, "data": {"{\"a\":1}\n\n{\"a\":2}\n"},
		"to": {"ada@example.com"}, "password": {"pw"}})
	wantStatus(t, "seal JSON Lines", w, http.StatusSeeOther)
	if loc := w.Header().Get("Location"); !strings.HasPrefix(loc, "/console/sealed?ref=D-") || strings.Count(loc, "ref=") != 2 {
		t.Errorf("after sealing: to %q", loc)
	}
	w = e.do("POST", "/console/seal", cookie, url.Values{"csrf": {csrf}, "data": {`{"b": [1, 2]}`}})
	wantStatus(t, "seal without e-mail", w, http.StatusSeeOther)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("csrf", csrf)
	_ = mw.WriteField("to", "grace@example.com")
	fw, _ := mw.CreateFormFile("file", "batch.jsonl")
	_, _ = fw.Write([]byte("{\"c\":1}\n{\"c\":2}\n{\"c\":3}\n"))
	_ = mw.Close()
	r := httptest.NewRequest("POST", "/console/seal", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.AddCookie(&http.Cookie{Name: "seald_console", Value: cookie})
	rw := httptest.NewRecorder()
	e.h.ServeHTTP(rw, r)
	wantStatus(t, "seal an uploaded file", rw, http.StatusSeeOther)

	want := []string{`seal {"a":1} ada@example.com pw`, `seal {"a":2} ada@example.com pw`, `generate {"b": [1, 2]}`,
		`seal {"c":1} grace@example.com `, `seal {"c":2} grace@example.com `, `seal {"c":3} grace@example.com `}
	if strings.Join(sealed, "\n") != strings.Join(want, "\n") {
		t.Errorf("sealed:\n%s\nwant:\n%s", strings.Join(sealed, "\n"), strings.Join(want, "\n"))
	}

	sealed = nil
	for name, form := range map[string]url.Values{
		"nothing":                  {"csrf": {csrf}},
		"an array":                 {"csrf": {csrf}, "data": {"[1,2]"}},
		"a bad line":               {"csrf": {csrf}, "data": {"{\"a\":1}\nnot json\n"}},
		"a password with no email": {"csrf": {csrf}, "data": {`{"a":1}`}, "password": {"pw"}},
	} {
		w := e.do("POST", "/console/seal", cookie, form)
		wantStatus(t, name, w, http.StatusBadRequest)
		if !strings.Contains(w.Body.String(), `class="notice error"`) {
			t.Errorf("%s: no error shown", name)
		}
	}
	wantStatus(t, "seal without the CSRF token", e.do("POST", "/console/seal", cookie, url.Values{"data": {`{"a":1}`}}), http.StatusForbidden)
	if len(sealed) != 0 {
		t.Errorf("refused forms sealed: %v", sealed)
	}
}

// TestSealedProgress marks its table pending (console.js updates it) and offers a Refresh link until every
// record is COMPLETED or FAILED.
func TestSealedProgress(t *testing.T) {
	e := newEnv(t)
	state := seald.StateAnchored
	e.svc.StatusFn = func(_ context.Context, c *seald.Caller, ref string) (*seald.Record, error) {
		if ref != mine {
			return nil, seald.Errorf(seald.ENOTFOUND, "no record with reference %s", ref)
		}
		return &seald.Record{Reference: ref, State: state}, nil
	}
	cookie, _ := e.signIn()
	w := e.do("GET", "/console/sealed?ref="+mine, cookie, nil)
	wantStatus(t, "progress", w, http.StatusOK)
	if !strings.Contains(w.Body.String(), ` data-pending>`) || !strings.Contains(w.Body.String(), `>Refresh</a>`) || !strings.Contains(w.Body.String(), "ANCHORED") {
		t.Errorf("progress page while ANCHORED:\n%s", w.Body.String())
	}
	state = seald.StateCompleted
	w = e.do("GET", "/console/sealed?ref="+mine, cookie, nil)
	if strings.Contains(w.Body.String(), "data-pending") || !strings.Contains(w.Body.String(), "COMPLETED") {
		t.Errorf("progress page once COMPLETED:\n%s", w.Body.String())
	}
	wantStatus(t, "progress of another business's record", e.do("GET", "/console/sealed?ref="+mine+"&ref="+theirs, cookie, nil), http.StatusNotFound)
}
