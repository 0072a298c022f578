package mail

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// openBounded opens the outbox in dir with an index of window lines, and syncs that cost nothing: what is
// measured here is the index, not durability.
func openBounded(t *testing.T, dir string, window int) *Outbox {
	t.Helper()
	o, err := NewOutbox(dir, "Seald <noreply@seald.example.com>")
	if err != nil {
		t.Fatal(err)
	}
	o.window, o.syncFiles = window, func(...*os.File) error { return nil }
	if err := o.Recover(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o
}

// sendAll sends the messages of refN(from) to refN(to-1), sixteen at a time, each accepted at since.
func sendAll(t *testing.T, o *Outbox, from, to int, since time.Time) {
	t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := from; i < to; i++ {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			m := mailFor(refN(i))
			m.Since = since
			if _, err := o.Send(context.Background(), m); err != nil {
				t.Errorf("send %d: %v", i, err)
			}
		})
	}
	wg.Wait()
}

// countingReader counts the bytes read through it.
type countingReader struct {
	f *os.File
	n int64
}

func (c *countingReader) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.f.ReadAt(b, off)
	c.n += int64(n)
	return n, err
}

// The outbox's sent index holds the recent sends only (issue 45): after N sends it holds at most its window,
// a start builds it from the end of the log without reading the whole of it, and a resend still finds its
// first message however old it is (from the index, or from the log when the index no longer holds it), so
// each record's message stays in the outbox once.
func TestOutboxSentIndexBounded(t *testing.T) {
	const window, n = 64, 1000
	dir := t.TempDir()
	o := openBounded(t, dir, window)
	start := time.Now()
	first := mailFor(refN(0))
	first.Since = start
	want0, err := o.Send(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	sendAll(t, o, 1, n, start)
	if got := o.sent.len(); got > window {
		t.Errorf("after %d sends the index holds %d lines, want at most %d", n, got, window)
	}
	if got := len(o.sent.lines); got > window {
		t.Errorf("after %d sends the index maps %d references, want at most %d", n, got, window)
	}
	// A resend of the oldest record, accepted before the index's oldest line: found in the log.
	for _, since := range []time.Time{start, {}} {
		m := mailFor(refN(0))
		m.Since = since
		id, err := o.Send(context.Background(), m)
		if err != nil || id != want0 {
			t.Fatalf("resend of %s (since %v): %q, %v; want %q", refN(0), since, id, err, want0)
		}
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}

	// A start reads the end of the log only.
	f, err := os.Open(filepath.Join(dir, SentLog))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	cr := &countingReader{f: f}
	x, err := indexLog(cr, st.Size(), window, sentKeep)
	if err != nil {
		t.Fatal(err)
	}
	if cr.n*4 > st.Size() || x.len() > window || x.len() < window/2 {
		t.Errorf("building the index read %d of the log's %d bytes and holds %d lines; want at most a quarter, "+
			"and between %d and %d lines", cr.n, st.Size(), x.len(), window/2, window)
	}

	// After a restart: resends of old and recent records write nothing, new records are written.
	o = openBounded(t, dir, window)
	sendAll(t, o, 0, n+10, start)
	sends, err := o.Sends()
	if err != nil {
		t.Fatal(err)
	}
	if len(sends) != n+10 {
		t.Errorf("the outbox has messages of %d records, want %d", len(sends), n+10)
	}
	for ref, k := range sends {
		if k != 1 {
			t.Errorf("%s was sent %d times", ref, k)
		}
	}
	if got := o.sent.len(); got > window {
		t.Errorf("after the restart the index holds %d lines, want at most %d", got, window)
	}
}
