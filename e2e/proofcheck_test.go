package e2e

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"seald.dev/seald/evm/gethtest"
)

// proofCheck is what the in-browser proof check showed: its verdict and each step's result (pass, fail,
// skip, unchecked) and message.
type proofCheck struct {
	Verdict string            `json:"verdict"`
	Results map[string]string `json:"results"`
	Texts   map[string]string `json:"texts"`
}

// runProofCheck presses the proof check's button and waits for its verdict.
func (tb *tab) runProofCheck() proofCheck {
	tb.t.Helper()
	tb.do(chromedp.Click(chromedp.CSS("#proof-button")))
	got, err := chromedp.Run(tb.ctx, chromedp.Poll[proofCheck](`(() => {
		const v = document.getElementById('proof-verdict');
		if (!v.textContent || v.classList.contains('pending')) return null;
		const out = {verdict: v.textContent, results: {}, texts: {}};
		for (const li of document.querySelectorAll('#proof-steps li')) {
			out.results[li.dataset.step] = li.dataset.result;
			out.texts[li.dataset.step] = li.textContent;
		}
		return out;
	})()`, chromedp.WithPollingTimeout(60*time.Second)))
	if err != nil {
		tb.t.Fatalf("proof check: %v", err)
	}
	return got
}

// want checks that the steps named in fail failed, the data step has result data, and every other step passed.
// devValid begins the verdict of a proof whose every step passed on a development chain: the geth of these
// tests has chain id 1337, which is no public network, so the check never calls it "Valid" (one rule by
// chain id, on every surface).
const devValid = "Every step passed, on a development chain"

func (c proofCheck) want(t *testing.T, verdict, data string, fail ...string) {
	t.Helper()
	if !strings.HasPrefix(c.Verdict, verdict) {
		t.Errorf("verdict %q, want %s…", c.Verdict, verdict)
	}
	for _, step := range []string{"bundle", "data", "issuer", "signature", "path", "chain", "root", "anchor", "revocation"} {
		want := "pass"
		switch {
		case step == "data":
			want = data
		case slices.Contains(fail, step):
			want = "fail"
		}
		if c.Results[step] != want {
			t.Errorf("step %s: %s (%s), want %s", step, c.Results[step], c.Texts[step], want)
		}
	}
}

// interceptProof serves body to the page in place of every proof.json it fetches, as a tampering server
// would.
func (tb *tab) interceptProof(body []byte) {
	tb.t.Helper()
	if err := chromedp.Listen(tb.ctx, func(ev any) {
		if e, ok := ev.(*cdpfetch.EventRequestPaused); ok {
			go func() {
				_, _ = chromedp.Call(tb.ctx, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{RequestID: e.RequestID, ResponseCode: 200,
					ResponseHeaders: []*cdpfetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}}, Body: body})
			}()
		}
	}); err != nil {
		tb.t.Fatal(err)
	}
	if _, err := chromedp.Call(tb.ctx, cdpfetch.Enable, cdpfetch.EnableParams{Patterns: []*cdpfetch.RequestPattern{{URLPattern: "*/proof.json*"}}}); err != nil {
		tb.t.Fatal(err)
	}
}

// TestProofCheckInBrowser runs the verification page's in-browser proof check, and the standalone checker
// opened from file://, in headless Chromium against seald on geth: a genuine record passes every step (its
// data too); bundles whose Merkle path, root or signature was altered fail at that step; a record revoked on
// chain reads "revoked"; from file://, the standalone checker gives the same results, and honours a trust
// root that marks the key compromised or retired before the anchor. axe-core checks every state, and each is kept as screenshots at 390 and 1280 px.
func TestProofCheckInBrowser(t *testing.T) {
	t.Parallel() // it starts its own serve (and chain, browser) and mostly waits on them
	browser := newBrowser(t)
	shots := artifactDir(t)
	g := gethtest.Start(t, gethtest.Options{Period: 1, CORS: true})
	dir := t.TempDir()
	in := startServe(t, dir, nil, "--chain", g.URL, "--chain-key-file", gethKeyFile(t, g), "--batch-wait", "300ms",
		"--public-rpc", "POLYGON="+g.URL)
	data := `{"invoice":"INV-31","amount":12.50,"lines":["a","b"]}`
	seal := func(data string) string {
		r := in.post(authPath, map[string]any{"data": json.RawMessage(data), "to": "a@example.com"})
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		return str(r.Body, "data.reference")
	}
	ref, revokedRef := seal(data), seal(`{"invoice":"INV-32"}`)
	in.waitState(ref, "COMPLETED", 90*time.Second)
	in.waitState(revokedRef, "COMPLETED", 90*time.Second)
	code, bundle := fetch(t, in.URL+"/v/"+ref+"/proof.json")
	if code != 200 {
		t.Fatalf("proof.json: %d %s", code, bundle)
	}
	code, trustDoc := fetch(t, in.URL+"/.well-known/seald-trust.json")
	if code != 200 {
		t.Fatalf("trust root: %d %s", code, trustDoc)
	}
	edit := func(f func(p map[string]any)) []byte {
		var p map[string]any
		_ = json.Unmarshal(bundle, &p)
		f(p)
		b, _ := json.Marshal(p)
		return b
	}
	other := "0x" + strings.Repeat("ab", 32)
	tampered := []struct {
		name string
		body []byte
		fail []string
	}{
		{"path", edit(func(p map[string]any) { p["merkle_path"] = []string{other} }), []string{"signature", "path", "root"}},
		{"root", edit(func(p map[string]any) { p["root"] = other }), []string{"signature", "path", "root", "anchor"}},
		{"signature", edit(func(p map[string]any) {
			sig, _ := base64.StdEncoding.DecodeString(p["signature"].(string))
			sig[10] ^= 1
			p["signature"] = base64.StdEncoding.EncodeToString(sig)
		}), []string{"signature"}},
	}

	t.Run("genuine", func(t *testing.T) {
		tb := newTab(t, browser, false)
		tb.open(in.URL+"/v/"+ref, shots, "proof-genuine")
		rpc, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.getElementById('proof-rpc').value`))
		if err != nil || rpc != g.URL {
			t.Errorf("the RPC field holds %q (%v), want the --public-rpc %s", rpc, err, g.URL)
		}
		if got := tb.text("#anchored-at"); !strings.Contains(got, "UTC") {
			t.Errorf("anchoring block's time: %q", got)
		}
		tb.do(chromedp.SetValue(chromedp.CSS("#check-data"), `{"lines":["a","b"],"amount":12.5,"invoice":"INV-31"}`))
		tb.runProofCheck().want(t, devValid, "pass")
		tb.shots(shots, "proof-genuine-checked")
		// With other data, only the data step fails; without data it is not checked.
		tb.do(chromedp.SetValue(chromedp.CSS("#check-data"), `{"invoice":"INV-99"}`))
		tb.runProofCheck().want(t, "Not valid", "fail")
		if _, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`document.getElementById('check-data').value = ''; true`)); err != nil {
			t.Fatal(err)
		}
		tb.runProofCheck().want(t, devValid, "skip")
		tb.quiet()
	})

	t.Run("keyboard", func(t *testing.T) {
		tb := newTab(t, browser, false)
		tb.do(chromedp.Navigate(in.URL+"/v/"+ref), chromedp.WaitReady(chromedp.CSS("footer")))
		// Tab from the RPC field reaches the button, and Enter in the field submits the form.
		tb.do(chromedp.Focus(chromedp.CSS("#proof-rpc")), chromedp.KeyEvent("\r"))
		got, err := chromedp.Run(tb.ctx, chromedp.Poll[string](`(() => { const v = document.getElementById('proof-verdict');
			return v.textContent && !v.classList.contains('pending') ? v.textContent : null; })()`, chromedp.WithPollingTimeout(60*time.Second)))
		if err != nil || !strings.HasPrefix(got, devValid) {
			t.Errorf("proof check from the keyboard: %q %v", got, err)
		}
		tb.do(chromedp.Focus(chromedp.CSS("#proof-rpc")), chromedp.KeyEvent("\t"))
		if id, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.activeElement.id`)); id != "proof-button" {
			t.Errorf("Tab from the RPC field reaches %q, not the button", id)
		}
	})

	for _, c := range tampered {
		t.Run("altered "+c.name, func(t *testing.T) {
			tb := newTab(t, browser, false)
			tb.interceptProof(c.body)
			tb.do(chromedp.Navigate(in.URL+"/v/"+ref), chromedp.WaitReady(chromedp.CSS("footer")))
			tb.runProofCheck().want(t, "Not valid", "skip", c.fail...)
			tb.shots(shots, "proof-altered-"+c.name)
			tb.quiet()
		})
	}

	if r := in.call("PUT", "/authentication-status/update/status", in.Sub, in.API, "application/json",
		map[string]string{"reference": revokedRef, "status": "REVOKED"}); r.Status != 200 {
		t.Fatalf("revoke: %d %s", r.Status, r.Raw)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		_, page := fetch(t, in.URL+"/v/"+revokedRef)
		if strings.Contains(string(page), "Recorded on the chain") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the revocation of %s is not on chain\n%s", revokedRef, in.logText())
		}
		time.Sleep(200 * time.Millisecond)
	}
	_, revokedBundle := fetch(t, in.URL+"/v/"+revokedRef+"/proof.json")

	t.Run("revoked", func(t *testing.T) {
		tb := newTab(t, browser, false)
		tb.open(in.URL+"/v/"+revokedRef, shots, "proof-revoked")
		c := tb.runProofCheck()
		c.want(t, "Revoked", "skip", "revocation")
		if !strings.Contains(c.Texts["revocation"], "revoked") {
			t.Errorf("revocation step: %q", c.Texts["revocation"])
		}
		tb.shots(shots, "proof-revoked-checked")
		tb.quiet()
	})

	t.Run("standalone file", func(t *testing.T) {
		code, html := fetch(t, in.URL+"/assets/seald-checker.html")
		if code != 200 || !strings.Contains(string(html), "nobleHashes") || strings.Contains(string(html), `src="/assets`) {
			t.Fatalf("seald-checker.html: %d, %d bytes", code, len(html))
		}
		files := t.TempDir()
		write := func(name string, b []byte) string {
			path := filepath.Join(files, name)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}
		checker, trust := write("seald-checker.html", html), write("seald-trust.json", trustDoc)
		// The issuer's key, as a trust root lists it after it was marked compromised, or retired before the anchor.
		keyAs := func(name, status, field string) string {
			var doc map[string]any
			_ = json.Unmarshal(trustDoc, &doc)
			k := doc["keys"].([]any)[0].(map[string]any)
			k["status"], k[field] = status, time.Now().Add(-24*time.Hour).UTC().Format(time.RFC3339)
			b, _ := json.Marshal(doc)
			return write(name, b)
		}
		compromised, retired := keyAs("compromised.json", "compromised", "compromised_at"), keyAs("retired.json", "retired", "retired_at")
		for _, c := range []struct {
			name, verdict, data string
			bundle              []byte
			trust               string
			fail                []string
		}{
			{"genuine", devValid, "pass", bundle, trust, nil},
			{"altered path", "Not valid", "skip", tampered[0].body, trust, tampered[0].fail},
			{"altered root", "Not valid", "skip", tampered[1].body, trust, tampered[1].fail},
			{"altered signature", "Not valid", "skip", tampered[2].body, trust, tampered[2].fail},
			{"revoked", "Revoked", "skip", revokedBundle, trust, []string{"revocation"}},
			{"compromised key", "Not valid", "skip", bundle, compromised, []string{"issuer"}},
			{"key retired before the anchor", "Not valid", "skip", bundle, retired, []string{"anchor"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				tb := newTab(t, browser, false)
				name := "standalone-" + strings.ReplaceAll(c.name, " ", "-")
				tb.open("file://"+checker, shots, name)
				tb.do(chromedp.SetUploadFiles(chromedp.CSS("#proof-bundle-file"), []string{write("p.proof.json", c.bundle)}),
					chromedp.SetUploadFiles(chromedp.CSS("#proof-trust-file"), []string{c.trust}),
					chromedp.SetValue(chromedp.CSS("#proof-rpc"), g.URL))
				if c.data == "pass" {
					tb.do(chromedp.SetValue(chromedp.CSS("#proof-data"), data))
				}
				tb.runProofCheck().want(t, c.verdict, c.data, c.fail...)
				tb.shots(shots, name+"-checked")
				tb.quiet()
			})
		}
	})
	t.Logf("screenshots in %s", shots)
}

// shots saves screenshots of the page as it is now at 390 and 1280 px, and runs axe-core on it at both.
func (tb *tab) shots(dir, name string) {
	tb.t.Helper()
	tb.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait))
	tb.screenshot(dir, name+"-390.png")
	tb.accessible(name + " at 390 px")
	tb.do(chromedp.EmulateViewport(1280, 900))
	tb.screenshot(dir, name+"-1280.png")
	tb.accessible(name + " at 1280 px")
	tb.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait))
}

// TestProofCheckDefaultsToEmbeddedRPC: on the embedded development chain, the page's proof check asks the
// chain's own JSON-RPC (--chain-rpc-addr) unless --public-rpc says otherwise; the standalone checker is a
// download.
func TestProofCheckDefaultsToEmbeddedRPC(t *testing.T) {
	t.Parallel()
	rpcAddr := freePort(t)
	in := startServe(t, t.TempDir(), nil, "--chain-rpc-addr", rpcAddr)
	r := in.post(authPath, map[string]any{"data": map[string]any{"deed": "plot 9"}, "to": "a@example.com"})
	ref := str(r.Body, "data.reference")
	in.waitState(ref, "COMPLETED", 60*time.Second)
	code, page := fetch(t, in.URL+"/v/"+ref)
	if code != 200 || !strings.Contains(string(page), `id="proof-rpc" name="rpc" type="url" value="http://`+rpcAddr+`"`) {
		t.Errorf("page %d: the proof check's node is not the embedded chain's http://%s", code, rpcAddr)
	}
	resp, err := http.Get(in.URL + "/assets/seald-checker.html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("seald-checker.html: %d %v", resp.StatusCode, resp.Header)
	}
}
