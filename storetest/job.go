package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"seald.dev/seald"
)

var jobTests = []test{
	{"ClaimDue", testClaimDue},
	{"ClaimLimit", testClaimLimit},
	{"ClaimLease", testClaimLease},
	{"ClaimNothing", testClaimNothing},
	{"ClaimPriority", testClaimPriority},
	{"ClaimConcurrent", testClaimConcurrent},
	{"ClaimRecords", testClaimRecords},
	{"Complete", testCompleteJob},
	{"CompleteKeepsPayload", testCompleteKeepsPayload},
	{"CompleteKeepsStatus", testCompleteKeepsStatus},
	{"CompleteOwnFields", testCompleteOwnFields},
	{"CompleteMovedOn", testCompleteMovedOn},
	{"CompleteStale", testCompleteStale},
	{"CompleteTogether", testCompleteTogether},
	{"Retry", testRetryJob},
	{"Fail", testFailJob},
	{"ReleaseLeases", testReleaseLeases},
	{"CountJobs", testCountJobs},
}

// withJobs stores a record of p with the given jobs and returns it.
func withJobs(t *testing.T, s seald.Store, p *seald.Project, jobs ...*seald.Job) *seald.Record {
	t.Helper()
	r := newRecord(p, base)
	create(t, s, r, jobs...)
	return r
}

// claimed is j as ClaimJobs returns it when leased until, less what bare leaves out.
func claimed(j *seald.Job, until time.Time) *seald.Job {
	c := *j
	c.LeasedUntil, c.Record, c.Payload = until, nil, nil
	return &c
}

// bare is jobs without the record and payload a claim reads with them (testClaimRecords checks those), to
// compare what the claim says of the jobs themselves.
func bare(jobs ...*seald.Job) []*seald.Job {
	out := make([]*seald.Job, len(jobs))
	for i, j := range jobs {
		c := *j
		c.Record, c.Payload = nil, nil
		out[i] = &c
	}
	return out
}

// claimOne claims the single job due at now, failing the test unless there is exactly one.
func claimOne(t *testing.T, s seald.Store, now time.Time, lease time.Duration) *seald.Job {
	t.Helper()
	jobs, err := s.ClaimJobs(t.Context(), allKinds, 10, now, lease)
	ok(t, "ClaimJobs", err)
	if len(jobs) != 1 {
		t.Fatalf("ClaimJobs at %v = %s, want one job", now, show(jobs))
	}
	return jobs[0]
}

// Only due jobs of the asked kinds are claimed, earliest first, with the lease asked for.
func testClaimDue(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	a := &seald.Job{Kind: seald.JobStore, RunAt: base}
	b := &seald.Job{Kind: seald.JobNotify, RunAt: base.Add(time.Minute), Attempts: 3, LastError: "smtp: 451"}
	c := &seald.Job{Kind: seald.JobStore, RunAt: base.Add(-time.Minute)}
	future := &seald.Job{Kind: seald.JobStore, RunAt: base.Add(time.Minute + time.Millisecond)}
	finish := &seald.Job{Kind: seald.JobFinish, RunAt: base}
	withJobs(t, s, p, a, b)
	withJobs(t, s, p, c, future, finish)

	now, lease := base.Add(time.Minute), 5*time.Minute
	got, err := s.ClaimJobs(ctx, []string{seald.JobStore, seald.JobNotify}, 10, now, lease)
	ok(t, "ClaimJobs", err)
	until := now.Add(lease)
	equal(t, "claimed jobs", bare(got...), []*seald.Job{claimed(c, until), claimed(a, until), claimed(b, until)})

	got, err = s.ClaimJobs(ctx, []string{seald.JobFinish}, 10, now, lease)
	ok(t, "ClaimJobs finish", err)
	equal(t, "claimed finish jobs", bare(got...), []*seald.Job{claimed(finish, until)})
}

func testClaimLimit(t *testing.T, s seald.Store) {
	_, p := tenant(t, s)
	var jobs []*seald.Job
	for i := range 5 {
		jobs = append(jobs, &seald.Job{Kind: seald.JobStore, RunAt: base.Add(time.Duration(5-i) * time.Second)})
	}
	withJobs(t, s, p, jobs...)
	now := base.Add(time.Hour)
	until := now.Add(time.Minute)
	got, err := s.ClaimJobs(t.Context(), allKinds, 2, now, time.Minute)
	ok(t, "ClaimJobs", err)
	equal(t, "first two", bare(got...), []*seald.Job{claimed(jobs[4], until), claimed(jobs[3], until)})
	got, err = s.ClaimJobs(t.Context(), allKinds, 2, now, time.Minute)
	ok(t, "ClaimJobs", err)
	equal(t, "next two", bare(got...), []*seald.Job{claimed(jobs[2], until), claimed(jobs[1], until)})
}

// A leased job is not handed out again until its lease has run out, and then it is.
func testClaimLease(t *testing.T, s seald.Store) {
	_, p := tenant(t, s)
	j := &seald.Job{Kind: seald.JobStore, RunAt: base}
	withJobs(t, s, p, j)
	lease := time.Minute
	first := claimOne(t, s, base, lease)
	for _, at := range []time.Duration{0, 30 * time.Second, lease - time.Millisecond} {
		if got := claimAll(t, s, allKinds, base.Add(at)); len(got) != 0 {
			t.Errorf("ClaimJobs %v into the lease = %s, want nothing", at, show(got))
		}
	}
	again := claimOne(t, s, base.Add(lease), lease)
	if again.ID != first.ID || !again.LeasedUntil.Equal(base.Add(2*lease)) {
		t.Errorf("claimed after the lease: %s, want job %d leased until %v", show(again), first.ID, base.Add(2*lease))
	}
}

// Kinds are claimed in the order given: a ready finish job before an older ready store job, so that the
// pipeline's later stages are not stuck behind a backlog of earlier ones; a job not yet due never jumps
// ahead, and the order is the caller's, not a fixed one.
func testClaimPriority(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	oldStore := &seald.Job{Kind: seald.JobStore, RunAt: base.Add(-time.Hour)}
	store := &seald.Job{Kind: seald.JobStore, RunAt: base.Add(-time.Minute)}
	withJobs(t, s, p, oldStore, store)
	notify := &seald.Job{Kind: seald.JobNotify, RunAt: base.Add(-time.Second)}
	withJobs(t, s, p, notify)
	finish := &seald.Job{Kind: seald.JobFinish, RunAt: base}
	lateFinish := &seald.Job{Kind: seald.JobFinish, RunAt: base.Add(time.Second)} // not due at base
	withJobs(t, s, p, finish, lateFinish)

	lease := time.Minute
	until := base.Add(lease)
	priority := []string{seald.JobFinish, seald.JobNotify, seald.JobStore}
	got, err := s.ClaimJobs(ctx, priority, 1, base, lease)
	ok(t, "ClaimJobs finish, notify, store (limit 1)", err)
	equal(t, "the first claim", bare(got...), []*seald.Job{claimed(finish, until)})
	got, err = s.ClaimJobs(ctx, priority, 2, base, lease)
	ok(t, "ClaimJobs finish, notify, store (limit 2)", err)
	equal(t, "the second claim", bare(got...), []*seald.Job{claimed(notify, until), claimed(oldStore, until)})

	// The caller's order, not a fixed one: store first when asked so.
	later := base.Add(time.Hour) // every lease above has run out, lateFinish is due
	until = later.Add(lease)
	got, err = s.ClaimJobs(ctx, []string{seald.JobStore, seald.JobFinish}, 3, later, lease)
	ok(t, "ClaimJobs store, finish", err)
	equal(t, "claimed store first", bare(got...), []*seald.Job{claimed(oldStore, until), claimed(store, until), claimed(finish, until)})
	got, err = s.ClaimJobs(ctx, []string{seald.JobStore, seald.JobFinish, seald.JobStore}, 10, later, lease)
	ok(t, "ClaimJobs with a kind named twice", err)
	equal(t, "the rest", bare(got...), []*seald.Job{claimed(lateFinish, until)})
}

func testClaimNothing(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	for name, kinds := range map[string][]string{"no kinds": nil, "an unused kind": {"nothing"}} {
		got, err := s.ClaimJobs(ctx, kinds, 10, base, time.Minute)
		ok(t, "ClaimJobs with "+name, err)
		if len(got) != 0 {
			t.Errorf("ClaimJobs with %s = %s", name, show(got))
		}
	}
	got, err := s.ClaimJobs(ctx, allKinds, 0, base, time.Minute)
	ok(t, "ClaimJobs with limit 0", err)
	if len(got) != 0 {
		t.Errorf("ClaimJobs with limit 0 = %s", show(got))
	}
}

// A claimed job carries its record as it is stored at the claim (not as it was created), and a store job
// the payload its record keeps: an empty payload as empty, none as nil, and nothing for the other kinds. Two
// jobs of one record each get their own copy. Three references exercise the padding of the IN list.
func testClaimRecords(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	full := fullRecord(p, emptyBatch(t, s, seald.NetworkEOS).ID)
	full.ErasedAt = time.Time{} // the erasure drops the payload
	fullStore := &seald.Job{Kind: seald.JobStore, RunAt: base}
	fullNotify := &seald.Job{Kind: seald.JobNotify, RunAt: base}
	ok(t, "CreateRecord", s.CreateRecord(ctx, full, []byte(`{"full":true}`), fullStore, fullNotify))
	c := &seald.StatusChange{Reference: full.Reference, To: seald.StatusActive, Actor: "test", At: base.Add(time.Hour)}
	ok(t, "ChangeStatus", s.ChangeStatus(ctx, c, full.Status)) // changed after it was created
	empty := newRecord(p, base)
	emptyStore := &seald.Job{Kind: seald.JobStore, RunAt: base}
	ok(t, "CreateRecord", s.CreateRecord(ctx, empty, []byte{}, emptyStore))
	none := newRecord(p, base)
	noneStore := &seald.Job{Kind: seald.JobStore, RunAt: base}
	ok(t, "CreateRecord", s.CreateRecord(ctx, none, nil, noneStore))

	jobs := claimAll(t, s, allKinds, base.Add(time.Minute))
	byID := map[int64]*seald.Job{}
	for _, j := range jobs {
		byID[j.ID] = j
	}
	for _, c := range []struct {
		name    string
		job     *seald.Job
		payload []byte
	}{
		{"a store job", fullStore, []byte(`{"full":true}`)},
		{"a notify job", fullNotify, nil},
		{"a store job of an empty payload", emptyStore, []byte{}},
		{"a store job of no payload", noneStore, nil},
	} {
		j := byID[c.job.ID]
		if j == nil {
			t.Fatalf("%s was not claimed: %s", c.name, show(jobs))
		}
		equal(t, c.name+": record", j.Record, record(t, s, j.Reference))
		equal(t, c.name+": payload", j.Payload, c.payload)
	}
	if a, b := byID[fullStore.ID].Record, byID[fullNotify.ID].Record; a == b {
		t.Errorf("two jobs of one record share its *Record")
	}
}

// Many claimers at once, through one Store or (when the harness can open another) two, never get the same
// job, and together get every job.
func testClaimConcurrent(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	const n = 120
	for range n / 4 {
		withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base}, &seald.Job{Kind: seald.JobNotify, RunAt: base},
			&seald.Job{Kind: seald.JobFinish, RunAt: base}, &seald.Job{Kind: seald.JobStore, RunAt: base.Add(time.Second)})
	}
	stores := []seald.Store{s}
	if _, ok := s.(Reopener); ok {
		stores = append(stores, reopen(t, s))
	}
	var mu sync.Mutex
	owner := map[int64]int{}
	var errs []error
	var wg sync.WaitGroup
	for w := range 12 {
		st := stores[w%len(stores)]
		wg.Go(func() {
			// Bounded, so that a store handing leased jobs out again fails the test instead of hanging it.
			for round := 0; ; round++ {
				if round > n {
					mu.Lock()
					errs = append(errs, fmt.Errorf("claimer %d still got jobs after %d rounds", w, n))
					mu.Unlock()
					return
				}
				jobs, err := st.ClaimJobs(ctx, allKinds, 1+w%3, base.Add(time.Minute), time.Hour)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				for _, j := range jobs {
					if prev, dup := owner[j.ID]; dup {
						errs = append(errs, fmt.Errorf("job %d claimed by claimers %d and %d", j.ID, prev, w))
					}
					owner[j.ID] = w
				}
				mu.Unlock()
				if err != nil || len(jobs) == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(owner) != n {
		t.Errorf("%d distinct jobs claimed, want %d", len(owner), n)
	}
}

// CompleteJob saves the record, drops the payload, deletes the job and queues the next, together.
func testCompleteJob(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	j := claimOne(t, s, base, time.Minute)

	u := &seald.RecordUpdate{When: r.State, State: seald.StateIPFSStored, ClearError: true,
		CID: "bafkrei" + randomHex(20), EncryptedFile: "ipfs://x", At: base.Add(time.Second)}
	r.State, r.CID, r.EncryptedFile = u.State, u.CID, u.EncryptedFile
	r.ErrorType, r.ErrorMessage, r.UpdatedAt, r.Reached.IPFSStored = "", "", u.At, u.At
	next := &seald.Job{Kind: seald.JobNotify, RunAt: base.Add(2 * time.Second)}
	ok(t, "CompleteJob", s.CompleteJob(ctx, j, u, true, next))
	equal(t, "saved record", record(t, s, r.Reference), r)
	_, err := s.Payload(ctx, r.Reference)
	wantCode(t, "Payload after it was dropped", err, seald.ENOTFOUND)
	if next.ID == 0 || next.Reference != r.Reference {
		t.Errorf("next job = %s, want an id and the record's reference", show(next))
	}
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	equal(t, "CountJobs", counts, map[string]int{seald.JobNotify: 1})
	got := claimOne(t, s, base.Add(time.Hour), time.Minute)
	equal(t, "the next job", bare(got), []*seald.Job{claimed(next, base.Add(time.Hour+time.Minute))})
}

func testCompleteKeepsPayload(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobNotify, RunAt: base})
	j := claimOne(t, s, base, time.Minute)
	ok(t, "CompleteJob", s.CompleteJob(ctx, j, &seald.RecordUpdate{MessageID: "<m@x>", At: base}, false))
	if _, err := s.Payload(ctx, r.Reference); err != nil {
		t.Errorf("Payload after CompleteJob without dropPayload: %v", err)
	}
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	if len(counts) != 0 {
		t.Errorf("CountJobs = %v, want none", counts)
	}
}

// A worker saves its copy of the record, read before the owner suspended it: the suspension stays. Status
// belongs to ChangeStatus alone.
func testCompleteKeepsStatus(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	j := claimOne(t, s, base, time.Minute)
	u := &seald.RecordUpdate{When: r.State, State: seald.StateIPFSStored, At: base.Add(2 * time.Second)}
	change(t, s, r, seald.StatusSuspended, base.Add(time.Second))
	ok(t, "CompleteJob", s.CompleteJob(ctx, j, u, true))
	got := record(t, s, r.Reference)
	if got.Status != seald.StatusSuspended || got.State != seald.StateIPFSStored {
		t.Errorf("record status %s, state %s; want SUSPENDED (kept) and IPFS_STORED (saved)", got.Status, got.State)
	}
}

// Two steps of one record run at once, each with the copy it read: a revocation (on the leader) and the
// e-mail step (on a worker). Whichever saves last, neither undoes the other: each writes only its own fields.
func testCompleteOwnFields(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	for _, revokeLast := range []bool{false, true} {
		r := withJobs(t, s, p, &seald.Job{Kind: seald.JobNotify, RunAt: base}, &seald.Job{Kind: seald.RevokeJob(p.Network), RunAt: base})
		jobs := claimAll(t, s, []string{seald.JobNotify, seald.RevokeJob(p.Network)}, base)
		if len(jobs) != 2 {
			t.Fatalf("claimed %d jobs, want the notify and the revoke job", len(jobs))
		}
		notify := &seald.RecordUpdate{When: r.State, State: seald.StateCompleted, ClearError: true, MessageID: "<m@x>",
			Signature: "sig", At: base.Add(time.Second)}
		revoke := &seald.RecordUpdate{RevokedOnChain: true, At: base.Add(2 * time.Second)}
		order := []*seald.RecordUpdate{revoke, notify}
		if revokeLast {
			order = []*seald.RecordUpdate{notify, revoke}
		}
		for _, u := range order {
			j := jobs[0]
			if u == revoke {
				j = jobs[1]
			}
			ok(t, "CompleteJob", s.CompleteJob(ctx, j, u, false))
		}
		got := record(t, s, r.Reference)
		if got.State != seald.StateCompleted || got.MessageID != "<m@x>" || got.Signature != "sig" || !got.IsSigned || !got.RevokedOnChain {
			t.Errorf("revoke saved last=%v: record state %s, message id %q, signature %q (signed %v), revoked on chain %v; want COMPLETED, both steps' fields",
				revokeLast, got.State, got.MessageID, got.Signature, got.IsSigned, got.RevokedOnChain)
		}
	}
}

// A step whose record moved on since it read it (another step changed its state) saves nothing: ECONFLICT,
// its job kept for a retry on what is there now.
func testCompleteMovedOn(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	j := claimOne(t, s, base, time.Minute)
	u := &seald.RecordUpdate{When: seald.StateAnchored, State: seald.StateCompleted, At: base.Add(time.Second)}
	wantCode(t, "CompleteJob of a record in another state", s.CompleteJob(ctx, j, u, true), seald.ECONFLICT)
	equal(t, "record after the refused save", record(t, s, r.Reference), r)
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	equal(t, "CountJobs after the refused save", counts, map[string]int{seald.JobStore: 1})
	if _, err := s.Payload(ctx, r.Reference); err != nil {
		t.Errorf("Payload after a refused CompleteJob: %v", err)
	}
}

// A worker whose lease ran out while another took the job over cannot complete, retry or fail it: ECONFLICT,
// and nothing changes. Nor can a job be completed twice.
func testCompleteStale(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	before := *r
	old := claimOne(t, s, base, time.Minute)
	current := claimOne(t, s, base.Add(2*time.Minute), time.Minute)

	u := &seald.RecordUpdate{When: r.State, State: seald.StateIPFSStored, At: base.Add(time.Hour)}
	wantCode(t, "CompleteJob with an expired lease", s.CompleteJob(ctx, old, u, true, &seald.Job{Kind: seald.JobNotify, RunAt: base}), seald.ECONFLICT)
	wantCode(t, "RetryJob with an expired lease", s.RetryJob(ctx, old, seald.ErrorTypeIPFS, "x"), seald.ECONFLICT)
	wantCode(t, "FailJob with an expired lease", s.FailJob(ctx, old, seald.StateFailed, seald.ErrorTypeIPFS, "x", nil, base), seald.ECONFLICT)
	equal(t, "record after the refused saves", record(t, s, r.Reference), &before)
	if _, err := s.Payload(ctx, r.Reference); err != nil {
		t.Errorf("Payload after a refused CompleteJob: %v", err)
	}
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	equal(t, "CountJobs after the refused saves", counts, map[string]int{seald.JobStore: 1})

	ok(t, "CompleteJob by the current holder", s.CompleteJob(ctx, current, u, true))
	wantCode(t, "CompleteJob twice", s.CompleteJob(ctx, current, u, true), seald.ECONFLICT)
	wantCode(t, "RetryJob of a completed job", s.RetryJob(ctx, current, seald.ErrorTypeIPFS, "x"), seald.ECONFLICT)
}

// CompleteJobs saves the completions that apply, each as CompleteJob would, and refuses the one whose record
// moved on (ECONFLICT) without keeping the others from being saved.
func testCompleteTogether(t *testing.T, s seald.Store) {
	ctx := t.Context()
	st, isTogether := s.(seald.JobsTogether)
	if !isTogether {
		t.Fatalf("%T does not complete jobs together (seald.JobsTogether)", s)
	}
	if errs := st.CompleteJobs(ctx, nil); len(errs) != 0 {
		t.Errorf("CompleteJobs of nothing = %v", errs)
	}
	_, p := tenant(t, s)
	var rs []*seald.Record
	for i := range 3 {
		rs = append(rs, withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base.Add(time.Duration(i) * time.Millisecond)}))
	}
	jobs := claimAll(t, s, allKinds, base.Add(time.Second))
	if len(jobs) != 3 {
		t.Fatalf("claimed %s, want the three store jobs", show(jobs))
	}
	byRef := map[string]*seald.Job{}
	for _, j := range jobs {
		byRef[j.Reference] = j
	}
	moved := *rs[1]
	var cs []seald.Completion
	for i, r := range rs {
		u := &seald.RecordUpdate{When: r.State, State: seald.StateIPFSStored, CID: "bafkrei" + randomHex(20),
			EncryptedFile: "ipfs://x", At: base.Add(time.Second)}
		if i == 1 {
			u.When = seald.StateAnchored // the record moved on: refused
		}
		cs = append(cs, seald.Completion{Job: byRef[r.Reference], Update: u, DropPayload: true,
			Next: []*seald.Job{{Kind: seald.JobNotify, RunAt: base.Add(2 * time.Second)}}})
	}
	errs := st.CompleteJobs(ctx, cs)
	if len(errs) != 3 {
		t.Fatalf("CompleteJobs gave %d errors for 3 completions", len(errs))
	}
	wantCode(t, "CompleteJobs of the record that moved on", errs[1], seald.ECONFLICT)
	equal(t, "record that moved on, after the refused save", record(t, s, rs[1].Reference), &moved)
	if _, err := s.Payload(ctx, rs[1].Reference); err != nil {
		t.Errorf("Payload after a refused completion: %v", err)
	}
	for _, i := range []int{0, 2} {
		ok(t, fmt.Sprintf("CompleteJobs, completion %d", i), errs[i])
		r, u := rs[i], cs[i].Update
		r.State, r.CID, r.EncryptedFile = u.State, u.CID, u.EncryptedFile
		r.UpdatedAt, r.Reached.IPFSStored = u.At, u.At
		equal(t, fmt.Sprintf("record %d saved together", i), record(t, s, r.Reference), r)
		_, err := s.Payload(ctx, r.Reference)
		wantCode(t, "Payload after it was dropped", err, seald.ENOTFOUND)
		if next := cs[i].Next[0]; next.ID == 0 || next.Reference != r.Reference {
			t.Errorf("next job of completion %d = %s, want an id and the record's reference", i, show(next))
		}
	}
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	equal(t, "CountJobs", counts, map[string]int{seald.JobNotify: 2, seald.JobStore: 1})
}

// RetryJob saves the attempt, frees the lease and sets the record's error; the job waits for its new run.
func testRetryJob(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	j := claimOne(t, s, base, time.Hour)
	j.Attempts, j.LastError, j.RunAt = 1, "ipfs: connection refused", base.Add(10*time.Minute)
	ok(t, "RetryJob", s.RetryJob(ctx, j, seald.ErrorTypeIPFS, "IPFS is unreachable"))
	if !j.LeasedUntil.IsZero() {
		t.Errorf("LeasedUntil after RetryJob = %v, want zero", j.LeasedUntil)
	}
	r.ErrorType, r.ErrorMessage = seald.ErrorTypeIPFS, "IPFS is unreachable"
	equal(t, "record after RetryJob", record(t, s, r.Reference), r)
	if got := claimAll(t, s, allKinds, base.Add(10*time.Minute-time.Millisecond)); len(got) != 0 {
		t.Errorf("ClaimJobs before the new run = %s", show(got))
	}
	got := claimOne(t, s, base.Add(10*time.Minute), time.Minute)
	equal(t, "retried job", bare(got), []*seald.Job{claimed(j, base.Add(11*time.Minute))})
}

// FailJob deletes the job and sets the record's state and error.
func testFailJob(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobNotify, RunAt: base})
	j := claimOne(t, s, base, time.Minute)
	failed := base.Add(time.Minute)
	ok(t, "FailJob", s.FailJob(ctx, j, seald.StateFailed, seald.ErrorTypeEmail, "550 no such user", nil, failed))
	r.State, r.ErrorType, r.ErrorMessage = seald.StateFailed, seald.ErrorTypeEmail, "550 no such user"
	r.Reached.Failed = failed
	equal(t, "record after FailJob", record(t, s, r.Reference), r)
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	if len(counts) != 0 {
		t.Errorf("CountJobs after FailJob = %v", counts)
	}
	wantCode(t, "FailJob twice", s.FailJob(ctx, j, seald.StateFailed, seald.ErrorTypeEmail, "x", nil, failed), seald.ECONFLICT)

	// A failed step that must not unseal the record leaves its state as it is.
	r2 := withJobs(t, s, p, &seald.Job{Kind: seald.JobFinish, RunAt: base})
	j2 := claimOne(t, s, base, time.Minute)
	ok(t, "FailJob", s.FailJob(ctx, j2, "", seald.ErrorTypeInternal, "no key", nil, failed))
	r2.ErrorType, r2.ErrorMessage = seald.ErrorTypeInternal, "no key"
	equal(t, "record after FailJob keeping its state", record(t, s, r2.Reference), r2)
}

func testReleaseLeases(t *testing.T, s seald.Store) {
	_, p := tenant(t, s)
	withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base}, &seald.Job{Kind: seald.JobNotify, RunAt: base})
	if got := claimAll(t, s, allKinds, base); len(got) != 2 {
		t.Fatalf("claimed %d jobs, want 2", len(got))
	}
	if got := claimAll(t, s, allKinds, base); len(got) != 0 {
		t.Fatalf("claimed %d leased jobs", len(got))
	}
	ok(t, "ReleaseLeases", s.ReleaseLeases(t.Context()))
	if got := claimAll(t, s, allKinds, base); len(got) != 2 {
		t.Errorf("claimed %d jobs after ReleaseLeases, want 2", len(got))
	}
}

func testCountJobs(t *testing.T, s seald.Store) {
	ctx := t.Context()
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	if counts == nil || len(counts) != 0 {
		t.Errorf("CountJobs of an empty store = %#v, want an empty map", counts)
	}
	_, p := tenant(t, s)
	withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base}, &seald.Job{Kind: seald.JobNotify, RunAt: base})
	withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base.Add(time.Hour)})
	counts, err = s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	equal(t, "CountJobs", counts, map[string]int{seald.JobStore: 2, seald.JobNotify: 1})
}
