package e2e

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"seald.dev/seald/internal/wiring"
)

// TestPublicWording (issue 44 item 7): what a newcomer reads, the README and the openapi.json every serve
// hands out (the embedded file, byte for byte), says "the original API" and names its eight operations, not
// the internal word "seed" or an unnamed "established interface"; and docs/api.md says in one place why the
// verification operations put their error message in data and the others in error.
func TestPublicWording(t *testing.T) {
	t.Parallel()
	seed := regexp.MustCompile(`(?i)\bseed\b|\bseed's\b`)
	for _, f := range []string{"../README.md", "../httpapi/openapi.json"} {
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
	api, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(api), "Why two shapes") || !strings.Contains(string(api), "from `data` when `success` is false") {
		t.Error("docs/api.md does not say why verification puts its error message in data")
	}
}

// TestReadmeForNewcomers (issue 44 item 12): the README's configuration table has a row for every flag of
// serve (four were missing: --public-rpc, --anchor-gas-limit, --contract-transfer-events, --eos-finality);
// it lists what `make test` needs installed, says that the generator seals an I- record and where
// `proof verify --trust URL` pins, and says in the README itself that the Dockerfile and compose file were
// never built here.
func TestReadmeForNewcomers(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	_, table, _ := strings.Cut(readme, "\n## Configuration\n")
	table, _, _ = strings.Cut(table, "\n## ")
	var cfg wiring.Config
	wiring.FlagSet("serve", &cfg, true).VisitAll(func(f *flag.Flag) {
		if !strings.Contains(table, "`--"+f.Name+"`") {
			t.Errorf("the README's configuration table has no row for --%s (%s)", f.Name, f.Usage)
		}
	})
	for _, want := range []string{"PostgreSQL", "npm", "Chromium", "jq", "with an I- reference", "~/.config/seald/trust/",
		"--trust-pin-dir", "have never been built or run"} {
		if !strings.Contains(readme, want) {
			t.Errorf("the README does not say %q", want)
		}
	}
}
