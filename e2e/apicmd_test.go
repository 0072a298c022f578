package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPICommands drives verify, seal and status through the binary against a running serve, as a user
// would from a shell: keys from the data dir's credentials.json, or from the environment.
func TestAPICommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	// The commands' traffic is checked against openapi.json too: they reach serve through a proxy whose
	// transport checks every exchange, as call's does.
	target, err := url.Parse(in.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport: in.check.Transport(nil),
	})
	t.Cleanup(proxy.Close)
	env := map[string]string{}
	cli := func(args ...string) (string, string, error) {
		t.Helper()
		var out, errb bytes.Buffer
		err := run(t.Context(), args, func(k string) string { return env[k] }, &out, &errb)
		return out.String(), errb.String(), err
	}
	conn := []string{"--url", proxy.URL, "--data-dir", dir}

	// Twenty records, the seventh without a recipient.
	var jsonl strings.Builder
	for i := 1; i <= 20; i++ {
		if i == 7 {
			fmt.Fprintf(&jsonl, `{"data":{"n":%d}}`+"\n", i)
			continue
		}
		fmt.Fprintf(&jsonl, `{"data":{"invoice":"INV-%d","n":%d},"to":"r%d@example.com","subject":"bulk","unknown":1}`+"\n", i, i, i)
		if i == 10 {
			jsonl.WriteString("\n") // blank lines are skipped, and line numbers still count them
		}
	}
	file := filepath.Join(t.TempDir(), "records.jsonl")
	refsFile := filepath.Join(t.TempDir(), "refs.jsonl")
	if err := os.WriteFile(file, []byte(jsonl.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	var refs []map[string]any
	t.Run("seal in bulk", func(t *testing.T) {
		out, errOut, err := cli(append([]string{"seal", "--file", file, "--concurrency", "4", "--out", refsFile}, conn...)...)
		if err == nil || !strings.Contains(err.Error(), "1 of 20") {
			t.Errorf("seal with a bad line: err %v", err)
		}
		// With --out the references go to the file, and the summary, a message, to stderr.
		if out != "" || !strings.Contains(errOut, "submitted 20, accepted 19, failed 1") || !strings.Contains(errOut, "line 7: 400 to is required") {
			t.Errorf("stdout %q, summary:\n%s", out, errOut)
		}
		// stderr is not a terminal here: no progress-bar frames, the summary above is the whole report.
		if strings.Contains(errOut, "\r") {
			t.Errorf("progress-bar frames on a stderr that is not a terminal: %q", errOut)
		}
		for _, line := range strings.Split(strings.TrimSpace(readFile(t, refsFile)), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("--out line %q: %v", line, err)
			}
			refs = append(refs, m)
		}
		if len(refs) != 19 || refs[0]["line"] != 1.0 || !refPattern.MatchString(str(refs[0], "reference")) || refs[18]["line"] != 21.0 {
			t.Errorf("--out: %d lines, first %v, last %v", len(refs), refs[0], refs[len(refs)-1])
		}
	})
	if len(refs) == 0 {
		t.FailNow()
	}
	ref := str(refs[0], "reference")

	t.Run("status --watch follows to COMPLETED", func(t *testing.T) {
		out, _, err := cli(append([]string{"status", ref, "--watch", "--interval", "50ms"}, conn...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if !strings.Contains(lines[len(lines)-1], "COMPLETED") || !strings.Contains(lines[len(lines)-1], "token ") {
			t.Errorf("watch output:\n%s", out)
		}
		out, _, err = cli(append([]string{"status", ref}, conn...)...)
		if err != nil || !strings.Contains(out, "COMPLETED") || !strings.Contains(out, "ACTIVE") {
			t.Errorf("status: %v\n%s", err, out)
		}
	})

	rec := in.get(statusPath + "?reference=" + ref).Body["data"]
	dataFile := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(dataFile, []byte(`{"n": 1.0, "invoice": "INV-1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("verify by each key", func(t *testing.T) {
		for name, args := range map[string][]string{
			"reference":   {"--reference", ref},
			"hash":        {"--hash", str(rec, "hash")},
			"cid":         {"--cid", str(rec, "cid")},
			"token id":    {"--token-id", str(rec, "token_id"), "--network", "polygon"},
			"data file":   {"--file", dataFile},
			"json output": {"--reference", ref, "--json"},
		} {
			out, errOut, err := cli(append(append([]string{"verify"}, args...), conn...)...)
			if err != nil {
				t.Errorf("%s: %v %s", name, err, errOut)
				continue
			}
			if name == "json output" {
				var v map[string]any
				if err := json.Unmarshal([]byte(out), &v); err != nil || str(v, "details.reference") != ref {
					t.Errorf("--json: %v\n%s", err, out)
				}
				continue
			}
			if !strings.HasPrefix(out, "FOUND ON A DEVELOPMENT CHAIN, NOT PROVEN  "+ref) || !strings.Contains(out, str(rec, "hash")) || !strings.Contains(out, "POLYGON token "+str(rec, "token_id")) {
				t.Errorf("%s:\n%s", name, out)
			}
		}
	})

	t.Run("verify not found", func(t *testing.T) {
		out, _, err := cli(append([]string{"verify", "--hash", strings.Repeat("0", 64)}, conn...)...)
		if err == nil || !strings.Contains(out, "NOT FOUND") {
			t.Errorf("unknown hash: %v\n%s", err, out)
		}
		if _, _, err := cli(append([]string{"verify", "--hash", "abc"}, conn...)...); err == nil || !strings.Contains(err.Error(), "400") {
			t.Errorf("bad hash: %v", err)
		}
		if _, _, err := cli(append([]string{"verify", "--hash", "a", "--cid", "b"}, conn...)...); err == nil {
			t.Error("two keys accepted")
		}
	})

	t.Run("connection from the environment", func(t *testing.T) {
		env = map[string]string{"SEALD_URL": proxy.URL, "SEALD_SUBSCRIPTION_KEY": in.Sub, "SEALD_API_KEY": in.API,
			"SEALD_DATA_DIR": t.TempDir()}
		defer func() { env = map[string]string{} }()
		if out, _, err := cli("verify", "--reference", ref); err != nil || !strings.Contains(out, ref) {
			t.Errorf("keys from the environment: %v\n%s", err, out)
		}
		env["SEALD_API_KEY"] = "wrong"
		if _, _, err := cli("verify", "--reference", ref); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("wrong key: %v", err)
		}
		delete(env, "SEALD_API_KEY")
		delete(env, "SEALD_SUBSCRIPTION_KEY")
		if _, _, err := cli("status", ref); err == nil || !strings.Contains(err.Error(), "no API keys") {
			t.Errorf("no keys anywhere: %v", err)
		}
	})
}
