package web

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// checkerHTML is the standalone proof checker: one HTML file with the page's style and the proof check's
// scripts inline (Keccak-256 of @noble/hashes with its licence, check.js, proofcheck.js), to download and
// open from disk, so that a sceptical visitor checks a bundle and a trust root of their choosing with
// nothing this service serves at the moment of checking.
var checkerHTML = sync.OnceValue(func() []byte {
	tmpl, err := templateFS.ReadFile("templates/checker.html")
	if err != nil {
		panic(err)
	}
	noble := string(asset("noble-hashes.js"))
	license := strings.ReplaceAll(string(asset("noble-hashes.LICENSE")), "*/", "* /")
	version := ""
	if m := regexp.MustCompile(`@noble/hashes ([0-9.]+)`).FindStringSubmatch(noble); m != nil {
		version = m[1]
	}
	scripts := "/*! The licence of @noble/hashes, whose Keccak-256 follows:\n" + license + "*/\n" + noble + "\n" +
		string(asset("check.js")) + "\n" + string(asset("proofcheck.js"))
	// Inline script ends at the first "</script": none of the sources may hold one.
	if strings.Contains(strings.ToLower(scripts), "</script") {
		panic("web: an inline script of the standalone checker holds </script")
	}
	return []byte(strings.NewReplacer("{{STYLE}}", string(asset("page.css")), "{{SCRIPTS}}", scripts,
		"{{NOBLE_VERSION}}", version).Replace(string(tmpl)))
})

// checker serves the standalone checker as a download: opened here it would run under this origin and its
// Content-Security-Policy (no inline script), which is not how it is meant to be used.
func (p *Page) checker(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="seald-checker.html"`)
	h.Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(checkerHTML())
}

// asset is the content of one of the page's files, for the standalone checker that inlines it.
func asset(name string) []byte {
	b, ok := assets.Body(name)
	if !ok {
		panic("web: no asset " + name)
	}
	return b
}
