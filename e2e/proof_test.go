package e2e

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	ethcommon "github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald/evm/gethtest"
	"seald.dev/seald/evm/registry"
	"seald.dev/seald/proof"
)

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// fetch GETs a URL with no keys, as curl would.
func fetch(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// writeTemp writes b to a new file and returns its path.
func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// proofCLI runs `seald proof verify` with args and returns its output and exit status.
func proofCLI(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(t.Context(), append([]string{"proof", "verify"}, args...), func(string) string { return "" }, &out, &errb)
	return out.String(), exitCode(err), err
}

// independent runs the verifier in tools/verify-bundle, which shares no code with seald (Node and ethers),
// and returns its exit status and output. Its node_modules come from `npm ci` (scripts/test.sh).
func independent(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("node", append([]string{"../tools/verify-bundle/verify.mjs"}, args...)...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("independent verifier: %v %s", err, out)
	}
	return 0, string(out)
}

// resign signs a bundle again with key, naming it in the bundle as seald would.
func resign(t *testing.T, bundle []byte, key ed25519.PrivateKey, edit func(p *proof.Bundle)) []byte {
	t.Helper()
	p, err := proof.Parse(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(p)
	}
	p.Sign(edKey{key})
	b, _ := json.Marshal(p)
	return b
}

type edKey struct{ k ed25519.PrivateKey }

func (e edKey) Sign(d []byte) []byte           { return ed25519.Sign(e.k, d) }
func (e edKey) PublicKey() ed25519.PublicKey   { return e.k.Public().(ed25519.PublicKey) }
func newEdKey(t *testing.T) ed25519.PrivateKey { _, k, _ := ed25519.GenerateKey(rand.Reader); return k }
func b64(k ed25519.PrivateKey) string {
	return base64.StdEncoding.EncodeToString(k.Public().(ed25519.PublicKey))
}
func keyOf(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

// TestProofVerifyAgainstEmbeddedChain runs the proof suite on the embedded chain, through its JSON-RPC.
func TestProofVerifyAgainstEmbeddedChain(t *testing.T) {
	t.Parallel() // it starts its own serve (and chain, browser) and mostly waits on them
	rpcAddr := freePort(t)
	in := startServe(t, t.TempDir(), nil, "--chain-rpc-addr", rpcAddr)
	proofSuite(t, in, "http://"+rpcAddr, "development chain", func(t *testing.T) (*instance, string) {
		rpc := freePort(t)
		return startServe(t, t.TempDir(), nil, "--chain-rpc-addr", rpc), "http://" + rpc
	})
}

// TestProofVerifyAgainstGeth runs the proof suite on a real geth node; the other issuer deploys its own
// contract on the same chain.
func TestProofVerifyAgainstGeth(t *testing.T) {
	t.Parallel() // it starts its own serve (and chain, browser) and mostly waits on them
	g := gethtest.Start(t, gethtest.Options{Period: 1})
	keyFile := filepath.Join(t.TempDir(), "chain.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(crypto.FromECDSA(g.Key))), 0o600); err != nil {
		t.Fatal(err)
	}
	start := func(t *testing.T) *instance {
		return startServe(t, t.TempDir(), nil, "--chain", g.URL, "--chain-key-file", keyFile, "--batch-wait", "300ms")
	}
	proofSuite(t, start(t), g.URL, "chain 1337", func(t *testing.T) (*instance, string) { return start(t), g.URL })
}

// proofSuite seals a record on in and checks its proof bundle with `seald proof verify` against the chain's
// JSON-RPC and the issuer's trust root alone, and with the independent verifier: every shape seald hands out
// verifies, each exit status is what the docs say, and bundles that are not the issuer's (relabelled and
// re-signed, signed by an unlisted key, from another seald with its own contract) are refused. chainWords is
// what the verdict must say of the chain.
func proofSuite(t *testing.T, in *instance, rpc, chainWords string, other func(t *testing.T) (*instance, string)) {
	r := in.post(authPath, map[string]any{"data": map[string]any{"deed": "plot 7"}, "to": "a@example.com"})
	ref := str(r.Body, "data.reference")
	in.waitState(ref, "COMPLETED", 60*time.Second)
	answer := in.get(verifyBase + "reference?reference=" + ref + "&proof=1")
	if answer.Status != 200 {
		t.Fatalf("%d %s", answer.Status, answer.Raw)
	}
	trustURL := in.URL + "/.well-known/seald-trust.json"
	code, trustDoc := fetch(t, trustURL)
	if code != 200 {
		t.Fatalf("trust root: %d %s", code, trustDoc)
	}
	trustFile := writeTemp(t, "trust.json", trustDoc)
	bundle, _ := json.Marshal(field(answer.Body, "data.proof"))
	edit := func(f func(p map[string]any)) []byte {
		var p map[string]any
		_ = json.Unmarshal(bundle, &p)
		f(p)
		b, _ := json.Marshal(p)
		return b
	}

	t.Run("every shape verifies against the trust root", func(t *testing.T) {
		code, public := fetch(t, in.URL+"/v/"+ref+"/proof.json") // no keys, as anyone with the QR code
		if code != 200 {
			t.Fatalf("GET /v/%s/proof.json: %d %s", ref, code, public)
		}
		var cli, errb bytes.Buffer
		if err := run(t.Context(), []string{"verify", "--reference", ref, "--json", "--proof", "--url", in.URL,
			"--subscription-key", in.Sub, "--api-key", in.API}, func(string) string { return "" }, &cli, &errb); err != nil {
			t.Fatalf("seald verify --json --proof: %v %s", err, errb.String())
		}
		for name, file := range map[string][]byte{"bundle": bundle, "API answer": answer.Raw, "public file": public, "CLI output": cli.Bytes()} {
			for _, trust := range []string{trustFile, trustURL} {
				out, code, err := proofCLI(t, writeTemp(t, "p.json", file), "--rpc", rpc, "--trust", trust)
				if code != 0 || !strings.HasPrefix(out, "ok:") || !strings.Contains(out, chainWords) {
					t.Errorf("%s with --trust %s: exit %d %q %v", name, trust, code, out, err)
				}
			}
			if code, out := independent(t, writeTemp(t, "p.json", file), "--rpc", rpc, "--trust", trustFile); code != 0 {
				t.Errorf("the independent verifier refuses the %s: exit %d %s", name, code, out)
			}
		}
		data := writeTemp(t, "data.json", []byte(`{ "deed" : "plot 7" }`))
		if out, code, err := proofCLI(t, writeTemp(t, "p.json", bundle), "--rpc", rpc, "--trust", trustFile, "--data", data); code != 0 || !strings.Contains(out, "data matches") {
			t.Errorf("--data of the sealed data: exit %d %q %v", code, out, err)
		}
		other := writeTemp(t, "data.json", []byte(`{"deed":"plot 8"}`))
		if _, code, err := proofCLI(t, writeTemp(t, "p.json", bundle), "--rpc", rpc, "--trust", trustFile, "--data", other); code != exitInvalid || !strings.Contains(err.Error(), "data's hash") {
			t.Errorf("--data of other data: exit %d %v", code, err)
		}
	})

	t.Run("without a trust root nothing is called valid unless told", func(t *testing.T) {
		path := writeTemp(t, "p.json", bundle)
		if _, code, err := proofCLI(t, path, "--rpc", rpc); code != exitUnchecked || !strings.Contains(err.Error(), "--trust") {
			t.Errorf("no --trust: exit %d %v", code, err)
		}
		out, code, err := proofCLI(t, path, "--rpc", rpc, "--no-trust")
		if code != 0 || !strings.Contains(out, "NOT checked against a trust root") {
			t.Errorf("--no-trust: exit %d %q %v", code, out, err)
		}
	})

	t.Run("a node that does not answer is could-not-check", func(t *testing.T) {
		// Port 1 on loopback refuses every connection. A port freePort gave, closed again, could be taken
		// meanwhile by a server of a test running beside this one, which then answered (CI: exit 2).
		const dead = "http://127.0.0.1:1"
		_, code, err := proofCLI(t, writeTemp(t, "p.json", bundle), "--rpc", dead, "--trust", trustFile)
		if code != exitUnchecked || !strings.Contains(err.Error(), "could not check") {
			t.Errorf("dead node: exit %d %v", code, err)
		}
		if icode, iout := independent(t, writeTemp(t, "p.json", bundle), "--rpc", dead, "--trust", trustFile); icode != exitUnchecked {
			t.Errorf("the independent verifier with a dead node: exit %d %s", icode, iout)
		}
	})

	forger := newEdKey(t)
	for name, c := range map[string]struct {
		file []byte
		want string
	}{
		"changed hash":     {edit(func(p map[string]any) { p["hash"] = strings.Repeat("1", 64) }), "hash"},
		"wrong path":       {edit(func(p map[string]any) { p["merkle_path"] = []string{"0x" + strings.Repeat("ab", 32)} }), "path"},
		"other chain":      {edit(func(p map[string]any) { p["chain_id"] = "137" }), "chain"},
		"other contract":   {edit(func(p map[string]any) { p["contract"] = "0x000000000000000000000000000000000000dEaD" }), "contract"},
		"not a bundle":     {[]byte(`{"hello":"world"}`), "bundle"},
		"forged signature": {edit(func(p map[string]any) { p["reference"] = "D-00000000-0000-4000-8000-000000000000" }), "signature"},
		"relabelled and re-signed": {resign(t, bundle, forger, func(p *proof.Bundle) { p.Reference = "D-00000000-0000-4000-8000-000000000001" }),
			"not one the issuer lists"},
		"unsigned change of block": {edit(func(p map[string]any) { p["block_number"] = 1 }), ""},
	} {
		t.Run(name, func(t *testing.T) {
			path := writeTemp(t, "p.json", c.file)
			out, code, err := proofCLI(t, path, "--rpc", rpc, "--trust", trustFile)
			if code != exitInvalid {
				t.Fatalf("exit %d, want %d: %q %v", code, exitInvalid, out, err)
			}
			if icode, iout := independent(t, path, "--rpc", rpc, "--trust", trustFile); icode != code {
				t.Errorf("the independent verifier exits %d (%s), seald proof verify %d", icode, strings.TrimSpace(iout), code)
			}
			if !strings.Contains(strings.ToLower(err.Error()), c.want) {
				t.Errorf("error %q does not name %q", err, c.want)
			}
		})
	}

	t.Run("a retired key verifies only for anchors made before its retirement", func(t *testing.T) {
		retired := newEdKey(t)
		withRetired := func(at time.Time) string {
			var doc map[string]any
			_ = json.Unmarshal(trustDoc, &doc)
			doc["keys"] = append(doc["keys"].([]any), map[string]any{"key_id": proof.KeyID(keyOf(retired)),
				"algorithm": "Ed25519", "public_key": b64(retired), "status": "retired", "retired_at": at.UTC().Format(time.RFC3339)})
			b, _ := json.Marshal(doc)
			return writeTemp(t, "trust.json", b)
		}
		later, earlier := withRetired(time.Now().Add(time.Hour)), withRetired(time.Now().Add(-24*time.Hour))
		old := writeTemp(t, "p.json", resign(t, bundle, retired, nil))
		if out, code, err := proofCLI(t, old, "--rpc", rpc, "--trust", later); code != 0 {
			t.Errorf("bundle of a key retired after the anchor: exit %d %q %v", code, out, err)
		}
		if icode, iout := independent(t, old, "--rpc", rpc, "--trust", later); icode != 0 {
			t.Errorf("the independent verifier, key retired after the anchor: exit %d %s", icode, iout)
		}
		_, code, err := proofCLI(t, old, "--rpc", rpc, "--trust", earlier)
		if code != exitInvalid || !strings.Contains(err.Error(), proof.KeyID(keyOf(retired))+" was retired at") {
			t.Errorf("bundle of a key retired before the anchor: exit %d %v", code, err)
		}
		if icode, iout := independent(t, old, "--rpc", rpc, "--trust", earlier); icode != exitInvalid {
			t.Errorf("the independent verifier, key retired before the anchor: exit %d %s", icode, iout)
		}
		if _, code, _ := proofCLI(t, old, "--rpc", rpc, "--trust", trustFile); code != exitInvalid {
			t.Errorf("the same bundle against a trust root without that key: exit %d", code)
		}
	})

	t.Run("revoked token", func(t *testing.T) {
		put := in.callWith("PUT", updatePath, nil, map[string]any{"reference": ref, "status": "REVOKED"})
		if put.Status != 200 {
			t.Fatalf("%d %s", put.Status, put.Raw)
		}
		deadline := time.Now().Add(30 * time.Second)
		for field(in.get(verifyBase+"reference?reference="+ref).Body, "data.blockchain.revoked_on_chain") != true {
			if time.Now().After(deadline) {
				t.Fatal("revocation never reached the chain")
			}
			time.Sleep(50 * time.Millisecond)
		}
		out, code, err := proofCLI(t, writeTemp(t, "p.json", bundle), "--rpc", rpc, "--trust", trustFile)
		if code != exitRevoked || !strings.HasPrefix(out, "REVOKED:") {
			t.Errorf("a revoked token's bundle: exit %d %q %v", code, out, err)
		}
		if icode, iout := independent(t, writeTemp(t, "p.json", bundle), "--rpc", rpc, "--trust", trustFile); icode != exitRevoked {
			t.Errorf("the independent verifier on a revoked token: exit %d %s", icode, iout)
		}
		var cli, errb bytes.Buffer
		err = run(t.Context(), []string{"verify", "--reference", ref, "--url", in.URL, "--subscription-key", in.Sub,
			"--api-key", in.API}, func(string) string { return "" }, &cli, &errb)
		if exitCode(err) != exitRevoked {
			t.Errorf("seald verify of a REVOKED record: exit %d %v", exitCode(err), err)
		}
		code, page := fetch(t, in.URL+"/v/"+ref)
		if code != 200 || !strings.Contains(string(page), "Download proof") || !strings.Contains(string(page), "Recorded on the chain on ") {
			t.Errorf("page of a revoked record: %d, no proof link or revocation date", code)
		}
	})

	t.Run("a bundle of another seald with its own contract", func(t *testing.T) {
		other, otherRPC := other(t)
		r := other.post(authPath, map[string]any{"data": map[string]any{"deed": "plot 7"}, "to": "a@example.com"})
		oref := str(r.Body, "data.reference")
		other.waitState(oref, "COMPLETED", 60*time.Second)
		_, theirs := fetch(t, other.URL+"/v/"+oref+"/proof.json")
		path := writeTemp(t, "p.json", theirs)
		if out, code, _ := proofCLI(t, path, "--rpc", otherRPC, "--no-trust"); code != 0 {
			t.Fatalf("their bundle on their chain without a trust root: exit %d %q", code, out)
		}
		_, code, err := proofCLI(t, path, "--rpc", otherRPC, "--trust", trustFile)
		if code != exitInvalid || !strings.Contains(err.Error(), "not the issuer's") {
			t.Errorf("another issuer's bundle against our trust root: exit %d %v", code, err)
		}
	})
}

// TestPrivateRecordHasNoPublicProof: a PRIVATE record's bundle is not served without keys.
func TestPrivateRecordHasNoPublicProof(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	priv := tenant(t, dir, "--business", "Quiet Co", "--project", "P", "--privacy", "PRIVATE")
	r := in.call("POST", authPath, priv["subscription_key"], priv["api_key"], "application/json", map[string]any{"data": map[string]any{"x": 1}, "to": "a@example.com"})
	ref := str(r.Body, "data.reference")
	deadline := time.Now().Add(60 * time.Second)
	for str(in.call("GET", statusPath+"?reference="+ref, priv["subscription_key"], priv["api_key"], "", nil).Body, "data.state") != "COMPLETED" {
		if time.Now().After(deadline) {
			t.Fatal("not COMPLETED")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A PRIVATE record's answer is the unknown record's, word for word: a JSON 404, never the HTML page.
	priv404 := jsonNotFound(t, in.URL+"/v/"+ref+"/proof.json")
	unknown404 := jsonNotFound(t, in.URL+"/v/D-00000000-0000-4000-8000-000000000000/proof.json")
	if priv404 != unknown404 {
		t.Errorf("a PRIVATE record's public proof %q differs from an unknown record's %q", priv404, unknown404)
	}
}

// jsonNotFound fetches url, requires a 404 in the plain JSON envelope, and returns its error message.
func jsonNotFound(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Success *bool   `json:"success"`
		Data    any     `json:"data"`
		Error   *string `json:"error"`
	}
	err = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || err != nil ||
		body.Success == nil || *body.Success || body.Data != nil || body.Error == nil || *body.Error == "" {
		t.Errorf("%s: %d %q %v %+v, want a JSON 404 in the plain envelope", url, resp.StatusCode, resp.Header.Get("Content-Type"), err, body)
		return ""
	}
	return *body.Error
}

// TestDevelopmentChainLabelled: the embedded chain is named a development chain in /readyz, the page and the
// start-up log, and a --chain-rpc-addr someone else holds is refused naming the flag.
func TestDevelopmentChainLabelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	r := in.get("/readyz")
	if !strings.Contains(str(r.Body, "data.chain_polygon"), "development chain") {
		t.Errorf("readyz does not name the development chain: %s", r.Raw)
	}
	if !strings.Contains(in.logText(), "embedded development chain, not on Polygon") {
		t.Error("no warning at start that POLYGON is a development chain")
	}
	s := in.post(authPath, map[string]any{"data": map[string]any{"label": 1}, "to": "a@example.com"})
	ref := str(s.Body, "data.reference")
	in.waitState(ref, "COMPLETED", 60*time.Second)
	if code, page := fetch(t, in.URL+"/v/"+ref); code != 200 || !strings.Contains(string(page), "development chain") {
		t.Errorf("the page does not name the development chain (%d)", code)
	}
	var cli, cliErr bytes.Buffer
	if err := run(t.Context(), []string{"verify", "--reference", ref, "--url", in.URL, "--subscription-key", in.Sub,
		"--api-key", in.API}, func(string) string { return "" }, &cli, &cliErr); err != nil || !strings.Contains(cli.String(), "development chain") {
		t.Errorf("seald verify does not name the development chain: %v %s", err, cli.String())
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var out, errb bytes.Buffer
	err = run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--chain-rpc-addr", l.Addr().String()},
		func(string) string { return "" }, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "--chain-rpc-addr") {
		t.Errorf("serve with a busy --chain-rpc-addr: %v", err)
	}
}

// TestKeyRotationKeepsRecords seals a record, stops, rotates both keys with `seald keys rotate` (the file
// protected with a passphrase on the way), restarts and seals another: both download, and the bundle saved
// before the rotation (signed by the now retired key), the old record's fresh bundle and the new one's all
// verify against the new trust root, which lists the retired key.
func TestKeyRotationKeepsRecords(t *testing.T) {
	t.Parallel() // its own serve and data dir; it mostly waits on restarts and the pipeline
	dir := t.TempDir()
	rpcAddr := freePort(t)
	in := startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr)
	seal := func(in *instance, n int) string {
		r := in.post(authPath, map[string]any{"data": map[string]any{"rotation": n}, "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		ref := str(r.Body, "data.reference")
		in.waitState(ref, "COMPLETED", 60*time.Second)
		return ref
	}
	before := seal(in, 1)
	_, savedBundle := fetch(t, in.URL+"/v/"+before+"/proof.json")
	waitChainPast(t, "http://"+rpcAddr, savedBundle) // a retired key verifies only for anchors made before the rotation
	in.stop()

	const pass = "correct horse battery staple"
	env := map[string]string{"SEALD_SECRETS_PASSPHRASE": pass}
	var out, errb bytes.Buffer
	if err := run(t.Context(), []string{"keys", "rotate", "--master", "--signing", "--data-dir", dir},
		func(k string) string { return env[k] }, &out, &errb); err != nil {
		t.Fatalf("keys rotate: %v %s", err, errb.String())
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "secrets.json"))
	if !strings.HasPrefix(string(raw), "-----BEGIN AGE ENCRYPTED FILE-----") || strings.Contains(string(raw), "master") {
		t.Fatalf("the secrets file is not protected with the passphrase:\n%.200s", raw)
	}
	err := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--chain-rpc-addr", ""},
		func(string) string { return "" }, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "SEALD_SECRETS_PASSPHRASE") {
		t.Errorf("serve without the passphrase: %v", err)
	}

	in = startServe(t, dir, env, "--chain-rpc-addr", rpcAddr)
	after := seal(in, 2)
	for _, ref := range []string{before, after} {
		d := in.get("/svc-data/data/download?reference=" + ref)
		if d.Status != 200 || !strings.Contains(string(d.Raw), "rotation") {
			t.Errorf("download %s after the rotation: %d %s", ref, d.Status, d.Raw)
		}
	}
	code, trustDoc := fetch(t, in.URL+"/.well-known/seald-trust.json")
	if code != 200 || strings.Count(string(trustDoc), `"status": "retired"`) != 1 || strings.Count(string(trustDoc), `"status": "current"`) != 1 {
		t.Fatalf("trust root after the rotation: %d %s", code, trustDoc)
	}
	trust := writeTemp(t, "trust.json", trustDoc)
	_, fresh := fetch(t, in.URL+"/v/"+before+"/proof.json")
	_, newer := fetch(t, in.URL+"/v/"+after+"/proof.json")
	for name, b := range map[string][]byte{"bundle saved before": savedBundle, "old record's fresh bundle": fresh, "new record's bundle": newer} {
		if out, code, err := proofCLI(t, writeTemp(t, "p.json", b), "--rpc", "http://"+rpcAddr, "--trust", trust); code != 0 {
			t.Errorf("%s: exit %d %q %v", name, code, out, err)
		}
	}
	var old, cur proof.Bundle
	_ = json.Unmarshal(savedBundle, &old)
	_ = json.Unmarshal(newer, &cur)
	if old.KeyID == cur.KeyID {
		t.Errorf("the bundles before and after the rotation have the same key id %s", old.KeyID)
	}
}

// TestTokenURI: the contract's tokenURI names the service's metadata for every token, set by the anchor
// leader; the metadata of a PUBLIC record links its page, a PRIVATE one's says only that it exists.
func TestTokenURI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rpcAddr := freePort(t)
	in := startServe(t, dir, nil, "--chain-rpc-addr", rpcAddr)
	priv := tenant(t, dir, "--business", "Quiet Co", "--project", "P", "--privacy", "PRIVATE")
	pub := in.post(authPath, map[string]any{"data": map[string]any{"uri": "public"}, "to": "a@example.com"})
	pubRef := str(pub.Body, "data.reference")
	pubToken := str(in.waitState(pubRef, "COMPLETED", 60*time.Second), "token_id")
	r := in.call("POST", authPath, priv["subscription_key"], priv["api_key"], "application/json", map[string]any{"data": map[string]any{"uri": "private"}, "to": "a@example.com"})
	privRef := str(r.Body, "data.reference")
	var privToken string
	deadline := time.Now().Add(60 * time.Second)
	for privToken == "" || str(in.call("GET", statusPath+"?reference="+privRef, priv["subscription_key"], priv["api_key"], "", nil).Body, "data.state") != "COMPLETED" {
		if time.Now().After(deadline) {
			t.Fatal("private record not COMPLETED")
		}
		time.Sleep(50 * time.Millisecond)
		privToken = str(in.call("GET", statusPath+"?reference="+privRef, priv["subscription_key"], priv["api_key"], "", nil).Body, "data.token_id")
	}
	contract := str(in.get(verifyBase+"reference?reference="+pubRef+"&proof=1").Body, "data.proof.contract")
	for _, c := range []struct {
		token, want, not string
	}{{pubToken, pubRef, ""}, {privToken, "private sealed record", privRef}} {
		uri := tokenURI(t, "http://"+rpcAddr, contract, c.token)
		if uri != in.URL+"/tokens/POLYGON/"+c.token {
			t.Errorf("tokenURI(%s) = %q, want the service's /tokens/POLYGON/%s", c.token, uri, c.token)
			continue
		}
		code, body := fetch(t, uri)
		if code != 200 || !strings.Contains(string(body), c.want) || c.not != "" && strings.Contains(string(body), c.not) {
			t.Errorf("metadata of token %s: %d %s", c.token, code, body)
		}
	}
	for _, p := range []string{"/tokens/POLYGON/999999", "/tokens/POLYGON/x", "/tokens/BITCOIN/1", "/tokens/POLYGON/1/more"} {
		jsonNotFound(t, in.URL+p)
	}
}

// tokenURI asks the contract for a token's URI.
func tokenURI(t *testing.T, rpcURL, contract, token string) string {
	t.Helper()
	c, err := ethclient.DialContext(t.Context(), rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reg := registry.NewSealRegistry()
	id, _ := new(big.Int).SetString(token, 10)
	to := ethcommon.HexToAddress(contract)
	out, err := c.CallContract(t.Context(), ethereum.CallMsg{To: &to, Data: reg.PackTokenURI(id)}, nil)
	if err != nil {
		t.Fatalf("tokenURI(%s): %v", token, err)
	}
	uri, err := reg.UnpackTokenURI(out)
	if err != nil {
		t.Fatal(err)
	}
	return uri
}
