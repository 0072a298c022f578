package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The findings of the security review of issue 43, each reproduced through the binary (serve run in-process
// by startServe, the CLI by run).

// TestRevocationLandsWhileOthersFlip: `seald record revoke R` while four clients swap R between ACTIVE and
// SUSPENDED through the API succeeds (REVOKED may follow either, so a lost compare-and-set is tried again),
// the record ends REVOKED and its revocation is queued for the chain. Before, the CLI failed with "record R
// is SUSPENDED, not ACTIVE".
func TestRevocationLandsWhileOthersFlip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	env := map[string]string{"SEALD_DATA_DIR": dir}
	// Each round is one record: four clients flip it, the operator revokes it. A few compare-and-sets lost
	// in a row were enough before; several rounds make that all but certain.
	for round := range 8 {
		r := in.post(authPath, map[string]any{"data": map[string]any{"flip": round}, "to": "a@example.com"})
		ref := str(r.Body, "data.reference")
		if ref == "" {
			t.Fatalf("seal: %d %s", r.Status, r.Raw)
		}
		var stop atomic.Bool
		var flips atomic.Int64
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				states := []string{"SUSPENDED", "ACTIVE"}
				for j := i; !stop.Load(); j++ {
					req, err := http.NewRequest("PUT", in.URL+"/authentication-status/update/status",
						strings.NewReader(`{"reference":"`+ref+`","status":"`+states[j%2]+`"}`))
					if err != nil {
						return
					}
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Ocp-Apim-Subscription-Key", in.Sub)
					req.Header.Set("Api-Key", in.API)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						return
					}
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						flips.Add(1)
					}
				}
			}()
		}
		// The flippers are under way before the revocation starts.
		for deadline := time.Now().Add(60 * time.Second); flips.Load() < 20 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		out, err := cli(t, env, "record", "revoke", ref, "--reason", "flipped")
		stop.Store(true)
		wg.Wait()
		if err != nil || !strings.Contains(out, "REVOKED") {
			t.Fatalf("round %d: record revoke while four clients flip the record: %v %q", round, err, out)
		}
		if got := str(in.get(verifyBase+"reference?reference="+ref).Body, "data.status"); got != "REVOKED" {
			t.Errorf("round %d: status after the revocation: %s", round, got)
		}
		h, err := cli(t, env, "record", "history", ref)
		if err != nil || !strings.Contains(h, "REVOKED") {
			t.Errorf("round %d: history: %v %q", round, err, h)
		}
	}
}

// consoleSignIn signs in to the console of in with a key pair and returns the session cookie and a CSRF
// token read from the seal page.
func consoleSignIn(t *testing.T, in *instance, sub, api string) (cookie, csrf string) {
	t.Helper()
	code, cookie := signInRaw(t, in, sub, api)
	if code != http.StatusSeeOther || cookie == "" {
		t.Fatalf("sign-in: %d, cookie %q", code, cookie)
	}
	code, _, page := consoleRequest(t, "GET", in.URL+"/console/seal", cookie, nil)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if code != http.StatusOK || m == nil {
		t.Fatalf("seal page: %d, no CSRF token", code)
	}
	return cookie, m[1]
}

// consolePost posts a form of the signed-in console and returns the status, Retry-After and page.
func consolePost(t *testing.T, in *instance, cookie, path string, form url.Values) (int, string, string) {
	t.Helper()
	resp, page := consoleExchange(t, "POST", in.URL+path, cookie, form)
	return resp.StatusCode, resp.Header.Get("Retry-After"), page
}

// TestConsoleObeysRateLimits: a project limited to 0.2 requests a second with a burst of 3 cannot seal
// through the console what the API would refuse: a seal of 100 records spends 100 and is refused with 429,
// Retry-After and a readable message, and so is the next form once the budget is spent; nothing is sealed.
// Before, three such posts sealed 300 records while the API answered 429.
func TestConsoleObeysRateLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	tn := tenant(t, dir, "--business", "Limited Inc", "--project", "P", "--rate-limit", "0.2", "--rate-burst", "3")
	cookie, csrf := consoleSignIn(t, in, tn["subscription_key"], tn["api_key"]) // spends 2 of the 3
	var lines []string
	for i := range 100 {
		lines = append(lines, fmt.Sprintf(`{"n":%d}`, i))
	}
	form := url.Values{"csrf": {csrf}, "data": {strings.Join(lines, "\n")}}
	for i := range 3 {
		code, after, page := consolePost(t, in, cookie, "/console/seal", form)
		if code != http.StatusTooManyRequests || after == "" {
			t.Fatalf("console seal %d of 100 records: %d (Retry-After %q), want 429 with Retry-After", i+1, code, after)
		}
		if !strings.Contains(page, "API key") {
			t.Errorf("console seal %d: the page does not say why: %s", i+1, page)
		}
	}
	// The API shares the budget: spent, it answers 429 with Retry-After too.
	r := in.call("GET", verifyBase+"hash?hash="+strings.Repeat("0", 64), tn["subscription_key"], tn["api_key"], "", nil)
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Errorf("API after the console spent the budget: %d, Retry-After %q", r.Status, r.Header.Get("Retry-After"))
	}
}

// keyList reads `seald key list --json` of the data dir.
func keyList(t *testing.T, dir string) []map[string]any {
	t.Helper()
	out, err := cli(t, map[string]string{"SEALD_DATA_DIR": dir}, "key", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var keys []map[string]any
	if err := json.Unmarshal([]byte(out), &keys); err != nil {
		t.Fatalf("key list --json: %v\n%s", err, out)
	}
	return keys
}

// keyByPrefix returns the listed key whose secret starts with its prefix.
func keyByPrefix(t *testing.T, dir, secret string) map[string]any {
	t.Helper()
	for _, k := range keyList(t, dir) {
		if p, _ := k["prefix"].(string); p != "" && strings.HasPrefix(secret, p) {
			return k
		}
	}
	t.Fatalf("no key listed for %s…", secret[:10])
	return nil
}

// TestKeyInOverlapCannotManageKeys: once the key a console session signed in with is rotated (1 h of
// overlap), that session can no longer rotate it again (which pushed its expiry to 7 days), issue a key or
// revoke its successor: every route that changes keys answers 403 with the reason. A rotation by the
// operator never extends the expiry either. Before, the leaked key kept itself alive.
func TestKeyInOverlapCannotManageKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil, "--auth-cache-ttl", "200ms")
	cookie, csrf := consoleSignIn(t, in, in.Sub, in.API)
	leaked := keyByPrefix(t, dir, in.API)
	id := leaked["id"].(string)
	code, _, page := consolePost(t, in, cookie, "/console/keys/"+id+"/rotate", url.Values{"csrf": {csrf}, "overlap": {"1h"}})
	if code != http.StatusSeeOther {
		t.Fatalf("first rotation by a key not in overlap: %d %s", code, page)
	}
	expiry := func() time.Time {
		k := keyByPrefix(t, dir, in.API)
		s, _ := k["expires_at"].(string)
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("expires_at %v: %v", k["expires_at"], err)
		}
		return at
	}
	first := expiry()
	if d := time.Until(first); d > time.Hour || d < 30*time.Minute {
		t.Fatalf("after a rotation with 1h of overlap the key expires in %s", d)
	}
	var successor string
	for _, k := range keyList(t, dir) {
		if k["project_id"] == leaked["project_id"] && k["id"] != id && k["revoked_at"] == nil {
			successor = k["id"].(string)
		}
	}
	for _, c := range []struct {
		path string
		form url.Values
	}{
		{"/console/keys/" + id + "/rotate", url.Values{"overlap": {"168h"}}},
		{"/console/keys", url.Values{}},
		{"/console/keys/" + successor + "/rotate", url.Values{"overlap": {"0"}}},
		{"/console/keys/" + successor + "/revoke", url.Values{"confirm": {"yes"}}},
	} {
		c.form.Set("csrf", csrf)
		code, _, page := consolePost(t, in, cookie, c.path, c.form)
		if code != http.StatusForbidden || !strings.Contains(page, "rotation overlap") {
			t.Errorf("POST %s by a key in its rotation overlap: %d, want 403 naming the overlap", c.path, code)
		}
	}
	if got := expiry(); !got.Equal(first) {
		t.Errorf("the key in overlap moved its expiry from %s to %s", first, got)
	}
	// The operator rotating the key again does not extend it either.
	if _, err := cli(t, map[string]string{"SEALD_DATA_DIR": dir}, "key", "rotate", "--id", id, "--overlap", "168h"); err != nil {
		t.Fatal(err)
	}
	if got := expiry(); got.After(first) {
		t.Errorf("an operator rotation extended the expiry from %s to %s", first, got)
	}
}

// TestDataDirAllPrivate: after serve has run with the embedded chain, sealing and mailing, no file or
// directory of the data dir is readable or writable by group or others (umask 077): pebble's files, the
// chain's database, blob pool and contract file included. Before, 69 files were 0644.
func TestDataDirAllPrivate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	in := startServe(t, dir, nil)
	r := in.post(authPath, map[string]any{"data": map[string]any{"a": 1}, "to": "a@example.com"})
	in.waitState(str(r.Body, "data.reference"), "COMPLETED", 120*time.Second)
	in.stop()
	n := 0
	_ = filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		n++
		if fi.Mode().Perm()&0o077 != 0 {
			rel, _ := filepath.Rel(dir, path)
			t.Errorf("%s has mode %v", rel, fi.Mode().Perm())
		}
		return nil
	})
	if n < 10 {
		t.Errorf("only %d entries in the data dir", n)
	}
}

// TestWebhookSpecialAddressesRefused: every address the review found accepted at creation (and dialled at
// delivery) is refused when the webhook is created, with a 400 naming --webhook-allow; the allow flag still
// admits what it lists. (The same guard runs again at every dial, after DNS: internal/dialguard.)
func TestWebhookSpecialAddressesRefused(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil, "--webhook-allow", "127.0.0.1/32")
	for _, host := range []string{"198.18.0.1", "198.19.255.254", "240.0.0.1", "255.255.255.254", "0.1.2.3",
		"192.0.0.8", "[fec0::1]", "[64:ff9b::7f00:1]", "[64:ff9b:1:7f00:0:100::]", "[2002:7f00:1::]",
		"[::7f00:1]", "[::a9fe:a9fe]"} {
		r := in.post("/webhooks", map[string]any{"url": "http://" + host + ":8080/hook"})
		if r.Status != http.StatusBadRequest || !strings.Contains(str(r.Body, "error"), "--webhook-allow") {
			t.Errorf("POST /webhooks to %s: %d %s, want 400 naming --webhook-allow", host, r.Status, r.Raw)
		}
	}
	if r := in.post("/webhooks", map[string]any{"url": "http://127.0.0.1:1/hook"}); r.Status != http.StatusCreated {
		t.Errorf("POST /webhooks to an allowed address: %d %s", r.Status, r.Raw)
	}
}

// signInRaw posts the console's sign-in form once and returns the status and the session cookie it set.
func signInRaw(t *testing.T, in *instance, sub, api string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(in.URL+"/console/sign-in", url.Values{"subscription_key": {sub}, "api_key": {api}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "seald_console" && c.Value != "" {
			return resp.StatusCode, c.Value
		}
	}
	return resp.StatusCode, ""
}

// TestConsoleSessionsPerBusiness: one business signing in again and again (1,001 times, one past its
// bound) loses only its own oldest session: another business's session stays signed in. Before, the
// session table was shared by every business, so a business with valid keys could push out any other's.
// And successful sign-ins spend the key's budget: a project limited to a burst of 3 gets 429 at the fourth.
func TestConsoleSessionsPerBusiness(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	other := tenant(t, dir, "--business", "Other Inc", "--project", "P")
	code, theirs := signInRaw(t, in, other["subscription_key"], other["api_key"])
	if code != http.StatusSeeOther || theirs == "" {
		t.Fatalf("other business's sign-in: %d", code)
	}
	signedIn := func(cookie string) bool {
		code, _, _ := consoleRequest(t, "GET", in.URL+"/console/records", cookie, nil)
		return code == http.StatusOK
	}
	var first, last string
	for i := range 1001 {
		code, c := signInRaw(t, in, in.Sub, in.API)
		if code != http.StatusSeeOther || c == "" {
			t.Fatalf("sign-in %d of the flooding business: %d", i, code)
		}
		if i == 0 {
			first = c
		}
		last = c
	}
	if !signedIn(theirs) {
		t.Error("another business's session was pushed out by one business signing in 1,001 times")
	}
	if signedIn(first) {
		t.Error("the flooding business kept more sessions than its bound: its first is still signed in")
	}
	if !signedIn(last) {
		t.Error("the flooding business's newest session is not signed in")
	}

	limited := tenant(t, dir, "--business", "Limited Inc", "--project", "P", "--rate-limit", "0.01", "--rate-burst", "3")
	for i := range 3 {
		if code, _ := signInRaw(t, in, limited["subscription_key"], limited["api_key"]); code != http.StatusSeeOther {
			t.Fatalf("sign-in %d within the burst: %d", i+1, code)
		}
	}
	if code, c := signInRaw(t, in, limited["subscription_key"], limited["api_key"]); code != http.StatusTooManyRequests || c != "" {
		t.Errorf("a fourth sign-in past a burst of 3: %d (cookie set: %v), want 429 and no session", code, c != "")
	}
}

// TestTrustURLRefusedOffItsPath: `seald proof verify --trust URL` takes the trust root only from the
// issuer's well-known path: a path elsewhere on the issuer's origin (an upload, a user's page) is refused
// before anything is pinned, exit 2, naming the well-known path; the well-known URL of the same serve
// verifies. Before, any path was fetched and its answer pinned for the whole origin.
func TestTrustURLRefusedOffItsPath(t *testing.T) {
	t.Parallel()
	rpcAddr := freePort(t)
	in := startServe(t, t.TempDir(), nil, "--chain-rpc-addr", rpcAddr)
	r := in.post(authPath, map[string]any{"data": map[string]any{"trust": "path"}, "to": "a@example.com"})
	ref := str(r.Body, "data.reference")
	in.waitState(ref, "COMPLETED", 120*time.Second)
	work := t.TempDir()
	code, bundle := fetch(t, in.URL+"/v/"+ref+"/proof.json")
	if code != http.StatusOK {
		t.Fatalf("GET proof.json: %d", code)
	}
	file := filepath.Join(work, "proof.json")
	if err := os.WriteFile(file, bundle, 0o600); err != nil {
		t.Fatal(err)
	}
	pins := filepath.Join(work, "pins")
	for _, u := range []string{in.URL + "/uploads/seald-trust.json", in.URL + "/.well-known/seald-trust.json?x=1"} {
		_, stderr, status := runCLI(t, work, "proof", "verify", file, "--rpc", "http://"+rpcAddr, "--trust", u, "--trust-pin-dir", pins)
		if status != 2 || !strings.Contains(stderr, "/.well-known/seald-trust.json") {
			t.Errorf("--trust %s: exit %d, %q; want 2 naming the well-known path", u, status, stderr)
		}
		if entries, _ := os.ReadDir(pins); len(entries) != 0 {
			t.Errorf("--trust %s pinned %d files", u, len(entries))
		}
	}
	stdout, stderr, status := runCLI(t, work, "proof", "verify", file, "--rpc", "http://"+rpcAddr, "--trust", in.URL+"/.well-known/seald-trust.json", "--trust-pin-dir", pins)
	if status != 0 {
		t.Errorf("--trust at the well-known path: exit %d, %s %s", status, stdout, stderr)
	}
}
