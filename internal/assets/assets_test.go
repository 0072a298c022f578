package assets_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"seald.dev/seald/internal/assets"
)

// A file is served with its type and ETag, for a year at its current version and five minutes otherwise;
// a name not in the set, or of a type not served, is a plain 404; a changed file gets another URL.
func TestSet(t *testing.T) {
	fsys := fstest.MapFS{
		"static/page.css":     {Data: []byte("body{}")},
		"static/lib.LICENSE":  {Data: []byte("MIT")},
		"static/notes.txt":    {Data: []byte("internal")},
		"static/sub/check.js": {Data: []byte("let x")},
		"elsewhere/other.css": {Data: []byte("p{}")},
	}
	s := assets.Load(fsys, "static", "/assets/")
	mux := http.NewServeMux()
	mux.Handle("GET /assets/{name}", s)
	get := func(url string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
		return rec
	}
	u := s.URL("page.css")
	if !strings.HasPrefix(u, "/assets/page.css?v=") || len(u) != len("/assets/page.css?v=")+12 {
		t.Fatalf("URL(page.css) = %q", u)
	}
	rec := get(u)
	if rec.Code != 200 || rec.Body.String() != "body{}" || rec.Header().Get("Content-Type") != "text/css; charset=utf-8" ||
		rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" || rec.Header().Get("ETag") == "" {
		t.Errorf("GET %s: %d %q %v", u, rec.Code, rec.Body, rec.Header())
	}
	if rec := get("/assets/page.css?v=old"); rec.Code != 200 || rec.Header().Get("Cache-Control") != "public, max-age=300" {
		t.Errorf("an old version: %d %v", rec.Code, rec.Header())
	}
	if rec := get("/assets/check.js"); rec.Code != 200 || rec.Body.String() != "let x" {
		t.Errorf("a file in a subdirectory: %d %q", rec.Code, rec.Body)
	}
	if rec := get("/assets/lib.LICENSE"); rec.Code != 200 || rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("a licence: %d %v", rec.Code, rec.Header())
	}
	for _, name := range []string{"notes.txt", "other.css", "nope.js"} {
		if rec := get("/assets/" + name); rec.Code != 404 || rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("GET %s: %d %v", name, rec.Code, rec.Header())
		}
	}
	if b, ok := s.Body("notes.txt"); !ok || string(b) != "internal" {
		t.Errorf("Body(notes.txt) = %q, %v", b, ok)
	}
	changed := assets.Load(fstest.MapFS{"static/page.css": {Data: []byte("body{color:red}")}}, "static", "/assets/")
	if changed.URL("page.css") == u {
		t.Error("a changed file kept its URL")
	}
}
