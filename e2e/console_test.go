package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// consoleShots is where the console's screenshots go: $SEALD_ARTIFACTS/console, or a temporary directory.
func consoleShots(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SEALD_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	dir = filepath.Join(dir, "console")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// look saves screenshots of the page as it is at a phone's 390 px and a desktop's 1280 px, runs axe-core at
// each, and checks that nothing overflows the phone's width.
func (tb *tab) look(shots, name string) {
	tb.t.Helper()
	tb.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulatePortrait))
	tb.screenshot(shots, name+"-390.png")
	tb.accessible(name + " at 390 px")
	if wide, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > 390`)); err == nil && wide {
		over, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right > 391 && !e.closest('.scroll')).slice(0, 5).map(e => e.tagName + '.' + e.className)`))
		tb.t.Errorf("%s: the page is wider than a 390 px phone: %q", name, over)
	}
	tb.do(chromedp.EmulateViewport(1280, 900))
	tb.screenshot(shots, name+"-1280.png")
	tb.accessible(name + " at 1280 px")
	tb.keyboard(name)
}

// keyboard checks that the keyboard alone reaches every visible link, button, field and summary of the page:
// pressing Tab twice round the page focuses each of them (a group of radio buttons is one stop, as Tab
// treats it). A stop is known by what it is (tag, then id, name, link or text), not by its node, because a
// page may replace its parts meanwhile (the sealed records' table refreshes itself every 2 s).
func (tb *tab) keyboard(name string) {
	tb.t.Helper()
	const key = `const key = e => e.tagName + '|' + (e.type === 'radio' ? 'radio:' + e.name : (e.id || e.name || e.getAttribute('href') || e.textContent.trim()));`
	stops, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`(() => { `+key+`
		const all = Array.from(document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary'))
			.filter(e => !e.disabled && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden');
		return Array.from(new Set(all.map(key)));
	})()`))
	if err != nil {
		tb.t.Fatalf("%s: listing what a keyboard should reach: %v", name, err)
	}
	seen := map[string]bool{}
	for range 2*len(stops) + 4 {
		tb.do(chromedp.KeyEvent("\t"))
		if k, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`(() => { `+key+` return document.activeElement && document.activeElement !== document.body ? key(document.activeElement) : '' })()`)); err == nil && k != "" {
			seen[k] = true
		}
	}
	var missed []string
	for _, k := range stops {
		if !seen[k] {
			missed = append(missed, k)
		}
	}
	if len(missed) > 0 {
		tb.t.Errorf("%s: Tab never reaches %d of the page's %d stops: %q", name, len(missed), len(stops), missed)
	}
}

// tabTo presses Tab until the element sel has the focus, as a keyboard user reaches it.
func (tb *tab) tabTo(sel string) {
	tb.t.Helper()
	for range 80 {
		tb.do(chromedp.KeyEvent("\t"))
		if ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`!!document.activeElement && document.activeElement.matches(`+fmt.Sprintf("%q", sel)+`)`)); err == nil && ok {
			return
		}
	}
	tb.t.Fatalf("Tab never reaches %s", sel)
}

// waitFor waits until a JavaScript expression on the page is true (after a form's navigation, during which
// an evaluation may fail: it is tried again).
func (tb *tab) waitFor(what, js string) {
	tb.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`!!(`+js+`)`))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			loc, _ := chromedp.Run(tb.ctx, chromedp.Location())
			body, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ''`))
			tb.t.Fatalf("%s: not so after 20 s (%v; at %s)\n%s", what, err, loc, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sessionCookie is the console's cookie as the browser holds it (HttpOnly: only DevTools can read it).
func (tb *tab) sessionCookie(base string) *network.Cookie {
	tb.t.Helper()
	res, err := chromedp.Call(tb.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{base + "/console/"}})
	if err != nil {
		tb.t.Fatal(err)
	}
	for _, c := range res.Cookies {
		if c.Name == "seald_console" {
			return c
		}
	}
	tb.t.Fatal("no seald_console cookie in the browser")
	return nil
}

// signIn fills in the sign-in form and waits for the records list.
func (tb *tab) signIn(base string, o owner, shots string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(base + "/console/"))
	tb.waitFor("sign-in page", `!!document.getElementById('subscription_key')`)
	if shots != "" {
		tb.look(shots, "sign-in")
	}
	tb.do(chromedp.SetValue(chromedp.CSS("#subscription_key"), o.sub), chromedp.SetValue(chromedp.CSS("#api_key"), o.api),
		chromedp.Click(chromedp.CSS("form.stack button")))
	tb.waitFor("records after sign-in", `location.pathname === '/console/records' && !!document.querySelector('h1')`)
}

// consoleRequest sends one request with a session cookie, not following redirects, and returns its status,
// Location and page.
func consoleRequest(t *testing.T, method, target, cookie string, form url.Values) (int, string, string) {
	t.Helper()
	resp, page := consoleExchange(t, method, target, cookie, form)
	return resp.StatusCode, resp.Header.Get("Location"), page
}

// consoleExchange sends one request with a session cookie (a form when form is not nil), not following
// redirects, and returns the answer and its body, read whole.
func consoleExchange(t *testing.T, method, target, cookie string, form url.Values) (*http.Response, string) {
	t.Helper()
	body := strings.NewReader("")
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.AddCookie(&http.Cookie{Name: "seald_console", Value: cookie})
	client := &http.Client{Timeout: 60 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body) // what arrived before an error is the page a browser would show
	return resp, string(b)
}

// TestConsoleInBrowser drives the console of a real `seald serve` (embedded defaults) in headless Chromium:
// sign in with a project's keys, seal three records from the form and watch them reach COMPLETED, find one by
// hash, suspend, activate and revoke it and see its history,
// erase another, add a webhook and see its deliveries, see the counts at a glance, issue and revoke a key,
// sign out and find the old cookie refused; a second business gets 404 for the first one's
// record and cannot change it with a forged form. axe-core runs on every page at 390 and 1280 px.
func TestConsoleInBrowser(t *testing.T) {
	t.Parallel() // it starts its own serve (and chain, browser) and mostly waits on them
	browser := newBrowser(t)
	shots := consoleShots(t)
	dir := t.TempDir()
	var hits atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(receiver.Close)
	in := startServe(t, dir, nil, "--webhook-allow", "127.0.0.1/32")
	acme := tenant(t, dir, "--business", "Acme Diplomas", "--project", "Class of 2026")
	other := tenant(t, dir, "--business", "Other Ltd", "--project", "Invoices")
	ao, oo := owner{acme["subscription_key"], acme["api_key"]}, owner{other["subscription_key"], other["api_key"]}

	tb := newTab(t, browser, false)
	tb.signIn(in.URL, ao, shots)

	// Add a webhook: its secret is shown once.
	tb.do(chromedp.Navigate(in.URL + "/console/webhooks"))
	tb.waitFor("webhooks page", `!!document.getElementById('url')`)
	tb.look(shots, "webhooks")
	tb.do(chromedp.SetValue(chromedp.CSS("#url"), receiver.URL+"/hook"), chromedp.Click(chromedp.CSS("form.stack button")))
	tb.waitFor("webhook added", `location.search === '?done=created' && !!document.getElementById('secret')`)
	if secret := tb.text("#secret"); len(secret) < 20 {
		t.Errorf("webhook secret shown: %q", secret)
	}
	hookPage, err := chromedp.Run(tb.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	hookPage = strings.TrimSuffix(hookPage, "?done=created")

	// Seal three records from the form (JSON Lines, with an e-mail) and watch them reach COMPLETED.
	tb.do(chromedp.Navigate(in.URL + "/console/seal"))
	tb.waitFor("seal page", `!!document.getElementById('data')`)
	tb.look(shots, "seal")
	tb.do(chromedp.SetValue(chromedp.CSS("#data"), "{\"diploma\":\"D-1\",\"name\":\"Ada\"}\n{\"diploma\":\"D-2\",\"name\":\"Grace\"}\n{\"diploma\":\"D-3\",\"name\":\"Edsger\"}"),
		chromedp.SetValue(chromedp.CSS("#to"), "registrar@example.com"), chromedp.Click(chromedp.CSS("form.stack button")))
	tb.waitFor("sealed page", `location.pathname === '/console/sealed'`)
	tb.look(shots, "sealed")
	deadline := time.Now().Add(90 * time.Second)
	for {
		states, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('td.state')).map(e => e.textContent)`))
		if len(states) == 3 && strings.Join(states, " ") == "COMPLETED COMPLETED COMPLETED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sealed records: %q after 90 s, want COMPLETED each\n%s", states, in.logText())
		}
		time.Sleep(200 * time.Millisecond) // the page reloads itself every 2 s
	}
	rows, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('table.sealed tbody tr')).map(r => r.cells[0].textContent + ' ' + r.cells[2].textContent)`))
	if err != nil || len(rows) != 3 {
		t.Fatalf("sealed rows: %q, %v", rows, err)
	}
	keepRef, keepHash, _ := strings.Cut(rows[0], " ")
	eraseRef, _, _ := strings.Cut(rows[1], " ")

	tb.do(chromedp.Navigate(in.URL + "/console/records"))
	tb.waitFor("records", `!!document.querySelector('table.records')`)
	tb.look(shots, "records")
	if got := tb.text("table.records"); !strings.Contains(got, keepRef) || !strings.Contains(got, eraseRef) || !strings.Contains(got, "COMPLETED") {
		t.Fatalf("records list: %q", got)
	}
	ck := tb.sessionCookie(in.URL)
	if !ck.HTTPOnly || ck.SameSite != network.CookieSameSiteStrict || ck.Path != "/console/" {
		t.Errorf("session cookie: HttpOnly %v, SameSite %q, Path %q", ck.HTTPOnly, ck.SameSite, ck.Path)
	}

	// Find the record by its hash, with the keyboard only.
	tb.tabTo("#q")
	tb.do(chromedp.KeyEvent(keepHash), chromedp.KeyEvent("\r"))
	tb.waitFor("record page by hash", `location.pathname === '/console/records/`+keepRef+`'`)
	tb.look(shots, "record")
	// Its pipeline timeline: every state it went through has its time, COMPLETED last and after sealing.
	times, err := chromedp.Run(tb.ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries(Array.from(
		document.querySelectorAll('table.timeline tr[data-state]')).map(tr => [tr.dataset.state, tr.querySelector('time') ? tr.querySelector('time').getAttribute('datetime') : '']))`))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err1 := time.Parse(time.RFC3339, times["PENDING"])
	completed, err2 := time.Parse(time.RFC3339, times["COMPLETED"])
	if err1 != nil || err2 != nil || completed.Before(sealed) || times["ANCHORED"] == "" || len(times) != 6 {
		t.Errorf("timeline: %q; want the six states of a record with e-mail, each with a time, COMPLETED after PENDING", times)
	}

	// Suspend and activate with the keyboard only (the reason typed, Enter; then Tab to the button, Enter),
	// then revoke.
	tb.tabTo("#suspend-reason")
	tb.do(chromedp.KeyEvent("checking the grades"), chromedp.KeyEvent("\r"))
	tb.waitFor("suspended", `location.search === '?done=suspended'`)
	tb.tabTo("form.action button")
	tb.do(chromedp.KeyEvent("\r"))
	tb.waitFor("activated", `location.search === '?done=activated'`)
	tb.do(chromedp.Click(chromedp.CSS(`a[href$="/revoke"]`)))
	tb.waitFor("revoke page", `!!document.getElementById('confirm')`)
	if got := tb.text("main"); !strings.Contains(got, "Revocation is final") || !strings.Contains(got, "recorded on chain") {
		t.Errorf("revoke page: %q", got)
	}
	tb.look(shots, "revoke")
	tb.do(chromedp.SetValue(chromedp.CSS("#reason"), "issued in error"), chromedp.Click(chromedp.CSS("#confirm")),
		chromedp.Click(chromedp.CSS("form.stack button")))
	tb.waitFor("revoked", `location.search === '?done=revoked'`)
	history := tb.text("table.history")
	for _, want := range []string{"ACTIVE → SUSPENDED", "checking the grades", "SUSPENDED → ACTIVE", "ACTIVE → REVOKED", "issued in error"} {
		if !strings.Contains(history, want) {
			t.Errorf("history lacks %q:\n%s", want, history)
		}
	}
	if got := tb.text(".facts .status"); got != "REVOKED" {
		t.Errorf("status after revoking: %q", got)
	}
	tb.look(shots, "record-revoked")

	// Erase another.
	tb.do(chromedp.Navigate(in.URL + "/console/records/" + eraseRef + "/erase"))
	tb.waitFor("erase page", `!!document.getElementById('confirm')`)
	tb.look(shots, "erase")
	tb.do(chromedp.SetValue(chromedp.CSS("#reason"), "asked by the holder"), chromedp.Click(chromedp.CSS("#confirm")),
		chromedp.Click(chromedp.CSS("form.stack button")))
	tb.waitFor("erased", `location.search === '?done=erased'`)
	if got := tb.text("main"); !strings.Contains(got, "Data erased") || !strings.Contains(got, "data erased") {
		t.Errorf("record page after erasing: %q", got)
	}

	// The webhook's deliveries: one record.completed per record and the status changes, delivered; replay one.
	deadline = time.Now().Add(30 * time.Second)
	for {
		tb.do(chromedp.Navigate(hookPage))
		tb.waitFor("webhook page", `!!document.querySelector('h2')`)
		states, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('td.delivery-state')).map(e => e.textContent)`))
		if len(states) >= 7 && !slices.ContainsFunc(states, func(s string) bool { return s != "DELIVERED" }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries: %q, want at least 7 DELIVERED (3 completed, 3 status changes, 1 erasure)", states)
		}
		time.Sleep(300 * time.Millisecond)
	}
	tb.look(shots, "webhook")
	before := hits.Load()
	tb.do(chromedp.Click(chromedp.CSS("table.deliveries button")))
	tb.waitFor("replayed", `location.search === '?done=replayed'`)
	for deadline := time.Now().Add(10 * time.Second); hits.Load() == before; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the replayed delivery never reached the receiver")
		}
	}

	// At a glance: the three records sealed today, none waiting.
	tb.do(chromedp.Navigate(in.URL + "/console/glance"))
	tb.waitFor("glance page", `!!document.getElementById('backlog')`)
	if total, backlog := tb.text("#total"), tb.text("#backlog"); total != "3" || !strings.HasPrefix(backlog, "0 ") {
		t.Errorf("at a glance: %s records, backlog %q; want 3 and 0", total, backlog)
	}
	// Today's anchoring latency (in the folded table: read its text, not what is shown).
	if got, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.querySelector('#latency tbody tr:last-child td:nth-child(2)').textContent`)); err != nil || got != "3" {
		t.Errorf("at a glance: %q records measured for today's anchoring latency (%v), want 3", got, err)
	}
	tb.look(shots, "glance")

	// Issue a key (its secret shown once, and it works), then revoke it (and it no longer does).
	tb.do(chromedp.Navigate(in.URL + "/console/keys"))
	tb.waitFor("keys page", `!!document.querySelector('table.keys')`)
	tb.do(chromedp.Click(chromedp.CSS("form.stack button")))
	tb.waitFor("key issued", `location.search === '?done=issued' && !!document.getElementById('secret')`)
	issued := tb.text("#secret")
	if r := in.call("GET", "/authentication-status/get/status?reference="+keepRef, ao.sub, issued, "", nil); r.Status != 200 {
		t.Fatalf("the issued key: %d %s", r.Status, r.Raw)
	}
	tb.look(shots, "keys")
	newKey, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('table.keys tbody tr')).filter(r => !r.cells[0].textContent.includes('this session')).map(r => r.cells[0].textContent.trim())[0] || ''`))
	if err != nil || newKey == "" {
		t.Fatalf("the issued key's row: %q, %v", newKey, err)
	}
	tb.do(chromedp.Click(chromedp.CSS("#confirm-"+newKey)), chromedp.Click(chromedp.CSS(`button[aria-label="Revoke `+newKey+`"]`)))
	tb.waitFor("key revoked", `location.search === '?done=revoked'`)
	if r := in.call("GET", "/authentication-status/get/status?reference="+keepRef, ao.sub, issued, "", nil); r.Status != 401 {
		t.Errorf("the revoked key: %d, want 401", r.Status)
	}

	// A second business: 404 for the first one's record, and no change through a forged form.
	// Its own browser context: tabs of one context share their cookies.
	second, cancelSecond := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancelSecond)
	if err := chromedp.Do(second); err != nil {
		t.Fatal(err)
	}
	tb2 := newTab(t, second, false)
	tb2.signIn(in.URL, oo, "")
	tb2.do(chromedp.Navigate(in.URL + "/console/records/" + eraseRef))
	tb2.waitFor("404 page", `document.title.startsWith('Not found')`)
	tb2.look(shots, "not-found")
	otherCookie := tb2.sessionCookie(in.URL).Value
	for _, p := range []string{"", "/proof.json", "/revoke", "/erase"} {
		if code, _, _ := consoleRequest(t, "GET", in.URL+"/console/records/"+eraseRef+p, otherCookie, nil); code != 404 {
			t.Errorf("the other business GET %s: %d, want 404", p, code)
		}
	}
	_, _, page := consoleRequest(t, "GET", in.URL+"/console/records", otherCookie, nil)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF token on the other business's page")
	}
	target := in.URL + "/console/records/" + eraseRef + "/status"
	if code, _, _ := consoleRequest(t, "POST", target, otherCookie, url.Values{"status": {"SUSPENDED"}}); code != 403 {
		t.Errorf("forged form without a token: %d, want 403", code)
	}
	if code, _, _ := consoleRequest(t, "POST", target, ck.Value, url.Values{"status": {"SUSPENDED"}, "csrf": {m[1]}}); code != 403 {
		t.Errorf("the first business's session with the other's token: %d, want 403", code)
	}
	if code, _, _ := consoleRequest(t, "POST", target, otherCookie, url.Values{"status": {"SUSPENDED"}, "csrf": {m[1]}}); code != 404 {
		t.Errorf("the other business's own valid form on the first's record: %d, want 404", code)
	}
	if r := in.call("GET", "/authentication-status/get/status?reference="+eraseRef, ao.sub, ao.api, "", nil); str(r.Body, "data.status") != "ACTIVE" {
		t.Errorf("the first business's record changed: %s", r.Raw)
	}

	// Sign out: the old cookie opens nothing any more.
	tb.do(chromedp.Click(chromedp.CSS("form.signout button")))
	tb.waitFor("signed out", `location.pathname === '/console/sign-in'`)
	for _, p := range []string{"/console/records", "/console/records/" + keepRef, "/console/search?q=" + keepHash} {
		if code, loc, _ := consoleRequest(t, "GET", in.URL+p, ck.Value, nil); code != http.StatusSeeOther || loc != "/console/sign-in" {
			t.Errorf("old cookie after sign-out, GET %s: %d to %q", p, code, loc)
		}
	}
	tb.quiet()
	tb2.quiet()
}
