package e2e

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"seald.dev/seald/evm/gethtest"
	"seald.dev/seald/proof"
)

// TestDisclosureOnGeth is issue 35's done-when through the binary on geth: a diploma is sealed; the owner's
// disclosure package gives a presentation of name and degree (seald disclose) that `seald proof verify`
// accepts (exit 0) and that holds no byte of the grades or birth date, nor their salts; a changed degree
// exits 1; the record's bundle still verifies; after an erasure the package is 410 while the presentation
// made before still verifies; after a revocation the presentation exits 3. In Chromium, the record page's proof
// check and the standalone checker (file://) pass the presentation at every step and list its members, and
// fail the altered one at its disclosures.
func TestDisclosureOnGeth(t *testing.T) {
	t.Parallel() // it starts its own serve and chain, and mostly waits on them
	bin := buildBinary(t, "")
	g := gethtest.Start(t, gethtest.Options{CORS: true}) // CORS: the browser checks ask it too
	p := startProcess(t, bin, t.TempDir(), nil, "--chain", g.URL, "--chain-key-file", gethKeyFile(t, g))
	in := p.in
	in.httpClient()
	pins := []string{"SEALD_TRUST_PIN_DIR=" + t.TempDir()}

	diploma := func(name string) map[string]any {
		return map[string]any{"name": name, "degree": "MSc Mathematics",
			"grades": map[string]any{"analysis": "A+ with distinction", "logic": 17.25}, "birthdate": "1815-12-10"}
	}
	hidden := []string{"A+ with distinction", "17.25", "1815-12-10", "analysis", "logic"}
	var refs []string
	for _, name := range []string{"Ada Lovelace", "Mary Somerville"} {
		r := in.post(authPath, map[string]any{"data": diploma(name), "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		refs = append(refs, str(r.Body, "data.reference"))
	}
	for _, ref := range refs {
		in.waitState(ref, "COMPLETED", 90*time.Second)
	}
	_, trustDoc := fetch(t, in.URL+trustRootSuffix)
	trust := writeTemp(t, "trust.json", trustDoc)
	verify := func(file string) (string, int) {
		return runBinary(t, bin, pins, "proof", "verify", file, "--rpc", g.URL, "--trust", trust)
	}
	var pkgFile string
	present := func(ref string) (pkg *proof.DisclosurePackage, file string) {
		r := in.get("/verification/api/v1/disclosure?reference=" + ref)
		if r.Status != 200 {
			t.Fatalf("disclosure package of %s: %d %s", ref, r.Status, r.Raw)
		}
		pkg, err := proof.ParseDisclosurePackage(r.Raw)
		if err != nil {
			t.Fatal(err)
		}
		pkgFile = writeTemp(t, ref+".package.json", r.Raw)
		file = filepath.Join(t.TempDir(), ref+".presentation.json")
		if out, code := runBinary(t, bin, nil, "disclose", pkgFile, "--members", "name,degree", "-o", file); code != 0 {
			t.Fatalf("seald disclose: exit %d\n%s", code, out)
		}
		return pkg, file
	}

	pkgA, presA := present(refs[0])
	pkgFileA := pkgFile
	_, presB := present(refs[1])
	b, err := os.ReadFile(presA)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the presentation hides the other members", func(t *testing.T) {
		var pr proof.Presentation
		if err := json.Unmarshal(b, &pr); err != nil {
			t.Fatal(err)
		}
		all := string(b)
		for _, d := range pr.Disclosures {
			raw, _ := base64.RawURLEncoding.DecodeString(d)
			all += string(raw)
		}
		if len(pr.Disclosures) != 2 || !strings.Contains(all, "Ada Lovelace") || strings.Contains(all, refs[0]) {
			t.Errorf("presentation: %d disclosures, or no name, or the reference\n%s", len(pr.Disclosures), all)
		}
		for _, h := range hidden {
			if strings.Contains(all, h) {
				t.Errorf("the presentation holds %q", h)
			}
		}
		for _, d := range pkgA.Disclosures {
			if strings.HasPrefix(d.Path, "/grades") || d.Path == "/birthdate" {
				raw, _ := base64.RawURLEncoding.DecodeString(d.Disclosure)
				var arr []any
				if json.Unmarshal(raw, &arr) != nil || len(arr) < 2 {
					t.Fatalf("disclosure of %s: %s", d.Path, raw)
				}
				if salt, _ := arr[0].(string); len(salt) != 22 || strings.Contains(all, salt) {
					t.Errorf("the salt %q of %s is in the presentation, or not 128 bits", salt, d.Path)
				}
			}
		}
	})
	t.Run("it verifies on chain", func(t *testing.T) {
		out, code := verify(presA)
		if code != 0 || !strings.Contains(out, `"degree":"MSc Mathematics"`) || !strings.Contains(out, `"name":"Ada Lovelace"`) || !strings.Contains(out, "token "+pkgA.TokenID) {
			t.Errorf("proof verify of the presentation: exit %d\n%s", code, out)
		}
	})
	t.Run("an independent SD-JWT library verifies the SD-JWT form", func(t *testing.T) {
		code, out := sdjwtIndependent(t, presA, "--trust", trust, "--require", "name,degree")
		if code != 0 || !strings.Contains(out, `"name":"Ada Lovelace"`) || !strings.Contains(out, `"degree":"MSc Mathematics"`) {
			t.Errorf("@sd-jwt/core on the presentation: exit %d %s", code, out)
		}
		for _, h := range hidden {
			if strings.Contains(out, h) {
				t.Errorf("@sd-jwt/core reads hidden %q: %s", h, out)
			}
		}
		if out, _ := verify(presA); !strings.Contains(out, "SD-JWT form is signed by the issuer's key") {
			t.Errorf("seald proof verify did not check the SD-JWT form:\n%s", out)
		}
		var pr proof.Presentation
		_ = json.Unmarshal(b, &pr)
		jwt, _, _ := strings.Cut(pr.SDJWT, "~")
		var altered []string
		for _, d := range pr.Disclosures {
			raw, _ := base64.RawURLEncoding.DecodeString(d)
			altered = append(altered, base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), "MSc", "PhD", 1))))
		}
		bad := writeTemp(t, "altered.sd-jwt", []byte(jwt+"~"+strings.Join(altered, "~")+"~"))
		if code, out := sdjwtIndependent(t, bad, "--trust", trust, "--require", "name,degree"); code != 1 {
			t.Errorf("@sd-jwt/core on a changed degree: exit %d %s", code, out)
		}
	})
	var pr proof.Presentation
	_ = json.Unmarshal(b, &pr)
	for i, d := range pr.Disclosures {
		raw, _ := base64.RawURLEncoding.DecodeString(d)
		pr.Disclosures[i] = base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), "MSc", "PhD", 1)))
	}
	pr.SDJWT = "" // the JSON form alone: its disclosures must be refused by themselves
	altered, _ := json.Marshal(pr)
	alteredFile := writeTemp(t, "altered.json", altered)
	// A presentation of someone's own making: a hostile value, with its digest in its own payload.
	const hostileName = `<img src=x onerror=alert(1)><b>Ada</b>`
	hostileDisc := base64.RawURLEncoding.EncodeToString([]byte(`["c2FsdHNhbHRzYWx0c2FsdA","name",` + strconv.Quote(hostileName) + `]`))
	digest := sha256.Sum256([]byte(hostileDisc))
	pr.SDPayload = json.RawMessage(`{"_sd":["` + base64.RawURLEncoding.EncodeToString(digest[:]) + `"],"_sd_alg":"sha-256"}`)
	pr.Disclosures = []string{hostileDisc}
	hostile, _ := json.Marshal(pr)
	hostileFile := writeTemp(t, "hostile.json", hostile)
	t.Run("a changed degree is refused", func(t *testing.T) {
		if out, code := verify(alteredFile); code != exitInvalid || !strings.Contains(out, "NOT valid") {
			t.Errorf("a changed degree: exit %d\n%s", code, out)
		}
	})
	t.Run("in the browser", func(t *testing.T) {
		browser := newBrowser(t)
		shots := artifactDir(t)
		_, html := fetch(t, in.URL+"/assets/seald-checker.html")
		checker := writeTemp(t, "seald-checker.html", html)
		for _, c := range []struct {
			name, file string
			fail       []string
		}{{"genuine", presA, nil}, {"altered", alteredFile, []string{"disclosures", "signature"}}, {"hostile", hostileFile, []string{"signature", "path"}}} {
			for _, where := range []string{"page", "standalone"} {
				if c.name == "hostile" && where == "page" {
					continue // the same script: once is enough
				}
				t.Run(c.name+" on the "+where, func(t *testing.T) {
					tb := newTab(t, browser, false)
					name := "presentation-" + c.name + "-" + where
					if where == "page" {
						tb.open(in.URL+"/v/"+refs[0], shots, name)
						tb.do(chromedp.SetUploadFiles(chromedp.CSS("#proof-file"), []string{c.file}))
					} else {
						tb.open("file://"+checker, shots, name)
						tb.do(chromedp.SetUploadFiles(chromedp.CSS("#proof-bundle-file"), []string{c.file}),
							chromedp.SetUploadFiles(chromedp.CSS("#proof-trust-file"), []string{trust}))
					}
					tb.do(chromedp.SetValue(chromedp.CSS("#proof-rpc"), g.URL))
					got := tb.runProofCheck()
					verdict := devValid
					if c.fail != nil {
						verdict = "Not valid"
					}
					if !strings.HasPrefix(got.Verdict, verdict) {
						t.Errorf("verdict %q, want %s…", got.Verdict, verdict)
					}
					for _, step := range []string{"presentation", "issuer", "disclosures", "commitment", "signature", "path", "chain", "root", "anchor", "revocation"} {
						if want := map[bool]string{true: "fail", false: "pass"}[slices.Contains(c.fail, step)]; got.Results[step] != want {
							t.Errorf("step %s: %s (%s), want %s", step, got.Results[step], got.Texts[step], want)
						}
					}
					shown, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`(b => b.hidden ? '' : b.innerText)(document.getElementById('proof-disclosed'))`))
					if err != nil {
						t.Fatal(err)
					}
					if c.fail == nil && (!strings.Contains(shown, "name: Ada Lovelace") || !strings.Contains(shown, "degree: MSc Mathematics")) {
						t.Errorf("disclosed members: %q", shown)
					}
					for _, h := range hidden {
						if strings.Contains(shown, h) {
							t.Errorf("the page shows hidden %q: %q", h, shown)
						}
					}
					if c.name == "hostile" {
						// Its disclosure matches its own payload, whose commitment is anchored nowhere: the path fails,
						// and the member is listed as the presentation says, as text.
						n, err := chromedp.Run(tb.ctx, chromedp.Evaluate[int](`document.querySelectorAll('#proof-disclosed img, #proof-disclosed b').length`))
						if err != nil || n != 0 || !strings.Contains(shown, "name: "+hostileName) {
							t.Errorf("hostile member: %d elements (%v), shown %q", n, err, shown)
						}
					}
					tb.shots(shots, name+"-checked")
					tb.quiet()
				})
			}
		}
		// Issue 41's review: a visitor's file of another record (here token B's) on record A's page is refused,
		// never shown "Valid" under A. Before, every step passed and the page said "Valid".
		t.Run("another record's presentation on the page", func(t *testing.T) {
			tb := newTab(t, browser, false)
			tb.open(in.URL+"/v/"+refs[0], shots, "presentation-other-record")
			tb.do(chromedp.SetUploadFiles(chromedp.CSS("#proof-file"), []string{presB}),
				chromedp.SetValue(chromedp.CSS("#proof-rpc"), g.URL))
			got := tb.runProofCheck()
			if strings.HasPrefix(got.Verdict, "Valid") || !strings.Contains(got.Verdict, "not this record's "+pkgA.TokenID) {
				t.Errorf("another record's presentation on this record's page: %q", got.Verdict)
			}
			tb.quiet()
		})
		t.Run("a presentation made in the browser", func(t *testing.T) {
			tb := newTab(t, browser, false)
			downloads := t.TempDir()
			if _, err := chromedp.Call(tb.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
				Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads}); err != nil {
				t.Fatal(err)
			}
			tb.open(in.URL+"/v/present", shots, "present")
			tb.do(chromedp.SetUploadFiles(chromedp.CSS("#present-package"), []string{pkgFileA}),
				chromedp.WaitVisible(chromedp.CSS(`#present-list input[value="/degree"]`)),
				chromedp.Click(chromedp.CSS(`#present-list input[value="/name"]`)),
				chromedp.Click(chromedp.CSS(`#present-list input[value="/degree"]`)))
			tb.shots(shots, "present-chosen")
			tb.do(chromedp.Click(chromedp.CSS("#present-button")))
			file := filepath.Join(downloads, "presentation.json")
			deadline := time.Now().Add(30 * time.Second)
			for {
				if st, err := os.Stat(file); err == nil && st.Size() > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no presentation.json downloaded; the page says %q", tb.text("#present-status"))
				}
				time.Sleep(100 * time.Millisecond)
			}
			made, _ := os.ReadFile(file)
			for _, h := range hidden {
				if strings.Contains(string(made), h) {
					t.Errorf("the presentation made in the browser holds %q", h)
				}
			}
			out, code := verify(file)
			if code != 0 || !strings.Contains(out, `"degree":"MSc Mathematics"`) || !strings.Contains(out, `"name":"Ada Lovelace"`) ||
				!strings.Contains(out, "SD-JWT form is signed") {
				t.Errorf("proof verify of the presentation made in the browser: exit %d\n%s", code, out)
			}
			tb.quiet()
		})
	})
	t.Run("a package is not a presentation", func(t *testing.T) {
		if out, code := verify(pkgFileA); code != exitInvalid || !strings.Contains(out, "is a disclosure package") {
			t.Errorf("proof verify of the package: exit %d\n%s", code, out)
		}
	})
	t.Run("the record's bundle still verifies", func(t *testing.T) {
		_, bundle := fetch(t, in.URL+"/v/"+refs[0]+"/proof.json")
		if out, code := verify(writeTemp(t, "bundle.json", bundle)); code != 0 {
			t.Errorf("bundle: exit %d\n%s", code, out)
		}
	})
	t.Run("after an erasure no package, the presentation still verifies", func(t *testing.T) {
		r := in.post("/authentication/erase", map[string]any{"reference": refs[1], "reason": "holder asked"})
		if r.Status != 200 {
			t.Fatalf("erase: %d %s", r.Status, r.Raw)
		}
		if r := in.get("/verification/api/v1/disclosure?reference=" + refs[1]); r.Status != 410 || r.Body["success"] != false {
			t.Errorf("package of an erased record: %d %s", r.Status, r.Raw)
		}
		if out, code := verify(presB); code != 0 {
			t.Errorf("the presentation made before the erasure: exit %d\n%s", code, out)
		}
	})
	t.Run("after a revocation, exit 3", func(t *testing.T) {
		r := in.callWith("PUT", "/authentication-status/update/status", nil, map[string]any{"reference": refs[0], "status": "REVOKED", "reason": "issued in error"})
		if r.Status != 200 {
			t.Fatalf("revoke: %d %s", r.Status, r.Raw)
		}
		deadline := time.Now().Add(time.Minute)
		for field(in.get(verifyBase+"reference?reference="+refs[0]).Body, "data.blockchain.revoked_on_chain") != true {
			if time.Now().After(deadline) {
				t.Fatalf("never revoked on chain\n%s", in.logText())
			}
			time.Sleep(100 * time.Millisecond)
		}
		if out, code := verify(presA); code != exitRevoked || !strings.Contains(out, "REVOKED") {
			t.Errorf("presentation of a revoked token: exit %d\n%s", code, out)
		}
	})
}

// sdjwtIndependent runs tools/verify-sdjwt, which checks the SD-JWT form with @sd-jwt/core (an SD-JWT library
// seald did not write) and Node's Ed25519, and returns its exit status and output. Its node_modules come from
// `npm ci` (scripts/test.sh).
func sdjwtIndependent(t *testing.T, args ...string) (int, string) {
	t.Helper()
	out, err := exec.Command("node", append([]string{"../tools/verify-sdjwt/verify.mjs"}, args...)...).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("verify-sdjwt: %v %s", err, out)
	}
	return 0, string(out)
}
