package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	stripewebhook "github.com/stripe/stripe-go/v84/webhook"
)

// receiver is a real HTTP endpoint on loopback that records every delivery and checks its signatures with
// this test's own verifier, written from docs/webhooks.md, with the official Standard Webhooks library and
// with Stripe's (Seald-Signature given to it as Stripe-Signature).
type receiver struct {
	t      *testing.T
	srv    *http.Server
	URL    string
	mu     sync.Mutex
	secret string
	got    []delivered
	// hold, when set, makes the first delivery wait: arrived is closed when it comes, release lets it answer.
	hold    bool
	arrived chan struct{}
	release chan struct{}
}

// delivered is one request the receiver got.
type delivered struct {
	HeaderID string
	ID       string
	Type     string
	Data     map[string]any
	SigOK    bool
	// StandardOK and StripeOK: the libraries accept the delivery; TamperRefused: both refuse it once a byte
	// of its body is changed.
	StandardOK, StripeOK, TamperRefused bool
}

// startReceiver serves on addr ("127.0.0.1:0" for any port).
func startReceiver(t *testing.T, addr string) *receiver {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return serveReceiver(t, ln)
}

// serveReceiver is startReceiver on a listener the caller opened.
func serveReceiver(t *testing.T, ln net.Listener) *receiver {
	t.Helper()
	r := &receiver{t: t, URL: "http://" + ln.Addr().String() + "/hook", arrived: make(chan struct{}), release: make(chan struct{})}
	first := true
	r.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var ev struct {
			ID   string         `json:"id"`
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &ev)
		r.mu.Lock()
		d := delivered{HeaderID: req.Header.Get("Seald-Event-Id"), ID: ev.ID, Type: ev.Type, Data: ev.Data,
			SigOK: verifySignature(r.secret, req.Header.Get("Seald-Signature"), body, time.Now())}
		if std, err := standardwebhooks.NewWebhook(r.secret); err == nil && len(body) > 0 {
			sig := req.Header.Get("Seald-Signature")
			d.StandardOK = std.Verify(body, req.Header) == nil
			d.StripeOK = stripewebhook.ValidatePayload(body, sig, r.secret) == nil
			tampered := append([]byte(nil), body...)
			tampered[len(tampered)/2] ^= 1
			d.TamperRefused = std.Verify(tampered, req.Header) != nil && stripewebhook.ValidatePayload(tampered, sig, r.secret) != nil
		}
		r.got = append(r.got, d)
		wait := r.hold && first
		first = false
		r.mu.Unlock()
		if wait {
			close(r.arrived)
			<-r.release
		}
		w.WriteHeader(http.StatusOK)
	})}
	go func() { _ = r.srv.Serve(ln) }()
	t.Cleanup(func() { r.close() })
	return r
}

func (r *receiver) close() {
	select {
	case <-r.release:
	default:
		if r.hold {
			close(r.release)
		}
	}
	_ = r.srv.Close()
}

func (r *receiver) setSecret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = s
}

func (r *receiver) deliveries() []delivered {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivered(nil), r.got...)
}

// verifySignature checks "t=<unix>,v1=<hex>": HMAC-SHA256 keyed with the secret over "<t>.<body>", and a
// timestamp within five minutes of now.
func verifySignature(secret, header string, body []byte, now time.Time) bool {
	var ts int64 = -1
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			fmt.Sscan(v, &ts)
		case "v1":
			sigs = append(sigs, v)
		}
	}
	if ts < 0 || now.Sub(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%d.", ts)
	mac.Write(body)
	want := hex.EncodeToString(mac.Sum(nil))
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			return true
		}
	}
	return false
}

// waitFor polls cond until it holds, failing the test with what after a generous deadline (no timing is
// asserted: the deadline only stops a hung test).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// addWebhook registers url for the instance's project and returns the webhook's id and secret.
func addWebhook(t *testing.T, in *instance, url string, events ...string) (string, string) {
	t.Helper()
	body := map[string]any{"url": url}
	if len(events) > 0 {
		body["events"] = events
	}
	r := in.post("/webhooks", body)
	if r.Status != 201 || !strings.HasPrefix(str(r.Body, "data.secret"), "whsec_") || !strings.HasPrefix(str(r.Body, "data.id"), "wh_") {
		t.Fatalf("POST /webhooks: %d %s", r.Status, r.Raw)
	}
	return str(r.Body, "data.id"), str(r.Body, "data.secret")
}

// deliveriesOf lists a webhook's deliveries through the API.
func deliveriesOf(t *testing.T, in *instance, id string) []map[string]any {
	t.Helper()
	r := in.get("/webhooks/" + id + "/deliveries")
	if r.Status != 200 {
		t.Fatalf("deliveries of %s: %d %s", id, r.Status, r.Raw)
	}
	var out []map[string]any
	for _, d := range field(r.Body, "data.deliveries").([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

func seal(t *testing.T, in *instance, n int) string {
	t.Helper()
	r := in.post(authPath, map[string]any{"data": map[string]any{"webhook": n, "at": time.Now().Format(time.RFC3339Nano)}, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("seal: %d %s", r.Status, r.Raw)
	}
	return str(r.Body, "data.reference")
}

// TestWebhooks runs the real binary with a real receiver on loopback: a COMPLETED record and a status change
// are delivered with a signature the receiver's own check accepts and the event id in header and body; the
// deliveries are listed with their attempts and answer; a replay sends the same event id; another business
// gets 404 for every webhook operation; a URL of another scheme is a 400 naming url; the CLI does the same.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	dir := t.TempDir()
	p := startProcess(t, bin, dir, nil, "--webhook-allow", "127.0.0.1/32", "--webhook-retry-min", "50ms", "--webhook-retry-max", "500ms")
	in := p.in
	rcv := startReceiver(t, "127.0.0.1:0")

	for _, bad := range []string{"ftp://127.0.0.1/hook", "file:///etc/passwd", "javascript:alert(1)", "not a url"} {
		r := in.post("/webhooks", map[string]any{"url": bad})
		if r.Status != 400 || !strings.Contains(str(r.Body, "error"), "url") {
			t.Errorf("POST /webhooks url %q: %d %s, want 400 naming url", bad, r.Status, r.Raw)
		}
	}
	if r := in.post("/webhooks", map[string]any{"url": "http://10.0.0.1/hook"}); r.Status != 400 || !strings.Contains(str(r.Body, "error"), "--webhook-allow") {
		t.Errorf("POST /webhooks to a private address not allowed: %d %s, want 400 naming --webhook-allow", r.Status, r.Raw)
	}
	if r := in.post("/webhooks", map[string]any{"url": rcv.URL, "events": []string{"record.nope"}}); r.Status != 400 || !strings.Contains(str(r.Body, "error"), "events") {
		t.Errorf("POST /webhooks with an unknown event: %d %s", r.Status, r.Raw)
	}

	id, secret := addWebhook(t, in, rcv.URL)
	rcv.setSecret(secret)
	if r := in.get("/webhooks"); r.Status != 200 || str(field(r.Body, "data.webhooks").([]any)[0], "id") != id ||
		strings.Contains(string(r.Raw), secret) {
		t.Errorf("GET /webhooks: %d %s, want the webhook without its secret", r.Status, r.Raw)
	}

	ref := seal(t, in, 1)
	in.waitState(ref, "COMPLETED", 3*time.Minute)
	var completed delivered
	waitFor(t, "the record.completed delivery", func() bool {
		for _, d := range rcv.deliveries() {
			if d.Type == "record.completed" && d.Data["reference"] == ref {
				completed = d
				return true
			}
		}
		return false
	})
	if !completed.SigOK || !strings.HasPrefix(completed.ID, "evt_") || completed.HeaderID != completed.ID ||
		completed.Data["state"] != "COMPLETED" || completed.Data["token_id"] == nil {
		t.Errorf("record.completed delivery = %+v: want a valid signature, evt_ id in header and body, state and token", completed)
	}
	if !completed.StandardOK || !completed.StripeOK || !completed.TamperRefused {
		t.Errorf("record.completed delivery: Standard Webhooks' library accepts it %v, Stripe's %v, both refuse it tampered %v",
			completed.StandardOK, completed.StripeOK, completed.TamperRefused)
	}

	if r := in.callWith("PUT", "/authentication-status/update/status", nil, map[string]any{"reference": ref, "status": "SUSPENDED", "reason": "checking"}); r.Status != 200 {
		t.Fatalf("suspend: %d %s", r.Status, r.Raw)
	}
	waitFor(t, "the record.status_changed delivery", func() bool {
		for _, d := range rcv.deliveries() {
			if d.Type == "record.status_changed" && d.Data["status"] == "SUSPENDED" && d.Data["previous_status"] == "ACTIVE" &&
				d.Data["reason"] == "checking" && d.SigOK && d.StandardOK && d.StripeOK && d.TamperRefused && d.HeaderID == d.ID {
				return true
			}
		}
		return false
	})

	var first map[string]any
	waitFor(t, "the completed delivery listed as DELIVERED", func() bool {
		for _, d := range deliveriesOf(t, in, id) {
			if d["event_id"] == completed.ID && d["state"] == "DELIVERED" {
				first = d
				return true
			}
		}
		return false
	})
	if first["attempts"] != float64(1) || first["last_status_code"] != float64(200) || first["last_attempt_at"] == nil || first["next_attempt_at"] != nil {
		t.Errorf("delivered delivery = %v", first)
	}

	r := in.post("/webhooks/deliveries/"+str(first, "id")+"/replay", nil)
	if r.Status != 201 || str(r.Body, "data.event_id") != completed.ID || str(r.Body, "data.id") == str(first, "id") {
		t.Fatalf("replay: %d %s", r.Status, r.Raw)
	}
	waitFor(t, "the replay", func() bool {
		n := 0
		for _, d := range rcv.deliveries() {
			if d.ID == completed.ID && d.SigOK && d.StandardOK && d.StripeOK {
				n++
			}
		}
		return n == 2
	})

	// Another business: every webhook operation on this one is 404, and it sees none.
	out, err := exec.Command(bin, "tenant", "create", "--business", "Other", "--project", "Theirs", "--json", "--data-dir", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("tenant create: %v %s", err, out)
	}
	var other map[string]string
	if err := json.Unmarshal(out, &other); err != nil {
		t.Fatalf("tenant create output %s: %v", out, err)
	}
	osub, oapi := other["subscription_key"], other["api_key"]
	for _, c := range []struct{ method, path string }{
		{"DELETE", "/webhooks/" + id}, {"GET", "/webhooks/" + id + "/deliveries"},
		{"POST", "/webhooks/deliveries/" + str(first, "id") + "/replay"},
	} {
		if r := in.call(c.method, c.path, osub, oapi, "", nil); r.Status != 404 {
			t.Errorf("%s %s with another business's keys: %d %s, want 404", c.method, c.path, r.Status, r.Raw)
		}
	}
	if r := in.call("GET", "/webhooks", osub, oapi, "", nil); r.Status != 200 || len(field(r.Body, "data.webhooks").([]any)) != 0 {
		t.Errorf("GET /webhooks of another business: %d %s, want none", r.Status, r.Raw)
	}
	if r := in.call("GET", "/webhooks", "", "", "", nil); r.Status != 401 {
		t.Errorf("GET /webhooks without keys: %d", r.Status)
	}

	// The CLI, through the API.
	cli := func(args ...string) (string, error) {
		all := append(args, "--url", in.URL, "--subscription-key", in.Sub, "--api-key", in.API)
		out, err := exec.Command(bin, all...).CombinedOutput()
		return string(out), err
	}
	if out, err := cli("webhook", "list"); err != nil || !strings.Contains(out, id) || !strings.Contains(out, rcv.URL) {
		t.Errorf("webhook list: %v\n%s", err, out)
	}
	if out, err := cli("webhook", "deliveries", id); err != nil || !strings.Contains(out, completed.ID) || !strings.Contains(out, "DELIVERED") {
		t.Errorf("webhook deliveries: %v\n%s", err, out)
	}
	if out, err := cli("webhook", "replay", str(first, "id")); err != nil || !strings.Contains(out, completed.ID) {
		t.Errorf("webhook replay: %v\n%s", err, out)
	}
	if out, err := cli("webhook", "add", "gopher://x/"); err == nil || !strings.Contains(out, "url") {
		t.Errorf("webhook add gopher://: %v\n%s", err, out)
	}
	out2, err := cli("webhook", "add", rcv.URL, "--events", "record.failed", "--json")
	var added map[string]any
	if err != nil || json.Unmarshal([]byte(out2), &added) != nil || added["events"].([]any)[0] != "record.failed" {
		t.Errorf("webhook add --json: %v\n%s", err, out2)
	}
	if out, err := cli("webhook", "rm", id); err != nil || !strings.Contains(out, id) {
		t.Errorf("webhook rm: %v\n%s", err, out)
	}
	if out, err := cli("webhook", "rm", id); err == nil || !strings.Contains(out, id) {
		t.Errorf("webhook rm twice: %v\n%s, want an error naming the webhook", err, out)
	}
	if out, err := cli("webhook", "list"); err != nil || strings.Contains(out, id) {
		t.Errorf("webhook list after rm: %v\n%s", err, out)
	}
}

// TestWebhookReceiverDownThenUp: while the receiver is down the delivery is retried, visibly (attempts, the
// error, the next try); once it is up the event arrives with the id the listing showed.
func TestWebhookReceiverDownThenUp(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	p := startProcess(t, bin, t.TempDir(), nil, "--webhook-allow", "127.0.0.1/32", "--webhook-retry-min", "50ms", "--webhook-retry-max", "300ms")
	in := p.in
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // down: nothing listens there
	id, secret := addWebhook(t, in, "http://"+addr+"/hook", "record.completed")
	ref := seal(t, in, 2)
	in.waitState(ref, "COMPLETED", 3*time.Minute)

	var pending map[string]any
	waitFor(t, "failed attempts listed", func() bool {
		ds := deliveriesOf(t, in, id)
		if len(ds) == 1 && ds[0]["state"] == "PENDING" && ds[0]["attempts"].(float64) >= 2 && str(ds[0], "last_error") != "" &&
			str(ds[0], "next_attempt_at") != "" && ds[0]["last_status_code"] == nil {
			pending = ds[0]
			return true
		}
		return false
	})
	rcv := startReceiver(t, addr) // up
	rcv.setSecret(secret)
	waitFor(t, "the delivery after the receiver came up", func() bool {
		ds := deliveriesOf(t, in, id)
		return len(ds) == 1 && ds[0]["state"] == "DELIVERED"
	})
	got := rcv.deliveries()
	if len(got) == 0 || got[0].ID != str(pending, "event_id") || !got[0].SigOK || got[0].Data["reference"] != ref {
		t.Errorf("received %+v, want the event %s of %s, signed", got, str(pending, "event_id"), ref)
	}
	for _, d := range got {
		if d.ID != got[0].ID {
			t.Errorf("received another event %s", d.ID)
		}
	}
}

// TestWebhookKill9MidDelivery: seald is killed with SIGKILL while the receiver holds a delivery open, then
// started again. Every record's completion is received, none lost; a repeat carries the same event id.
func TestWebhookKill9MidDelivery(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	dir := t.TempDir()
	args := []string{"--webhook-allow", "127.0.0.1/32", "--webhook-retry-min", "50ms", "--webhook-retry-max", "300ms"}
	p := startProcess(t, bin, dir, nil, args...)
	rcv := startReceiver(t, "127.0.0.1:0")
	rcv.hold = true
	_, secret := addWebhook(t, p.in, rcv.URL, "record.completed")
	rcv.setSecret(secret)
	const n = 6
	var refs []string
	for i := range n {
		refs = append(refs, seal(t, p.in, 100+i))
	}
	select {
	case <-rcv.arrived:
	case <-time.After(3 * time.Minute):
		t.Fatalf("no delivery arrived\n%s", p.in.logText())
	}
	p.kill()
	close(rcv.release)
	held := rcv.deliveries()[0]

	p2 := startProcess(t, bin, dir, nil, args...)
	for _, ref := range refs {
		p2.in.waitState(ref, "COMPLETED", 3*time.Minute)
	}
	byRef := map[string]map[string]int{} // reference -> event id -> deliveries received
	waitFor(t, "a completion event of every record", func() bool {
		clear(byRef)
		for _, d := range rcv.deliveries() {
			ref, _ := d.Data["reference"].(string)
			if byRef[ref] == nil {
				byRef[ref] = map[string]int{}
			}
			byRef[ref][d.ID]++
		}
		for _, ref := range refs {
			if len(byRef[ref]) == 0 {
				return false
			}
		}
		return byRef[held.Data["reference"].(string)][held.ID] >= 2
	})
	for _, d := range rcv.deliveries() {
		if !d.SigOK || d.HeaderID != d.ID || d.Type != "record.completed" {
			t.Errorf("delivery %+v: want a valid signature and the event id in header and body", d)
		}
	}
	for _, ref := range refs {
		if len(byRef[ref]) != 1 {
			t.Errorf("record %s: events %v, want one event id (repeats only with the same id)", ref, byRef[ref])
		}
	}
	if len(byRef) != n {
		t.Errorf("events for %d references, want %d: %v", len(byRef), n, byRef)
	}
}

// TestWebhookRetriesThenFails: an endpoint that always answers 500 is retried until --webhook-retry-for has
// passed since the event, then the delivery is FAILED, with its attempts and the last answer visible.
func TestWebhookRetriesThenFails(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	p := startProcess(t, bin, t.TempDir(), nil, "--webhook-allow", "127.0.0.1/32", "--webhook-retry-min", "20ms",
		"--webhook-retry-max", "100ms", "--webhook-retry-for", "1s")
	var mu sync.Mutex
	calls := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	id, _ := addWebhook(t, p.in, "http://"+ln.Addr().String()+"/hook", "record.completed")
	ref := seal(t, p.in, 3)
	p.in.waitState(ref, "COMPLETED", 3*time.Minute)
	var failed map[string]any
	waitFor(t, "the delivery marked FAILED", func() bool {
		ds := deliveriesOf(t, p.in, id)
		if len(ds) == 1 && ds[0]["state"] == "FAILED" {
			failed = ds[0]
			return true
		}
		return false
	})
	mu.Lock()
	n := calls
	mu.Unlock()
	if failed["attempts"].(float64) < 2 || failed["last_status_code"] != float64(500) || str(failed, "last_error") == "" ||
		failed["next_attempt_at"] != nil || int(failed["attempts"].(float64)) != n {
		t.Errorf("failed delivery = %v after %d calls: want several attempts, each received, the last answer 500", failed, n)
	}
}
