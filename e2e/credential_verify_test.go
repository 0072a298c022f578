package e2e

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/evm/gethtest"
)

// TestCredentialVerifyOnGeth is issue 42's "the holder gets it" through the binary on geth: `seald proof
// verify` accepts a record's W3C VC (as the endpoint's whole answer and as data.credential) and its SD-JWT VC
// (exit 0), checking the eddsa-rdfc-2022 proof with the key of the issuer's did:web document, the anchor
// evidence on chain and the served status lists; a changed claim exits 1 in both forms; a suspended record
// exits 4 and a revoked one 3, in both forms.
func TestCredentialVerifyOnGeth(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	g := gethtest.Start(t, gethtest.Options{})
	p := startProcess(t, bin, t.TempDir(), nil, "--chain", g.URL, "--chain-key-file", gethKeyFile(t, g))
	in := p.in
	in.httpClient()
	pins := []string{"SEALD_TRUST_PIN_DIR=" + t.TempDir()}
	r := in.post(authPath, map[string]any{"data": map[string]any{"name": "Ada Lovelace", "degree": "MSc Mathematics",
		"grades": map[string]any{"logic": 17.25}}, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	ref := str(r.Body, "data.reference")
	in.waitState(ref, "COMPLETED", 120*time.Second)
	_, trustDoc := fetch(t, in.URL+trustRootSuffix)
	trust := writeTemp(t, "trust.json", trustDoc)

	answer := func(format string) []byte {
		r := in.get("/verification/api/v1/credential?reference=" + ref + "&format=" + format)
		if r.Status != 200 {
			t.Fatalf("credential %s: %d %s", format, r.Status, r.Raw)
		}
		return r.Raw
	}
	var env struct {
		Data struct{ Credential json.RawMessage }
	}
	whole := answer("vc")
	json.Unmarshal(whole, &env)
	vcWhole, vcBare := writeTemp(t, "answer.json", whole), writeTemp(t, "vc.json", env.Data.Credential)
	var sd string
	json.Unmarshal(answer("sd-jwt-vc"), &env)
	json.Unmarshal(env.Data.Credential, &sd)
	sdFile := writeTemp(t, "vc.sdjwt", []byte(sd))
	verify := func(file string, extra ...string) (string, int) {
		return runBinary(t, bin, pins, append([]string{"proof", "verify", file, "--rpc", g.URL}, extra...)...)
	}
	expect := func(what, file string, want int, extra ...string) {
		t.Helper()
		if out, code := verify(file, extra...); code != want {
			t.Errorf("%s: exit %d, want %d\n%s", what, code, want, out)
		}
	}

	expect("the whole answer", vcWhole, 0)
	expect("data.credential, with the trust root", vcBare, 0, "--trust", trust)
	expect("the SD-JWT VC", sdFile, 0)
	if out, _ := verify(vcBare); !strings.Contains(out, "eddsa-rdfc-2022") || !strings.Contains(out, "anchored as token") {
		t.Errorf("the VC's verdict: %s", out)
	}
	expect("a changed VC claim", writeTemp(t, "changed.json", []byte(strings.Replace(string(env0(t, whole)), "MSc Mathematics", "PhD Mathematics", 1))), 1)
	expect("an SD-JWT VC with a changed disclosure", writeTemp(t, "changed.sdjwt", []byte(changeDisclosure(t, sd, "MSc Mathematics", "PhD Mathematics"))), 1)

	setStatus := func(status string) {
		t.Helper()
		if r := in.callWith("PUT", updatePath, nil, map[string]any{"reference": ref, "status": status}); r.Status != 200 {
			t.Fatalf("status %s: %d %s", status, r.Status, r.Raw)
		}
	}
	setStatus("SUSPENDED")
	expect("a suspended VC", vcBare, 4)
	expect("a suspended SD-JWT VC", sdFile, 4)
	setStatus("REVOKED")
	expect("a revoked VC", vcBare, 3)
	expect("a revoked SD-JWT VC", sdFile, 3)
}

// env0 is the VC of a credential answer.
func env0(t *testing.T, answer []byte) []byte {
	var env struct {
		Data struct{ Credential json.RawMessage }
	}
	if err := json.Unmarshal(answer, &env); err != nil {
		t.Fatal(err)
	}
	return env.Data.Credential
}

// changeDisclosure replaces, in the disclosure that holds from, from with to (re-encoded), as a holder
// lying about a claim would.
func changeDisclosure(t *testing.T, sd, from, to string) string {
	parts := strings.Split(sd, "~")
	for i, d := range parts[1:] {
		raw, err := base64URL.DecodeString(d)
		if err == nil && strings.Contains(string(raw), from) {
			parts[i+1] = base64URL.EncodeToString([]byte(strings.Replace(string(raw), from, to, 1)))
			return strings.Join(parts, "~")
		}
	}
	t.Fatalf("no disclosure holds %q", from)
	return ""
}

var base64URL = base64.RawURLEncoding
