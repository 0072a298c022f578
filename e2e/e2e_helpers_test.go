package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"seald.dev/seald/httpapi"
	"seald.dev/seald/internal/openapicheck"
	"seald.dev/seald/mail"
)

// instance is one `seald serve`, the real binary run as a child process, on a free loopback port.
type instance struct {
	t       *testing.T
	URL     string
	DataDir string
	Sub     string // default tenant's subscription key
	API     string // default tenant's API key
	cmd     *exec.Cmd
	done    chan error
	mu      sync.Mutex
	logs    bytes.Buffer
	// check validates every request and response sent through call and callWith against openapi.json.
	check  *openapicheck.Checker
	client *http.Client
}

// startServe runs serve with the data dir and extra args, and only the variables of env (see childEnv), waits
// for it to listen and reads the default tenant's credentials. The test's end stops it as an operator does,
// with SIGTERM, and fails the test when it does not exit cleanly.
func startServe(t *testing.T, dataDir string, env map[string]string, extra ...string) *instance {
	t.Helper()
	bin := serveBinary(t)
	pr, pw := io.Pipe()
	in := &instance{t: t, DataDir: dataDir, done: make(chan error, 1)}
	in.httpClient()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--chain-rpc-addr", "",
		"--rate-limit", "0", "--batch-wait", "100ms", "--log-level", "info"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = childEnv(env)
	cmd.Stdout, cmd.Stderr = pw, &lockedWriter{in: in}
	cmd.WaitDelay = time.Minute
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in.cmd = cmd
	go func() {
		err := cmd.Wait()
		pw.CloseWithError(io.EOF)
		in.done <- err
	}()
	addr := regexp.MustCompile(`listening on (https?://\S+)`)
	sc := bufio.NewScanner(pr)
	found := make(chan string, 1)
	go func() {
		for sc.Scan() {
			if m := addr.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case in.URL = <-found:
	case err := <-in.done:
		in.cmd = nil
		t.Fatalf("serve stopped before listening: %v\n%s", err, in.logText())
	case <-time.After(90 * time.Second):
		in.stop()
		t.Fatalf("serve did not start\n%s", in.logText())
	}
	var creds map[string]string
	b, err := os.ReadFile(filepath.Join(dataDir, "credentials.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &creds); err != nil {
		t.Fatal(err)
	}
	in.Sub, in.API = creds["subscription_key"], creds["api_key"]
	t.Cleanup(func() { in.stop() })
	return in
}

type lockedWriter struct{ in *instance }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.in.mu.Lock()
	defer w.in.mu.Unlock()
	return w.in.logs.Write(p)
}

func (in *instance) logText() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.logs.String()
}

// stop sends serve SIGTERM and waits for its graceful exit; one that fails, reports a data race or takes
// more than two minutes (then it is killed) fails the test.
func (in *instance) stop() {
	if in.cmd == nil {
		return
	}
	cmd := in.cmd
	in.cmd = nil
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-in.done:
		if err != nil {
			in.t.Errorf("serve exited with %v\n%s", err, in.logText())
		}
	case <-time.After(2 * time.Minute):
		in.t.Error("serve did not stop within 2 minutes of SIGTERM")
		_ = cmd.Process.Kill()
		<-in.done
	}
	if strings.Contains(in.logText(), "WARNING: DATA RACE") {
		in.t.Errorf("serve reported a data race:\n%s", in.logText())
	}
}

// httpClient is the client of call and callWith: its transport checks every exchange against openapi.json,
// and the problems fail the test when it ends.
func (in *instance) httpClient() *http.Client {
	in.t.Helper()
	if in.client != nil {
		return in.client
	}
	check, err := openapicheck.New(httpapi.OpenAPI)
	if err != nil {
		in.t.Fatal(err)
	}
	in.check, in.client = check, &http.Client{Transport: check.Transport(nil)}
	t := in.t
	t.Cleanup(func() {
		for _, p := range check.Problems() {
			t.Errorf("openapi.json: %s", p)
		}
	})
	return in.client
}

// response is a decoded answer.
type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// call sends a request with the given keys (empty: header left out).
func (in *instance) call(method, path, sub, api, contentType string, body any) *response {
	in.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, in.URL+path, rd)
	if err != nil {
		in.t.Fatal(err)
	}
	if sub != "" {
		req.Header.Set("Ocp-Apim-Subscription-Key", sub)
	}
	if api != "" {
		req.Header.Set("Api-Key", api)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := in.httpClient().Do(req)
	if err != nil {
		in.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := &response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" && strings.HasPrefix(path, "/ipfs/") == false && !strings.HasPrefix(path, "/v/") {
		in.t.Errorf("%s %s: Content-Type %q, want application/json; charset=utf-8", method, path, ct)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		in.t.Errorf("%s %s: no X-Request-Id", method, path)
	}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// get and post call with the default tenant's keys.
func (in *instance) get(path string) *response {
	in.t.Helper()
	return in.call("GET", path, in.Sub, in.API, "", nil)
}

func (in *instance) post(path string, body any) *response {
	in.t.Helper()
	return in.call("POST", path, in.Sub, in.API, "application/json", body)
}

// field digs a dotted path out of a decoded body.
func field(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func str(v any, path string) string {
	s, _ := field(v, path).(string)
	return s
}

// waitState polls the status operation until the record reaches want (or FAILED), and returns its record.
func (in *instance) waitState(ref, want string, timeout time.Duration) map[string]any {
	in.t.Helper()
	deadline := time.Now().Add(timeout)
	var last map[string]any
	for time.Now().Before(deadline) {
		r := in.get("/authentication-status/get/status?reference=" + ref)
		if r.Status != 200 {
			in.t.Fatalf("status of %s: %d %s", ref, r.Status, r.Raw)
		}
		last, _ = r.Body["data"].(map[string]any)
		if s := str(last, "state"); s == want || (s == "FAILED" && want != "FAILED") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := str(last, "state"); got != want {
		in.t.Fatalf("record %s: state %s, want %s (record %v)\n%s", ref, got, want, last, in.logText())
	}
	return last
}

// callWith sends a request with the default keys and extra headers; a body is sent as JSON.
func (in *instance) callWith(method, path string, headers map[string]string, body any) *response {
	in.t.Helper()
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, in.URL+path, rd)
	if err != nil {
		in.t.Fatal(err)
	}
	req.Header.Set("Ocp-Apim-Subscription-Key", in.Sub)
	req.Header.Set("Api-Key", in.API)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := in.httpClient().Do(req)
	if err != nil {
		in.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := &response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// outboxMessages returns the messages of the data dir's outbox (its mbox) whose append has completed.
func outboxMessages(t *testing.T, dataDir string) []mail.Message {
	t.Helper()
	msgs, err := mail.Messages(filepath.Join(dataDir, "outbox"))
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
