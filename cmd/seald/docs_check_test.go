package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"seald.dev/seald/prom"
)

// TestDocsMatchBinary reads README.md and docs/*.md and checks what they say about the program against
// the program itself:
//
//   - every flag named (`--name`, in prose, tables and code blocks) is a flag of a seald command (as its -h
//     lists it), of sealbench (the flags its main declares; docs/bench.md documents it), or of another
//     program on the same command line, from the allow-list foreignFlags below, which names that program;
//   - every seald command line (in a code block, or in inline code, `seald ...`) names a command and
//     subcommand the binary has, and only flags that command takes;
//   - every default stated for a flag, in a table with a "default" column or in prose ("`--workers`,
//     default 32", "(default `./seald-data`)", "2 s by default"), is the flag's default in -h; a computed
//     default (`<data-dir>/seald.db`, another flag, a variable) and prose that is no value ("none", "the
//     public URL") are not compared;
//   - every metric name (`seald_...`) is one the metrics registry describes (histograms with their _bucket,
//     _sum and _count series).
//
// The flags and defaults come from the commands themselves: each command of the usage text is run with -h
// (in process, as main runs it) and its flag list parsed; the metric names from prom.New's registry.
func TestDocsMatchBinary(t *testing.T) {
	cmds := helpFlags(t)
	bench := sealbenchFlags(t)
	metrics := metricNames()

	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "..", "README.md"))
	checked := map[string]int{}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range checkDoc(filepath.Base(path), string(b), cmds, bench, metrics, checked) {
			t.Error(p)
		}
	}
	t.Logf("checked %d flag mentions, %d seald command lines, %d defaults and %d metric names in %d files",
		checked["flag"], checked["command"], checked["default"], checked["metric"], len(files))
	if checked["flag"] == 0 || checked["command"] == 0 || checked["default"] == 0 || checked["metric"] == 0 {
		t.Errorf("the check found nothing of some kind (%v): the patterns no longer match the docs", checked)
	}
}

// TestDocsCheckFindsMistakes feeds the check a page with one mistake of each kind it looks for, and one
// line of each kind it must let pass.
func TestDocsCheckFindsMistakes(t *testing.T) {
	cmds := helpFlags(t)
	page := "Run `seald key create --project prj_1` to get a key.\n" + // no such subcommand
		"```sh\nseald serve --data-dir d \\\n  --no-such-flag 1\n```\n" + // a flag no command has: twice
		"Pass `--nowhere` to go faster.\n" + // no program has it
		"Runners (`--workers`, default 16).\n" + // wrong default
		"| flag | default | meaning |\n|---|---|---|\n| `--job-lease` | `5m` | x |\n\n" + // wrong default in a table
		"Watch `seald_no_such_total`.\n" + // no such metric
		"`seald status --watch REF`, `seald verify --hash H`, `--workers` (default 128), `--auth-cache-ttl`, 2 s by default.\n" +
		"| flag | default | meaning |\n|---|---|---|\n| `--batch-size`, `--batch-wait` | `1024`, `2s` | x |\n\n" +
		"```sh\ngeth --dev &\ncurl -s $URL | jq .  # then seald key issue\n```\n" +
		"`seald_mails_total`, `seald_step_duration_seconds_bucket`.\n"
	got := checkDoc("test.md", page, cmds, map[string]bool{}, metricNames(), map[string]int{})
	want := []string{"`seald key create` is not a command", "--no-such-flag is not a flag", "has no flag --no-such-flag", "--nowhere is not a flag",
		"default of --workers", "default of --job-lease", "seald_no_such_total is not a metric"}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, w) }) {
			t.Errorf("the check did not find %q; it found %q", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the check found %d problems, want %d: %q", len(got), len(want), got)
	}
}

// checkDoc returns the problems of one Markdown file (see TestDocsMatchBinary) and counts what it checked.
func checkDoc(name, doc string, cmds map[string]map[string]flagInfo, bench, metrics map[string]bool, checked map[string]int) []string {
	all := map[string][]flagInfo{} // flag name: its definitions in every command
	for _, fl := range cmds {
		for name, f := range fl {
			all[name] = append(all[name], f)
		}
	}
	var problems []string
	tableDefaultCol = -1
	for _, l := range docLines(doc) {
		where := name + ":" + strconv.Itoa(l.n)
		report := func(format string, args ...any) { problems = append(problems, where+": "+fmt.Sprintf(format, args...)) }
		for _, m := range flagRef.FindAllStringSubmatch(l.text, -1) {
			f := m[1]
			checked["flag"]++
			switch {
			case all[f] != nil:
			case bench[f] && (name == "bench.md" || strings.Contains(l.text, "sealbench")):
			case foreign(f, l.text):
			default:
				report("--%s is not a flag of seald (nor of another program on the line, see foreignFlags)", f)
			}
		}
		for _, span := range codeSpans(l) {
			checkInvocations(report, span, cmds, checked)
		}
		for _, d := range statedDefaults(l) {
			defs := all[d.flag]
			if defs == nil || name == "bench.md" { // sealbench's defaults depend on --quick: not compared
				continue
			}
			checked["default"]++
			if !slices.ContainsFunc(defs, func(f flagInfo) bool { return sameDefault(d.value, f) }) {
				report("the default of --%s is given as %q; the binary's is %q", d.flag, d.value, defs[0].def)
			}
		}
		for _, m := range metricRef.FindAllString(l.text, -1) {
			checked["metric"]++
			if !metrics[m] && !notMetrics[m] {
				report("%s is not a metric seald registers", m)
			}
		}
	}
	return problems
}

// foreignFlags are the flags of other programs the docs show, each with the programs it belongs to: a
// mention is accepted only on a line (a command joined across its continuation lines) that names one of
// them. A flag not here, and not seald's, fails the check.
var foreignFlags = map[string][]string{
	"cid-version":         {"ipfs add"},
	"raw-leaves":          {"ipfs add"},
	"profile":             {"ipfs init"},
	"dev":                 {"geth"},
	"http":                {"geth"}, // --http.corsdomain
	"rm":                  {"docker"},
	"require":             {"verify-sdjwt/verify.mjs"},
	"base":                {"verify-vc/verify.mjs"},
	"allow-http-loopback": {"verify-vc/verify.mjs"},
	"present":             {"verify-vc/verify.mjs"},
	"out":                 {"verify-vc/verify.mjs"},
}

func foreign(flag, line string) bool {
	for _, prog := range foreignFlags[flag] {
		if strings.Contains(line, prog) {
			return true
		}
	}
	return false
}

// notMetrics are seald_ names in the docs that are not metrics: the prefix of the databases sealbench
// creates (seald_bench_<random>), the console's session cookie (seald_console) and the SD-JWT claim that names
// the issuer (seald_issuer).
var notMetrics = map[string]bool{"seald_bench": true, "seald_console": true, "seald_issuer": true}

// notCommands are code spans that start with "seald " and are no command line: the domain strings that
// proof bundles and trust roots are signed under, and the embedded chain's name.
var notCommands = []string{"seald proof v2", "seald proof v3", "seald sd-jwt issuer v1", "seald trust root v2", "seald development chain"}

// flagInfo is one flag of one command, as its -h shows it.
type flagInfo struct {
	cmd, typ, def string // typ: the type word of -h ("" for a bool), def: the default ("" when none is shown)
}

var (
	flagRef   = regexp.MustCompile(`(?:^|[^A-Za-z0-9_-])--([a-z][a-z0-9-]*[a-z0-9])`)
	metricRef = regexp.MustCompile(`\bseald_[a-z0-9_]*[a-z0-9]`)
	helpFlag  = regexp.MustCompile(`^  -([a-z0-9-]+)(?: (\S+))?(?:\t(.*))?$`)
	defaultOf = regexp.MustCompile(`\(default (.*)\)$`)
)

// helpFlags runs every command of the usage text with -h and returns its flags, by "cmd sub".
func helpFlags(t *testing.T) map[string]map[string]flagInfo {
	t.Helper()
	out := map[string]map[string]flagInfo{}
	for _, line := range strings.Split(usage, "\n") {
		if !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "   ") {
			continue
		}
		f := strings.Fields(line)
		subs := []string{""}
		if groups[f[0]] {
			subs = strings.Split(f[1], "|")
		}
		for _, sub := range subs {
			args := []string{f[0]}
			if sub != "" {
				args = append(args, sub)
			}
			var stdout, stderr strings.Builder
			_ = run(t.Context(), append(args, "-h"), func(string) string { return "" }, &stdout, &stderr)
			fl := parseHelp(strings.Join(args, " "), stderr.String()+stdout.String())
			if len(fl) == 0 && args[0] != "version" { // seald version alone takes no flag
				t.Fatalf("seald %s -h lists no flag:\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
			}
			out[strings.Join(args, " ")] = fl
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d commands found in the usage text", len(out))
	}
	out[""] = map[string]flagInfo{"version": {cmd: ""}} // seald --version, the one flag before a command
	return out
}

// parseHelp reads the flag list of the flag package's PrintDefaults: "  -name type", the usage on the
// next lines (or after a tab), "(default X)" at its end.
func parseHelp(cmd, help string) map[string]flagInfo {
	out := map[string]flagInfo{}
	var cur *flagInfo
	var name, text string
	flush := func() {
		if cur == nil {
			return
		}
		if m := defaultOf.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
			cur.def = m[1]
			if s, err := strconv.Unquote(m[1]); err == nil {
				cur.def = s
			}
		}
		out[name] = *cur
		cur = nil
	}
	for _, line := range strings.Split(help, "\n") {
		if m := helpFlag.FindStringSubmatch(line); m != nil {
			flush()
			name, text = m[1], m[3]
			cur = &flagInfo{cmd: cmd, typ: m[2]}
			continue
		}
		if cur != nil && strings.HasPrefix(line, "    \t") {
			text += " " + strings.TrimPrefix(line, "    \t")
		}
	}
	flush()
	return out
}

// sealbenchFlags reads the names of the flags cmd/sealbench declares (fs.Bool("quick", ...),
// fs.StringVar(&v, "name", ...)), from its source: it is a program of its own.
func sealbenchFlags(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "sealbench", "main.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || len(call.Args) < 2 {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "fs" {
			return true
		}
		arg := call.Args[0]
		if strings.HasSuffix(sel.Sel.Name, "Var") {
			arg = call.Args[1]
		}
		if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				out[s] = true
			}
		}
		return true
	})
	if !out["quick"] {
		t.Fatalf("no sealbench flag found in its source: %v", out)
	}
	return out
}

// metricNames are the names of every series the metrics registry describes.
func metricNames() map[string]bool {
	m := prom.New(prom.Options{})
	m.WatchAnswers(func() int { return 0 }, 1) // registered by every server the wiring builds
	reg := m.Registry()
	ch := make(chan *prometheus.Desc)
	go func() { reg.Describe(ch); close(ch) }()
	fq := regexp.MustCompile(`fqName: "([^"]+)"`)
	out := map[string]bool{}
	for d := range ch {
		if m := fq.FindStringSubmatch(d.String()); m != nil {
			out[m[1]] = true
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				out[m[1]+s] = true // a histogram's series; the suffixes of other kinds never appear in docs
			}
		}
	}
	return out
}

// docLine is one line of a Markdown file; in a code block, a command continued with a trailing backslash
// is one line.
type docLine struct {
	n    int
	text string
	code bool // in a fenced code block
}

func docLines(doc string) []docLine {
	var out []docLine
	fenced := false
	var cont *docLine
	for i, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if cont != nil {
			cont.text += " " + strings.TrimSpace(line)
		} else {
			out = append(out, docLine{n: i + 1, text: line, code: fenced})
			cont = &out[len(out)-1]
		}
		if !fenced || !strings.HasSuffix(line, `\`) {
			cont = nil
		} else {
			cont.text = strings.TrimSuffix(cont.text, `\`)
		}
	}
	return out
}

var inlineCode = regexp.MustCompile("`([^`]+)`")

// codeSpans are the parts of a line that are code: the whole line in a code block, else its inline code.
func codeSpans(l docLine) []string {
	if l.code {
		return []string{l.text}
	}
	var out []string
	for _, m := range inlineCode.FindAllStringSubmatch(l.text, -1) {
		out = append(out, m[1])
	}
	return out
}

// sealdCall is "seald <command> [<subcommand>]" where a shell runs a command: at the start of the code,
// or after &&, ||, ;, |, ( or $(, with environment assignments and a ./ before it. cmdEnd ends that
// command line (a pipe, ;, &&, ||, a parenthesis).
var (
	sealdCall = regexp.MustCompile(`(?:^|&&|\|\||[;|(]|\$\()\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:\./)?seald ([a-z][a-z-]*)(?: ([a-z][a-z|-]*))?`)
	cmdEnd    = regexp.MustCompile(`\s(?:\||;|&&|\|\|)\s|\)|$`)
)

// checkInvocations checks each seald command line in span: a command and subcommand of the binary, and
// only its flags.
func checkInvocations(report func(string, ...any), span string, cmds map[string]map[string]flagInfo, checked map[string]int) {
	if i := strings.Index(span, " #"); i >= 0 {
		span = span[:i] // a shell comment
	}
	span = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(span), "$ "))
	if slices.ContainsFunc(notCommands, func(c string) bool { return strings.HasPrefix(span, c) }) {
		return
	}
	for _, loc := range sealdCall.FindAllStringSubmatchIndex(span, -1) {
		cmd := span[loc[2]:loc[3]]
		sub := ""
		if loc[4] >= 0 {
			sub = span[loc[4]:loc[5]]
		}
		rest := span[loc[1]:]
		if e := cmdEnd.FindStringIndex(rest); e != nil {
			rest = rest[:e[0]]
		}
		checked["command"]++
		var names []string
		switch {
		case groups[cmd]:
			if sub == "" {
				continue // the group itself (`seald key`), as a name
			}
			for _, s := range strings.Split(sub, "|") {
				names = append(names, cmd+" "+s)
			}
		case cmds[cmd] != nil:
			names = []string{cmd}
		case cmd == "help":
			continue // `seald help` prints the usage
		default:
			report("`seald %s` is not a command of seald", cmd)
			continue
		}
		for _, name := range names {
			fl := cmds[name]
			if fl == nil {
				report("`seald %s` is not a command of seald", name)
				continue
			}
			for _, m := range flagRef.FindAllStringSubmatch(rest, -1) {
				if _, ok := fl[m[1]]; !ok {
					report("`seald %s` has no flag --%s", name, m[1])
				}
			}
		}
	}
}

// statedDefault is a default the docs give for a flag.
type statedDefault struct{ flag, value string }

var (
	proseDefault = regexp.MustCompile("--([a-z][a-z0-9-]*)`?\\)?,? \\(?default:? (`[^`]+`|[0-9][0-9,.]*(?: ?[A-Za-z]+)?)")
	byDefault    = regexp.MustCompile("--([a-z][a-z0-9-]*)`?,? \\(?(`[^`]+`|[0-9][0-9,.]*(?: ?[A-Za-z]+)?) by default")
	tableCell    = regexp.MustCompile(`\s*\|\s*`)
)

// statedDefaults finds the defaults a line states: in prose, or in a row of a table whose header has a
// "default" column and a first column of flags.
func statedDefaults(l docLine) []statedDefault {
	var out []statedDefault
	if l.code {
		return nil
	}
	for _, re := range []*regexp.Regexp{proseDefault, byDefault} {
		for _, m := range re.FindAllStringSubmatch(l.text, -1) {
			out = append(out, statedDefault{m[1], m[2]})
		}
	}
	return append(out, tableDefaults(l.text)...)
}

// tableDefaultCol is, while a table with a "default" column is read, that column's index, else -1.
var tableDefaultCol = -1

// tableDefaults reads a table row: a header sets the column of defaults, a row gives the defaults of the
// flags of its first cell, pairwise (or one default for all).
func tableDefaults(line string) []statedDefault {
	if !strings.HasPrefix(line, "|") {
		tableDefaultCol = -1
		return nil
	}
	cells := tableCell.Split(strings.Trim(line, "| "), -1)
	if strings.HasPrefix(strings.ToLower(cells[0]), "flag") {
		tableDefaultCol = slices.IndexFunc(cells, func(c string) bool { return strings.EqualFold(c, "default") })
		return nil
	}
	if tableDefaultCol < 1 || tableDefaultCol >= len(cells) {
		return nil
	}
	var flags, values []string
	for _, m := range flagRef.FindAllStringSubmatch(cells[0], -1) {
		flags = append(flags, m[1])
	}
	for _, m := range inlineCode.FindAllStringSubmatch(cells[tableDefaultCol], -1) {
		values = append(values, m[1])
	}
	var out []statedDefault
	for i, f := range flags {
		switch {
		case len(values) == len(flags):
			out = append(out, statedDefault{f, values[i]})
		case len(values) == 1:
			out = append(out, statedDefault{f, values[0]})
		}
	}
	return out
}

// sameDefault compares a default as the docs give it with a flag's: a computed or descriptive one (with
// '<', another flag, a variable, or words) is not compared; durations and numbers are compared as values
// ("2 minutes" is 2m0s, "1,000" is 1000, "128 MiB" is 128).
func sameDefault(doc string, f flagInfo) bool {
	v := strings.Trim(doc, "`\"")
	if strings.ContainsAny(v, "<") || strings.HasPrefix(v, "--") || strings.HasPrefix(v, "SEALD_") {
		return true
	}
	switch f.typ {
	case "duration":
		want, err := time.ParseDuration(cmpOr(f.def, "0s"))
		if err != nil {
			return false
		}
		d := strings.ReplaceAll(v, " ", "")
		for _, r := range [][2]string{{"minutes", "m"}, {"minute", "m"}, {"seconds", "s"}, {"second", "s"}, {"hours", "h"}, {"hour", "h"}} {
			d = strings.Replace(d, r[0], r[1], 1)
		}
		got, err := time.ParseDuration(d)
		return err == nil && got == want
	case "int", "int64", "uint", "uint64", "float":
		want, err := strconv.ParseFloat(cmpOr(f.def, "0"), 64)
		if err != nil {
			return false
		}
		num := strings.ReplaceAll(strings.Fields(v)[0], ",", "")
		got, err := strconv.ParseFloat(num, 64)
		return err == nil && got == want
	case "":
		return v == cmpOr(f.def, "false") || (v == "off" && f.def == "")
	}
	return v == f.def
}

func cmpOr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}
