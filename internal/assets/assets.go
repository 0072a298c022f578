// Package assets serves the static files of seald's HTML surfaces (the public page in package web and the
// console) from an embedded file system, each under a URL that carries a digest of its content.
//
// The versioned URL lets a page tell browsers to keep a file for a year and still reach a changed file at
// once after an upgrade: the page names "/assets/page.css?v=<digest>", and only a request with the current
// digest is answered as immutable. It is written here rather than taken from a library because it is thirty
// lines over net/http's ServeContent, and both surfaces need the same rules.
package assets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"time"
)

// types are the content types served; a file of another extension can be read (Body) but is not served.
var types = map[string]string{
	".css":     "text/css; charset=utf-8",
	".js":      "text/javascript; charset=utf-8",
	".svg":     "image/svg+xml",
	".LICENSE": "text/plain; charset=utf-8",
}

type file struct {
	body    []byte
	version string // the first 12 hex digits of the body's SHA-256
	ctype   string
}

// Set is the files of one directory, served under one URL prefix.
type Set struct {
	prefix string
	files  map[string]*file
}

// Load reads every file under dir of fsys, which is embedded in the binary: a file that cannot be read is
// a build mistake, so Load panics. prefix is the URL path the files are served under ("/assets/"), whose
// route must name the file as {name}.
func Load(fsys fs.FS, dir, prefix string) *Set {
	s := &Set{prefix: prefix, files: map[string]*file{}}
	err := fs.WalkDir(fsys, dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		s.files[path.Base(name)] = &file{body: b, version: hex.EncodeToString(sum[:6]), ctype: types[path.Ext(name)]}
		return nil
	})
	if err != nil {
		panic(fmt.Sprintf("assets: %s: %v", dir, err))
	}
	return s
}

// URL is the versioned URL of the file name. A name that is not in the set is a template mistake: URL
// panics, which the templates' tests catch.
func (s *Set) URL(name string) string {
	f, ok := s.files[name]
	if !ok {
		panic("assets: no file " + name)
	}
	return s.prefix + name + "?v=" + f.version
}

// Body is the content of the file name, for a page that inlines it.
func (s *Set) Body(name string) ([]byte, bool) {
	f, ok := s.files[name]
	if !ok {
		return nil, false
	}
	return f.body, true
}

// ServeHTTP answers GET prefix{name}: the file with its ETag, cached for a year when the request carries
// the current version and for five minutes otherwise; a plain-text 404 for a name not served.
func (s *Set) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := s.files[r.PathValue("name")]
	h := w.Header()
	if !ok || f.ctype == "" {
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("not found\n"))
		return
	}
	h.Set("Content-Type", f.ctype)
	h.Set("ETag", `"`+f.version+`"`)
	if r.URL.Query().Get("v") == f.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}

// Attachment sends body as a JSON file to save under name (a proof bundle, from the page and the console),
// never cached: the file changes when the record does.
func Attachment(w http.ResponseWriter, name string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write(body)
}
