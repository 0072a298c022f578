package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestIdentityThroughBinary runs the seald binary against an HTTPS server on loopback that plays business A's
// domain, its certificate trusted through SSL_CERT_FILE only: A claims the domain, publishes the DID document
// seald answers, is verified; the document removed, the next check lapses the identity.
func TestIdentityThroughBinary(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	host := startDIDHost(t)
	domain, caFile := host.Domain, host.CAFile
	dataDir := t.TempDir()
	p := startProcess(t, bin, dataDir, []string{"SSL_CERT_FILE=" + caFile}, "--webhook-allow", "127.0.0.1")
	in := p.in

	set := in.post("/tenant/identity", map[string]any{"domain": domain})
	if set.Status != http.StatusOK {
		t.Fatalf("POST /tenant/identity = %d %s", set.Status, set.Raw)
	}
	did := str(set.Body, "data.did")
	if want := "did:web:" + strings.Replace(domain, ":", "%3A", 1); did != want {
		t.Fatalf("did = %q, want %q", did, want)
	}
	if got := str(set.Body, "data.document_url"); got != host.URL+"/.well-known/did.json" {
		t.Fatalf("document_url = %q", got)
	}
	if str(set.Body, "data.state") != "pending" {
		t.Fatalf("state = %q", str(set.Body, "data.state"))
	}
	var raw struct {
		Data struct {
			Document json.RawMessage `json:"document"`
		} `json:"data"`
	}
	if err := json.Unmarshal(set.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	var published struct {
		VerificationMethod []struct {
			PublicKeyMultibase string `json:"publicKeyMultibase"`
		} `json:"verificationMethod"`
	}
	if err := json.Unmarshal(raw.Data.Document, &published); err != nil || len(published.VerificationMethod) != 1 ||
		!strings.HasPrefix(published.VerificationMethod[0].PublicKeyMultibase, "z6Mk") {
		t.Fatalf("document = %s (%v)", raw.Data.Document, err)
	}
	mb := published.VerificationMethod[0].PublicKeyMultibase

	// The CLI, with the business's keys, as a separate process with the same CA file.
	cliRun := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append(args, "--url", in.URL, "--subscription-key", in.Sub, "--api-key", in.API)...)
		cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+caFile)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := cliRun("identity", "check")
	if err == nil || !strings.Contains(out, "state:  pending") || !strings.Contains(out, "404") {
		t.Fatalf("seald identity check before publishing: %v\n%s", err, out)
	}

	// Publish the document exactly as seald answered it.
	host.publish(raw.Data.Document)
	out, err = cliRun("identity", "check")
	if err != nil || !strings.Contains(out, "state:  verified") || !strings.Contains(out, "verified at: ") || !strings.Contains(out, mb) {
		t.Fatalf("seald identity check after publishing: %v\n%s", err, out)
	}
	got := in.get("/tenant/identity")
	if got.Status != http.StatusOK || str(got.Body, "data.state") != "verified" || str(got.Body, "data.verified_at") == "" {
		t.Fatalf("GET /tenant/identity = %d %s", got.Status, got.Raw)
	}

	// The document removed: the check lapses the identity, and says why.
	host.publish(nil)
	check := in.post("/tenant/identity/check", nil)
	if check.Status != http.StatusOK || str(check.Body, "data.state") != "lapsed" || !strings.Contains(str(check.Body, "data.reason"), "404") {
		t.Fatalf("check after removal = %d %s", check.Status, check.Raw)
	}
	if _, ok := check.Body["data"].(map[string]any)["verified_at"]; ok {
		t.Fatalf("a lapsed identity still has verified_at: %s", check.Raw)
	}
	out, err = cliRun("identity", "show")
	if err != nil || !strings.Contains(out, "state:  lapsed") {
		t.Fatalf("seald identity show: %v\n%s", err, out)
	}
	if r := in.post("/tenant/identity", map[string]any{"domain": "https://" + domain}); r.Status != http.StatusBadRequest ||
		!strings.Contains(str(r.Body, "error"), "domain") {
		t.Fatalf("a domain with a scheme = %d %s", r.Status, r.Raw)
	}
}

// TestIdentityGuardRefusesLoopback: without --webhook-allow, the fetch of a domain on loopback is refused by
// the outbound guard, and the check says so.
func TestIdentityGuardRefusesLoopback(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil)
	if r := in.post("/tenant/identity", map[string]any{"domain": "127.0.0.1:9"}); r.Status != http.StatusOK {
		t.Fatalf("POST /tenant/identity = %d %s", r.Status, r.Raw)
	}
	check := in.post("/tenant/identity/check", nil)
	if check.Status != http.StatusOK || str(check.Body, "data.state") != "pending" ||
		!strings.Contains(str(check.Body, "data.reason"), "--webhook-allow") {
		t.Fatalf("check = %d %s", check.Status, check.Raw)
	}
}
