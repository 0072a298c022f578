package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestPublicWording (issue 44 item 7): what a newcomer reads, the README and the openapi.json every serve
// hands out (the embedded file, byte for byte), says "the original API" and names its eight operations, not
// the internal word "seed" or an unnamed "established interface"; and docs/api.md says in one place why the
// verification operations put their error message in data and the others in error.
func TestPublicWording(t *testing.T) {
	seed := regexp.MustCompile(`(?i)\bseed\b|\bseed's\b`)
	for _, f := range []string{"../../README.md", "../../httpapi/openapi.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(seed.FindAll(b, -1)); n > 0 {
			t.Errorf("%s says \"seed\" %d times, e.g. %q", f, n, seed.Find(b))
		}
		if strings.Contains(string(b), "established interface") {
			t.Errorf("%s speaks of an established interface without naming it", f)
		}
	}
	in := startServe(t, t.TempDir(), nil)
	r := in.get("/openapi.json")
	if r.Status != 200 || seed.Match(r.Raw) || !strings.Contains(string(r.Raw), "eight operations of the original API") {
		t.Errorf("GET /openapi.json: %d, still saying seed or not naming the original API", r.Status)
	}
	api, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(api), "Why two shapes") || !strings.Contains(string(api), "from `data` when `success` is false") {
		t.Error("docs/api.md does not say why verification puts its error message in data")
	}
}
