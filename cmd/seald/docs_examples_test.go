package main

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"testing"
)

// TestDocumentedAnswers compares the answers docs/operations.md shows for /healthz and /readyz with what a
// serve on the defaults answers: the same JSON, envelope included.
func TestDocumentedAnswers(t *testing.T) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	in := startServe(t, t.TempDir(), nil)
	for _, c := range []struct {
		path string
		re   *regexp.Regexp
	}{
		{"/healthz", regexp.MustCompile("`GET /healthz` answers 200 `(\\{[^`]*\\})`")},
		{"/readyz", regexp.MustCompile("On the defaults \\(`seald serve` alone\\) it answers\\s+`(\\{[^`]*\\})`")},
	} {
		m := c.re.FindSubmatch(doc)
		if m == nil {
			t.Errorf("docs/operations.md shows no answer of %s", c.path)
			continue
		}
		var documented, real any
		if err := json.Unmarshal(m[1], &documented); err != nil {
			t.Errorf("the documented answer of %s is not JSON: %v", c.path, err)
			continue
		}
		r := in.get(c.path)
		_ = json.Unmarshal(r.Raw, &real)
		if r.Status != 200 || !reflect.DeepEqual(documented, real) {
			t.Errorf("%s answers %d %s; docs/operations.md shows %s", c.path, r.Status, r.Raw, m[1])
		}
	}
}
