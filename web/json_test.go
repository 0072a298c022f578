package web_test

import (
	"encoding/json"
	"testing"
)

// TestJSONNotFound: the page's JSON documents (proof bundles, token metadata) answer what names none with a
// JSON 404 in the API's plain envelope, never with the HTML page (docs/api.md: no HTML error reaches a
// client), and a PRIVATE record's proof with the very answer of an unknown one.
func TestJSONNotFound(t *testing.T) {
	f := newFixture(t)
	public := f.seal(f.public, `{"invoice":"INV-1"}`) // not anchored: the fixture has no chain
	private := f.seal(f.private, `{"secret":"x"}`)

	answers := map[string]string{}
	for _, p := range []string{
		"/v/" + private.Reference + "/proof.json",
		"/v/D-00000000-0000-4000-8000-000000000000/proof.json",
		"/v/nonsense/proof.json",
		"/v/" + public.Reference + "/proof.json",
		"/tokens/POLYGON/999",
		"/tokens/POLYGON/x",
		"/tokens/BITCOIN/1",
		"/tokens/polygon/1",
		"/tokens/POLYGON/1/more",
		"/tokens/",
	} {
		code, h, body := f.get(p)
		var env struct {
			Success *bool   `json:"success"`
			Data    any     `json:"data"`
			Error   *string `json:"error"`
		}
		err := json.Unmarshal(body, &env)
		if code != 404 || h.Get("Content-Type") != "application/json; charset=utf-8" || err != nil ||
			env.Success == nil || *env.Success || env.Data != nil || env.Error == nil || *env.Error == "" {
			t.Errorf("%s: %d %q %s, want a JSON 404 in the plain envelope", p, code, h.Get("Content-Type"), body)
			continue
		}
		checkHeaders(t, h)
		answers[p] = string(body)
	}
	if a, b := answers["/v/"+private.Reference+"/proof.json"], answers["/v/D-00000000-0000-4000-8000-000000000000/proof.json"]; a != b {
		t.Errorf("a PRIVATE record's proof answers %s, an unknown one %s: the answer tells them apart", a, b)
	}
}
