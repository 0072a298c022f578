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
	open chan struct{}
	once sync.Once
	held atomic.Int64 // lookups of the batches waiting at the gate
}

func newGate(t *testing.T) *gate {
	g := &gate{open: make(chan struct{})}
	t.Cleanup(g.release)
	return g
}

func (g *gate) wait(n int) {
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
//
// The batches are made, not left to the scheduler: one worker, held on a first lookup while a group of
// lookups (every key of the group twice, at most MaxLookups in all) queues, then released, so that it takes
// the whole group as one batch every time.
func TestCoalescedLookupsEachGetTheirOwn(t *testing.T) {
	withReaders(t, 1)
	f := newCoalesceFixture(t, 30)
	h, ctx := f.h, t.Context()
	var hold atomic.Pointer[gate] // the gate the next batch waits at before its read, once
	h.reads.BeforeRead = func(n int) {
		if g := hold.Swap(nil); g != nil {
			g.wait(n)
		}
	}
	var mu sync.Mutex
	var sizes []int // of every batch, in the order they were read
	h.reads.AfterRead = func(n int) {
		mu.Lock()
		sizes = append(sizes, n)
		mu.Unlock()
	}

	type result struct {
		rec  *seald.Record
		recs []*seald.Record
		err  error
	}
	type ask struct {
		key    string
		byHash bool
	}
	var keys []ask
	for _, ref := range f.refs {
		keys = append(keys, ask{key: ref})
	}
	for _, hash := range f.hashes {
		keys = append(keys, ask{key: hash, byHash: true})
	}
	for i := range 5 {
		keys = append(keys, ask{key: fmt.Sprintf("D-missing-%d", i)})
		keys = append(keys, ask{key: fmt.Sprintf("%064x", 1000+i), byHash: true})
	}
	var asks []ask
	results := make([]result, 2*len(keys))
	const perGroup = sqlstore.MaxLookups / 2 // keys of one batch, each asked twice
	for lo := 0; lo < len(keys); lo += perGroup {
		group := keys[lo:min(lo+perGroup, len(keys))]
		first := len(asks)
		asks = append(asks, group...)
		for i := len(group) - 1; i >= 0; i-- { // the second asks of the group's keys, in another order
			asks = append(asks, group[i])
		}

		g := newGate(t)
		hold.Store(g)
		held := make(chan error, 1)
		go func() {
			_, err := h.RecordBrief(ctx, f.refs[0])
			held <- err
		}()
		until(t, "the worker held on its first lookup", func() bool { return g.held.Load() == 1 })
		mu.Lock()
		sizes = nil
		mu.Unlock()
		var wg sync.WaitGroup
		for i := first; i < len(asks); i++ {
			a := asks[i]
			wg.Go(func() {
				if a.byHash {
					results[i].recs, results[i].err = h.RecordsByHashBrief(ctx, a.key)
				} else {
					results[i].rec, results[i].err = h.RecordBrief(ctx, a.key)
				}
			})
		}
		until(t, "the group's lookups to be queued", func() bool { return h.reads.Queued() == len(asks)-first })
		g.release()
		wg.Wait()
		if err := <-held; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if want := []int{1, len(asks) - first}; !reflect.DeepEqual(sizes, want) {
			t.Errorf("batches of %v lookups, want %v: the group was not one batch", sizes, want)
		}
		mu.Unlock()
	}

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
	if err := h.ExecSQL(ctx, `UPDATE record_states SET status = 'REVOKED'
		WHERE seq = (SELECT seq FROM record_facts WHERE reference = '`+ref+`')`); err != nil {
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
