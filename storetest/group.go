package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"seald.dev/seald"
)

// Tests of CreateRecord called by many goroutines at once, as the API does under load. Stores may commit
// concurrent calls together (group commit); these tests hold them to the contract of one call at a time:
// every success is durable and complete, every failure leaves nothing and is the caller's own.

// createResult is what one concurrent CreateRecord call returned.
type createResult struct {
	r   *seald.Record
	job *seald.Job
	err error
}

// createConcurrently calls CreateRecord for each record from its own goroutine, all released at once.
func createConcurrently(ctx context.Context, s seald.Store, rs []*seald.Record, jobs func(*seald.Record) []*seald.Job) []createResult {
	out := make([]createResult, len(rs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, r := range rs {
		js := jobs(r)
		out[i] = createResult{r: r}
		if len(js) > 0 {
			out[i].job = js[0]
		}
		wg.Go(func() {
			<-start
			out[i].err = s.CreateRecord(ctx, r, []byte(`{"ref":"`+r.Reference+`"}`), js...)
		})
	}
	close(start)
	wg.Wait()
	return out
}

// storeJob is the usual first job of a record.
func storeJob(*seald.Record) []*seald.Job { return []*seald.Job{{Kind: seald.JobStore, RunAt: base}} }

// complete checks that a record, its payload and its job are all present (want) or all absent.
func complete(t *testing.T, s seald.Store, ref string, want bool) {
	t.Helper()
	ctx := t.Context()
	_, rerr := s.Record(ctx, ref)
	_, perr := s.Payload(ctx, ref)
	if want {
		ok(t, "Record "+ref, rerr)
		ok(t, "Payload "+ref, perr)
		return
	}
	wantCode(t, "Record "+ref+" that must not exist", rerr, seald.ENOTFOUND)
	wantCode(t, "Payload "+ref+" that must not exist", perr, seald.ENOTFOUND)
}

// Many concurrent creates all succeed, each with its own job id, and are all there in another Store (another
// process) on the same database; a duplicate reference among them, and a create with an invalid job, fail
// alone with their own errors and leave nothing behind.
func testConcurrentCreateMany(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	existing := newRecord(p, base)
	create(t, s, existing)

	const n = 200
	var rs []*seald.Record
	for range n {
		rs = append(rs, newRecord(p, base))
	}
	dupOfExisting := newRecord(p, base)
	dupOfExisting.Reference = existing.Reference
	twinA, twinB := newRecord(p, base), newRecord(p, base)
	twinB.Reference = twinA.Reference
	invalid := newRecord(p, base)
	// Spread the faulty ones among the good ones, so that they share groups with them.
	rs = append(rs[:50], append([]*seald.Record{dupOfExisting}, rs[50:]...)...)
	rs = append(rs[:100], append([]*seald.Record{twinA}, rs[100:]...)...)
	rs = append(rs[:150], append([]*seald.Record{invalid, twinB}, rs[150:]...)...)

	res := createConcurrently(ctx, s, rs, func(r *seald.Record) []*seald.Job {
		if r == invalid {
			return []*seald.Job{{Kind: seald.JobStore, RunAt: base}, {Kind: seald.JobStore, Reference: "D-absent", RunAt: base}}
		}
		return storeJob(r)
	})

	ids := map[int64]string{}
	twins := 0
	for _, c := range res {
		switch c.r {
		case dupOfExisting:
			wantCode(t, "CreateRecord of an existing reference", c.err, seald.ECONFLICT)
		case invalid:
			if c.err == nil {
				t.Errorf("CreateRecord with a job of another, absent record succeeded")
			}
		case twinA, twinB:
			if c.err == nil {
				twins++
			} else {
				wantCode(t, "CreateRecord of a reference created at the same time", c.err, seald.ECONFLICT)
			}
		default:
			if c.err != nil {
				t.Errorf("CreateRecord %s: %v", c.r.Reference, c.err)
				continue
			}
			if c.job.ID == 0 || c.job.Reference != c.r.Reference {
				t.Errorf("job of %s: id %d, reference %q", c.r.Reference, c.job.ID, c.job.Reference)
			}
			if other, dup := ids[c.job.ID]; dup {
				t.Errorf("records %s and %s were given the same job id %d", other, c.r.Reference, c.job.ID)
			}
			ids[c.job.ID] = c.r.Reference
		}
	}
	if twins != 1 {
		t.Errorf("%d of two creates of one reference succeeded, want exactly 1", twins)
	}

	// What another process sees: everything that succeeded, nothing of what failed.
	other := s
	if _, isReopener := s.(Reopener); isReopener {
		other = reopen(t, s)
	}
	for _, c := range res {
		if c.r == dupOfExisting || c.r == twinA || c.r == twinB {
			continue
		}
		complete(t, other, c.r.Reference, c.err == nil)
	}
	got := record(t, other, existing.Reference)
	equal(t, "the existing record after a duplicate create", got.Hash, existing.Hash)
	counts, err := other.CountJobs(ctx)
	ok(t, "CountJobs", err)
	if want := n + 1; counts[seald.JobStore] != want { // n, the twin that won; the existing record has none
		t.Errorf("%d store jobs, want %d", counts[seald.JobStore], want)
	}
}

// A create whose context is cancelled is all or nothing: if it returned success its record is there with
// its payload and job; whatever it returned, the record is never there without its payload.
func testConcurrentCreateCancelled(t *testing.T, s seald.Store) {
	_, p := tenant(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	var rs []*seald.Record
	for range 100 {
		rs = append(rs, newRecord(p, base))
	}
	go func() {
		time.Sleep(time.Millisecond)
		cancel()
	}()
	res := createConcurrently(ctx, s, rs, storeJob)
	cancel()
	// A store may let a caller that gave up return before its write ended. Closing the store waits for the
	// writes in flight; without a second store to look with, a later write stands in for that wait (in a
	// store that commits in order).
	if _, isReopener := s.(Reopener); isReopener {
		ok(t, "Close", s.Close())
		s = reopen(t, s)
	} else {
		create(t, s, newRecord(p, base))
	}

	done := t.Context()
	n := 0
	for _, c := range res {
		_, rerr := s.Record(done, c.r.Reference)
		present := rerr == nil
		if c.err == nil && !present {
			t.Errorf("CreateRecord %s succeeded but the record is not there: %v", c.r.Reference, rerr)
		}
		if present {
			n++
		}
		complete(t, s, c.r.Reference, present)
	}
	counts, err := s.CountJobs(done)
	ok(t, "CountJobs", err)
	if counts[seald.JobStore] != n {
		t.Errorf("%d store jobs for %d records present", counts[seald.JobStore], n)
	}

	// An already cancelled context writes nothing.
	r := newRecord(p, base)
	if err := s.CreateRecord(ctx, r, []byte("{}"), storeJob(r)...); err == nil {
		t.Errorf("CreateRecord with a cancelled context succeeded")
	}
	complete(t, s, r.Reference, false)
}

// Closing the store while creates are in flight loses none of those that succeeded: another Store on the
// same database finds every one, complete; the creates that failed left nothing.
func testCloseDrainsCreates(t *testing.T, s seald.Store) {
	if _, isReopener := s.(Reopener); !isReopener {
		t.Skipf("the harness store %T does not implement storetest.Reopener: test skipped", s)
	}
	_, p := tenant(t, s)
	var rs []*seald.Record
	for range 100 {
		rs = append(rs, newRecord(p, base))
	}
	closed := make(chan error, 1)
	go func() {
		time.Sleep(2 * time.Millisecond)
		closed <- s.Close()
	}()
	res := createConcurrently(t.Context(), s, rs, storeJob)
	ok(t, "Close", <-closed)

	other := reopen(t, s)
	succeeded := 0
	for _, c := range res {
		if c.err == nil {
			succeeded++
			complete(t, other, c.r.Reference, true)
			continue
		}
		// A create that failed because the store closed under it was either never run or rolled back.
		_, rerr := other.Record(t.Context(), c.r.Reference)
		complete(t, other, c.r.Reference, rerr == nil)
	}
	t.Logf("%d of %d creates succeeded before Close", succeeded, len(rs))
}
