package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/sqlstore"
)

// The Coalescer's own rules, apart from any database: the stores' tests (postgres, sqlite) check it again
// with their real Fetch. Here Fetch reads a map, and records what it was asked, so that a test sees the
// batches and their keys; every batch is made by holding the one worker on a first lookup while the others
// queue, never left to the scheduler.

// records is the test's "table": by reference, and by hash in the order a store gives them.
type records struct {
	byRef  map[string]*seald.Record
	byHash map[string][]*seald.Record
}

func newRecords() *records {
	db := &records{byRef: map[string]*seald.Record{}, byHash: map[string][]*seald.Record{}}
	for i := range 6 {
		r := &seald.Record{Reference: fmt.Sprintf("D-%d", i), Hash: fmt.Sprintf("%064x", i/2+1), Status: seald.StatusActive}
		db.byRef[r.Reference] = r
		db.byHash[r.Hash] = append(db.byHash[r.Hash], r)
	}
	return db
}

// fetch answers a batch as a store does: fresh records (never the table's own), each key once.
func (db *records) fetch(refs, hashes []string) (map[string]*seald.Record, map[string][]*seald.Record) {
	byRef, byHash := map[string]*seald.Record{}, map[string][]*seald.Record{}
	for _, ref := range refs {
		if r, ok := db.byRef[ref]; ok {
			cp := *r
			byRef[ref] = &cp
		}
	}
	for _, h := range hashes {
		for _, r := range db.byHash[h] {
			cp := *r
			byHash[h] = append(byHash[h], &cp)
		}
	}
	return byRef, byHash
}

// harness is a Coalescer of one worker over records, whose next batch can be held before its read.
type harness struct {
	c    *sqlstore.Coalescer
	db   *records
	hold atomic.Pointer[chan struct{}] // closed to let the held batch read
	held atomic.Int64                  // lookups of the batch waiting at hold

	mu      sync.Mutex
	batches [][]string // the keys each Fetch was given: references, then "#" and hashes
	ctxErrs []error    // the Fetch context's error as each Fetch began (after its wait when abandoned)
	err     error      // Fetch's answer when not nil
	// abandoned: Fetch waits (at most 30 s) for its context to end before it records the context's error: the
	// batch's context ends once its last caller has left, in a goroutine of its own.
	abandoned bool
}

var dialect = sqlstore.Dialect{Name: "test", Code: func(error) (seald.Code, string) { return "", "" }}

func newHarness(t *testing.T) *harness {
	h := &harness{db: newRecords()}
	h.c = sqlstore.NewCoalescer(dialect, 1, func(ctx context.Context, refs, hashes []string) (map[string]*seald.Record, map[string][]*seald.Record, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.abandoned {
			select {
			case <-ctx.Done():
			case <-time.After(30 * time.Second):
			}
		}
		h.batches = append(h.batches, append(append(slices.Clone(refs), "#"), hashes...))
		h.ctxErrs = append(h.ctxErrs, ctx.Err())
		if h.err != nil {
			return nil, nil, h.err
		}
		byRef, byHash := h.db.fetch(refs, hashes)
		return byRef, byHash, nil
	})
	h.c.BeforeRead = func(n int) {
		if open := h.hold.Swap(nil); open != nil {
			h.held.Add(int64(n))
			<-*open
			h.held.Add(-int64(n))
		}
	}
	t.Cleanup(h.c.Close)
	return h
}

// holdNext makes the next batch wait before its read until release is called.
func (h *harness) holdNext(t *testing.T) (release func()) {
	open := make(chan struct{})
	h.hold.Store(&open)
	var once sync.Once
	release = func() { once.Do(func() { close(open) }) }
	t.Cleanup(release)
	return release
}

// until waits, at most 30 s, for cond.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// answer is one caller's result.
type answer struct {
	rec  *seald.Record
	recs []*seald.Record
	err  error
}

// ask runs a lookup (a hash when it is 64 characters long) in its own goroutine.
func (h *harness) ask(ctx context.Context, key string) chan answer {
	c := make(chan answer, 1)
	go func() {
		var a answer
		if len(key) == 64 {
			a.recs, a.err = h.c.RecordsByHashBrief(ctx, key)
		} else {
			a.rec, a.err = h.c.RecordBrief(ctx, key)
		}
		c <- a
	}()
	return c
}

// inOneBatch holds the worker on a first lookup, queues keys, and lets the worker take them all at once.
func (h *harness) inOneBatch(t *testing.T, keys ...string) []answer {
	t.Helper()
	release := h.holdNext(t)
	first := h.ask(t.Context(), "D-0")
	until(t, "the worker held", func() bool { return h.held.Load() == 1 })
	var cs []chan answer
	for _, k := range keys {
		cs = append(cs, h.ask(t.Context(), k))
	}
	until(t, "every lookup queued", func() bool { return h.c.Queued() == len(keys) })
	release()
	<-first // its own batch's answer: a failed Fetch's error when the test sets one
	var out []answer
	for _, c := range cs {
		out = append(out, <-c)
	}
	return out
}

// One batch answers every caller queued meanwhile with one Fetch, which gets each key once; each caller
// gets its own answer: its record, its own ENOTFOUND, its hash's records in the store's order or an empty
// list; callers of one key get equal answers in records of their own.
func TestCoalescerEachCallerItsOwn(t *testing.T) {
	h := newHarness(t)
	h1, h2, none := fmt.Sprintf("%064x", 1), fmt.Sprintf("%064x", 3), fmt.Sprintf("%064x", 99)
	keys := []string{"D-1", "D-missing", h1, "D-4", "D-1", h2, none, h1, "D-missing", "D-5"}
	got := h.inOneBatch(t, keys...)

	h.mu.Lock()
	if len(h.batches) != 2 {
		t.Fatalf("%d reads, want 2 (the held lookup's, then one for the %d queued): %v", len(h.batches), len(keys), h.batches)
	}
	read := h.batches[1]
	h.mu.Unlock()
	if want := []string{"D-1", "D-missing", "D-4", "D-5", "#", h1, h2, none}; !sameKeys(read, want) {
		t.Errorf("the batch read %v, want each key once: %v", read, want)
	}

	shared := map[*seald.Record]string{}
	own := func(key string, r *seald.Record) {
		if other, ok := shared[r]; ok {
			t.Errorf("%s: a record shared with the caller of %s", key, other)
		}
		shared[r] = key
	}
	for i, key := range keys {
		a := got[i]
		switch {
		case len(key) == 64:
			want := h.db.byHash[key]
			if a.err != nil || a.recs == nil || len(a.recs) != len(want) {
				t.Errorf("RecordsByHashBrief(%s) = %d records, %v; want %d", key, len(a.recs), a.err, len(want))
				continue
			}
			for j, r := range a.recs {
				if r.Reference != want[j].Reference {
					t.Errorf("RecordsByHashBrief(%s)[%d] = %s, want %s", key, j, r.Reference, want[j].Reference)
				}
				own(key, r)
			}
		case h.db.byRef[key] == nil:
			if seald.ErrorCode(a.err) != seald.ENOTFOUND || a.rec != nil || a.err.Error() != "test.RecordBrief: record "+key+" not found" {
				t.Errorf("RecordBrief(%s) = %v, %v; want its ENOTFOUND", key, a.rec, a.err)
			}
		default:
			if a.err != nil || a.rec == nil || a.rec.Reference != key {
				t.Errorf("RecordBrief(%s) = %v, %v", key, a.rec, a.err)
				continue
			}
			own(key, a.rec)
		}
	}
}

// sameKeys: the references and the hashes of a batch as sets, each once.
func sameKeys(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	split := func(keys []string) ([]string, []string) {
		i := slices.Index(keys, "#")
		refs, hashes := slices.Clone(keys[:i]), slices.Clone(keys[i+1:])
		slices.Sort(refs)
		slices.Sort(hashes)
		return refs, hashes
	}
	gr, gh := split(got)
	wr, wh := split(want)
	return slices.Equal(gr, wr) && slices.Equal(gh, wh)
}

// A batch's Fetch error is every caller of that batch's, with the store's op; the next batch reads again.
func TestCoalescerFetchError(t *testing.T) {
	h := newHarness(t)
	boom := errors.New("connection reset")
	h.mu.Lock()
	h.err = boom
	h.mu.Unlock()
	for _, a := range h.inOneBatch(t, "D-1", fmt.Sprintf("%064x", 1)) {
		var se *seald.Error
		if !errors.Is(a.err, boom) || !errors.As(a.err, &se) || se.Code != seald.EINTERNAL || a.rec != nil || a.recs != nil {
			t.Errorf("a caller of a failed batch got %v, %v, %v; want the EINTERNAL of %v", a.rec, a.recs, a.err, boom)
		}
	}
	h.mu.Lock()
	h.err = nil
	h.mu.Unlock()
	if r, err := h.c.RecordBrief(t.Context(), "D-2"); err != nil || r.Reference != "D-2" {
		t.Errorf("the batch after = %v, %v", r, err)
	}
}

// A caller whose context ends gets its context's error: at once while its lookup is queued, after its batch
// when a worker had taken it. The other callers of its batch get their answers, from a Fetch whose context
// did not end; only when every caller of a batch has left is its Fetch's context cancelled.
func TestCoalescerCancelledCallerLeavesOthers(t *testing.T) {
	h := newHarness(t)

	t.Run("queued", func(t *testing.T) {
		release := h.holdNext(t)
		first := h.ask(t.Context(), "D-0")
		until(t, "the worker held", func() bool { return h.held.Load() == 1 })
		ctx, cancel := context.WithCancel(t.Context())
		queued := h.ask(ctx, "D-1")
		until(t, "the lookup queued", func() bool { return h.c.Queued() == 1 })
		cancel()
		if a := <-queued; !errors.Is(a.err, context.Canceled) || a.rec != nil {
			t.Errorf("a queued lookup cancelled = %v, %v; want context.Canceled", a.rec, a.err)
		}
		release()
		if a := <-first; a.err != nil {
			t.Error(a.err)
		}
	})

	t.Run("in a batch", func(t *testing.T) {
		release := h.holdNext(t)
		ctx, cancel := context.WithCancel(t.Context())
		gone := h.ask(ctx, "D-1")
		until(t, "the worker held", func() bool { return h.held.Load() == 1 })
		h.mu.Lock()
		h.abandoned = true
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			h.abandoned = false
			h.mu.Unlock()
		}()
		cancel() // taken by the worker, before its batch's read: it waits for the batch
		release()
		if a := <-gone; !errors.Is(a.err, context.Canceled) || a.rec != nil {
			t.Errorf("a lookup cancelled in its batch = %v, %v; want context.Canceled", a.rec, a.err)
		}
		h.mu.Lock()
		last := h.ctxErrs[len(h.ctxErrs)-1]
		h.mu.Unlock()
		if last == nil {
			t.Error("every caller of the batch had left, and its Fetch's context had not ended")
		}
	})

	t.Run("beside another", func(t *testing.T) {
		release := h.holdNext(t)
		first := h.ask(t.Context(), "D-0")
		until(t, "the worker held", func() bool { return h.held.Load() == 1 })
		ctx, cancel := context.WithCancel(t.Context())
		x := h.ask(ctx, "D-2")
		until(t, "one lookup queued", func() bool { return h.c.Queued() == 1 })
		y := h.ask(t.Context(), "D-2")
		until(t, "two lookups queued", func() bool { return h.c.Queued() == 2 })
		// Both go in the next batch; x leaves once the worker has taken them, before the read.
		release2 := h.holdNext(t)
		release()
		if a := <-first; a.err != nil {
			t.Fatal(a.err)
		}
		until(t, "the second batch held", func() bool { return h.held.Load() == 2 })
		cancel()
		release2()
		if a := <-x; !errors.Is(a.err, context.Canceled) {
			t.Errorf("the cancelled lookup = %v, %v; want context.Canceled", a.rec, a.err)
		}
		if a := <-y; a.err != nil || a.rec == nil || a.rec.Reference != "D-2" {
			t.Errorf("the lookup beside a cancelled one = %v, %v; want D-2", a.rec, a.err)
		}
		h.mu.Lock()
		last := h.ctxErrs[len(h.ctxErrs)-1]
		h.mu.Unlock()
		if last != nil {
			t.Errorf("one caller of two left, and its batch's Fetch began with a context ended: %v", last)
		}
	})
}

// After Close, a lookup fails with ErrClosed.
func TestCoalescerClosed(t *testing.T) {
	h := newHarness(t)
	if _, err := h.c.RecordBrief(t.Context(), "D-1"); err != nil {
		t.Fatal(err)
	}
	h.c.Close()
	if _, err := h.c.RecordBrief(t.Context(), "D-1"); !errors.Is(err, sqlstore.ErrClosed) {
		t.Errorf("a lookup after Close = %v, want ErrClosed", err)
	}
}
