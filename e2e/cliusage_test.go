package e2e

import (
	"strings"
	"testing"
)

// TestCLIUsageOnce (issue 44 item 8): a usage error is one message on stderr, with the likely command and where
// the list is, not the usage with the error below it; a flag error is said once; -h, -help and --help of
// the program, a group and a leaf command all print to stdout and exit 0.
func TestCLIUsageOnce(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sael"}, `unknown command "sael"; did you mean "seal"? run 'seald -h'`},
		{[]string{"veriyf", "--hash", "x"}, `did you mean "verify"?`},
		{[]string{"key", "rotat", "--id", "x"}, `did you mean "key rotate"? run 'seald key -h'`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"; run 'seald -h' for the list of commands`},
		{[]string{"webhook", "add", "--bogus", "x"}, "webhook add: flag provided but not defined: -bogus; run 'seald webhook add -h'"},
		{[]string{"record", "revoke"}, "record revoke needs REFERENCE; run 'seald record revoke -h'"},
	} {
		stdout, stderr, code := runCLI(t, cwd, c.args...)
		name := "seald " + strings.Join(c.args, " ")
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and %q", name, code, stdout, stderr, c.want)
		}
		if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines > 1 || strings.Contains(stderr, "usage:") {
			t.Errorf("%s: %d lines on stderr, want the error alone:\n%s", name, lines, stderr)
		}
		if strings.Contains(c.want, "flag provided") && strings.Count(stderr, "flag provided but not defined") != 1 {
			t.Errorf("%s: the flag error is not said exactly once:\n%s", name, stderr)
		}
	}
	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"key", "-h"}, {"key", "-help"}, {"key", "--help"},
		{"key", "rotate", "-h"}, {"key", "rotate", "-help"}, {"key", "rotate", "--help"}, {"serve", "-help"}} {
		stdout, stderr, code := runCLI(t, cwd, args...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, "usage: seald") {
			t.Errorf("seald %s: exit %d, stdout %.80q, stderr %q; want the usage on stdout and exit 0", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

// TestCLIMessagesNameWhatTheyShow (issue 44 item 8): a webhook URL without a scheme is refused naming the URL
// and the way to write it (it said `not ""`), and tenant update labels every value it prints (a description
// was an unlabelled "").
func TestCLIMessagesNameWhatTheyShow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := startServe(t, dir, nil)
	_, stderr, code := runCLI(t, t.TempDir(), "webhook", "add", "example.com/hook", "--data-dir", dir)
	if code != 1 || !strings.Contains(stderr, `"example.com/hook" has no scheme`) || !strings.Contains(stderr, "https://example.com/hook") ||
		strings.Contains(stderr, `not ""`) {
		t.Errorf("webhook add example.com/hook: exit %d, %q", code, stderr)
	}
	tn := tenant(t, dir, "--business", "Label Inc", "--project", "P")
	stdout, stderr, code := runCLI(t, t.TempDir(), "tenant", "update", "--data-dir", dir, "--business", tn["business_id"], "--name", "Label Ltd")
	want := "business " + tn["business_id"] + `: name "Label Ltd", description "", logo "", website ""`
	if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("tenant update: exit %d, %q %q; want %q", code, stdout, stderr, want)
	}
	in.stop()
}
