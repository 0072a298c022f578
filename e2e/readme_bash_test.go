package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReadmeWalkthrough runs the README's walk-through with bash as a script, exactly as printed, in a copy of
// the repository (its tracked and unignored files, as a fresh clone has them): the binary built once by its
// first line, serve started with the flags the block gives, the wait bounded, serve stopped by its own pid.
// The exit statuses the block prints must be the documented ones (each `; echo "exit $?"`, in order), no
// answer may be a failure, and the copy must have no new file outside what .gitignore ignores. Only the ports
// are the test's own, through the variables serve and the block read (SEALD_ADDR, SEALD_CHAIN_RPC_ADDR), so
// that it runs beside other tests. TestReadmeAnswers compares the answers the README shows with real ones.
func TestReadmeWalkthrough(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed: the README's walk-through is bash")
	}
	for _, tool := range []string{"curl", "jq", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed by the README's walk-through: %v", tool, err)
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := walkthroughBlock(t, string(readme))
	repo := cloneWorkingTree(t)
	script := filepath.Join(t.TempDir(), "walkthrough.sh")
	if err := os.WriteFile(script, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute) // the first build alone can take minutes
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = repo
	tmp := t.TempDir()
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "SEALD_") && !strings.HasPrefix(e, "TMPDIR=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp, "SEALD_ADDR=127.0.0.1:0", "SEALD_CHAIN_RPC_ADDR="+freePort(t),
		"SEALD_BATCH_WAIT=100ms", "SEALD_RATE_LIMIT=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	out := stdout.String()
	t.Logf("bash %s: %v\nstdout:\n%s\nstderr:\n%s", script, runErr, out, stderr.String())

	var got []string
	for _, m := range regexp.MustCompile(`(?m)^exit (\d+)$`).FindAllStringSubmatch(out, -1) {
		got = append(got, m[1])
	}
	// proof verify, verify of the revoked record, of no record, given wrongly, the new bundle against the old
	// trust root, and against the exported one.
	if want := "0 3 1 2 1 0"; strings.Join(got, " ") != want {
		t.Errorf("the exit statuses the walk-through printed: %v, want %s", got, want)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `"success":false`) {
			t.Errorf("an answer of the walk-through is a failure: %s", line)
		}
	}
	for _, bad := range []string{"address already in use", "serve did not start", "No such file", "no webhook"} {
		if strings.Contains(out+stderr.String(), bad) {
			t.Errorf("the walk-through said %q", bad)
		}
	}
	if !strings.Contains(out, "the trust root is older than the bundle's key") && !strings.Contains(stderr.String(), "the trust root is older than the bundle's key") {
		t.Error("proof verify against the trust root from before keys rotate did not say that it is older than the bundle's key")
	}
	st, err := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
	if err != nil || len(bytes.TrimSpace(st)) > 0 {
		t.Errorf("the walk-through left files in the repository (git status: %v):\n%s", err, st)
	}
}

// cloneWorkingTree copies the repository's tracked and unignored files (uncommitted changes included, which a
// git clone would miss) into a new git repository with one commit, and returns its path.
func cloneWorkingTree(t *testing.T) string {
	t.Helper()
	ls, err := exec.Command("git", "-C", "..", "ls-files", "-co", "--exclude-standard", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := filepath.Join(t.TempDir(), "seald")
	for _, name := range strings.Split(strings.TrimRight(string(ls), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join("..", name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "copy"}} {
		if out, err := exec.Command("git", append([]string{"-C", dst}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dst
}
