package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"seald.dev/seald/client"
)

// sealLine is one line of a bulk file and what became of it.
type sealLine struct {
	n      int // line number, from 1
	body   []byte
	sent   bool
	result *client.AuthenticationResult
	err    error
}

// sealCommand submits every line of a JSONL file (each an authentication request body: data, to, cc,
// subject, ...) with a few requests in flight, shows a progress bar on stderr, and prints a summary with the
// reason of every failed line. Lines are sent as they are, so members this CLI does not know still reach the
// service. The exit status is non-zero when any line failed. The file is read whole first, so that the bar
// knows its total; a file too big for memory is too big for one command anyway and is better split.
func sealCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	var a apiFlags
	fs := apiFlagSet("seal", "--file records.jsonl [--concurrency 8] [--network POLYGON|EOS] [--out refs.jsonl] [--quiet]", &a, stderr)
	defer func() { err = a.explain(err) }()
	file := fs.String("file", "", "JSONL file, one authentication request body per line (- for stdin)")
	concurrency := fs.Int("concurrency", 8, "requests in flight")
	network := fs.String("network", client.Polygon, "POLYGON or EOS")
	out := fs.String("out", "", "write {line, reference, hash} of each accepted line to this JSONL file (default: standard output)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if _, err := a.parse(fs, args, getenv); err != nil {
		return err
	}
	if *file == "" {
		fs.Usage()
		return usageError("seal needs --file records.jsonl")
	}
	if *concurrency < 1 {
		return usageError("seal: --concurrency must be at least 1")
	}
	c, err := a.client(stderr)
	if err != nil {
		return err
	}
	raw, err := readInput(*file)
	if err != nil {
		return err
	}
	lines := splitLines(raw)
	if len(lines) == 0 {
		return fmt.Errorf("seal: %s has no records", *file)
	}

	bar := progressbar.NewOptions(len(lines), progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("sealing"),
		progressbar.OptionShowCount(), progressbar.OptionSetWidth(30), progressbar.OptionSetVisibility(!*quiet && isTerminal(stderr)),
		progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionOnCompletion(func() { fmt.Fprintln(stderr) }))
	jobs := make(chan *sealLine)
	var wg sync.WaitGroup
	var barMu sync.Mutex
	net := strings.ToUpper(*network)
	for range min(*concurrency, len(lines)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := range jobs {
				l.sent = true
				if !looksLikeObject(l.body) {
					l.err = errors.New("not a JSON object")
				} else {
					l.result, l.err = sealOne(ctx, c, net, l.body)
				}
				barMu.Lock()
				_ = bar.Add(1)
				barMu.Unlock()
			}
		}()
	}
feed:
	for _, l := range lines {
		select {
		case jobs <- l:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	_ = bar.Finish()

	var accepted, failed, unsent int
	var reasons []string
	var refs bytes.Buffer
	var connErr error
	for _, l := range lines {
		switch {
		case !l.sent:
			unsent++
		case l.err != nil:
			failed++
			reasons = append(reasons, fmt.Sprintf("  line %d: %s", l.n, reason(l.err)))
			if connErr == nil && a.explain(l.err) != l.err {
				connErr = l.err
			}
		default:
			accepted++
			b, _ := json.Marshal(map[string]any{"line": l.n, "reference": l.result.Reference, "hash": l.result.Hash})
			refs.Write(append(b, '\n'))
		}
	}
	// The references are the command's output, one JSON line per accepted record in the file's order, for
	// the next command to read (jq -r .reference); the summary is a message, on stderr.
	if *out != "" {
		if err := os.WriteFile(*out, refs.Bytes(), 0o644); err != nil {
			return err
		}
	} else if _, err := stdout.Write(refs.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "submitted %d, accepted %d, failed %d", len(lines)-unsent, accepted, failed)
	if unsent > 0 {
		fmt.Fprintf(stderr, ", not submitted %d (interrupted)", unsent)
	}
	fmt.Fprintln(stderr)
	for _, r := range reasons {
		fmt.Fprintln(stderr, r)
	}
	if failed > 0 || unsent > 0 {
		err := fmt.Errorf("%d of %d records were not accepted", failed+unsent, len(lines))
		if connErr != nil {
			err = fmt.Errorf("%w: %w", err, a.explain(connErr))
		}
		return err
	}
	return nil
}

// bulkRetryFor is how long one line is sent again while the service refuses it without accepting anything.
const bulkRetryFor = 10 * time.Minute

// sealOne sends one line, and sends it again while the service refuses it without accepting anything (429,
// or 503 with X-Seald-Backpressure: the backlog is full or password hashing is at capacity), for up to
// bulkRetryFor. The client's own retries cover a short burst; a bulk load at a limit (48 password seals at
// once, each hash taking 64 MiB) outlasts them, and every line it gives up on is a record left out.
func sealOne(ctx context.Context, c *client.Client, network string, body []byte) (*client.AuthenticationResult, error) {
	deadline := time.Now().Add(bulkRetryFor)
	for {
		res, err := c.AuthenticateJSON(ctx, network, json.RawMessage(body))
		var e *client.Error
		if !errors.As(err, &e) || !(e.Backpressure || e.StatusCode == http.StatusTooManyRequests) || time.Now().After(deadline) {
			return res, err
		}
		t := time.NewTimer(max(e.RetryAfter, time.Second))
		select {
		case <-ctx.Done():
			t.Stop()
			return res, err
		case <-t.C:
		}
	}
}

// splitLines returns the non-blank lines of a JSONL text with their line numbers.
func splitLines(raw []byte) []*sealLine {
	var out []*sealLine
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64<<10), len(raw)+1)
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) > 0 {
			out = append(out, &sealLine{n: n, body: append([]byte(nil), b...)})
		}
	}
	return out
}

func looksLikeObject(b []byte) bool { return len(b) > 0 && b[0] == '{' && json.Valid(b) }

// reason is a failure as a person reads it: the service's status and message, or the transport error.
func reason(err error) string {
	var e *client.Error
	if errors.As(err, &e) {
		return fmt.Sprintf("%d %s", e.StatusCode, e.Message)
	}
	return err.Error()
}

// isTerminal tells whether w is a terminal: the progress bar redraws itself with carriage returns, which only
// a terminal shows as intended; piped or logged, the summary line alone is written.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
