package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"seald.dev/seald/jcs"
)

// chromiumPath is Debian's chromium package; a test tool's own browser download does not work here.
const chromiumPath = "/usr/bin/chromium"

// newBrowser starts headless Chromium for one test. Without it the test is skipped on a developer's
// machine, and fails in CI, where .ci/run installs it.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs %s for the browser tests (apt-get install -y chromium): %v", chromiumPath, err)
		}
		t.Skipf("%s not installed (apt-get install -y chromium)", chromiumPath)
	}
	profile, err := os.MkdirTemp("", "seald-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Chromium's helpers may still write for a moment after it exits.
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.UserDataDir(profile),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	if err := chromedp.Do(bctx); err != nil { // start the browser now, so a failure names it
		t.Fatalf("start %s: %v", chromiumPath, err)
	}
	return bctx
}

// artifactDir is where screenshots go: $SEALD_ARTIFACTS (CI keeps it) or a temporary directory.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SEALD_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	dir = filepath.Join(dir, "verification-page")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tab is one browser tab that records every JavaScript dialog and uncaught exception, so that a test can
// assert that an injected alert never fired and the page's own script did not fail.
type tab struct {
	t          *testing.T
	ctx        context.Context
	mu         sync.Mutex
	dialogs    []string
	exceptions []string
	scriptOff  bool // the page runs with JavaScript disabled
}

func newTab(t *testing.T, browser context.Context, scriptOff bool) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel() })
	tb := &tab{t: t, ctx: ctx, scriptOff: scriptOff}
	opened := make(chan struct{}, 8)
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			tb.mu.Lock()
			tb.dialogs = append(tb.dialogs, string(e.Type)+": "+e.Message)
			tb.mu.Unlock()
			select {
			case opened <- struct{}{}:
			default:
			}
		case *runtime.EventExceptionThrown:
			tb.mu.Lock()
			tb.exceptions = append(tb.exceptions, fmt.Sprintf("%s at %s:%d", e.ExceptionDetails.Text, e.ExceptionDetails.URL, e.ExceptionDetails.LineNumber))
			tb.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	// A dialog stops the page until it is answered; dismiss it from another goroutine (never from Listen).
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-opened:
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}
		}
	}()
	if scriptOff {
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

func (tb *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, steps...); err != nil {
		tb.t.Fatal(err)
	}
}

// text is an element's rendered text (innerText: what a reader sees, CSS capitalization included), read in
// one evaluation in the page, once the document is parsed and the element exists. Finding the node and then reading it, two calls, failed
// when a navigation replaced the document between them (CI: "No node with given id found").
func (tb *tab) text(sel string) string {
	tb.t.Helper()
	const absent = "\x00absent"
	// Read only once the document is parsed: while it loads, an element can be there with part of its content
	// (CI: a history table read after its header row and before its rows).
	js := `(() => { const e = document.readyState === 'loading' ? null : document.querySelector(` + strconv.Quote(sel) +
		`); return e ? e.innerText : ` + strconv.Quote(absent) + ` })()`
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](js))
		if err == nil && s != absent {
			return strings.TrimSpace(s)
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("text of %s: %v (the element never appeared)", sel, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// open loads a page, saves full-page screenshots at a phone's 390 px and a desktop's 1280 px, and checks
// that nothing overflows the phone's width.
func (tb *tab) open(url, shots, name string) {
	tb.t.Helper()
	tb.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait),
		chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("footer")))
	tb.screenshot(shots, name+"-390.png")
	tb.accessible(name + " at 390 px")
	if wide, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > 390`)); err == nil && wide {
		tb.t.Errorf("%s: the page is wider than a 390 px phone", name)
	}
	tb.do(chromedp.EmulateViewport(1280, 900))
	tb.screenshot(shots, name+"-1280.png")
	tb.accessible(name + " at 1280 px")
	tb.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait))
}

// axeSource is axe-core's script, from tools/axe (pinned by its package-lock.json; scripts/test.sh runs
// npm ci there).
var axeSource = sync.OnceValues(func() ([]byte, error) {
	return os.ReadFile("../tools/axe/node_modules/axe-core/axe.min.js")
})

// accessible runs axe-core on the page as it is now and fails on any serious or critical violation.
func (tb *tab) accessible(name string) {
	tb.t.Helper()
	src, err := axeSource()
	if err != nil {
		tb.t.Fatalf("axe-core: %v (run npm ci --no-audit --no-fund in tools/axe)", err)
	}
	if tb.scriptOff {
		// axe-core is a script: let it run on the page as loaded without JavaScript, then turn scripts off
		// again. The page's own script was not run at load, so what axe-core sees is the page without it.
		setScripts := func(off bool) {
			if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off}); err != nil {
				tb.t.Fatal(err)
			}
		}
		setScripts(false)
		defer setScripts(true)
	}
	if _, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`typeof axe === 'undefined' ? (0, eval)(`+
		strconv.Quote(string(src))+`) === undefined || true : true`)); err != nil {
		tb.t.Fatalf("inject axe-core: %v", err)
	}
	const run = `axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations
		.filter(v => v.impact === 'serious' || v.impact === 'critical')
		.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))}))))`
	out, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](run, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("axe-core on %s: %v", name, err)
	}
	if out != "[]" {
		tb.t.Errorf("axe-core: serious or critical accessibility violations on %s: %s", name, out)
	}
}

func (tb *tab) screenshot(dir, name string) {
	tb.t.Helper()
	png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
}

func (tb *tab) quiet() {
	tb.t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.dialogs) > 0 {
		tb.t.Errorf("dialogs opened: %q", tb.dialogs)
	}
	if len(tb.exceptions) > 0 {
		tb.t.Errorf("uncaught exceptions: %q", tb.exceptions)
	}
}

// check pastes data into the check box, presses the button and returns the answer it shows.
func (tb *tab) check(data string) string {
	tb.t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`document.getElementById('check-result').textContent = ''; true`)); err != nil {
		tb.t.Fatal(err)
	}
	tb.do(chromedp.SetValue(chromedp.CSS("#check-data"), data), chromedp.Click(chromedp.CSS("#check-button")))
	return tb.result()
}

func (tb *tab) result() string {
	tb.t.Helper()
	s, err := chromedp.Run(tb.ctx, chromedp.Poll[string](`document.getElementById('check-result').textContent`))
	if err != nil {
		tb.t.Fatalf("check result: %v", err)
	}
	return s
}

type owner struct{ sub, api string }

func (in *instance) sealAs(o owner, data string) (ref, hash string) {
	in.t.Helper()
	r := in.call("POST", "/svc-data/data/authentication/ipfs/sm-polygon/email", o.sub, o.api, "application/json",
		`{"data":`+data+`,"to":"reader@example.com"}`)
	if r.Status != 201 {
		in.t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	return str(r.Body, "data.reference"), str(r.Body, "data.hash")
}

// waitOwned waits for a record of any tenant to reach a state (the status operation is for its owner only).
func (in *instance) waitOwned(o owner, ref, want string) {
	in.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	state := ""
	for time.Now().Before(deadline) {
		r := in.call("GET", "/authentication-status/get/status?reference="+ref, o.sub, o.api, "", nil)
		if state = str(r.Body, "data.state"); state == want || state == "FAILED" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if state != want {
		in.t.Fatalf("%s: state %s, want %s\n%s", ref, state, want, in.logText())
	}
}

const hostileName = `<script>alert(1)</script>`

// TestVerificationPageInBrowser opens the public page of an ACTIVE, a REVOKED, a PRIVATE, an OVI-named and an
// unknown record of a real `seald serve` in headless Chromium, runs the check box, and checks that a
// business named like a script tag stays text.
func TestVerificationPageInBrowser(t *testing.T) {
	t.Parallel() // it starts its own serve (and chain, browser) and mostly waits on them
	browser := newBrowser(t)
	shots := artifactDir(t)
	dir := t.TempDir()
	in := startServe(t, dir, nil, "--explorer-url", "https://amoy.polygonscan.com")
	acme := tenant(t, dir, "--business", hostileName, "--project", "Invoices <b>2026</b>", "--website", "https://acme.example")
	hidden := tenant(t, dir, "--business", "Hidden Owner Ltd", "--project", "Payroll", "--privacy", "PRIVATE")
	ao, ho := owner{acme["subscription_key"], acme["api_key"]}, owner{hidden["subscription_key"], hidden["api_key"]}

	data := `{"invoice":"INV-7","amount":12.50,"lines":["a","b"],"customer":{"name":"Zoë","id":7}}`
	activeRef, activeHash := in.sealAs(ao, data)
	revokedRef, _ := in.sealAs(ao, `{"invoice":"INV-8"}`)
	suspendedRef, _ := in.sealAs(ao, `{"invoice":"INV-9"}`)
	privateRef, privateHash := in.sealAs(ho, `{"salary":5000}`)
	for _, r := range []struct {
		o   owner
		ref string
	}{{ao, activeRef}, {ao, revokedRef}, {ao, suspendedRef}, {ho, privateRef}} {
		in.waitOwned(r.o, r.ref, "COMPLETED")
	}
	for ref, status := range map[string]string{revokedRef: "REVOKED", suspendedRef: "SUSPENDED"} {
		if r := in.call("PUT", "/authentication-status/update/status", ao.sub, ao.api, "application/json",
			map[string]string{"reference": ref, "status": status}); r.Status != 200 {
			t.Fatalf("%s: %d %s", status, r.Status, r.Raw)
		}
	}

	t.Run("active", func(t *testing.T) {
		tb := newTab(t, browser, false)
		tb.open(in.URL+"/v/"+activeRef, shots, "active")
		// The embedded chain is a development chain: no "Genuine", only what was checked and why it proves
		// nothing to others; the names are marked as the business's own words.
		if got := tb.text("#verdict-title"); got != "Development record: checked here only, not proven" {
			t.Errorf("verdict %q", got)
		}
		if got := tb.text("#proves"); !strings.HasPrefix(got, "What was checked") || !strings.Contains(got, "it proves nothing to anyone else") {
			t.Errorf("what was checked: %q", got)
		}
		if got := tb.text("#self-declared"); !strings.Contains(got, "self-declared") {
			t.Errorf("self-declared note: %q", got)
		}
		if got := tb.text("footer"); !strings.Contains(got, "development chain of its own") || strings.Contains(got, "links on this page") {
			t.Errorf("footer: %q", got)
		}
		if got := tb.text(".business"); got != hostileName {
			t.Errorf("business name shown as %q, want the literal text", got)
		}
		if got := tb.text("#record-hash"); got != activeHash {
			t.Errorf("hash %q, want %q", got, activeHash)
		}
		href, err := chromedp.Run(tb.ctx, chromedp.AttributeValue(chromedp.CSS("dd a[href*='/token/']"), "href"))
		if err != nil || !strings.HasPrefix(href.Value, "https://amoy.polygonscan.com/token/0x") || !strings.Contains(href.Value, "?a=") {
			t.Errorf("token explorer link %q %v", href.Value, err)
		}
		n, err := chromedp.Run(tb.ctx, chromedp.Evaluate[int](`document.querySelectorAll('script').length`))
		if err != nil || n != 3 {
			t.Errorf("%d script elements (%v), want only the page's own three (data check, Keccak, proof check)", n, err)
		}

		// The same data, keys reordered, spaced and 12.50 spelled 12.5: a match.
		same := `{ "customer": {"id": 7, "name": "Zo\u00eb"}, "lines": ["a","b"], "amount": 12.5, "invoice": "INV-7" }`
		if got := tb.check(same); !strings.HasPrefix(got, "Match:") {
			t.Errorf("matching data: %q", got)
		}
		tb.screenshot(shots, "active-check-match-390.png")
		if got := tb.check(strings.Replace(data, "12.50", "12.51", 1)); !strings.HasPrefix(got, "No match:") {
			t.Errorf("changed data: %q", got)
		}
		tb.screenshot(shots, "active-check-nomatch-390.png")
		if got := tb.check(`{"a":1,"a":2}`); !strings.HasPrefix(got, "Cannot check:") || !strings.Contains(got, "twice") {
			t.Errorf("duplicate names: %q", got)
		}
		if got := tb.check(`not json`); !strings.HasPrefix(got, "Cannot check:") {
			t.Errorf("not JSON: %q", got)
		}
		// A file chosen in the file input is checked the same way.
		file := filepath.Join(t.TempDir(), "data.json")
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`document.getElementById('check-data').value = ''; document.getElementById('check-result').textContent = ''; true`)); err != nil {
			t.Fatal(err)
		}
		tb.do(chromedp.SetUploadFiles(chromedp.CSS("#check-file"), []string{file}))
		if got := tb.result(); !strings.HasPrefix(got, "Match:") {
			t.Errorf("file: %q", got)
		}
		tb.quiet()
	})

	t.Run("revoked", func(t *testing.T) {
		tb := newTab(t, browser, false)
		tb.open(in.URL+"/v/"+revokedRef, shots, "revoked")
		if got := tb.text("#verdict-title"); got != "Revoked: this record is no longer valid" {
			t.Errorf("verdict %q", got)
		}
		if got := tb.text(".status-word"); got != "Status: REVOKED" {
			t.Errorf("status %q", got)
		}
		tb.quiet()
	})

	t.Run("suspended", func(t *testing.T) {
		tb := newTab(t, browser, false)
		tb.open(in.URL+"/v/"+suspendedRef, shots, "suspended")
		if got := tb.text("#verdict-title"); got != "Suspended: do not rely on this record for now" {
			t.Errorf("verdict %q", got)
		}
		if got := tb.text(".status-word"); got != "Status: SUSPENDED" {
			t.Errorf("status %q", got)
		}
		tb.quiet()
	})

	t.Run("private", func(t *testing.T) {
		tb := newTab(t, browser, false)
		tb.open(in.URL+"/v/"+privateRef, shots, "private")
		if got := tb.text(".kicker"); got != "PRIVATE SEALED RECORD" {
			t.Errorf("kicker %q", got)
		}
		if got := tb.text(".status-word"); got != "Status: ACTIVE" {
			t.Errorf("status %q", got)
		}
		// On the development chain a PRIVATE record gets no "Genuine" either (issue 32).
		if got := tb.text("#verdict-title"); got != "Development record: checked here only, not proven" {
			t.Errorf("PRIVATE record on the development chain: verdict %q", got)
		}
		body := tb.text("body")
		for _, leak := range []string{privateHash, "Hidden Owner", "Payroll", hidden["business_id"]} {
			if strings.Contains(body, leak) {
				t.Errorf("PRIVATE page shows %q", leak)
			}
		}
		if n, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[int](`document.querySelectorAll('#check, [data-hash]').length`)); n != 0 {
			t.Error("PRIVATE page has a check box")
		}
		tb.quiet()
	})

	t.Run("unknown", func(t *testing.T) {
		tb := newTab(t, browser, false)
		resp, err := chromedp.Run(tb.ctx, chromedp.NavigateResponse(in.URL+"/v/D-00000000-0000-4000-8000-000000000000"))
		if err != nil || resp.Status != 404 {
			t.Fatalf("unknown reference: %v %v", resp, err)
		}
		tb.open(in.URL+"/v/D-00000000-0000-4000-8000-000000000000", shots, "unknown")
		if got := tb.text("#verdict-title"); got != "No sealed record found" {
			t.Errorf("verdict %q", got)
		}
		tb.open(in.URL+"/v/not-a-reference", shots, "malformed")
		if got := tb.text("#verdict-title"); got != "No sealed record found" {
			t.Errorf("malformed: %q", got)
		}
		// No check mark anywhere (the brand's icon was one), and a footer that speaks of no links.
		if n, err := chromedp.Run(tb.ctx, chromedp.Evaluate[int](`document.querySelectorAll('img').length`)); err != nil || n != 0 {
			t.Errorf("not-found page shows %d images (%v)", n, err)
		}
		if got := tb.text("body"); strings.Contains(got, "✓") {
			t.Error("not-found page shows a check mark")
		}
		if got := tb.text("footer"); strings.Contains(got, "links on this page") || !strings.Contains(got, "holds no record under this link") {
			t.Errorf("not-found footer: %q", got)
		}
		tb.quiet()
	})

	t.Run("ovi", func(t *testing.T) {
		g := in.post("/svc-file/api/v1/ovi/generator", map[string]any{"data": map[string]any{"doc": "contract"}})
		ovi := str(g.Body, "data.encrypted_ovi")
		if g.Status != 201 || ovi == "" {
			t.Fatalf("generator: %d %s", g.Status, g.Raw)
		}
		if qr := str(g.Body, "data.qr_code"); !strings.HasSuffix(qr, "/qr.svg") {
			t.Errorf("qr_code %q", qr)
		} else if resp, err := http.Get(qr); err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" {
			t.Errorf("qr_code %s: %v %v", qr, resp, err)
		} else {
			resp.Body.Close()
		}
		if r := in.get("/verification/api/v1/verify/ovi?ovi=" + ovi); r.Status != 200 || str(r.Body, "data.details.reference") != str(g.Body, "data.reference") {
			t.Errorf("verify ovi: %d %s", r.Status, r.Raw)
		}
		flipped := []byte(ovi)
		flipped[40] = map[bool]byte{true: 'B', false: 'A'}[flipped[40] == 'A']
		for _, bad := range []string{string(flipped), ovi[:len(ovi)-5], "AQ" + ovi[2:len(ovi)-2]} {
			if r := in.get("/verification/api/v1/verify/ovi?ovi=" + bad); r.Status != 400 {
				t.Errorf("tampered ovi %q: %d %s", bad, r.Status, r.Raw)
			}
		}
		tb := newTab(t, browser, false)
		tb.open(in.URL+"/v/"+ovi, shots, "ovi")
		if got := tb.text("#verdict-title"); got != "Development record: checked here only, not proven" {
			t.Errorf("verdict %q", got)
		}
		tb.quiet()
	})

	t.Run("erased", func(t *testing.T) {
		ref, _ := in.sealAs(ao, `{"invoice":"INV-10"}`)
		in.waitOwned(ao, ref, "COMPLETED")
		if r := in.call("POST", "/authentication/erase", ao.sub, ao.api, "application/json",
			map[string]string{"reference": ref, "reason": "page test"}); r.Status != 200 {
			t.Fatalf("erase: %d %s", r.Status, r.Raw)
		}
		tb := newTab(t, browser, false)
		tb.open(in.URL+"/v/"+ref, shots, "erased")
		if got := tb.text("#erased"); !strings.HasPrefix(got, "The data was erased") {
			t.Errorf("erased notice %q", got)
		}
		body := tb.text("body")
		if strings.Contains(body, "only its owner can read it") {
			t.Error("an erased record's page still offers its encrypted copy")
		}
		if n, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[int](`document.querySelectorAll('a[href*="/ipfs/"]').length`)); n != 0 {
			t.Error("an erased record's page links its CID, which answers 410")
		}
		tb.quiet()
	})

	t.Run("javascript off", func(t *testing.T) {
		tb := newTab(t, browser, true)
		tb.open(in.URL+"/v/"+activeRef, shots, "active-nojs")
		if got := tb.text("#verdict-title"); got != "Development record: checked here only, not proven" {
			t.Errorf("verdict without JavaScript %q", got)
		}
	})

	t.Run("canonical form and hash match the server's", func(t *testing.T) {
		tb := newTab(t, browser, false)
		tb.do(chromedp.Navigate(in.URL + "/v/" + activeRef))
		jsAgreesWithGo(t, tb, append(rfc8785Inputs(), numberInputs()...))
		tb.quiet()
	})
	t.Logf("screenshots in %s", shots)
}

// jsResult is what the page's script makes of one input.
type jsResult struct {
	Canonical string `json:"c"`
	Hash      string `json:"h"`
	Err       string `json:"err"`
}

// jsAgreesWithGo runs the page's canonicalize and SHA-256 on each input and compares with package jcs as
// seal uses it (RFC 8785 over I-JSON): the same canonical bytes and hash, or an error on both sides.
func jsAgreesWithGo(t *testing.T, tb *tab, inputs []string) {
	t.Helper()
	arg, _ := json.Marshal(inputs)
	expr := fmt.Sprintf(`(async (ins) => {
		const out = [];
		for (const t of ins) {
			try {
				const c = sealdCheck.canonicalize(t);
				out.push({c: c, h: await sealdCheck.sha256Hex(c), err: ''});
			} catch (e) { out.push({c: '', h: '', err: String(e.message)}); }
		}
		return out;
	})(%s)`, arg)
	got, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]jsResult](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(inputs) {
		t.Fatalf("%d results for %d inputs", len(got), len(inputs))
	}
	agreed := 0
	for i, in := range inputs {
		canonical, err := jcs.CanonicalizeIJSON([]byte(in), "data")
		sum := sha256.Sum256(canonical)
		switch {
		case err != nil && got[i].Err == "":
			t.Errorf("%.60q: Go refuses (%v), the page gives %q", in, err, got[i].Canonical)
		case err == nil && got[i].Err != "":
			t.Errorf("%.60q: the page refuses (%s), Go gives %s", in, got[i].Err, canonical)
		case err == nil && (got[i].Canonical != string(canonical) || got[i].Hash != hex.EncodeToString(sum[:])):
			t.Errorf("%.60q: page %q %s, Go %q %x", in, got[i].Canonical, got[i].Hash, canonical, sum)
		default:
			agreed++
		}
	}
	if agreed < 100 {
		t.Errorf("only %d inputs compared", agreed)
	}
}

// rfc8785Inputs are the examples of RFC 8785 (section 3.2.2's sample, 3.2.3's sorting example, Appendix B's
// numbers in several spellings) and the cases package jcs tests, valid and refused.
func rfc8785Inputs() []string {
	in := []string{
		"{\n  \"numbers\": [333333333.33333329, 1E30, 4.50,\n              2e-3, 0.000000000000000000000000001],\n" +
			"  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n  \"literals\": [null, true, false]\n}",
		`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",` +
			`"\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
	}
	for _, bits := range []string{"0000000000000000", "8000000000000000", "0000000000000001", "8000000000000001",
		"7fefffffffffffff", "ffefffffffffffff", "4340000000000000", "c340000000000000", "4430000000000000",
		"44b52d02c7e14af5", "44b52d02c7e14af6", "44b52d02c7e14af7", "444b1ae4d6e2ef4e", "444b1ae4d6e2ef4f",
		"444b1ae4d6e2ef50", "3eb0c6f7a0b5ed8c", "3eb0c6f7a0b5ed8d", "41b3de4355555553", "41b3de4355555554",
		"41b3de4355555555", "41b3de4355555556", "41b3de4355555557", "becbf647612f3696", "43143ff3c1cb0959"} {
		b, _ := strconv.ParseUint(bits, 16, 64)
		f := math.Float64frombits(b)
		in = append(in, strconv.FormatFloat(f, 'g', -1, 64), strconv.FormatFloat(f, 'e', 16, 64),
			strconv.FormatFloat(f, 'E', 25, 64), "["+strconv.FormatFloat(f, 'f', -1, 64)+"]")
	}
	in = append(in,
		// numbers
		"1.0", "1e21", "1E+21", "0.000001", "1e-6", "1e-7", "-0", "-0.0", "0e10", "295147905179352830000",
		"9007199254740993", "5e-324", "4.9e-324", "2e-324", "1e-400", "1.7976931348623158e308", "4.50", "2e-3",
		"12e20", "999999999999999999999", "12345678901234567", "123456789012345678901234567890", "0.1",
		"0.30000000000000004", "-123.456e-3", "7.0E+2", "1"+strings.Repeat("0", 400)+"e-400", "1e0000000000000000000000001",
		// strings
		`"\u0000"`, `"\u001F"`, `"\u007f"`, `"\/"`, `"\u2028\u2029"`, `"\uD83D\uDE00"`, `"\b\f\n\r\t"`,
		`"\u0008\u000C\u000a\u000D\u0009"`, `"\u0022\u005C"`, `"é€😀"`, `"\uFFFF"`, `"\udbff\udfff"`, `""`,
		// structure
		" \t\r\n[ 1 , { } , [ ] , { \"b\" : null , \"a\" : true } ] \n",
		`{"b":{"d":[{"z":1,"y":2}],"c":3},"a":[3,2,1]}`, `{"aa":1,"a":2,"":3,"ab":4,"b":5}`,
		`{"\uffff":1,"\ud800\udc00":2,"\ud7ff":3,"\ue000":4}`, `{"a\n":1,"a\u0000":2,"a\"":3}`,
		`{"__proto__":{"x":1},"constructor":2,"10":3,"9":4,"-1":5}`,
		strings.Repeat("[", 128)+strings.Repeat("]", 128),
		// refused by both
		`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `[{"x":{"k":1,"k":1}}]`, `"\ud800"`, `"\udc00x"`, `{"\udfff":1}`,
		`1e400`, `-1e400`, `[1e309]`, `{`, `{"a":1,}`, `[01]`, `"\x"`, `{} {}`, ``,
		strings.Repeat("[", 129)+strings.Repeat("]", 129),
	)
	return in
}

// TestPageClientGoneIsNotAFault: readers who close a /v/ page while it loads, many at once, are counted as
// the API's hang-ups are: no 5xx in /metrics for the page's route and nothing logged at ERROR.
func TestPageClientGoneIsNotAFault(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil)
	r := in.post(authPath, map[string]any{"data": map[string]any{"page": "gone"}, "to": "a@example.com"})
	ref := str(r.Body, "data.reference")
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	var wg sync.WaitGroup
	for i := range 300 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+i%10)*time.Millisecond)
			defer cancel()
			path := []string{"/v/" + ref, "/v/" + ref + "/qr.svg", "/v/" + ref + "/qr.png"}[i%3]
			req, _ := http.NewRequestWithContext(ctx, "GET", in.URL+path, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond) // the server finishes what the readers left
	for _, line := range strings.Split(in.logText(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("a reader who went away is logged as a fault: %s", line)
		}
	}
	for _, fam := range scrape(t, in.URL)["http_requests_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range fam.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if strings.HasPrefix(labels["route"], "GET /v/") && strings.HasPrefix(labels["status"], "5") {
			t.Errorf("%v: %v page requests counted as server errors", labels, fam.GetCounter().GetValue())
		}
		if strings.HasPrefix(labels["route"], "GET /v/") {
			t.Logf("%v: %v", labels, fam.GetCounter().GetValue())
		}
	}
}
