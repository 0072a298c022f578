package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"seald.dev/seald/internal/wiring"
)

// The exit statuses of seald's commands (cmd/seald: usage.go and proof.go; docs/operations.md lists them).
const (
	exitInvalid   = 1 // the proof is not valid (or, for verify, no such record)
	exitUnchecked = 2 // it could not be checked (as exitUsage)
	exitUsage     = 2 // a command given wrongly
	exitRevoked   = 3 // valid, but the token is revoked on chain (verify: the record is REVOKED)

	// trustRootSuffix is where serve publishes its trust root.
	trustRootSuffix = "/.well-known/seald-trust.json"
)

// builds are the binaries built during this run, one per set of build tags and race setting; TestMain
// removes them at the end.
var builds sync.Map // string -> *build

type build struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	// The two binaries most tests run are built before any test starts, so that no test's own deadline
	// (a hang guard) is spent waiting for a build on a loaded machine.
	for _, race := range []bool{raceEnabled, false} {
		if _, err := binary("", race); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	builds.Range(func(_, v any) bool {
		if b := v.(*build); b.dir != "" {
			os.RemoveAll(b.dir)
		}
		return true
	})
	os.Exit(code)
}

// binary builds ./cmd/seald once per test run for a set of build tags (the crashtest tag adds the test hooks
// of internal/wiring/hooks_crashtest.go), with the race detector when race is true.
func binary(tags string, race bool) (string, error) {
	key := fmt.Sprintf("%s/%v", tags, race)
	v, _ := builds.LoadOrStore(key, &build{})
	b := v.(*build)
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "seald-bin-")
		if b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "seald")
		args := []string{"build", "-o", b.path}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		if race {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, "seald.dev/seald/cmd/seald")...).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	return b.path, b.err
}

// buildBinary is the binary that startProcess runs (with extra build tags when given), built without the race
// detector: those tests kill it and restart it, and measure the process, and have always run it so.
func buildBinary(t *testing.T, tags string) string {
	t.Helper()
	path, err := binary(tags, false)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// serveBinary is the binary that startServe and run start: with the race detector when the tests have it.
func serveBinary(t *testing.T) string {
	t.Helper()
	path, err := binary("", raceEnabled)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// childEnv is the environment of a child seald: the variables it needs from this process (PATH, HOME, TMPDIR,
// GORACE) and the given ones, where wiring.EmptyValue is a variable set to nothing and "" one left unset,
// as the getenv of main reads them.
func childEnv(vars map[string]string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "GORACE"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range vars {
		switch v {
		case "":
		case wiring.EmptyValue:
			env = append(env, k+"=")
		default:
			env = append(env, k+"="+v)
		}
	}
	return env
}

// envNames are the variables run passes from its getenv to the command: the SEALD_ variable of every flag
// of serve, and those of the API and operator commands' flags.
var envNames = sync.OnceValue(func() []string {
	names := []string{"SEALD_URL", "SEALD_SUBSCRIPTION_KEY", "SEALD_API_KEY", "SEALD_DATA_DIR", "SEALD_DATABASE",
		wiring.PassphraseEnv}
	var cfg wiring.Config
	wiring.FlagSet("serve", &cfg, true).VisitAll(func(f *flag.Flag) {
		names = append(names, "SEALD_"+strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_")))
	})
	return names
})

// cliError is a command that exited with a status other than 0; its message is the "seald: ..." line main
// printed last.
type cliError struct {
	code int
	msg  string
}

func (e *cliError) Error() string { return e.msg }

// exitCode is the exit status of a command run returned: 0 for nil.
func exitCode(err error) int {
	if ce, ok := err.(*cliError); ok {
		return ce.code
	}
	if err != nil {
		return 1
	}
	return 0
}

// run runs seald with args as a child process, as a user does, with the variables getenv gives (among
// envNames), and returns nil when it exits 0, else a *cliError with its status. stderr gets what the command
// wrote there except main's last "seald: <message>" line, which becomes the error's message, so that stdout,
// stderr and the error are what the command's run function gives in-process. Cancelling ctx stops it with
// SIGTERM, as Ctrl-C would.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	bin, err := binary("", raceEnabled)
	if err != nil {
		return err
	}
	vars := map[string]string{}
	for _, k := range envNames() {
		vars[k] = getenv(k)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Minute
	cmd.Env = childEnv(vars)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &errb
	err = cmd.Run()
	text := errb.String()
	if err == nil {
		_, _ = io.WriteString(stderr, text)
		return nil
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		_, _ = io.WriteString(stderr, text)
		return err
	}
	msg := ee.Error()
	trimmed := strings.TrimSuffix(text, "\n")
	if i := strings.LastIndex(trimmed, "\n") + 1; strings.HasPrefix(trimmed[i:], "seald: ") {
		msg = strings.TrimPrefix(trimmed[i:], "seald: ")
		text = trimmed[:i]
	}
	_, _ = io.WriteString(stderr, text)
	return &cliError{code: ee.ExitCode(), msg: msg}
}
