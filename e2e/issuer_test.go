package e2e

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIssuerThroughBinary is issue 41's "Done when" for the issuer block, through the binary, with an HTTPS
// server on loopback (trusted through SSL_CERT_FILE only) as business A's domain: A verifies its domain; its
// bundle and presentation pass `seald proof verify --issuer DOMAIN` (and --issuer-doc with a saved copy);
// business B seals the same data, and B's bundle and presentation fail --issuer for A's domain; a bundle with
// A's issuer block copied into B's fails; the page names A's verified domain and B as self-declared; the DID
// document removed and checked again, the identity lapses and A's new proofs say self-declared.
func TestIssuerThroughBinary(t *testing.T) {
	t.Parallel()
	host := startDIDHost(t)
	domain, caFile := host.Domain, host.CAFile
	dir := t.TempDir()
	rpcAddr := freePort(t)
	rpc := "http://" + rpcAddr
	in := startServe(t, dir, map[string]string{"SSL_CERT_FILE": caFile}, "--webhook-allow", "127.0.0.1", "--chain-rpc-addr", rpcAddr)
	keysB := tenant(t, dir, "--business", "Impostor Ltd", "--project", "diplomas")
	inB := &instance{t: t, URL: in.URL, DataDir: dir, Sub: keysB["subscription_key"], API: keysB["api_key"]}

	// A claims its domain and publishes the document seald answers.
	set := in.post("/tenant/identity", map[string]any{"domain": domain})
	if set.Status != http.StatusOK {
		t.Fatalf("POST /tenant/identity = %d %s", set.Status, set.Raw)
	}
	var raw struct {
		Data struct {
			Document json.RawMessage `json:"document"`
		} `json:"data"`
	}
	if err := json.Unmarshal(set.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	host.publish(raw.Data.Document)
	if c := in.post("/tenant/identity/check", nil); c.Status != http.StatusOK || str(c.Body, "data.state") != "verified" {
		t.Fatalf("identity check = %d %s", c.Status, c.Raw)
	}
	savedDoc := writeTemp(t, "did.json", raw.Data.Document)

	// verify runs `seald proof verify` as its own process, SSL_CERT_FILE set as a user on this machine would.
	bin := serveBinary(t)
	_, root := fetch(t, in.URL+trustRootSuffix)
	trust := writeTemp(t, "trust.json", root)
	verify := func(file string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"proof", "verify", file, "--rpc", rpc, "--trust", trust}, args...)...)
		cmd.Env = append(childEnv(nil), "SSL_CERT_FILE="+caFile)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("proof verify: %v %s", err, out)
		}
		return string(out), 0
	}
	data := map[string]any{"name": "Ada Lovelace", "degree": "MSc Mathematics"}
	seal := func(in *instance) (ref, bundle, presentation string) {
		t.Helper()
		r := in.post(authPath, map[string]any{"data": data, "to": "ada@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		ref = str(r.Body, "data.reference")
		in.waitState(ref, "COMPLETED", 2*time.Minute)
		_, b := fetch(t, in.URL+"/v/"+ref+"/proof.json")
		bundle = writeTemp(t, "bundle.json", b)
		pkg := in.get("/verification/api/v1/disclosure?reference=" + ref)
		if pkg.Status != 200 {
			t.Fatalf("disclosure package: %d %s", pkg.Status, pkg.Raw)
		}
		presentation = filepath.Join(t.TempDir(), "presentation.json")
		if out, err := cli(t, nil, "disclose", writeTemp(t, "package.json", pkg.Raw), "--members", "degree", "-o", presentation); err != nil {
			t.Fatalf("seald disclose: %v %s", err, out)
		}
		return ref, bundle, presentation
	}
	refA, bundleA, presA := seal(in)
	refB, bundleB, presB := seal(inB)

	t.Run("A's bundle and presentation pass --issuer A", func(t *testing.T) {
		for _, f := range []string{bundleA, presA} {
			out, code := verify(f, "--issuer", domain)
			if code != 0 || !strings.Contains(out, ", "+domain+", domain verified on ") || !strings.Contains(out, "signed by its key did:web:") {
				t.Errorf("%s --issuer %s: exit %d\n%s", filepath.Base(f), domain, code, out)
			}
			out, code = verify(f, "--issuer-doc", savedDoc)
			if code != 0 || !strings.Contains(out, "the DID document "+savedDoc) {
				t.Errorf("%s --issuer-doc: exit %d\n%s", filepath.Base(f), code, out)
			}
		}
		if out, code := verify(bundleA); code != 0 || !strings.Contains(out, "domain verified on") || !strings.Contains(out, "--issuer "+domain+" to check it") {
			t.Errorf("A's bundle without --issuer: exit %d\n%s", code, out)
		}
	})
	t.Run("B's bundle and presentation fail --issuer A", func(t *testing.T) {
		for _, f := range []string{bundleB, presB} {
			out, code := verify(f, "--issuer", domain)
			if code != 1 || !strings.Contains(out, "NOT signed by the issuer "+domain) || !strings.Contains(out, "self-declared") {
				t.Errorf("%s of B --issuer %s: exit %d\n%s", filepath.Base(f), domain, code, out)
			}
		}
		if out, code := verify(bundleB); code != 0 || !strings.Contains(out, "Sealed by Impostor Ltd (self-declared name; no verified domain)") {
			t.Errorf("B's bundle without --issuer: exit %d\n%s", code, out)
		}
	})
	t.Run("A's issuer block copied into B's bundle fails", func(t *testing.T) {
		var a, b map[string]any
		_ = json.Unmarshal([]byte(readFile(t, bundleA)), &a)
		_ = json.Unmarshal([]byte(readFile(t, bundleB)), &b)
		b["issuer"] = a["issuer"]
		forged, _ := json.Marshal(b)
		file := writeTemp(t, "forged.json", forged)
		if out, code := verify(file, "--issuer", domain); code != 1 || !strings.Contains(out, "NOT") {
			t.Errorf("B's bundle with A's issuer block, --issuer: exit %d\n%s", code, out)
		}
		if out, code := verify(file); code != 1 || !strings.Contains(out, "signature does not match") {
			t.Errorf("B's bundle with A's issuer block: exit %d\n%s", code, out)
		}
	})
	t.Run("the standalone checker, tools/verify-bundle", func(t *testing.T) {
		if _, err := os.Stat("../tools/verify-bundle/node_modules"); err != nil {
			t.Skip("npm ci in tools/verify-bundle first")
		}
		if code, out := independent(t, bundleA, "--rpc", rpc, "--trust", trust, "--issuer-doc", savedDoc); code != 0 ||
			!strings.Contains(out, ", "+domain+", domain verified on ") || !strings.Contains(out, "listed in the DID document") {
			t.Errorf("A's bundle, --issuer-doc: exit %d\n%s", code, out)
		}
		if code, out := independent(t, bundleB, "--rpc", rpc, "--trust", trust, "--issuer-doc", savedDoc); code != 1 || !strings.Contains(out, "self-declared") {
			t.Errorf("B's bundle, --issuer-doc of A: exit %d\n%s", code, out)
		}
		if code, out := independent(t, bundleB, "--rpc", rpc, "--trust", trust); code != 0 || !strings.Contains(out, "Sealed by Impostor Ltd (self-declared name; no verified domain)") {
			t.Errorf("B's bundle: exit %d\n%s", code, out)
		}
	})
	t.Run("the page names A's domain and B as self-declared", func(t *testing.T) {
		_, pageA := fetch(t, in.URL+"/v/"+refA)
		if !strings.Contains(string(pageA), ", "+domain+", domain verified on ") || !strings.Contains(string(pageA), "--issuer "+domain) {
			t.Errorf("A's page does not name its verified domain:\n%s", pageA)
		}
		_, pageB := fetch(t, in.URL+"/v/"+refB)
		if !strings.Contains(string(pageB), "Sealed by Impostor Ltd (self-declared name; no verified domain)") {
			t.Errorf("B's page does not say self-declared:\n%s", pageB)
		}
	})
	t.Run("the document removed, the identity lapses and new proofs say self-declared", func(t *testing.T) {
		host.publish(nil)
		if c := in.post("/tenant/identity/check", nil); c.Status != http.StatusOK || str(c.Body, "data.state") != "lapsed" {
			t.Fatalf("identity check after removal = %d %s", c.Status, c.Raw)
		}
		_, b := fetch(t, in.URL+"/v/"+refA+"/proof.json")
		fresh := writeTemp(t, "fresh.json", b)
		if out, code := verify(fresh); code != 0 || !strings.Contains(out, "(self-declared name; no verified domain)") {
			t.Errorf("A's bundle after the lapse: exit %d\n%s", code, out)
		}
		if out, code := verify(fresh, "--issuer-doc", savedDoc); code != 1 || !strings.Contains(out, "self-declared") {
			t.Errorf("A's bundle after the lapse, --issuer-doc: exit %d\n%s", code, out)
		}
		// The bundle saved while the domain was verified keeps verifying against the saved document.
		if out, code := verify(bundleA, "--issuer-doc", savedDoc); code != 0 {
			t.Errorf("A's earlier bundle, --issuer-doc: exit %d\n%s", code, out)
		}
		// Resolving the domain now fails to fetch: the check could not be made (exit 2), not a forgery.
		if out, code := verify(bundleA, "--issuer", domain); code != 2 || !strings.Contains(out, "404") {
			t.Errorf("A's earlier bundle, --issuer with the document gone: exit %d\n%s", code, out)
		}
	})
}
