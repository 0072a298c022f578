package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"seald.dev/seald/internal/wiring"
)

// The CLI's one convention (docs/cli.md): a command given wrongly (unknown command or flag, a missing or
// stray argument, flags that do not go together) exits with exitUsage after saying once what is wrong and
// where to read more; -h (or -help, --help) prints the command's positional arguments and the flags it uses
// to stdout, and exits 0; data goes to stdout, messages to stderr, errors once prefixed "seald:".
const exitUsage = 2

// usageError is a command given wrongly: main exits with exitUsage.
func usageError(format string, args ...any) error {
	return exitWith(exitUsage, format, args...)
}

// newFlagSet is a command's flag set; its -h shows `seald NAME SYNOPSIS` (the positional arguments and the
// main flags), then every flag the command declares, and nothing else.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	setUsage(fs, synopsis)
	return fs
}

// setUsage makes fs's -h show `seald NAME SYNOPSIS`, then fs's flags.
func setUsage(fs *flag.FlagSet, synopsis string) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: seald %s\n", strings.TrimSpace(fs.Name()+" "+synopsis))
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(fs.Output(), "\nflags:")
			fs.PrintDefaults()
		}
	}
}

// parseArgs parses args, whose flags may come before, between or after the positional arguments, fills the
// flags not given from SEALD_* (wiring.Parse), and returns the positional arguments, which must be as many
// as names (their names, for the message). Every error is a usage error, said once (main prints it) with the
// way to the command's -h; -h, -help and --help give a *helpText, which run prints to stdout.
func parseArgs(fs *flag.FlagSet, args []string, getenv func(string) string, names ...string) ([]string, error) {
	// The flag package writes its error and the usage to Output on every failure: both are held back here, so
	// that the error is printed once and the usage only when asked for.
	out, usage := fs.Output(), fs.Usage
	var help bytes.Buffer
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fs.SetOutput(&help)
		usage()
		fs.SetOutput(io.Discard)
	}
	defer func() { fs.SetOutput(out); fs.Usage = usage }()
	hint := "run 'seald " + fs.Name() + " -h' for its arguments and flags"
	var pos []string
	for {
		if err := wiring.Parse(fs, args, getenv); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpText{text: help.String()}
			}
			return nil, usageError("%s: %v; %s", fs.Name(), err, hint)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) == len(names) {
		return pos, nil
	}
	switch {
	case len(names) == 0:
		return nil, usageError("%s takes no argument (got %q); %s", fs.Name(), strings.Join(pos, " "), hint)
	case len(pos) < len(names):
		return nil, usageError("%s needs %s; %s", fs.Name(), strings.Join(names, " "), hint)
	default:
		return nil, usageError("%s takes only %s (got %q too); %s", fs.Name(), strings.Join(names, " "), strings.Join(pos[len(names):], " "), hint)
	}
}

// helpText is what -h asked for: run prints it to stdout and exits 0, as `seald -h` and `seald GROUP -h` do.
type helpText struct{ text string }

func (h *helpText) Error() string { return "help requested" }

// Is makes a *helpText flag.ErrHelp for the callers that only need to know that help was asked for.
func (h *helpText) Is(target error) bool { return target == flag.ErrHelp }

// suggest returns the candidate closest to s in edit distance, if it is close enough to be a likely typo
// (two edits at most), or "". Written here: a dozen lines, and no library's fuzzy matching
// would choose differently among twenty names.
func suggest(s string, candidates []string) string {
	best, bestD := "", 3 // two edits at most: a transposition (sael for seal) is two
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// plural is "1 change", "2 changes": n with the word in the number it takes.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// version prints the module's version and the commit it was built from, as the Go toolchain recorded them
// in the binary (runtime/debug.ReadBuildInfo; `go version -m seald` shows the same).
func version(stdout io.Writer) error {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return errors.New("version: this binary carries no build information")
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	commit := "unknown (built without version control information)"
	if rev := settings["vcs.revision"]; rev != "" {
		commit = rev
		if settings["vcs.modified"] == "true" {
			commit += " (with uncommitted changes)"
		}
		if t := settings["vcs.time"]; t != "" {
			commit += ", " + t
		}
	}
	fmt.Fprintf(stdout, "seald %s\nmodule %s\ncommit %s\nbuilt with %s\n", info.Main.Version, info.Main.Path, commit, info.GoVersion)
	return nil
}
