package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// runCLI runs the built binary in dir with nothing of the caller's SEALD_* environment but the tests' own,
// and returns its stdout, stderr and exit status; a run that outlasts 2 minutes is killed (a hang guard,
// not a measure: the binary is built before the clock starts, since a first build on a loaded machine can
// take longer than any command).
func runCLI(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	bin := buildBinary(t, "")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "SEALD_") || strings.HasPrefix(e, "SEALD_TEST_") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	case err != nil:
		t.Fatalf("seald %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), 0
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestCLIOperatorOpensOnlyAnExistingStore: an operator command pointed at a data dir or database serve has
// not created fails, naming the path and how to create a store, and creates nothing: no seald.db, no
// secrets.json, no ./seald-data.
func TestCLIOperatorOpensOnlyAnExistingStore(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	for _, args := range [][]string{
		{"key", "list", "--data-dir", "./typo"},
		{"tenant", "create", "--data-dir", "typo", "--business", "A", "--project", "B"},
		{"record", "history", "D-00000000-0000-4000-8000-000000000000"}, // the default ./seald-data
		{"project", "rate", "--project", "prj_x", "--rate-limit", "1", "--rate-burst", "1", "--data-dir", "typo"},
		{"keys", "rotate", "--signing", "--data-dir", "typo"},
	} {
		_, stderr, code := runCLI(t, cwd, args...)
		dir := "./seald-data"
		for i, a := range args {
			if a == "--data-dir" {
				dir = args[i+1]
			}
		}
		if code == 0 || !strings.Contains(stderr, dir) || !strings.Contains(stderr, "seald serve --data-dir "+dir) {
			t.Errorf("seald %s: exit %d, %q; want a failure naming %s and 'seald serve --data-dir %s'", strings.Join(args, " "), code, stderr, dir, dir)
		}
		if names := dirEntries(t, cwd); len(names) > 0 {
			t.Fatalf("seald %s created %v", strings.Join(args, " "), names)
		}
	}

	t.Run("PostgreSQL without seald's schema", func(t *testing.T) {
		dsn := freshPostgresSchema(t)
		_, stderr, code := runCLI(t, cwd, "key", "list", "--database", dsn, "--data-dir", "typo")
		if code == 0 || !strings.Contains(stderr, "no seald store in the database") || !strings.Contains(stderr, "seald serve --database") {
			t.Errorf("key list on an empty schema: exit %d, %q", code, stderr)
		}
		conn, err := pgx.Connect(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		var tables int
		if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()`).Scan(&tables); err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Errorf("key list created %d tables in the empty schema", tables)
		}
		if names := dirEntries(t, cwd); len(names) > 0 {
			t.Errorf("key list created %v", names)
		}
	})
}

// TestCLIFindsServe: serve writes the URL it listens on to <data-dir>/serve.url, and the API commands on
// that data dir use it without --url; a connection refused names the URL tried and how to change it; an
// error of the API is printed with one "seald:" prefix; record history agrees in number.
func TestCLIFindsServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil) // on a free port, not 8080
	b, err := os.ReadFile(filepath.Join(dir, "serve.url"))
	if err != nil || strings.TrimSpace(string(b)) != in.URL {
		t.Fatalf("serve.url: %q %v, want %s", b, err, in.URL)
	}
	cwd := t.TempDir()
	stdout, stderr, code := runCLI(t, cwd, "verify", "--reference", "D-00000000-0000-4000-8000-000000000000", "--data-dir", dir)
	if code != exitInvalid || !strings.HasPrefix(stdout, "NOT FOUND") {
		t.Errorf("verify without --url: exit %d, %q %q; want NOT FOUND from the serve of serve.url", code, stdout, stderr)
	}
	ref := str(in.post(authPath, map[string]any{"data": map[string]any{"cli": 1}, "to": "a@example.com"}).Body, "data.reference")
	if stdout, stderr, code := runCLI(t, cwd, "status", ref, "--data-dir", dir); code != 0 || !strings.Contains(stdout, ref) {
		t.Errorf("status without --url: exit %d, %q %q", code, stdout, stderr)
	}

	t.Run("one seald: prefix", func(t *testing.T) {
		_, stderr, code := runCLI(t, cwd, "status", "D-nope", "--data-dir", dir)
		if code != 1 || !strings.HasPrefix(stderr, "seald: 400") || strings.Count(stderr, "seald:") != 1 {
			t.Errorf("status of a malformed reference: exit %d, %q; want one \"seald: 400 …\"", code, stderr)
		}
	})
	t.Run("plural agreement", func(t *testing.T) {
		changes := regexp.MustCompile(`; (\d+) status change(s?)\n`)
		ones := 0
		for _, status := range []string{"SUSPENDED", "ACTIVE"} {
			r := in.call("PUT", "/authentication-status/update/status", in.Sub, in.API, "application/json",
				map[string]any{"reference": ref, "status": status, "reason": "test"})
			if r.Status != 200 {
				t.Fatalf("%s: %d %s", status, r.Status, r.Raw)
			}
			stdout, stderr, code := runCLI(t, cwd, "record", "history", ref, "--data-dir", dir)
			m := changes.FindStringSubmatch(stdout)
			if code != 0 || m == nil || (m[1] == "1") != (m[2] == "") {
				t.Errorf("record history: exit %d, %q %q", code, stdout, stderr)
			}
			if m != nil && m[1] == "1" {
				ones++
			}
		}
		if ones != 1 {
			t.Errorf("no history of exactly one change was printed")
		}
	})

	in.stop()
	if _, err := os.Stat(filepath.Join(dir, "serve.url")); !os.IsNotExist(err) {
		t.Errorf("serve.url after serve stopped: %v", err)
	}
	// A serve.url left by a serve that was killed: the refusal names the URL, where it came from, and the way out.
	if err := os.WriteFile(filepath.Join(dir, "serve.url"), []byte(in.URL+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runCLI(t, cwd, "verify", "--reference", ref, "--data-dir", dir)
	for _, want := range []string{in.URL, "serve.url", "--url", "SEALD_URL", "refused"} {
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("verify against a stopped serve: exit %d, %q; want %q in it", code, stderr, want)
		}
	}
	_, stderr, _ = runCLI(t, cwd, "seal", "--file", writeTemp(t, "r.jsonl", []byte(`{"data":{"n":1},"to":"a@example.com"}`+"\n")),
		"--url", in.URL, "--data-dir", dir)
	if !strings.Contains(stderr, "no seald answers at "+in.URL+" (--url)") {
		t.Errorf("seal against a stopped serve: %q", stderr)
	}
}

// TestCLIConvention: usage errors exit 2, stray arguments are refused, -h shows the positional arguments and
// only the flags the command uses, and version prints what `go version -m` reads in the binary.
func TestCLIConvention(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	t.Run("usage errors exit 2", func(t *testing.T) {
		for _, args := range [][]string{
			{}, {"frobnicate"}, {"key"}, {"key", "frob"}, {"serve", "extra", "--addr", "127.0.0.1:0", "--chain-rpc-addr", ""},
			{"key", "list", "extra"}, {"key", "issue"}, {"key", "rotate"}, {"tenant", "create", "--bogus"}, {"tenant", "create"},
			{"record", "revoke"}, {"record", "revoke", "D-1", "D-2"}, {"verify"}, {"verify", "--hash", "a", "--reference", "b"},
			{"status"}, {"seal"}, {"webhook", "rm"}, {"webhook", "list", "extra"}, {"keys", "rotate"}, {"keys", "compromised"},
			{"proof", "verify"}, {"trust", "export", "extra"}, {"version", "extra"},
		} {
			_, stderr, code := runCLI(t, cwd, args...)
			if code != exitUsage || !strings.HasPrefix(strings.TrimSpace(stderr[strings.LastIndex(stderr, "\nseald: ")+1:]), "seald: ") {
				t.Errorf("seald %s: exit %d, want 2 with a message\n%s", strings.Join(args, " "), code, stderr)
			}
		}
		if names := dirEntries(t, cwd); len(names) > 0 {
			t.Errorf("wrong invocations created %v", names)
		}
	})
	t.Run("-h", func(t *testing.T) {
		for _, c := range []struct {
			args      []string
			want, not []string
		}{
			{[]string{"record", "revoke"}, []string{"usage: seald record revoke REFERENCE", "-reason", "-data-dir", "-database"}, nil},
			{[]string{"record", "history"}, []string{"REFERENCE", "-json"}, []string{"-reason"}},
			{[]string{"status"}, []string{"usage: seald status REFERENCE", "-watch", "-url"}, []string{"-database"}},
			{[]string{"keys", "compromised"}, []string{"usage: seald keys compromised KEY_ID", "-secrets-file"}, []string{"-database"}},
			{[]string{"keys", "rotate"}, []string{"-signing", "-data-dir"}, []string{"-database"}},
			{[]string{"proof", "verify"}, []string{"usage: seald proof verify FILE", "-rpc", "-trust"}, []string{"-data-dir", "-database", "-secrets-file"}},
			{[]string{"trust", "export"}, []string{"usage: seald trust export", "-url", "-out", "-data-dir"}, []string{"-database", "-secrets-file"}},
			{[]string{"webhook", "replay"}, []string{"usage: seald webhook replay DELIVERY_ID"}, []string{"-database"}},
			{[]string{"key", "rotate"}, []string{"--id KEY_ID", "-overlap"}, []string{"-business"}},
			{[]string{"serve"}, []string{"usage: seald serve", "-addr"}, nil},
		} {
			stdout, stderr, code := runCLI(t, cwd, append(c.args, "-h")...)
			out := stdout + stderr
			if code != 0 {
				t.Errorf("seald %s -h: exit %d", strings.Join(c.args, " "), code)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("seald %s -h lacks %q:\n%s", strings.Join(c.args, " "), w, out)
				}
			}
			for _, n := range c.not {
				if strings.Contains(out, n+" ") || strings.Contains(out, n+"\n") {
					t.Errorf("seald %s -h lists %s, which it does not use:\n%s", strings.Join(c.args, " "), n, out)
				}
			}
		}
	})
	t.Run("version", func(t *testing.T) {
		info, err := exec.Command("go", "version", "-m", buildBinary(t, "")).Output()
		if err != nil {
			t.Fatal(err)
		}
		mod := regexp.MustCompile(`(?m)^\s+mod\s+(\S+)\s+(\S+)`).FindStringSubmatch(string(info))
		rev := regexp.MustCompile(`(?m)^\s+build\s+vcs\.revision=(\S+)`).FindStringSubmatch(string(info))
		if mod == nil {
			t.Fatalf("go version -m shows no module:\n%s", info)
		}
		want := []string{"seald " + mod[2], "module " + mod[1]}
		if rev != nil {
			want = append(want, "commit "+rev[1])
		}
		var outs []string
		for _, args := range [][]string{{"version"}, {"--version"}} {
			stdout, stderr, code := runCLI(t, cwd, args...)
			for _, w := range want {
				if code != 0 || !strings.Contains(stdout, w) {
					t.Errorf("seald %s: exit %d, %q %q; want %q", args[0], code, stdout, stderr, w)
				}
			}
			outs = append(outs, stdout)
		}
		if outs[0] != outs[1] {
			t.Errorf("version and --version differ: %q, %q", outs[0], outs[1])
		}
	})
}
