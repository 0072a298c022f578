package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"seald.dev/seald/evm/gethtest"
)

// TestConsoleSpeaksToANewcomer is issue 44's item 9 in Chromium against the real binary: at 1280 px the
// console's header is one line (Sign out beside the menu) and the search box shows its whole placeholder; a
// JSON syntax error in the seal form says where (line and column) and what; a record's page says in words
// what the API's flags mean, and shows and downloads the sealed data (with the record's password when it has
// one, as the API's download asks it); the Keys page shows each key's prefix as `seald key list` does; a
// delivery says what happened to the record.
func TestConsoleSpeaksToANewcomer(t *testing.T) {
	t.Parallel() // it starts its own serve and browser and mostly waits on them
	browser := newBrowser(t)
	dir := t.TempDir()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(receiver.Close)
	in := startServe(t, dir, nil, "--webhook-allow", "127.0.0.1/32")
	acme := tenant(t, dir, "--business", "Acme Diplomas", "--project", "Class of 2026")
	ao := owner{acme["subscription_key"], acme["api_key"]}
	tb := newTab(t, browser, false)
	tb.signIn(in.URL, ao, "")

	t.Run("header at 1280 px", func(t *testing.T) {
		defer tb.on(t)()
		tb.do(chromedp.EmulateViewport(1280, 900))
		tb.waitFor("records", `!!document.querySelector('header.site form.signout')`)
		got, err := chromedp.Run(tb.ctx, chromedp.Evaluate[map[string]float64](`(() => {
			const h = document.querySelector('header.site');
			const kids = Array.from(h.children).filter(e => e.getClientRects().length > 0);
			const r = e => e.getBoundingClientRect();
			const q = document.getElementById('q'), cs = getComputedStyle(q);
			const ctx = document.createElement('canvas').getContext('2d');
			ctx.font = cs.font;
			return {
				lowestTop: Math.max(...kids.map(e => r(e).top)), highestBottom: Math.min(...kids.map(e => r(e).bottom)),
				signOutTop: r(document.querySelector('form.signout')).top, navTop: r(h.querySelector('nav')).top,
				signOutMid: (r(document.querySelector('form.signout')).top + r(document.querySelector('form.signout')).bottom) / 2,
				navMid: (r(h.querySelector('nav')).top + r(h.querySelector('nav')).bottom) / 2,
				placeholder: ctx.measureText(q.placeholder).width,
				room: q.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
				scroll: q.scrollWidth, client: q.clientWidth,
			};
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if got["lowestTop"] >= got["highestBottom"] || got["signOutMid"]-got["navMid"] > 4 || got["navMid"]-got["signOutMid"] > 4 {
			t.Errorf("the header wraps at 1280 px: Sign out's middle at %.0f px, the menu's at %.0f px; lowest top %.0f, highest bottom %.0f",
				got["signOutMid"], got["navMid"], got["lowestTop"], got["highestBottom"])
		}
		if got["placeholder"] > got["room"] || got["scroll"] > got["client"] {
			t.Errorf("the search placeholder is cut at 1280 px: it needs %.0f px, the box has %.0f (scrollWidth %.0f, clientWidth %.0f)",
				got["placeholder"], got["room"], got["scroll"], got["client"])
		}
	})

	t.Run("seal form JSON errors", func(t *testing.T) {
		defer tb.on(t)()
		for _, c := range []struct{ data, want string }{
			{"{\n  \"name\": \"Ada\",\n  \"degree\":\n}", "line 4, column 1"},
			{"{\"a\":1}\n{\"b\":2,}", "line 2, column 8"},
		} {
			tb.do(chromedp.Navigate(in.URL + "/console/seal"))
			tb.waitFor("seal page", `!!document.getElementById('data')`)
			tb.do(chromedp.SetValue(chromedp.CSS("#data"), c.data), chromedp.Click(chromedp.CSS("form.stack button")))
			tb.waitFor("refusal", `!!document.querySelector('.notice.error')`)
			got := tb.text(".notice.error")
			if !strings.Contains(got, c.want) || !strings.Contains(got, "invalid character '}'") || strings.Contains(got, "is not a JSON object") {
				t.Errorf("seal form with %q: %q; want where (%s) and what (invalid character '}')", c.data, got, c.want)
			}
		}
	})

	// A webhook first, so that the records' events are delivered to it.
	tb.do(chromedp.Navigate(in.URL + "/console/webhooks"))
	tb.waitFor("webhooks page", `!!document.getElementById('url')`)
	tb.do(chromedp.SetValue(chromedp.CSS("#url"), receiver.URL+"/hook"), chromedp.Click(chromedp.CSS("form.stack button")))
	tb.waitFor("webhook added", `location.search === '?done=created'`)
	hookPage, err := chromedp.Run(tb.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	hookPage = strings.TrimSuffix(hookPage, "?done=created")

	seal := func(body map[string]any) string {
		r := in.call("POST", authPath, ao.sub, ao.api, "application/json", body)
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		return str(r.Body, "data.reference")
	}
	const plainData, secretData = `{"diploma":"D-1","name":"Ada"}`, `{"diploma":"D-2","name":"Grace"}`
	plain := seal(map[string]any{"data": json.RawMessage(plainData), "to": "a@example.com"})
	secret := seal(map[string]any{"data": json.RawMessage(secretData), "to": "a@example.com", "password": "s3cret pass"})
	in.waitOwned(ao, plain, "COMPLETED")
	in.waitOwned(ao, secret, "COMPLETED")

	t.Run("record page in words", func(t *testing.T) {
		defer tb.on(t)()
		tb.do(chromedp.Navigate(in.URL + "/console/records/" + plain))
		tb.waitFor("record page", `!!document.querySelector('dl.facts')`)
		main := tb.text("main")
		for _, raw := range []string{"is_signed", "revoked_on_chain", "is_data_downloadable", "token_id"} {
			if strings.Contains(main, raw) {
				t.Errorf("the record page shows the API's name %q:\n%s", raw, main)
			}
		}
		for _, want := range []string{"Signed by this service", "Revoked on chain", "The owner may download the data"} {
			if !strings.Contains(main, want) {
				t.Errorf("the record page lacks %q:\n%s", want, main)
			}
		}
	})

	t.Run("sealed data shown and downloaded", func(t *testing.T) {
		defer tb.on(t)()
		tb.do(chromedp.Navigate(in.URL + "/console/records/" + plain))
		tb.waitFor("record page", `!!document.getElementById('show-data')`)
		tb.do(chromedp.Click(chromedp.CSS("#show-data")))
		tb.waitFor("data page", `!!document.getElementById('sealed-data')`)
		if got := tb.text("#sealed-data"); got != plainData {
			t.Errorf("the data shown: %q, want %q", got, plainData)
		}
		cookie := tb.sessionCookie(in.URL).Value
		if code, _, body := consoleRequest(t, "GET", in.URL+"/console/records/"+plain+"/data.json", cookie, nil); code != 200 || body != plainData {
			t.Errorf("download: %d %q, want 200 %q", code, body, plainData)
		}
		// With a password: asked for, refused when wrong, shown when right.
		tb.do(chromedp.Navigate(in.URL + "/console/records/" + secret + "/data"))
		tb.waitFor("password form", `!!document.getElementById('data-password')`)
		if n, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[int](`document.querySelectorAll('#sealed-data').length`)); n != 0 {
			t.Error("the data of a record with a password is shown without it")
		}
		tb.do(chromedp.SetValue(chromedp.CSS("#data-password"), "wrong"), chromedp.Click(chromedp.CSS("#show-button")))
		tb.waitFor("refusal", `!!document.querySelector('.notice.error')`)
		if got := tb.text(".notice.error"); !strings.Contains(got, "password") {
			t.Errorf("a wrong password: %q", got)
		}
		tb.do(chromedp.SetValue(chromedp.CSS("#data-password"), "s3cret pass"), chromedp.Click(chromedp.CSS("#show-button")))
		tb.waitFor("data page", `!!document.getElementById('sealed-data')`)
		if got := tb.text("#sealed-data"); got != secretData {
			t.Errorf("the data shown with its password: %q, want %q", got, secretData)
		}
		if code, _, body := consoleRequest(t, "GET", in.URL+"/console/records/"+secret+"/data.json", cookie, nil); code == 200 || strings.Contains(body, "Grace") {
			t.Errorf("download of a record with a password, without it: %d %q", code, body)
		}
	})

	t.Run("keys show their prefixes", func(t *testing.T) {
		defer tb.on(t)()
		tb.do(chromedp.Navigate(in.URL + "/console/keys"))
		tb.waitFor("keys page", `!!document.querySelector('table.keys')`)
		if got := tb.text("table.keys"); !strings.Contains(got, ao.api[:10]+"…") {
			t.Errorf("the keys page does not show the prefix %q… of the session's key:\n%s", ao.api[:10], got)
		}
	})

	t.Run("deliveries say what happened", func(t *testing.T) {
		defer tb.on(t)()
		if r := in.call("PUT", "/authentication-status/update/status", ao.sub, ao.api, "application/json",
			map[string]any{"reference": plain, "status": "SUSPENDED", "reason": "checking the grades"}); r.Status != 200 {
			t.Fatalf("suspend: %d %s", r.Status, r.Raw)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			tb.do(chromedp.Navigate(hookPage))
			tb.waitFor("webhook page", `!!document.querySelector('h2')`)
			rows, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('table.deliveries tbody tr')).map(r => r.cells[0].innerText)`))
			all := strings.Join(rows, "\n")
			if len(rows) >= 3 {
				if !strings.Contains(all, "Status changed: ACTIVE → SUSPENDED") || !strings.Contains(all, "checking the grades") ||
					!strings.Contains(all, "Sealed: COMPLETED") {
					t.Errorf("deliveries' events:\n%s", all)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("deliveries: %q, want 3", rows)
			}
			time.Sleep(300 * time.Millisecond)
		}
	})
	tb.quiet()
}

// TestPageAndMailGiveTheData is issue 44's item 10 through the binary: the e-mail of a record carries its
// data as an attachment (the exact JSON the page asks for), or, for a record with a password, says the data
// is not attached and how to get it; a revoked record's page shows the reason given; /v/present lists each
// member with its value.
func TestPageAndMailGiveTheData(t *testing.T) {
	t.Parallel() // it starts its own serve and browser and mostly waits on them
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	const plainData = `{"degree":"MSc Mathematics","grades":{"logic":17.25},"name":"Ada Lovelace"}`
	seal := func(body map[string]any) string {
		r := in.post(authPath, body)
		if r.Status != 201 {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		return str(r.Body, "data.reference")
	}
	plain := seal(map[string]any{"data": json.RawMessage(plainData), "to": "a@example.com"})
	secret := seal(map[string]any{"data": map[string]any{"n": "secret"}, "to": "b@example.com", "password": "pw pw pw"})
	in.waitState(plain, "COMPLETED", 90*time.Second)
	in.waitState(secret, "COMPLETED", 90*time.Second)

	t.Run("e-mail", func(t *testing.T) {
		for _, m := range outboxMessages(t, dir) {
			text, files := mailParts(t, m.Raw)
			switch m.Reference {
			case plain:
				if got := files[plain+".json"]; got != plainData {
					t.Errorf("the e-mail of %s attaches %q as %s.json, want %q (files %v)", plain, got, plain, plainData, fileNames(files))
				}
				if !strings.Contains(text, plain+".json") {
					t.Errorf("the e-mail's text does not name the attached data:\n%s", text)
				}
			case secret:
				if len(files) != 0 || strings.Contains(text, "secret\"") {
					t.Errorf("the e-mail of a record with a password gives its data: %v\n%s", fileNames(files), text)
				}
				if !strings.Contains(text, "not attached") || !strings.Contains(text, "password") {
					t.Errorf("the e-mail of a record with a password does not say how to get the data:\n%s", text)
				}
			}
		}
	})

	t.Run("revoked page shows the reason", func(t *testing.T) {
		r := in.call("PUT", "/authentication-status/update/status", in.Sub, in.API, "application/json",
			map[string]any{"reference": plain, "status": "REVOKED", "reason": "issued in error"})
		if r.Status != 200 {
			t.Fatalf("revoke: %d %s", r.Status, r.Raw)
		}
		code, page := fetch(t, in.URL+"/v/"+plain)
		if code != 200 || !bytes.Contains(page, []byte("issued in error")) {
			t.Errorf("the revoked record's page: %d, no reason in it\n%s", code, page)
		}
	})

	t.Run("present lists values", func(t *testing.T) {
		browser := newBrowser(t)
		r := in.get("/verification/api/v1/disclosure?reference=" + plain)
		if r.Status != 200 {
			t.Fatalf("disclosure package: %d %s", r.Status, r.Raw)
		}
		file := writeTemp(t, "package.json", r.Raw)
		tb := newTab(t, browser, false)
		tb.do(chromedp.Navigate(in.URL+"/v/present"), chromedp.WaitReady(chromedp.CSS("footer")))
		tb.do(chromedp.SetUploadFiles(chromedp.CSS("#present-package"), []string{file}),
			chromedp.WaitVisible(chromedp.CSS(`#present-list input[value="/degree"]`)))
		got := tb.text("#present-list")
		for _, want := range []string{"degree", "MSc Mathematics", "grades.logic", "17.25", "Ada Lovelace"} {
			if !strings.Contains(got, want) {
				t.Errorf("/v/present lists %q, without %q", got, want)
			}
		}
		tb.quiet()
	})
}

// on points a tab's helpers at a subtest, so that a step that fails ends the subtest and not its parent;
// the returned function points them back.
func (tb *tab) on(t *testing.T) func() {
	old := tb.t
	tb.t = t
	return func() { tb.t = old }
}

func fileNames(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// mailParts reads a message's text parts (joined) and its attachments by file name.
func mailParts(t *testing.T, raw []byte) (string, map[string]string) {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	files := map[string]string{}
	var walk func(h func(string) string, body io.Reader)
	walk = func(h func(string) string, body io.Reader) {
		mt, params, _ := mime.ParseMediaType(h("Content-Type"))
		if strings.HasPrefix(mt, "multipart/") {
			mr := multipart.NewReader(body, params["boundary"])
			for {
				p, err := mr.NextPart()
				if err != nil {
					return
				}
				walk(p.Header.Get, p)
			}
		}
		switch strings.ToLower(h("Content-Transfer-Encoding")) {
		case "base64":
			body = base64.NewDecoder(base64.StdEncoding, body)
		case "quoted-printable":
			body = quotedprintable.NewReader(body)
		}
		b, _ := io.ReadAll(body)
		_, dp, _ := mime.ParseMediaType(h("Content-Disposition"))
		if name := dp["filename"]; name != "" {
			files[name] = string(b)
			return
		}
		if mt == "text/plain" {
			text.Write(b)
		}
	}
	walk(m.Header.Get, m.Body)
	return text.String(), files
}

// TestDevelopmentChainOnEverySurface is issue 44's item 11 through the binary: a second instance pointed
// (--chain) at a geth dev chain with chain id 1337 warns at start that the chain is not a public network, and
// the API's verification, the page and `seald verify` all call it a development chain: not Polygon, no green
// "Genuine", no bare "VERIFIED".
func TestDevelopmentChainOnEverySurface(t *testing.T) {
	t.Parallel() // it starts its own serve and chain and mostly waits on them
	g := gethtest.Start(t, gethtest.Options{Period: 1})
	dir := t.TempDir()
	in := startServe(t, dir, nil, "--chain", g.URL, "--chain-key-file", gethKeyFile(t, g))
	if log := in.logText(); !strings.Contains(log, "chain 1337, which is not a public Polygon") {
		t.Errorf("serve did not warn at start that chain 1337 is not a public network:\n%s", log)
	}
	r := in.post(authPath, map[string]any{"data": map[string]any{"on": "geth"}, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	ref := str(r.Body, "data.reference")
	in.waitState(ref, "COMPLETED", 90*time.Second)

	v := in.get("/verification/api/v1/verify/reference?reference=" + ref)
	name := str(v.Body, "data.blockchain.chain_name")
	if v.Status != 200 || !strings.HasPrefix(name, "seald development chain (chain 1337)") || strings.Contains(name, "Polygon PoS") {
		t.Errorf("the API names the chain %q (%d)\n%s", name, v.Status, v.Raw)
	}
	code, page := fetch(t, in.URL+"/v/"+ref)
	if code != 200 || bytes.Contains(page, []byte("Genuine")) || !bytes.Contains(page, []byte("development chain")) ||
		bytes.Contains(page, []byte("Polygon PoS")) {
		t.Errorf("the page: %d\n%s", code, page)
	}
	stdout, stderr, exit := runCLI(t, t.TempDir(), "verify", "--reference", ref, "--data-dir", dir)
	if strings.HasPrefix(stdout, "VERIFIED") || !strings.Contains(stdout, "DEVELOPMENT CHAIN") || !strings.Contains(stdout, "development chain") {
		t.Errorf("seald verify: exit %d\n%s%s", exit, stdout, stderr)
	}
}
