package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestDocumentedAnswers compares the answers docs/operations.md shows for /healthz and /readyz with what a
// serve on the defaults answers: the same JSON, envelope included.
func TestDocumentedAnswers(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	in := startServe(t, t.TempDir(), nil)
	for _, c := range []struct {
		path string
		re   *regexp.Regexp
	}{
		{"/healthz", regexp.MustCompile("`GET /healthz` answers 200 `(\\{[^`]*\\})`")},
		{"/readyz", regexp.MustCompile("On the defaults \\(`seald serve` alone\\) it answers\\s+`(\\{[^`]*\\})`")},
	} {
		m := c.re.FindSubmatch(doc)
		if m == nil {
			t.Errorf("docs/operations.md shows no answer of %s", c.path)
			continue
		}
		var documented, real any
		if err := json.Unmarshal(m[1], &documented); err != nil {
			t.Errorf("the documented answer of %s is not JSON: %v", c.path, err)
			continue
		}
		r := in.get(c.path)
		_ = json.Unmarshal(r.Raw, &real)
		if r.Status != 200 || !reflect.DeepEqual(documented, real) {
			t.Errorf("%s answers %d %s; docs/operations.md shows %s", c.path, r.Status, r.Raw, m[1])
		}
	}
}

// TestSubcommandHelp runs the real binary: every command and command group answers -h with its own usage
// and exit status 0, and a flag that would be ignored is an error instead.
func TestSubcommandHelp(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	for _, args := range [][]string{
		{"tenant", "-h"}, {"key", "-h"}, {"keys", "-h"}, {"record", "-h"}, {"project", "-h"}, {"proof", "-h"},
		{"trust", "-h"}, {"tenant", "create", "-h"}, {"key", "issue", "-h"}, {"record", "revoke", "-h"},
		{"proof", "verify", "-h"}, {"keys", "rotate", "-h"}, {"verify", "-h"}, {"seal", "-h"}, {"status", "-h"},
		{"serve", "-h"}, {"-h"}, {"webhook", "-h"}, {"webhook", "add", "-h"}, {"webhook", "list", "-h"}, {"webhook", "rm", "-h"},
		{"webhook", "deliveries", "-h"}, {"webhook", "replay", "-h"},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil || !strings.Contains(strings.ToLower(string(out)), "usage") || strings.Contains(string(out), "unknown command") {
			t.Errorf("seald %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := exec.Command(bin, "verify", "--reference", "D-00000000-0000-4000-8000-000000000000", "--proof").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--json") {
		t.Errorf("verify --proof without --json: %v %s", err, out)
	}
}

// TestNoProgressFramesWhenPiped: `seald seal` with its stderr on a pipe writes no progress-bar frames
// (carriage returns), only the summary line.
func TestNoProgressFramesWhenPiped(t *testing.T) {
	t.Parallel()
	in := startServe(t, t.TempDir(), nil)
	bin := buildBinary(t, "")
	file := writeTemp(t, "records.jsonl", []byte(`{"data":{"n":1},"to":"a@example.com"}`+"\n"+`{"data":{"n":2},"to":"a@example.com"}`+"\n"))
	cmd := exec.Command(bin, "seal", "--file", file, "--url", in.URL, "--subscription-key", in.Sub, "--api-key", in.API)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("seal: %v %s %s", err, stdout.String(), stderr.String())
	}
	// stdout is the references, one JSON line each; the summary is on stderr.
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if strings.Contains(stderr.String(), "\r") || !strings.Contains(stderr.String(), "accepted 2") || len(lines) != 2 ||
		!strings.Contains(lines[0], `"reference":"D-`) {
		t.Errorf("piped seal: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

// TestSecondEmbeddedIPFSInstanceRefused: two instances on one PostgreSQL database with the embedded IPFS
// store would each hold only the envelopes they stored; the second is refused at start, naming --ipfs.
func TestSecondEmbeddedIPFSInstanceRefused(t *testing.T) {
	t.Parallel()
	dsn := freshPostgresSchema(t)
	first := t.TempDir()
	startServe(t, first, nil, "--database", dsn)
	second := t.TempDir()
	for _, f := range []string{"secrets.json", "credentials.json"} {
		b, err := os.ReadFile(filepath.Join(first, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(second, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb strings.Builder
	err := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", second, "--database", dsn, "--chain-rpc-addr", ""},
		func(string) string { return "" }, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "--ipfs") {
		t.Errorf("a second embedded-IPFS instance on one database: %v", err)
	}
}

// TestCLIErrorsInUserTerms runs the real binary: an operator command about something that does not exist
// names that thing, never the package or function that looked for it.
func TestCLIErrorsInUserTerms(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "")
	dir := t.TempDir()
	startServe(t, dir, nil).stop() // the operator commands open only a store serve created
	if out, err := exec.Command(bin, "tenant", "create", "--data-dir", dir, "--business", "A", "--project", "B").CombinedOutput(); err != nil {
		t.Fatalf("tenant create: %v %s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"key", "revoke", "--id", "key_nope"}, "key key_nope not found"},
		{[]string{"key", "issue", "--project", "prj_nope"}, "project prj_nope not found"},
		{[]string{"record", "revoke", "D-00000000-0000-4000-8000-000000000000"}, "record D-00000000-0000-4000-8000-000000000000 not found"},
		{[]string{"project", "rate", "--project", "prj_x", "--rate-limit", "1", "--rate-burst", "1"}, "project prj_x not found"},
	} {
		out, err := exec.Command(bin, append(c.args, "--data-dir", dir)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) || strings.Contains(string(out), "sqlite.") || strings.Contains(string(out), "postgres.") {
			t.Errorf("seald %s: %v %q; want %q in the user's terms", strings.Join(c.args, " "), err, out, c.want)
		}
	}
}
