package e2e

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/proof"
)

// TestVerifySDJWTVisibleMembers (issue 44): tools/verify-sdjwt verifies a presentation's sd_jwt, and refuses
// (exit 1) a file whose members shown beside it say something else. Before, the genuine sd_jwt with the visible
// disclosures changed from MSc to PhD printed "ok" with the genuine MSc, so a reader of the file saw PhD
// "verified". The presentation is made by serve (embedded chain) and `seald disclose`.
func TestVerifySDJWTVisibleMembers(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil)
	r := in.post(authPath, map[string]any{"data": map[string]any{"name": "Ada Lovelace", "degree": "MSc Mathematics",
		"grade": "A+"}, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	ref := str(r.Body, "data.reference")
	in.waitState(ref, "COMPLETED", 2*time.Minute)
	pkg := in.get("/verification/api/v1/disclosure?reference=" + ref)
	if pkg.Status != 200 {
		t.Fatalf("disclosure package: %d %s", pkg.Status, pkg.Raw)
	}
	presFile := filepath.Join(t.TempDir(), "presentation.json")
	if out, err := cli(t, nil, "disclose", writeTemp(t, "package.json", pkg.Raw), "--members", "name,degree", "-o", presFile); err != nil {
		t.Fatalf("seald disclose: %v %s", err, out)
	}
	_, trustDoc := fetch(t, in.URL+trustRootSuffix)
	trust := writeTemp(t, "trust.json", trustDoc)
	verifySDJWT := func(file string) (int, string) {
		t.Helper()
		out, err := exec.Command("node", "../tools/verify-sdjwt/verify.mjs", file, "--trust", trust).CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatalf("verify-sdjwt: %v %s", err, out)
		}
		return 0, string(out)
	}
	if code, out := verifySDJWT(presFile); code != 0 || !strings.Contains(out, "MSc Mathematics") {
		t.Fatalf("the genuine presentation: exit %d %s", code, out)
	}

	var pr proof.Presentation
	if err := json.Unmarshal([]byte(readFile(t, presFile)), &pr); err != nil {
		t.Fatal(err)
	}
	phd := pr
	phd.Disclosures = nil
	for _, d := range pr.Disclosures {
		raw, _ := base64.RawURLEncoding.DecodeString(d)
		phd.Disclosures = append(phd.Disclosures, base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), "MSc", "PhD", 1))))
	}
	other := pr
	other.TokenID = "999"
	for name, p := range map[string]proof.Presentation{"visible disclosures": phd, "token_id": other} {
		b, _ := json.Marshal(p)
		if code, out := verifySDJWT(writeTemp(t, "changed.json", b)); code != 1 || !strings.Contains(out, "NOT valid") ||
			!strings.Contains(out, name) {
			t.Errorf("a presentation whose %s were changed: exit %d %s, want 1 and NOT valid naming them", name, code, out)
		}
	}
}
