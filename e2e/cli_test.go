package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func cli(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(t.Context(), args, func(k string) string { return env[k] }, &out, &errb)
	return out.String(), err
}

// TestOperatorCommands runs the key and record commands against a running serve on the same data dir, with
// the data dir given through SEALD_DATA_DIR, and checks their effect through the API.
func TestOperatorCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The CLI is another process: the server learns of its key changes within the cache's TTL (API.md), short
	// here so the test does not wait long.
	const cacheTTL = 200 * time.Millisecond
	in := startServe(t, dir, nil, "--auth-cache-ttl", cacheTTL.String())
	env := map[string]string{"SEALD_DATA_DIR": dir}
	tn := tenant(t, dir, "--business", "Keys Inc", "--project", "P")
	useKeys := func(sub, api string) int {
		return in.call("GET", "/verification/api/v1/verify/hash?hash="+strings.Repeat("0", 64), sub, api, "", nil).Status
	}
	if code := useKeys(tn["subscription_key"], tn["api_key"]); code != 404 {
		t.Fatalf("fresh keys: %d, want 404 (authenticated, nothing found)", code)
	}

	out, err := cli(t, env, "key", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var keys []map[string]any
	if err := json.Unmarshal([]byte(out), &keys); err != nil {
		t.Fatalf("key list --json: %v\n%s", err, out)
	}
	apiKeyID := ""
	for _, k := range keys {
		if _, leaked := k["secret"]; leaked || strings.Contains(out, tn["api_key"]) || strings.Contains(out, tn["subscription_key"]) {
			t.Fatal("key list shows a secret")
		}
		if k["project_id"] == tn["project_id"] {
			apiKeyID, _ = k["id"].(string)
		}
	}
	if apiKeyID == "" {
		t.Fatalf("the project's key is not listed: %s", out)
	}

	t.Run("issue", func(t *testing.T) {
		out, err := cli(t, env, "key", "issue", "--project", tn["project_id"], "--json")
		var k map[string]any
		if err != nil || json.Unmarshal([]byte(out), &k) != nil || k["secret"] == nil {
			t.Fatalf("issue: %v %s", err, out)
		}
		if code := useKeys(tn["subscription_key"], k["secret"].(string)); code != 404 {
			t.Errorf("issued key: %d", code)
		}
		if _, err := cli(t, env, "key", "issue"); err == nil {
			t.Error("key issue with neither --business nor --project succeeded")
		}
	})
	t.Run("rotate with overlap, then revoke", func(t *testing.T) {
		out, err := cli(t, env, "key", "rotate", "--id", apiKeyID, "--overlap", "1h", "--json")
		var k map[string]any
		if err != nil || json.Unmarshal([]byte(out), &k) != nil {
			t.Fatalf("rotate: %v %s", err, out)
		}
		next := k["secret"].(string)
		if useKeys(tn["subscription_key"], tn["api_key"]) != 404 || useKeys(tn["subscription_key"], next) != 404 {
			t.Error("during the overlap both keys must work")
		}
		if _, err := cli(t, env, "key", "revoke", "--id", apiKeyID); err != nil {
			t.Fatal(err)
		}
		// Trusted at most cacheTTL after the revocation; a generous deadline only stops a broken build hanging.
		deadline := time.Now().Add(30 * time.Second)
		for code := useKeys(tn["subscription_key"], tn["api_key"]); code != 401; code = useKeys(tn["subscription_key"], tn["api_key"]) {
			if code != 404 {
				t.Fatalf("revoked key: %d, want 401 (or 404 while still cached)", code)
			}
			if time.Now().After(deadline) {
				t.Fatal("revoked key still works")
			}
			time.Sleep(cacheTTL / 4)
		}
		if code := useKeys(tn["subscription_key"], next); code != 404 {
			t.Errorf("successor after revoking the old key: %d", code)
		}
	})
	t.Run("record commands", func(t *testing.T) {
		r := in.post(authPath, map[string]any{"data": map[string]any{"cli": true}, "to": "a@example.com"})
		ref := str(r.Body, "data.reference")
		for _, step := range []struct{ cmd, want string }{{"suspend", "SUSPENDED"}, {"activate", "ACTIVE"}, {"revoke", "REVOKED"}} {
			out, err := cli(t, env, "record", step.cmd, ref, "--reason", "test")
			if err != nil || !strings.Contains(out, step.want) {
				t.Fatalf("record %s: %v %q", step.cmd, err, out)
			}
			v := in.get(verifyBase + "reference?reference=" + ref)
			if got := str(v.Body, "data.status"); got != step.want {
				t.Errorf("after record %s: status %s", step.cmd, got)
			}
		}
		if _, err := cli(t, env, "record", "activate", ref); err == nil || !strings.Contains(err.Error(), "final") {
			t.Errorf("activating a revoked record: %v", err)
		}
		if _, err := cli(t, env, "record", "suspend", "D-nope"); err == nil {
			t.Error("a malformed reference was accepted")
		}
	})
	t.Run("unknown commands", func(t *testing.T) {
		if _, err := cli(t, env, "frobnicate"); err == nil {
			t.Error("unknown command accepted")
		}
	})
}

func TestSecretsFilesArePrivate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	startServe(t, dir, nil).stop()
	for _, name := range []string{"secrets.json", "credentials.json"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", name, fi.Mode().Perm())
		}
	}
}

func TestRateLimitPerKey(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil, "--rate-limit", "1", "--rate-burst", "3")
	codes := map[int]int{}
	var last *response
	for range 10 {
		last = in.get(verifyBase + "hash?hash=" + strings.Repeat("0", 64))
		codes[last.Status]++
		if last.Status == 429 {
			break
		}
	}
	if codes[429] != 1 || last.Header.Get("Retry-After") == "" || last.Body["success"] != false {
		t.Fatalf("codes %v, last %d %s (Retry-After %q)", codes, last.Status, last.Raw, last.Header.Get("Retry-After"))
	}
	time.Sleep(1100 * time.Millisecond)
	if r := in.get(verifyBase + "hash?hash=" + strings.Repeat("0", 64)); r.Status != 404 {
		t.Errorf("after waiting: %d", r.Status)
	}
}

func TestBodyLimitIsConfigurable(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil, "--body-limit", "100")
	r := in.post(authPath, map[string]any{"data": map[string]any{"x": strings.Repeat("a", 200)}, "to": "a@example.com"})
	if r.Status != 413 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
}
