package e2e

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/proof"
)

// TestReviewPresentationChecks is issue 41's security review through the binary (`seald proof verify`,
// embedded chain) and tools/verify-sdjwt:
//   - a presentation without its sd_jwt (the anchor by the chain key alone, no signature of the issuer's
//     signing key) is refused, as a bundle without its signature is; before, it verified (exit 0);
//   - a presentation's chain_name is the trust root's, not the file's: a file saying "Polygon PoS (chain
//     137)" of the development chain was printed as such;
//   - after `seald keys rotate --signing`, an SD-JWT made up for a later anchor and signed by the retired key
//     is refused by both verifiers; before, proof verify said "signed by the issuer's key" of it.
func TestReviewPresentationChecks(t *testing.T) {
	t.Parallel() // its own serve and data dir; it mostly waits on restarts and the pipeline
	dir := t.TempDir()
	rpcAddr := freePort(t)
	rpc := "http://" + rpcAddr
	in := startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr)
	present := func(in *instance, name string, edit func(pkg *proof.DisclosurePackage)) (string, *proof.DisclosurePackage) {
		t.Helper()
		r := in.post(authPath, map[string]any{"data": map[string]any{"name": name, "degree": "MSc"}, "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		ref := str(r.Body, "data.reference")
		in.waitState(ref, "COMPLETED", 2*time.Minute)
		pr := in.get("/verification/api/v1/disclosure?reference=" + ref)
		if pr.Status != 200 {
			t.Fatalf("disclosure package: %d %s", pr.Status, pr.Raw)
		}
		pkg, err := proof.ParseDisclosurePackage(pr.Raw)
		if err != nil {
			t.Fatal(err)
		}
		raw := pr.Raw
		if edit != nil {
			edit(pkg)
			raw, _ = json.Marshal(pkg)
		}
		file := filepath.Join(t.TempDir(), "presentation.json")
		if out, err := cli(t, nil, "disclose", writeTemp(t, "package.json", raw), "--members", "name", "-o", file); err != nil {
			t.Fatalf("seald disclose: %v %s", err, out)
		}
		return file, pkg
	}
	trustNow := func(in *instance) string {
		_, doc := fetch(t, in.URL+trustRootSuffix)
		return writeTemp(t, "trust.json", doc)
	}
	edited := func(file string, edit func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(readFile(t, file)), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ := json.Marshal(m)
		return writeTemp(t, "edited.json", b)
	}

	genuine, _ := present(in, "Ada Lovelace", nil)
	trust := trustNow(in)
	if out, code, err := proofCLI(t, genuine, "--rpc", rpc, "--trust", trust); code != 0 {
		t.Fatalf("the genuine presentation: exit %d %s %v", code, out, err)
	}
	t.Run("no sd_jwt: the anchoring key alone", func(t *testing.T) {
		bare := edited(genuine, func(m map[string]any) { delete(m, "sd_jwt") })
		out, code, err := proofCLI(t, bare, "--rpc", rpc, "--trust", trust)
		if code != 1 || err == nil || !strings.Contains(err.Error(), "no sd_jwt") {
			t.Errorf("a presentation without the issuer's signature: exit %d %s %v", code, out, err)
		}
	})
	t.Run("chain_name from the trust root", func(t *testing.T) {
		named := edited(genuine, func(m map[string]any) { m["chain_name"] = "Polygon PoS (chain 137)" })
		out, code, err := proofCLI(t, named, "--rpc", rpc, "--trust", trust)
		if code != 0 || strings.Contains(out, "Polygon PoS (chain 137)") || !strings.Contains(out, "chain 1337") {
			t.Errorf("a file naming another chain: exit %d %v, the verdict shows the file's name:\n%s", code, err, out)
		}
	})

	// The signing key before the rotation, from the (unprotected) secrets file.
	var secrets struct {
		SigningKeys []struct{ Seed []byte } `json:"signing_keys"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "secrets.json"))), &secrets); err != nil || len(secrets.SigningKeys) != 1 {
		t.Fatalf("secrets file: %v %d keys", err, len(secrets.SigningKeys))
	}
	old := ed25519.NewKeyFromSeed(secrets.SigningKeys[0].Seed)
	in.stop()
	var out, errb bytes.Buffer
	if err := run(t.Context(), []string{"keys", "rotate", "--signing", "--data-dir", dir},
		func(string) string { return "" }, &out, &errb); err != nil {
		t.Fatalf("keys rotate: %v %s", err, errb.String())
	}
	in = startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr)
	trust = trustNow(in)
	root, err := proof.ParseTrustRoot([]byte(readFile(t, trust)))
	if err != nil {
		t.Fatal(err)
	}
	// A record anchored after the rotation, its SD-JWT made up and signed by the retired key.
	forged, _ := present(in, "Mary Somerville", func(pkg *proof.DisclosurePackage) {
		jwt, err := proof.SignIssuerJWT(pkg.SDPayload, root.Issuer, time.Now(), pkg.DisclosureAnchor, pkg.Commitment, edKey{old})
		if err != nil {
			t.Fatal(err)
		}
		var ds []string
		for _, d := range pkg.Disclosures {
			ds = append(ds, d.Disclosure)
		}
		pkg.SDJWT = proof.JoinSDJWT(jwt, ds)
	})
	t.Run("retired key, seald proof verify", func(t *testing.T) {
		out, code, err := proofCLI(t, forged, "--rpc", rpc, "--trust", trust)
		if code != 1 || err == nil || !strings.Contains(err.Error(), "retired at") {
			t.Errorf("an SD-JWT by the retired key for a later anchor: exit %d %s %v", code, out, err)
		}
	})
	t.Run("retired key, tools/verify-sdjwt", func(t *testing.T) {
		if _, err := os.Stat("../tools/verify-sdjwt/node_modules"); err != nil {
			t.Skip("npm ci in tools/verify-sdjwt first")
		}
		b, err := exec.Command("node", "../tools/verify-sdjwt/verify.mjs", forged, "--trust", trust).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(b), "retired") {
			t.Errorf("verify-sdjwt of an SD-JWT by the retired key for a later anchor: %v %s", err, b)
		}
	})
}
