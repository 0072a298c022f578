package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"seald.dev/seald/internal/wiring"
)

// The CLI's one convention (docs/cli.md): a command given wrongly (unknown command or flag, a missing or
// stray argument, flags that do not go together) exits with exitUsage after saying what is wrong; -h prints
// the command's positional arguments and the flags it uses, and exits 0; data goes to stdout, messages to
// stderr, errors once prefixed "seald:".
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
// as names (their names, for the message). Every error is a usage error; -h is flag.ErrHelp.
func parseArgs(fs *flag.FlagSet, args []string, getenv func(string) string, names ...string) ([]string, error) {
	var pos []string
	for {
		if err := wiring.Parse(fs, args, getenv); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &exitError{code: exitUsage, err: err}
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
	fs.Usage()
	switch {
	case len(names) == 0:
		return nil, usageError("%s takes no argument (got %q)", fs.Name(), strings.Join(pos, " "))
	case len(pos) < len(names):
		return nil, usageError("%s needs %s", fs.Name(), strings.Join(names, " "))
	default:
		return nil, usageError("%s takes only %s (got %q too)", fs.Name(), strings.Join(names, " "), strings.Join(pos[len(names):], " "))
	}
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
