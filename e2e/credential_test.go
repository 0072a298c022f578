package e2e

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// verifyVC runs tools/verify-vc, the independent checker of credentials (Digital Bazaar's vc with the
// eddsa-rdfc-2022 cryptosuite and the bitstring status list; @sd-jwt/sd-jwt-vc), against the running service:
// it resolves the issuer's did:web from it and fetches its status lists as any verifier would.
func verifyVC(t *testing.T, in *instance, mode, file string, extra ...string) (map[string]any, bool) {
	t.Helper()
	if _, err := os.Stat("../tools/verify-vc/node_modules/@digitalbazaar/vc"); err != nil {
		t.Fatalf("tools/verify-vc is not installed (npm ci in it; scripts/test.sh does): %v", err)
	}
	args := append([]string{"../tools/verify-vc/verify.mjs", mode, file, "--base", in.URL, "--allow-http-loopback"}, extra...)
	out, err := exec.Command("node", args...).CombinedOutput()
	var res map[string]any
	if json.Unmarshal(out, &res) != nil {
		t.Fatalf("verify-vc: %v %s", err, out)
	}
	return res, err == nil && res["verified"] == true
}

// TestCredentials is issue 42's done-when through the binary: a diploma's W3C VC 2.0 credential verifies
// with Digital Bazaar's libraries resolving the issuer's DID document from the running service, a changed
// claim fails, and the suspension and revocation bits read from the served lists follow the record's status;
// its SD-JWT VC verifies with @sd-jwt/sd-jwt-vc, and a presentation of two members holds no byte of the others.
func TestCredentials(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil)
	defer in.stop()
	diploma := map[string]any{"name": "Ada Lovelace", "degree": "MSc Mathematics", "university": "Example University",
		"graduated": "2024-06-30", "grades": map[string]any{"analysis": "A+ with distinction", "logic": 17.25},
		"courses": []any{map[string]any{"title": "Analysis", "ects": 10}}, "birthdate": "1815-12-10"}
	hidden := []string{"A+ with distinction", "17.25", "1815-12-10", "analysis", "Example University", "Analysis"}
	seal := func(data any) string {
		r := in.post(authPath, map[string]any{"data": data, "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		return str(r.Body, "data.reference")
	}
	ref, odd := seal(diploma), seal(map[string]any{"ok": 1, "list": []any{map[string]any{"@id": "x"}}})
	in.waitState(ref, "COMPLETED", 120*time.Second)
	in.waitState(odd, "COMPLETED", 120*time.Second)

	issue := func(ref, format string) []byte {
		r := in.get("/verification/api/v1/credential?reference=" + ref + "&format=" + format)
		if r.Status != 200 {
			t.Fatalf("credential %s: %d %s", format, r.Status, r.Raw)
		}
		var env struct {
			Data struct{ Credential json.RawMessage }
		}
		json.Unmarshal(r.Raw, &env)
		return env.Data.Credential
	}
	dir := t.TempDir()
	vcFile := filepath.Join(dir, "vc.json")
	os.WriteFile(vcFile, issue(ref, "vc"), 0o600)
	statuses := func() map[string]any {
		t.Helper()
		res, ok := verifyVC(t, in, "vc", vcFile)
		if !ok {
			t.Fatalf("the credential does not verify: %v", res)
		}
		st, _ := res["statuses"].(map[string]any)
		return st
	}
	t.Run("it verifies with Digital Bazaar's vc and eddsa-rdfc-2022", func(t *testing.T) {
		st := statuses()
		if st["revocation"] != false || st["suspension"] != false {
			t.Errorf("statuses of an active record: %v", st)
		}
		b, _ := os.ReadFile(vcFile)
		for _, want := range []string{`"issuer":"did:web:127.0.0.1%3A`, `"DataIntegrityProof"`, `"eddsa-rdfc-2022"`, `"SealdAnchor"`, `"merkleRoot"`, `"degree":"MSc Mathematics"`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("the credential lacks %s: %s", want, b)
			}
		}
	})
	t.Run("a changed claim fails", func(t *testing.T) {
		b, _ := os.ReadFile(vcFile)
		changed := filepath.Join(dir, "changed.json")
		os.WriteFile(changed, []byte(strings.Replace(string(b), "MSc Mathematics", "PhD Mathematics", 1)), 0o600)
		if res, ok := verifyVC(t, in, "vc", changed); ok {
			t.Errorf("a changed credential verifies: %v", res)
		}
	})
	t.Run("a member that cannot be a claim is a 400 naming it", func(t *testing.T) {
		r := in.get("/verification/api/v1/credential?reference=" + odd)
		if r.Status != 400 || !strings.Contains(string(r.Raw), "/list/0/@id") {
			t.Errorf("credential of data with @id: %d %s", r.Status, r.Raw)
		}
	})

	sdFile, presFile := filepath.Join(dir, "vc.sdjwt"), filepath.Join(dir, "presentation.sdjwt")
	var sd string
	json.Unmarshal(issue(ref, "sd-jwt-vc"), &sd)
	os.WriteFile(sdFile, []byte(sd), 0o600)
	t.Run("the SD-JWT VC and a presentation of two members verify with @sd-jwt/sd-jwt-vc", func(t *testing.T) {
		res, ok := verifyVC(t, in, "sdjwt-vc", sdFile, "--present", "name,degree", "--out", presFile)
		if !ok || res["vct"] == nil || res["status"] != 0.0 {
			t.Fatalf("SD-JWT VC: %v", res)
		}
		presented, _ := res["presented"].(map[string]any)
		if presented["name"] != "Ada Lovelace" || presented["degree"] != "MSc Mathematics" || presented["grades"] != nil || presented["birthdate"] != nil {
			t.Errorf("presented claims: %v", presented)
		}
		b, _ := os.ReadFile(presFile)
		all := string(b)
		for _, part := range strings.Split(all, "~") {
			for _, seg := range strings.Split(part, ".") {
				raw, _ := base64.RawURLEncoding.DecodeString(seg)
				all += string(raw)
			}
		}
		if strings.Count(string(b), "~") != 3 {
			t.Errorf("the presentation has not exactly two disclosures: %s", b)
		}
		for _, h := range hidden {
			if strings.Contains(all, h) {
				t.Errorf("the presentation holds %q", h)
			}
		}
	})

	setStatus := func(status string) {
		t.Helper()
		if r := in.callWith("PUT", updatePath, nil, map[string]any{"reference": ref, "status": status}); r.Status != 200 {
			t.Fatalf("status %s: %d %s", status, r.Status, r.Raw)
		}
	}
	t.Run("the served lists follow suspension, reactivation and revocation", func(t *testing.T) {
		setStatus("SUSPENDED")
		if st := statuses(); st["suspension"] != true || st["revocation"] != false {
			t.Errorf("after suspension: %v", st)
		}
		if res, _ := verifyVC(t, in, "sdjwt-vc", sdFile); res["status"] != 2.0 {
			t.Errorf("SD-JWT VC status after suspension: %v", res)
		}
		setStatus("ACTIVE")
		if st := statuses(); st["suspension"] != false || st["revocation"] != false {
			t.Errorf("after reactivation: %v", st)
		}
		setStatus("REVOKED")
		if st := statuses(); st["revocation"] != true || st["suspension"] != false {
			t.Errorf("after revocation: %v", st)
		}
		if res, _ := verifyVC(t, in, "sdjwt-vc", sdFile); res["status"] != 1.0 {
			t.Errorf("SD-JWT VC status after revocation: %v", res)
		}
	})
	t.Run("after erasure 410, and the credential issued before still verifies", func(t *testing.T) {
		if r := in.post("/authentication/erase", map[string]any{"reference": ref, "reason": "credentials test"}); r.Status != 200 {
			t.Fatalf("erase: %d %s", r.Status, r.Raw)
		}
		if r := in.get("/verification/api/v1/credential?reference=" + ref); r.Status != 410 {
			t.Errorf("credential of an erased record: %d %s", r.Status, r.Raw)
		}
		if st := statuses(); st["revocation"] != true {
			t.Errorf("after erasure: %v", st)
		}
	})
}
