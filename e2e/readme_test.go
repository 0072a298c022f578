package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// readmeNotAsWritten lists every command line of the README's walk-through that this test does not run as
// written, with the reason and what it does instead. A line of the walk-through that is neither run nor
// listed here fails the test, and so does an entry that is no longer in the README: the two cannot drift
// apart.
var readmeNotAsWritten = map[string]string{
	`go build -o bin/seald ./cmd/seald && export PATH="$PWD/bin:$PATH"`: "not run: every later `seald` line runs the binary this test built, with the same arguments",
	`cd "$(mktemp -d)"`: "the harness works in a temporary directory already",
	`RPC=http://${SEALD_CHAIN_RPC_ADDR:-127.0.0.1:8545}`: "RPC is set to http://127.0.0.1:8545, which is rewritten to the harness's chain port",
	`seald serve --webhook-allow 127.0.0.1 &`: "run by the harness as a child process on a temporary working directory (data dir ./seald-data there, " +
		"as the default), on a free port (which it writes to seald-data/serve.url, read by the next lines), with " +
		"--chain-rpc-addr on a free port (the proof lines' --rpc is rewritten to it), --webhook-allow 127.0.0.1, " +
		"--batch-wait 100ms and --rate-limit 0",
	`SERVE=$!`: "the harness keeps its serve's process",
	`for i in $(seq 120); do [ -s seald-data/serve.url ] && break; kill -0 $SERVE || break; sleep 1; done`:   "the harness has waited for serve to listen already",
	`[ -s seald-data/serve.url ] || echo "serve did not start: its messages above say why (a port in use?)"`: "the harness fails if serve does not start",
	`kill $SERVE; wait $SERVE`: "the harness stops its serve with SIGTERM, as kill does, and waits for it to exit",
	`seald proof verify proof.json --trust trust.json --rpc $RPC; echo "exit $?"`:  readmeBash,
	`seald verify --reference $REF; echo "exit $?"`:                                readmeBash,
	`seald verify --token-id 999999; echo "exit $?"`:                               readmeBash,
	`seald verify --hash; echo "exit $?"`:                                          readmeBash,
	`seald proof verify proof2.json --trust trust.json --rpc $RPC; echo "exit $?"`: readmeBash,
}

// readmeBash is why a line that shows an exit status is not run here: TestReadmeWalkthrough runs the block in
// bash and checks the status each prints.
const readmeBash = "run by TestReadmeWalkthrough, in bash, which checks the exit status it prints"

// handFilled matches what a reader would have to fill in by hand in a command of a README sh block: a
// <placeholder>, an elision (…), or an identifier pasted from one run's answer (a reference, a business,
// project, key, webhook or delivery id, a hash, a CID).
var handFilled = regexp.MustCompile(`<[A-Za-z0-9][A-Za-z0-9 _.-]*>|…|\.\.\.|\b[DI]-[0-9a-f]{8}-[0-9a-f]{4}-|\b(biz|prj|key|wh|whd|whsec)_[A-Za-z0-9]{4,}|` +
	`\b[0-9a-f]{64}\b|\b(bafy|bafk|Qm)[A-Za-z0-9]{20,}`)

// readmeHandFilled returns every command line of the sh blocks of readme that holds a value to fill in by
// hand (handFilled); comments, which show example answers, are not commands.
func readmeHandFilled(t *testing.T, readme string) []string {
	t.Helper()
	var found []string
	rest, line := readme, 1
	for {
		i := strings.Index(rest, "```sh\n")
		if i < 0 {
			return found
		}
		line += strings.Count(rest[:i], "\n") + 1
		body := rest[i+len("```sh\n"):]
		end := strings.Index(body, "\n```")
		if end < 0 {
			t.Fatalf("README line %d: an sh block that does not end", line)
		}
		cmds, err := parseShell(body[:end+1], line)
		if err != nil {
			t.Fatalf("README line %d: %v", line, err)
		}
		for _, c := range cmds {
			if len(c.words) > 0 && handFilled.MatchString(c.text) {
				found = append(found, fmt.Sprintf("line %d: %s (%q)", c.line, c.text, handFilled.FindString(c.text)))
			}
		}
		line += strings.Count(body[:end], "\n")
		rest = body[end+len("\n```"):]
	}
}

// TestReadmeHandFilledCheck: the check finds each kind of value to fill in by hand, and passes the lines
// that read every value from an earlier answer.
func TestReadmeHandFilledCheck(t *testing.T) {
	t.Parallel()
	bad := []string{`REF=D-…`, `curl "$B/verify/hash?hash=<64 hex>"`, `curl "$B/ipfs/<cid>"`, `seald key revoke --id key_…`,
		`seald key revoke --id key_ABCDEFGHJKMNPQRS`, `curl $B/webhooks/wh_7f3k2m9q/deliveries`,
		`seald status D-0b2c4d6e-1a2b-4c3d-8e9f-001122334455`, `curl "$B/verify/hash?hash=` + strings.Repeat("ab", 32) + `"`,
		`curl "$B/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"`, `seald tenant update --business biz_...`}
	good := []string{`REF=$(jq -r .data.reference sealed.json)`, `curl -s "${H[@]}" $B/webhooks/$WH/deliveries > deliveries.json`,
		`seald key revoke --id $KEY_ID`, `seald proof verify proof.json --trust trust.json --rpc http://127.0.0.1:8545`,
		`H=(-H "Ocp-Apim-Subscription-Key: $SUB" -H "Api-Key: $KEY")`}
	for _, l := range bad {
		if got := readmeHandFilled(t, "```sh\n"+l+"   # {\"reference\":\"D-…\"}\n```\n"); len(got) != 1 {
			t.Errorf("%s: not found as a value to fill in by hand", l)
		}
	}
	for _, l := range good {
		if got := readmeHandFilled(t, "```sh\n"+l+"\n# {\"id\":\"wh_…\"}\n```\n"); len(got) != 0 {
			t.Errorf("%s: taken for a value to fill in by hand: %v", l, got)
		}
	}
}

// TestReadmeAnswers runs the README's "A walk through every endpoint" as a new user would: every line of
// its sh block in order, against a real `seald serve` on a fresh data dir. Each curl line is sent as the
// same HTTP request (placeholders filled from earlier real answers) and must answer 2xx with success true;
// where the README shows an answer, the real one has the same members. The webhook is delivered to a real
// receiver that checks its signature; every `seald` line runs the built binary and must exit 0, the offline
// proof check against the embedded chain included.
func TestReadmeAnswers(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range readmeHandFilled(t, string(readme)) {
		t.Errorf("README %s: a value to fill in by hand; read it from an earlier answer instead (jq)", l)
	}
	if t.Failed() {
		t.FailNow()
	}
	block, first := walkthroughBlock(t, string(readme))
	cmds, err := parseShell(block, first)
	if err != nil {
		t.Fatalf("README walk-through: %v", err)
	}
	w := &walk{t: t, bin: buildBinary(t, ""), dir: t.TempDir(), vars: map[string]string{}, arrays: map[string][]string{},
		fill: map[string]string{}, seen: map[string]bool{}}
	w.startReceiver()
	for i, c := range cmds {
		if len(c.words) == 0 {
			continue // a comment line; an example answer is read with the command before it
		}
		example := ""
		if i+1 < len(cmds) && len(cmds[i+1].words) == 0 && exampleAnswer.MatchString(cmds[i+1].comment) {
			example = cmds[i+1].comment
		}
		w.step(c, example)
	}
	for line := range readmeNotAsWritten {
		if !w.seen[line] {
			t.Errorf("readmeNotAsWritten lists %q, which the README's walk-through no longer has", line)
		}
	}
	if w.delivered == "" {
		t.Error("the walk-through never had a webhook delivery arrive")
	}
}

// notOperations are the paths served beside the API that openapi.json leaves out on purpose (othersRoutes
// in httpapi/openapi_test.go): their requests are not checked against it.
var notOperations = []string{"/metrics", "/v/", "/assets/", "/tokens/"}

// exampleAnswer is a comment showing an answer: `# {...}` or `# 201 {...}`.
var exampleAnswer = regexp.MustCompile(`^(\d{3} )?\{.*\}$`)

// walkthroughBlock returns the sh block under "## A walk through every endpoint" and the README line of its
// first line.
func walkthroughBlock(t *testing.T, readme string) (string, int) {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n## A walk through every endpoint\n")
	if !ok {
		t.Fatal(`README.md has no "## A walk through every endpoint"`)
	}
	if next := strings.Index(rest, "\n## "); next >= 0 {
		rest = rest[:next]
	}
	start := strings.Index(rest, "```sh\n")
	if start < 0 {
		t.Fatal("the walk-through has no sh block")
	}
	body := rest[start+len("```sh\n"):]
	end := strings.Index(body, "\n```")
	if end < 0 {
		t.Fatal("the walk-through's sh block does not end")
	}
	before := readme[:len(readme)-len(rest)] + rest[:start]
	return body[:end+1], strings.Count(before, "\n") + 2
}

// walk is the state of the walk-through: the shell's variables, the addresses rewritten to the harness's
// own, and the processes it started.
type walk struct {
	t        *testing.T
	bin, dir string
	vars     map[string]string
	arrays   map[string][]string
	// fill maps an address of the README (the receiver's port 9000, the chain's 8545) to the one the
	// harness's receiver or serve really has.
	fill    map[string]string
	seen    map[string]bool
	serve   *process
	rpcURL  string
	recv    *receiver
	recvURL string
	// delivered is the event id of the delivery the walk-through replays, which the receiver got signed.
	delivered string
}

// startReceiver listens on the README's port 9000, or on a free port when 9000 is taken (the webhook URLs
// of the walk-through are then rewritten to it).
func (w *walk) startReceiver() {
	const readmeURL = "http://127.0.0.1:9000/seald"
	ln, err := net.Listen("tcp", "127.0.0.1:9000")
	if err != nil {
		w.t.Logf("port 9000 is taken (%v): the receiver listens on a free port and %s is rewritten to it", err, readmeURL)
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			w.t.Fatal(err)
		}
	}
	w.recv = serveReceiver(w.t, ln)
	w.recvURL = "http://" + ln.Addr().String() + "/seald"
	w.fill[readmeURL] = w.recvURL
}

// step runs one command of the walk-through.
func (w *walk) step(c shellCmd, example string) {
	t := w.t
	t.Helper()
	if _, ok := readmeNotAsWritten[c.text]; ok {
		w.seen[c.text] = true
		switch c.text {
		case `seald serve --webhook-allow 127.0.0.1 &`:
			w.startServe()
		case `RPC=http://${SEALD_CHAIN_RPC_ADDR:-127.0.0.1:8545}`:
			w.vars["RPC"] = "http://127.0.0.1:8545"
		case `kill $SERVE; wait $SERVE`:
			w.need("serve", w.serve != nil)
			w.serve.terminate(t)
			w.serve = nil
		}
		return
	}
	if name, value, ok := w.assignment(c); ok {
		w.vars[name] = value
		return
	}
	args := w.expandAll(c, c.words[1:])
	switch c.words[0].raw() {
	case "curl":
		w.curl(c, args, example)
	case "seald":
		w.seald(c, args)
	case "echo":
		w.echo(c, args)
	default:
		t.Fatalf("README line %d: %q is neither run by TestReadmeWalkthrough nor listed in readmeNotAsWritten", c.line, c.text)
	}
}

func (w *walk) need(what string, ok bool) {
	w.t.Helper()
	if !ok {
		w.t.Fatalf("the walk-through uses %s before it has one", what)
	}
}

func (w *walk) startServe() {
	w.rpcURL = "http://" + freePort(w.t)
	w.fill["http://127.0.0.1:8545"] = w.rpcURL
	w.serve = startProcess(w.t, w.bin, filepath.Join(w.dir, "seald-data"), nil,
		"--chain-rpc-addr", strings.TrimPrefix(w.rpcURL, "http://"), "--webhook-allow", "127.0.0.1")
	w.serve.in.httpClient() // the walk-through's traffic is checked against openapi.json too
}

// assignment runs NAME=value and NAME=(words), and reports whether c was one.
func (w *walk) assignment(c shellCmd) (string, string, bool) {
	first := c.words[0]
	m := regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=`).FindStringSubmatch(first.raw())
	if m == nil || first[0].kind != 0 || !strings.HasPrefix(first[0].text, m[0]) {
		return "", "", false
	}
	if len(c.words) > 1 {
		w.t.Fatalf("README line %d: %q: an assignment followed by a command", c.line, c.text)
	}
	rest := append(shellWord{{kind: 0, text: strings.TrimPrefix(first[0].text, m[0])}}, first[1:]...)
	if len(rest) == 2 && rest[0].text == "" && rest[1].kind == '(' {
		inner, err := parseShell(rest[1].text, c.line)
		if err != nil || len(inner) != 1 {
			w.t.Fatalf("README line %d: array %s: %v", c.line, m[1], err)
		}
		w.arrays[m[1]] = w.expandAll(c, inner[0].words)
		return "", "", true
	}
	value := w.expand(c, rest)
	if len(value) != 1 {
		w.t.Fatalf("README line %d: %q", c.line, c.text)
	}
	return m[1], value[0], true
}

func (w *walk) expandAll(c shellCmd, words []shellWord) []string {
	var out []string
	for _, wd := range words {
		out = append(out, w.expand(c, wd)...)
	}
	return out
}

var shellVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// expand is a word after the shell's expansion and the placeholders' filling: "${NAME[@]}" is the array's
// words, $NAME and ${NAME} the variable, $(...) the command's output.
func (w *walk) expand(c shellCmd, wd shellWord) []string {
	t := w.t
	t.Helper()
	if len(wd) == 1 && wd[0].kind == '"' {
		if m := regexp.MustCompile(`^\$\{([A-Za-z_]\w*)\[@\]\}$`).FindStringSubmatch(wd[0].text); m != nil {
			a, ok := w.arrays[m[1]]
			w.need("array "+m[1], ok)
			return a
		}
	}
	var b strings.Builder
	for _, p := range wd {
		switch p.kind {
		case '\'':
			b.WriteString(p.text)
		case 0, '"':
			b.WriteString(shellVar.ReplaceAllStringFunc(p.text, func(s string) string {
				m := shellVar.FindStringSubmatch(s)
				name := m[1] + m[2]
				v, ok := w.vars[name]
				w.need("$"+name, ok)
				return v
			}))
		case '$':
			b.WriteString(w.substitute(c, p.text))
		default:
			t.Fatalf("README line %d: %q: cannot expand (%c%s)", c.line, c.text, p.kind, p.text)
		}
	}
	return []string{w.placeholders(c, b.String())}
}

// placeholders replaces the README's addresses with the harness's (fill), longest first.
func (w *walk) placeholders(c shellCmd, s string) string {
	keys := make([]string, 0, len(w.fill))
	for k := range w.fill {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, w.fill[k])
	}
	if regexp.MustCompile(`…|<[a-z0-9 _]+>`).MatchString(s) {
		w.t.Fatalf("README line %d: %q: a placeholder no earlier answer gave: %q", c.line, c.text, s)
	}
	return s
}

// substitute runs the command substitutions of the walk-through: $(cat FILE), and $(jq -r PATH FILE) with
// PATH a path of members and indexes (.data.deliveries[0].id) over each JSON value of FILE.
func (w *walk) substitute(c shellCmd, cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 2 && f[0] == "cat" {
		return strings.TrimRight(readFile(w.t, filepath.Join(w.dir, f[1])), "\n")
	}
	if len(f) != 4 || f[0] != "jq" || f[1] != "-r" {
		w.t.Fatalf("README line %d: $(%s): only $(cat FILE) and $(jq -r PATH FILE) are run", c.line, cmd)
	}
	path := strings.Trim(f[2], "'")
	steps := regexp.MustCompile(`\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]`).FindAllStringSubmatch(path, -1)
	dec := json.NewDecoder(strings.NewReader(readFile(w.t, filepath.Join(w.dir, f[3]))))
	var out []string
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			w.t.Fatalf("README line %d: %s: %v", c.line, f[3], err)
		}
		for _, s := range steps {
			if s[1] != "" {
				m, _ := v.(map[string]any)
				v = m[s[1]]
			} else {
				l, _ := v.([]any)
				var i int
				fmt.Sscan(s[2], &i)
				v = nil
				if i < len(l) {
					v = l[i]
				}
			}
		}
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case float64:
			out = append(out, fmt.Sprint(v))
		default:
			w.t.Fatalf("README line %d: %s has no %s (%v)", c.line, f[3], path, v)
		}
	}
	if len(out) == 0 || out[0] == "" {
		w.t.Fatalf("README line %d: %s has no %s", c.line, f[3], path)
	}
	return strings.Join(out, "\n")
}

// echo prints a URL to open in a browser (the harness opens it: 200) or writes a file.
func (w *walk) echo(c shellCmd, args []string) {
	switch {
	case len(args) == 3 && args[1] == ">":
		if err := os.WriteFile(filepath.Join(w.dir, args[2]), []byte(args[0]+"\n"), 0o600); err != nil {
			w.t.Fatal(err)
		}
	case len(args) == 1 && strings.HasPrefix(args[0], "http"):
		if code, body := fetch(w.t, args[0]); code != http.StatusOK {
			w.t.Errorf("README line %d: %s answers %d %.300s", c.line, args[0], code, body)
		}
	default:
		w.t.Fatalf("README line %d: %q: an echo the harness does not know", c.line, c.text)
	}
}

// seald runs the built binary in the working directory, as the README's seald function would, and keeps
// what later lines need from its output.
func (w *walk) seald(c shellCmd, args []string) {
	t := w.t
	t.Helper()
	out := ""
	if n := len(args); n >= 2 && args[n-2] == ">" {
		args, out = args[:n-2], args[n-1]
	}
	cmd := exec.Command(w.bin, args...)
	cmd.Dir = w.dir
	// Nothing from the environment: the API commands find serve and its keys through seald-data, as the
	// README says.
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "SEALD_") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("README line %d: seald %s: %v\n%s%s", c.line, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	t.Logf("README line %d: seald %s\n%s%s", c.line, strings.Join(args, " "), stdout.String(), stderr.String())
	if out != "" {
		if err := os.WriteFile(filepath.Join(w.dir, out), stdout.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sub := strings.Join(args[:min(2, len(args))], " ")
	switch {
	case sub == "tenant create":
		var out map[string]string
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || !strings.HasPrefix(out["business_id"], "biz_") ||
			!strings.HasPrefix(out["api_key_id"], "key_") {
			t.Fatalf("README line %d: tenant create --json printed %q (%v)", c.line, stdout.String(), err)
		}
	case sub == "key rotate" && !strings.Contains(stderr.String(), "seald key revoke --id "+args[3]):
		t.Errorf("README line %d: key rotate does not say how to revoke the key it replaces:\n%s", c.line, stderr.String())
	case sub == "keys rotate" && !strings.Contains(stdout.String(), "seald trust export"):
		t.Errorf("README line %d: keys rotate --signing does not say to export the trust root again:\n%s", c.line, stdout.String())
	case sub == "verify --reference" && !strings.Contains(stdout.String(), w.vars["REF"]):
		t.Errorf("README line %d: verify printed %q, not the record %s", c.line, stdout.String(), w.vars["REF"])
	case sub == "record history" && !strings.Contains(stdout.String(), "REVOKED"):
		t.Errorf("README line %d: the history after revoke shows no REVOKED:\n%s", c.line, stdout.String())
	}
}

// curl sends the request the curl line describes and checks its answer.
func (w *walk) curl(c shellCmd, args []string, example string) {
	t := w.t
	t.Helper()
	method, url, out := "", "", ""
	var body string
	var hasBody bool
	header := http.Header{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") || a == ">" {
			if a == "-s" {
				continue
			}
			if i+1 == len(args) {
				t.Fatalf("README line %d: %s without a value", c.line, a)
			}
			i++
			switch a {
			case "-X":
				method = args[i]
			case "-H":
				k, v, ok := strings.Cut(args[i], ":")
				if !ok {
					t.Fatalf("README line %d: header %q", c.line, args[i])
				}
				header.Set(k, strings.TrimSpace(v))
			case "-d":
				body, hasBody = args[i], true
			case "-o", ">":
				out = args[i]
			default:
				t.Fatalf("README line %d: curl %s: an option the harness does not know", c.line, a)
			}
			continue
		}
		if url != "" {
			t.Fatalf("README line %d: two URLs (%s, %s)", c.line, url, a)
		}
		url = a
	}
	if method == "" {
		method = "GET"
		if hasBody {
			method = "POST"
		}
	}
	path := strings.TrimPrefix(url, w.vars["B"])
	send := func() (int, []byte, map[string]any) {
		var rd io.Reader
		if hasBody {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, url, rd)
		if err != nil {
			t.Fatalf("README line %d: %v", c.line, err)
		}
		req.Header = header.Clone()
		client := w.serve.in.httpClient()
		for _, p := range notOperations {
			if strings.HasPrefix(path, p) {
				client = http.DefaultClient
			}
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("README line %d: %s %s: %v", c.line, method, url, err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var env map[string]any
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			_ = json.Unmarshal(raw, &env)
		}
		return resp.StatusCode, raw, env
	}
	w.need("serve", w.serve != nil)
	wantStatus := 0
	if m := regexp.MustCompile(`^(\d{3}) `).FindStringSubmatch(example); m != nil {
		fmt.Sscan(m[1], &wantStatus)
	}

	// Lines whose answer a user waits for, as the README says: the status until COMPLETED, the deliveries
	// until the receiver got one.
	poll := func(ready func(env map[string]any) bool) (int, []byte, map[string]any) {
		var code int
		var raw []byte
		var env map[string]any
		waitFor(t, "README line "+fmt.Sprint(c.line)+": "+path, func() bool {
			code, raw, env = send()
			return code != http.StatusOK || ready(env)
		})
		return code, raw, env
	}
	var code int
	var raw []byte
	var env map[string]any
	switch {
	case strings.HasPrefix(path, "/authentication-status/get/status"):
		// After `seald status --watch`: COMPLETED at once.
		code, raw, env = send()
		if s := str(env, "data.state"); s != "COMPLETED" {
			t.Fatalf("README line %d: the record is %s after seald status --watch: %s", c.line, s, raw)
		}
	case strings.HasSuffix(path, "/deliveries"):
		// Until the answer lists a DELIVERED delivery whose event the receiver got, signed with the secret.
		code, raw, env = poll(func(env map[string]any) bool {
			list, _ := field(env, "data.deliveries").([]any)
			for _, d := range list {
				if str(d, "state") == "DELIVERED" && w.signed(str(d, "event_id")) > 0 {
					w.delivered = str(d, "event_id")
					return true
				}
			}
			return false
		})
	default:
		code, raw, env = send()
	}
	if code/100 != 2 || (wantStatus != 0 && code != wantStatus) {
		t.Fatalf("README line %d: %s %s answers %d %.500s", c.line, method, path, code, raw)
	}
	if s, ok := env["success"]; ok && s != true {
		t.Fatalf("README line %d: %s %s: success %v: %.500s", c.line, method, path, s, raw)
	}
	if out != "" {
		if err := os.WriteFile(filepath.Join(w.dir, out), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if example != "" {
		compareExample(t, c, example, env)
	}

	switch {
	case path == "/webhooks" && method == "POST":
		w.recv.setSecret(str(env, "data.secret"))
	case strings.HasSuffix(path, "/replay"):
		if got := str(env, "data.event_id"); got != w.delivered {
			t.Errorf("README line %d: the replay is of event %q, the delivery's event is %q", c.line, got, w.delivered)
		}
		waitFor(t, "the replayed delivery at the receiver, with the same event id", func() bool { return w.signed(w.delivered) >= 2 })
	}
}

// signed counts the deliveries of an event the receiver got with a valid Seald-Signature (HMAC-SHA256 with
// the webhook's secret over "t.body") and the event's id in Seald-Event-Id.
func (w *walk) signed(event string) int {
	n := 0
	for _, d := range w.recv.deliveries() {
		if event != "" && d.SigOK && d.ID == event && d.HeaderID == event {
			n++
		}
	}
	return n
}

// compareExample checks the members of a real answer against the README's example: the same members in
// the envelope and at the top level of data; an example string with "…" is a prefix of the real value
// (the part before "…"), another example value is the real one; a bare … is any value.
func compareExample(t *testing.T, c shellCmd, example string, real map[string]any) {
	t.Helper()
	ex := regexp.MustCompile(`^\d{3} `).ReplaceAllString(example, "")
	// A bare … (outside a string) is any value: make it null.
	var b strings.Builder
	inString := false
	for i, r := range ex {
		switch {
		case r == '"' && (i == 0 || ex[i-1] != '\\'):
			inString = !inString
		case r == '…' && !inString:
			b.WriteString("null")
			continue
		}
		b.WriteRune(r)
	}
	var want map[string]any
	if err := json.Unmarshal([]byte(b.String()), &want); err != nil {
		t.Fatalf("README line %d: the example answer %s is not JSON: %v", c.line, example, err)
	}
	compare := func(where string, want, got map[string]any) {
		if a, b := keys(want), keys(got); a != b {
			t.Errorf("README line %d: %s members: the README shows %s, the answer has %s", c.line, where, a, b)
		}
		for k, v := range want {
			switch v := v.(type) {
			case nil, map[string]any, []any:
				if k == "error" && got[k] != nil {
					t.Errorf("README line %d: error %v, the README shows null", c.line, got[k])
				}
			case string:
				g, _ := got[k].(string)
				prefix, _, dots := strings.Cut(v, "…")
				if dots && !strings.HasPrefix(g, prefix) || !dots && g != v {
					t.Errorf("README line %d: %s.%s is %q, the README shows %q", c.line, where, k, g, v)
				}
			default:
				if got[k] != v {
					t.Errorf("README line %d: %s.%s is %v, the README shows %v", c.line, where, k, got[k], v)
				}
			}
		}
	}
	compare("envelope", want, real)
	if wd, ok := want["data"].(map[string]any); ok {
		gd, _ := real["data"].(map[string]any)
		compare("data", wd, gd)
	}
}

func keys(m map[string]any) string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return strings.Join(k, ",")
}
