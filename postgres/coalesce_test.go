package postgres

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/sqlstore"
)

// coalesceFixture is a store with a tenant and records, some sharing a hash.
type coalesceFixture struct {
	h      *harnessStore
	refs   []string                 // every record's reference
	hashes []string                 // every hash, of one record or several
	recs   map[string]*seald.Record // by reference, as created
}

// withReaders runs the test with n batches of lookups in flight at most.
func withReaders(t *testing.T, n int) {
	old := readers
	readers = n
	t.Cleanup(func() { readers = old })
}

func newCoalesceFixture(t *testing.T, n int) *coalesceFixture {
	t.Helper()
	h := openDSN(t, freshSchema(t))
	ctx := t.Context()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b, p := createOwner(t, h, 2, "coalesce", at)
	f := &coalesceFixture{h: h, recs: map[string]*seald.Record{}}
	for i := range n {
		// Records i and i+1 share a hash when i%3 is 0 or 1 (three per hash), two of them sealed at one
		// instant, so that the order of a hash's records (created_at, then seq) counts.
		hash := fmt.Sprintf("%064x", i/3+1)
		created := at.Add(time.Duration(i%2) * time.Second)
		r := &seald.Record{Reference: fmt.Sprintf("D-coalesce-%04d", i), Pipeline: seald.PipelinePolygon,
			BusinessID: b.BusinessID, ProjectID: p.ProjectID, Network: seald.NetworkPolygon, Hash: hash,
			MimeType: "application/json", Privacy: seald.PrivacyPublic, Status: seald.StatusActive,
			State: seald.StatePending, CreatedAt: created, UpdatedAt: created}
		if err := h.CreateRecord(ctx, r, nil); err != nil {
			t.Fatal(err)
		}
		f.refs = append(f.refs, r.Reference)
		if i%3 == 0 {
			f.hashes = append(f.hashes, hash)
		}
		f.recs[r.Reference] = r
	}
	return f
}

// gate blocks the workers' batches until it is opened, counting the lookups it holds.
type gate struct {
	open    chan struct{}
	once    sync.Once
	held    atomic.Int64 // lookups of the batches waiting at the gate
	batches atomic.Int64 // batches that reached the gate
	largest atomic.Int64 // lookups of the largest batch
}

func newGate(t *testing.T) *gate {
	g := &gate{open: make(chan struct{})}
	t.Cleanup(g.release)
	return g
}

func (g *gate) wait(n int) {
	g.batches.Add(1)
	for {
		l := g.largest.Load()
		if int64(n) <= l || g.largest.CompareAndSwap(l, int64(n)) {
			break
		}
	}
	g.held.Add(int64(n))
	<-g.open
	g.held.Add(-int64(n))
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// until waits, at most 30 s, for cond.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Concurrent lookups are answered in batches, and each caller gets exactly its own answer: its record, or
// its own ENOTFOUND for a reference that does not exist; the records of its hash in the order they have
// alone (newest first, then the last inserted first), or none for a hash without records; a key asked
// twice in one batch gives each caller the same answer in records of its own.
func TestCoalescedLookupsEachGetTheirOwn(t *testing.T) {
	f := newCoalesceFixture(t, 30)
	h, ctx := f.h, t.Context()
	g := newGate(t)
	h.reads.AfterRead = g.wait

	type result struct {
		rec  *seald.Record
		recs []*seald.Record
		err  error
	}
	type ask struct {
		key    string
		byHash bool
	}
	var asks []ask
	for round := range 2 { // every key twice
		for i, ref := range f.refs {
			if i%2 == round { // interleaved differently in each round
				asks = append(asks, ask{key: ref})
			}
			asks = append(asks, ask{key: ref})
		}
		for _, hash := range f.hashes {
			asks = append(asks, ask{key: hash, byHash: true})
		}
		for i := range 5 {
			asks = append(asks, ask{key: fmt.Sprintf("D-missing-%d", i)})
			asks = append(asks, ask{key: fmt.Sprintf("%064x", 1000+i), byHash: true})
		}
	}
	results := make([]result, len(asks))
	var wg sync.WaitGroup
	for i, a := range asks {
		wg.Go(func() {
			if a.byHash {
				results[i].recs, results[i].err = h.RecordsByHashBrief(ctx, a.key)
			} else {
				results[i].rec, results[i].err = h.RecordBrief(ctx, a.key)
			}
		})
	}
	until(t, "every lookup to be queued or held", func() bool {
		return int64(h.reads.Queued())+g.held.Load() == int64(len(asks))
	})
	g.release()
	wg.Wait()

	seen := map[*seald.Record]bool{}
	for i, a := range asks {
		res := results[i]
		if a.byHash {
			want, err := h.Store.Store.RecordsByHashBrief(ctx, a.key) // the plain read, one statement
			if err != nil {
				t.Fatal(err)
			}
			if res.err != nil || !reflect.DeepEqual(res.recs, want) || res.recs == nil {
				t.Errorf("RecordsByHashBrief(%s) = %v, %v; want %v", a.key, refsOf(res.recs), res.err, refsOf(want))
			}
			for _, r := range res.recs {
				if seen[r] {
					t.Errorf("RecordsByHashBrief(%s): a record shared with another caller", a.key)
				}
				seen[r] = true
			}
			continue
		}
		want, ok := f.recs[a.key]
		if !ok {
			if seald.ErrorCode(res.err) != seald.ENOTFOUND || res.rec != nil ||
				res.err.Error() != fmt.Sprintf("postgres.RecordBrief: record %s not found", a.key) {
				t.Errorf("RecordBrief(%s) = %v, %v; want its ENOTFOUND", a.key, res.rec, res.err)
			}
			continue
		}
		if res.err != nil || !reflect.DeepEqual(res.rec, want.Brief()) {
			t.Errorf("RecordBrief(%s) = %+v, %v; want %+v", a.key, res.rec, res.err, want.Brief())
			continue
		}
		if seen[res.rec] {
			t.Errorf("RecordBrief(%s): a record shared with another caller", a.key)
		}
		seen[res.rec] = true
	}
	if b := g.batches.Load(); b >= int64(len(asks))/4 || g.largest.Load() < 2 {
		t.Errorf("%d lookups in %d batches, the largest of %d: not coalesced", len(asks), b, g.largest.Load())
	}
	if g.largest.Load() > sqlstore.MaxLookups {
		t.Errorf("a batch of %d lookups, more than %d", g.largest.Load(), sqlstore.MaxLookups)
	}
}

// Under a plain concurrent load (no gate), lookups share statements: fewer batches than lookups.
func TestCoalescedLookupsShareStatements(t *testing.T) {
	f := newCoalesceFixture(t, 30)
	h, ctx := f.h, t.Context()
	var batches, lookups atomic.Int64
	h.reads.BeforeRead = func(n int) { batches.Add(1); lookups.Add(int64(n)) }
	var wg sync.WaitGroup
	for w := range 64 {
		wg.Go(func() {
			for i := range 20 {
				ref := f.refs[(w+i)%len(f.refs)]
				r, err := h.RecordBrief(ctx, ref)
				if err != nil || r.Reference != ref {
					t.Errorf("RecordBrief(%s) = %v, %v", ref, r, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if lookups.Load() != 64*20 || batches.Load() >= lookups.Load()/2 {
		t.Errorf("%d lookups in %d statements: not coalesced", lookups.Load(), batches.Load())
	}
	t.Logf("%d lookups in %d statements", lookups.Load(), batches.Load())
}

// A lookup that starts after a change committed sees it, even while a read of the same record that started
// before the change is still in flight: it is never answered by that earlier read.
func TestCoalescedLookupIsFresh(t *testing.T) {
	withReaders(t, 2)
	f := newCoalesceFixture(t, 3)
	h, ctx := f.h, t.Context()
	ref, hash := f.refs[0], f.recs[f.refs[0]].Hash
	read, g := make(chan struct{}), newGate(t)
	var first atomic.Bool
	h.reads.AfterRead = func(n int) {
		if first.CompareAndSwap(false, true) { // not a sync.Once: the later batches must not wait for it
			close(read)
			g.wait(n)
		}
	}
	type result struct {
		r   *seald.Record
		err error
	}
	before := make(chan result, 1)
	go func() {
		r, err := h.RecordBrief(ctx, ref)
		before <- result{r, err}
	}()
	<-read // the first read has run, and waits to answer
	if err := h.ExecSQL(ctx, `UPDATE records SET status = 'REVOKED' WHERE reference = '`+ref+`'`); err != nil {
		t.Fatal(err)
	}
	r, err := h.RecordBrief(ctx, ref)
	if err != nil || r.Status != seald.StatusRevoked {
		t.Errorf("RecordBrief after the change = %v, %v; want REVOKED", r, err)
	}
	rs, err := h.RecordsByHashBrief(ctx, hash)
	if err != nil || len(rs) != 3 || rs[len(rs)-1].Reference != ref || rs[len(rs)-1].Status != seald.StatusRevoked {
		t.Errorf("RecordsByHashBrief after the change = %v, %v; want %s REVOKED", rs, err, ref)
	}
	g.release()
	if res := <-before; res.err != nil || res.r.Status != seald.StatusActive {
		t.Errorf("RecordBrief before the change = %v, %v; want ACTIVE", res.r, res.err)
	}
}

// A caller whose context ends gets its context's error, whether its lookup was still queued or already in a
// batch, and the other callers of that batch get their records.
func TestCoalescedLookupCancelled(t *testing.T) {
	withReaders(t, 1)
	f := newCoalesceFixture(t, 3)
	h, ctx := f.h, t.Context()
	first, second := newGate(t), newGate(t)
	var batch atomic.Int64
	h.reads.BeforeRead = func(n int) {
		if batch.Add(1) == 2 {
			second.wait(n)
		}
	}
	h.reads.AfterRead = func(n int) {
		if batch.Load() == 1 {
			first.wait(n)
		}
	}
	type result struct {
		r   *seald.Record
		err error
	}
	lookup := func(ctx context.Context, ref string) chan result {
		c := make(chan result, 1)
		go func() {
			r, err := h.RecordBrief(ctx, ref)
			c <- result{r, err}
		}()
		return c
	}
	ctxA, cancelA := context.WithCancel(ctx)
	defer cancelA()
	a := lookup(ctxA, f.refs[0]) // alone in the first batch, held after its read
	until(t, "the first batch", func() bool { return first.held.Load() == 1 })
	ctxQ, cancelQ := context.WithCancel(ctx)
	defer cancelQ()
	queued := lookup(ctxQ, f.refs[1])
	ctxX, cancelX := context.WithCancel(ctx)
	defer cancelX()
	until(t, "a queued lookup", func() bool { return h.reads.Queued() == 1 })
	x := lookup(ctxX, f.refs[2]) // the first of the second batch
	until(t, "two queued lookups", func() bool { return h.reads.Queued() == 2 })
	y := lookup(ctx, f.refs[2])
	until(t, "three queued lookups", func() bool { return h.reads.Queued() == 3 })

	cancelQ() // still queued: it leaves at once
	if res := <-queued; !errors.Is(res.err, context.Canceled) || res.r != nil {
		t.Errorf("queued lookup cancelled = %v, %v; want context.Canceled", res.r, res.err)
	}
	cancelA() // its batch has read: it waits for the batch, then gets its context's error
	first.release()
	if res := <-a; !errors.Is(res.err, context.Canceled) || res.r != nil {
		t.Errorf("lookup cancelled in its batch = %v, %v; want context.Canceled", res.r, res.err)
	}
	until(t, "the second batch", func() bool { return second.held.Load() == 2 })
	cancelX() // in the second batch, before its statement is sent: y's answer must not suffer
	second.release()
	if res := <-x; !errors.Is(res.err, context.Canceled) || res.r != nil {
		t.Errorf("lookup cancelled before its batch's read = %v, %v; want context.Canceled", res.r, res.err)
	}
	if res := <-y; res.err != nil || res.r.Reference != f.refs[2] {
		t.Errorf("lookup beside a cancelled one = %v, %v; want %s", res.r, res.err, f.refs[2])
	}
}

// refsOf returns the references of rs, for messages.
func refsOf(rs []*seald.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Reference+" "+string(r.Status))
	}
	return out
}
