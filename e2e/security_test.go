package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"seald.dev/seald/httpapi"
)

// TestTenantIsolationMatrix runs every operation that names a record (and those on a generator record), as a caller of the record's own
// business and as one of another business, on a PUBLIC and a PRIVATE record, through HTTP against the
// real server. Verification follows privacy (another business sees PUBLIC records, not PRIVATE ones: 404,
// never 403, so that existence does not leak); the status record, status changes and download are for the
// owner only, whatever the privacy. No answer carries a key.
func TestTenantIsolationMatrix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	pub := tenant(t, dir, "--business", "Owner Co", "--project", "Public", "--privacy", "PUBLIC")
	priv := tenant(t, dir, "--business", "Owner Co", "--project", "Private", "--privacy", "PRIVATE")
	other := tenant(t, dir, "--business", "Other Co", "--project", "Any", "--privacy", "PUBLIC")
	allKeys := []string{in.Sub, in.API, pub["subscription_key"], pub["api_key"], priv["api_key"], other["subscription_key"], other["api_key"]}

	type sealed struct {
		ref, hash, cid, token, ovi string
		genRef, genOVI             string // a generator (I-) record of the same project
		data                       map[string]any
	}
	seal := func(keys map[string]string, privacy string) sealed {
		data := map[string]any{"privacy": privacy, "matrix": true}
		r := in.call("POST", authPath, keys["subscription_key"], keys["api_key"], "application/json",
			map[string]any{"data": data, "to": "a@example.com", "encrypted_reference": true})
		if r.Status != 201 {
			t.Fatalf("seal %s: %d %s", privacy, r.Status, r.Raw)
		}
		s := sealed{ref: str(r.Body, "data.reference"), hash: str(r.Body, "data.hash"), ovi: str(r.Body, "data.ovi"), data: data}
		g := in.call("POST", "/svc-file/api/v1/ovi/generator", keys["subscription_key"], keys["api_key"], "application/json",
			map[string]any{"data": map[string]any{"generator": privacy}})
		if g.Status != 201 {
			t.Fatalf("generator %s: %d %s", privacy, g.Status, g.Raw)
		}
		s.genRef, s.genOVI = str(g.Body, "data.reference"), str(g.Body, "data.encrypted_ovi")
		in.waitState(s.genRef, "COMPLETED", 60*time.Second)
		in.waitState(s.ref, "COMPLETED", 60*time.Second)
		st := in.call("GET", statusPath+"?reference="+s.ref, keys["subscription_key"], keys["api_key"], "", nil)
		s.cid, s.token = str(st.Body, "data.cid"), str(st.Body, "data.token_id")
		if s.cid == "" || s.token == "" || s.ovi == "" {
			t.Fatalf("%s record incomplete: %s (ovi %q)", privacy, st.Raw, s.ovi)
		}
		return s
	}
	// waitState asks with the instance's keys: lend it the owner's while its record completes.
	records := map[string]sealed{}
	for privacy, keys := range map[string]map[string]string{"PUBLIC": pub, "PRIVATE": priv} {
		records[privacy] = func() sealed {
			saved := [2]string{in.Sub, in.API}
			in.Sub, in.API = keys["subscription_key"], keys["api_key"]
			defer func() { in.Sub, in.API = saved[0], saved[1] }()
			return seal(keys, privacy)
		}()
	}

	type op struct {
		name   string
		method string
		path   func(s sealed) string
		body   func(s sealed) any
		owner  bool // only the owner's business may use it
	}
	ops := []op{
		{"verify reference", "GET", func(s sealed) string { return verifyBase + "reference?reference=" + s.ref }, nil, false},
		{"verify hash", "GET", func(s sealed) string { return verifyBase + "hash?hash=" + s.hash }, nil, false},
		{"verify cid", "GET", func(s sealed) string { return verifyBase + "cid?cid=" + s.cid }, nil, false},
		{"verify token-id", "GET", func(s sealed) string { return verifyBase + "token-id?token_id=" + s.token + "&blockchain=POLYGON" }, nil, false},
		{"verify data", "POST", func(sealed) string { return verifyBase + "data" }, func(s sealed) any { return map[string]any{"data": s.data} }, false},
		{"verify ovi", "GET", func(s sealed) string { return verifyBase + "ovi?ovi=" + url.QueryEscape(s.ovi) }, nil, false},
		{"verify generator ovi", "GET", func(s sealed) string { return verifyBase + "ovi?ovi=" + url.QueryEscape(s.genOVI) }, nil, false},
		{"verify generator reference", "GET", func(s sealed) string { return verifyBase + "reference?reference=" + s.genRef }, nil, false},
		{"generator status", "GET", func(s sealed) string { return statusPath + "?reference=" + s.genRef }, nil, true},
		{"proof", "GET", func(s sealed) string { return verifyBase + "reference?proof=1&reference=" + s.ref }, nil, false},
		{"status", "GET", func(s sealed) string { return statusPath + "?reference=" + s.ref }, nil, true},
		{"update status", "PUT", func(sealed) string { return "/authentication-status/update/status" },
			func(s sealed) any { return map[string]any{"reference": s.ref, "status": "ACTIVE"} }, true},
		{"download", "GET", func(s sealed) string { return "/svc-data/data/download?reference=" + s.ref }, nil, true},
	}
	callers := map[string]map[string]string{"own business": pub, "own business, other project": priv, "other business": other}
	rows := 0
	for _, privacy := range []string{"PUBLIC", "PRIVATE"} {
		rec := records[privacy]
		for callerName, keys := range callers {
			for _, o := range ops {
				want := 200
				if callerName == "other business" && (o.owner || privacy == "PRIVATE") {
					want = 404
				}
				var body any
				ct := ""
				if o.body != nil {
					body, ct = o.body(rec), "application/json"
				}
				r := in.call(o.method, o.path(rec), keys["subscription_key"], keys["api_key"], ct, body)
				rows++
				if r.Status != want {
					t.Errorf("%s of a %s record by the %s: %d, want %d: %s", o.name, privacy, callerName, r.Status, want, r.Raw)
				}
				if want == 404 {
					// A 404 may echo what the caller gave, nothing more of the record.
					asked := o.path(rec) + fmt.Sprint(body)
					for _, id := range []string{rec.ref, rec.hash, rec.cid} {
						if bytes.Contains(r.Raw, []byte(id)) && !strings.Contains(asked, id) {
							t.Errorf("%s of a %s record by the %s: the 404 leaks %s: %s", o.name, privacy, callerName, id, r.Raw)
						}
					}
				}
				for _, k := range allKeys {
					if bytes.Contains(r.Raw, []byte(k)) {
						t.Errorf("%s: an answer carries a key", o.name)
					}
				}
			}
		}
	}
	t.Logf("isolation matrix: %d operations x %d callers x 2 privacies = %d requests", len(ops), len(callers), rows)

	// Keys never appear in the logs, nor in the operator's key listing after they were issued.
	logs := in.logText()
	var list bytes.Buffer
	if err := run(t.Context(), []string{"key", "list", "--data-dir", dir, "--json"}, func(string) string { return "" }, &list, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, k := range allKeys {
		if strings.Contains(logs, k) || strings.Contains(logs, k[len(k)/2:]) {
			t.Error("a key (or its second half) appears in the logs")
		}
		if strings.Contains(list.String(), k) {
			t.Error("key list shows a key's secret")
		}
	}
}

// TestAuthFailuresSlowedDown: one address that keeps presenting wrong keys is answered 429 with Retry-After
// once past a burst; its right keys are still served.
func TestAuthFailuresSlowedDown(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil)
	codes := map[int]int{}
	var limited *response
	for i := range 60 {
		r := in.call("GET", verifyBase+"hash?hash="+strings.Repeat("0", 64), in.Sub, fmt.Sprintf("wrong-key-%d", i), "", nil)
		codes[r.Status]++
		if r.Status == 429 && limited == nil {
			limited = r
		}
	}
	if codes[401] == 0 || limited == nil || codes[401]+codes[429] != 60 {
		t.Fatalf("wrong keys: %v, want 401s then 429s", codes)
	}
	// 30 failures a minute refill one token every 2 s: Retry-After is the time to the next one (2 s right
	// after the burst, 1 s once half of it has passed).
	if ra := limited.Header.Get("Retry-After"); (ra != "2" && ra != "1") || limited.Body["success"] != false {
		t.Errorf("429 without Retry-After or envelope: %v %s", limited.Header, limited.Raw)
	}
	// Right keys are served even from the blocked address: a client behind the same proxy as the one that
	// failed must not be locked out (issue 15), and 256-bit keys are not guessed either way.
	if r := in.get(verifyBase + "hash?hash=" + strings.Repeat("0", 64)); r.Status != 404 {
		t.Errorf("right keys from the blocked address: %d, want 404 (served)", r.Status)
	}
	t.Logf("60 wrong keys from one address: %v", codes)
}

// TestHeaderInjection: CR or LF in a member that ends up in an e-mail header is refused with 400 naming the
// member; a client's X-Request-Id that is not plain safe text is replaced by the server's own.
func TestHeaderInjection(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil)
	for _, c := range []struct{ member, value string }{
		{"subject", "Hello\r\nBcc: victim@example.com"},
		{"subject", "Hello\nX-Injected: 1"},
		{"to", "a@example.com\r\nBcc: victim@example.com"},
		{"to", "a@example.com\nCc: victim@example.com"},
		{"cc", "b@example.com\r\nBcc: victim@example.com"},
		{"to", "\"Evil\r\nBcc: v@example.com\" <a@example.com>"},
	} {
		body := map[string]any{"data": map[string]any{"x": 1}, "to": "a@example.com"}
		body[c.member] = c.value
		r := in.post(authPath, body)
		if r.Status != 400 || !strings.Contains(str(r.Body, "error"), c.member) {
			t.Errorf("%s = %q: %d %s, want 400 naming %s", c.member, c.value, r.Status, r.Raw, c.member)
		}
	}
	for _, id := range []string{"<script>alert(1)</script>", "a b", strings.Repeat("x", 129), "é", "a;b=c", "%0d%0aSet-Cookie:x"} {
		r := in.callWith("GET", "/healthz", map[string]string{"X-Request-Id": id}, nil)
		if got := r.Header.Get("X-Request-Id"); got == id || got == "" || len(got) > 128 {
			t.Errorf("X-Request-Id %q kept as %q", id, got)
		}
	}
	// A raw CR inside a header value never reaches a handler: net/http refuses the request.
	conn, err := net.Dial("tcp", strings.TrimPrefix(in.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\rSet-Cookie: x\r\n\r\n")
	reply, _ := io.ReadAll(io.LimitReader(conn, 4096))
	if !bytes.HasPrefix(reply, []byte("HTTP/1.1 400")) || bytes.Contains(reply, []byte("Set-Cookie")) {
		t.Errorf("a header with a bare CR: %q", reply)
	}
}

// TestDeepAndHugeJSON: on every route that takes a body, JSON nested deeper than the limit is a 400 naming
// the limit, and a body over --body-limit is a 413, each in the operation's envelope.
func TestDeepAndHugeJSON(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil, "--body-limit", "65536")
	routes := []struct{ method, path string }{
		{"POST", authPath},
		{"POST", "/svc-data/data/authentication/ipfs/sm-eos/email"},
		{"POST", verifyBase + "data"},
		{"POST", "/svc-file/api/v1/ovi/generator"},
		{"PUT", "/authentication-status/update/status"},
	}
	deepData := `{"data":` + strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200) + `,"to":"a@example.com"}`
	deepOther := `{"data":{"a":1},"to":"a@example.com","reference":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`
	huge := `{"data":{"a":"` + strings.Repeat("x", 70000) + `"},"to":"a@example.com"}`
	for _, rt := range routes {
		for name, body := range map[string]string{"deep data": deepData, "deep member": deepOther} {
			r := in.call(rt.method, rt.path, in.Sub, in.API, "application/json", body)
			if r.Status != 400 || !strings.Contains(string(r.Raw), fmt.Sprint(httpapi.MaxDepth)) {
				t.Errorf("%s %s, %s: %d %s, want 400 naming the limit %d", rt.method, rt.path, name, r.Status, r.Raw, httpapi.MaxDepth)
			}
		}
		r := in.call(rt.method, rt.path, in.Sub, in.API, "application/json", huge)
		if r.Status != 413 || r.Body["success"] != false {
			t.Errorf("%s %s, huge body: %d %s, want 413", rt.method, rt.path, r.Status, r.Raw)
		}
	}
	// At the limit of the canonicalizer, data is accepted.
	ok := `{"data":` + strings.Repeat(`{"a":`, 128) + "1" + strings.Repeat("}", 128) + `,"to":"a@example.com"}`
	if r := in.call("POST", authPath, in.Sub, in.API, "application/json", ok); r.Status != 201 {
		t.Errorf("data nested 128 deep: %d %s", r.Status, r.Raw)
	}
}

// TestSlowClients: a client that sends its headers (or its body) a byte at a time, slower than the server's
// timeouts, has its connection closed by the server. The timeouts are shortened for the test; what is
// asserted is that the server ends the connection, not how fast.
func TestSlowClients(t *testing.T) {
	t.Parallel()
	saved := httpapi.Timeouts
	t.Cleanup(func() { httpapi.Timeouts = saved })
	httpapi.Timeouts.ReadHeader, httpapi.Timeouts.Read = 500*time.Millisecond, time.Second
	in := startServe(t, t.TempDir(), nil)
	addr := strings.TrimPrefix(in.URL, "http://")

	dribble := func(t *testing.T, preamble, slow string) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, preamble); err != nil {
			t.Fatal(err)
		}
		go func() {
			for i := 0; i < len(slow); i++ {
				if _, err := conn.Write([]byte{slow[i]}); err != nil {
					return // the server closed the connection
				}
				time.Sleep(200 * time.Millisecond)
			}
		}()
		// The read ends when the server closes the connection; the deadline is only a safety net, far
		// beyond the server's timeouts, and reaching it fails the test.
		_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		_, err = io.ReadAll(conn)
		var ne net.Error
		if err != nil && (os.IsTimeout(err) || (errors.As(err, &ne) && ne.Timeout())) {
			t.Fatalf("the server kept a slow client's connection open")
		}
	}
	t.Run("headers", func(t *testing.T) {
		dribble(t, "GET /healthz HTTP/1.1\r\n", "Host: x\r\nX-Slow: "+strings.Repeat("a", 500)+"\r\n\r\n")
	})
	t.Run("body", func(t *testing.T) {
		body := `{"data":{"a":1},"to":"a@example.com"}` + strings.Repeat(" ", 500)
		dribble(t, fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nOcp-Apim-Subscription-Key: %s\r\nApi-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
			authPath, in.Sub, in.API, len(body)), body)
	})
	// The server still serves others.
	if r := in.get("/healthz"); r.Status != http.StatusOK {
		t.Errorf("healthz after slow clients: %d", r.Status)
	}
}

// TestDataDirFilesPrivate: after a run with records sealed and mailed, every file holding a secret, key or
// recipient is 0600 and the data dir 0700.
func TestDataDirFilesPrivate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	in := startServe(t, dir, nil)
	r := in.post(authPath, map[string]any{"data": map[string]any{"a": 1}, "to": "a@example.com"})
	in.waitState(str(r.Body, "data.reference"), "COMPLETED", 60*time.Second)
	in.stop()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir: %v %v, want 0700", fi.Mode().Perm(), err)
	}
	checked := 0
	_ = filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		secret := rel == "secrets.json" || rel == "credentials.json" ||
			strings.HasSuffix(rel, ".key") || strings.HasPrefix(rel, "outbox"+string(filepath.Separator)) || strings.HasPrefix(rel, "seald.db")
		if secret {
			checked++
			if fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s has mode %v: others can read it", rel, fi.Mode().Perm())
			}
		}
		return nil
	})
	if checked < 4 {
		t.Errorf("only %d secret files found", checked)
	}
}
