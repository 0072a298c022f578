package storetest

import (
	"testing"
	"time"

	"seald.dev/seald"
)

// The times a record reached each state of its pipeline (Record.Reached), written by the change of state
// itself, and the anchoring latencies read from them.
var reachedTests = []test{
	{"Pipeline", testReachedPipeline},
	{"FailBatch", testReachedFailBatch},
	{"FailJob", testReachedFailJob},
	{"Stored", testReachedStored},
	{"AnchorLatencies", testAnchorLatencies},
}

// A record walked through the pipeline as the pipeline does it gets the time of each state it reached, and
// keeps those of the states before. The notify step's one update that sends the e-mail and completes the
// record gives EMAIL_SENT and COMPLETED the same time.
func testReachedPipeline(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	if got := record(t, s, r.Reference); got.Reached != (seald.StateTimes{}) || !got.ReachedAt(seald.StatePending).Equal(base) {
		t.Fatalf("a new record: Reached %s, PENDING at %v; want none, and PENDING at its creation %v",
			show(got.Reached), got.ReachedAt(seald.StatePending), base)
	}
	j := claimOne(t, s, base, time.Minute)
	storedAt := base.Add(time.Second)
	ok(t, "CompleteJob to IPFS_STORED", s.CompleteJob(ctx, j, &seald.RecordUpdate{When: seald.StatePending,
		State: seald.StateIPFSStored, CID: "bafkrei" + randomHex(20), EncryptedFile: "ipfs://x", At: storedAt}, true))
	want := seald.StateTimes{IPFSStored: storedAt}
	equal(t, "Reached once stored", record(t, s, r.Reference).Reached, want)

	b := newBatch(p.Network, 1, 1)
	submitted := base.Add(2 * time.Second)
	ok(t, "CreateBatch", s.CreateBatch(ctx, b, entries(1, r), placed, submitted))
	want.AnchorSubmitted = submitted
	equal(t, "Reached once submitted", record(t, s, r.Reference).Reached, want)

	confirmed := base.Add(3 * time.Second)
	b.State, b.BlockNumber, b.BlockHash, b.UpdatedAt = seald.BatchConfirmed, 9, "0x"+randomHex(32), confirmed
	ok(t, "ConfirmBatch", s.ConfirmBatch(ctx, b, anchored, confirmed))
	want.Anchored = confirmed
	equal(t, "Reached once anchored", record(t, s, r.Reference).Reached, want)

	j = claimOne(t, s, confirmed, time.Minute)
	done := base.Add(4 * time.Second)
	ok(t, "CompleteJob to COMPLETED", s.CompleteJob(ctx, j, &seald.RecordUpdate{When: seald.StateAnchored,
		State: seald.StateCompleted, ClearError: true, MessageID: "<m@x>", Signature: "sig", At: done}, false))
	want.EmailSent, want.Completed = done, done
	got := record(t, s, r.Reference)
	equal(t, "Reached once completed", got.Reached, want)
	if !got.CreatedAt.Equal(base) {
		t.Errorf("created_at changed to %v", got.CreatedAt)
	}

	// The finish step saved apart from the e-mail: EMAIL_SENT, then COMPLETED later.
	r2 := withJobs(t, s, p, &seald.Job{Kind: seald.JobNotify, RunAt: base})
	j = claimOne(t, s, base, time.Minute)
	sent := base.Add(5 * time.Second)
	ok(t, "CompleteJob to EMAIL_SENT", s.CompleteJob(ctx, j, &seald.RecordUpdate{When: seald.StatePending,
		State: seald.StateEmailSent, MessageID: "<m2@x>", At: sent}, false, &seald.Job{Kind: seald.JobFinish, RunAt: sent}))
	j = claimOne(t, s, sent, time.Minute)
	finished := base.Add(6 * time.Second)
	ok(t, "CompleteJob to COMPLETED", s.CompleteJob(ctx, j, &seald.RecordUpdate{When: seald.StateEmailSent,
		State: seald.StateCompleted, Signature: "sig", At: finished}, false))
	equal(t, "Reached of a record finished apart", record(t, s, r2.Reference).Reached,
		seald.StateTimes{EmailSent: sent, Completed: finished})

	// An update refused (the record moved on) writes no time.
	r3 := withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	j = claimOne(t, s, base, time.Minute)
	wantCode(t, "CompleteJob of a record that moved on", s.CompleteJob(ctx, j, &seald.RecordUpdate{When: seald.StateAnchored,
		State: seald.StateCompleted, At: finished}, false), seald.ECONFLICT)
	equal(t, "Reached after a refused update", record(t, s, r3.Reference).Reached, seald.StateTimes{})
}

// A batch that failed on chain sends its records back to IPFS_STORED: that state is reached again (its
// time is the latest), and ANCHOR_SUBMITTED, which they left, has no time any more.
func testReachedFailBatch(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := stored(t, s, p, seald.NetworkPolygon, 0)
	bt := batch(t, s, seald.NetworkPolygon, 1, r)
	equal(t, "Reached once submitted", record(t, s, r.Reference).Reached, seald.StateTimes{AnchorSubmitted: base})
	requeued := seald.Transition{From: seald.StateAnchorSubmitted, To: seald.StateIPFSStored}
	now := base.Add(time.Hour)
	ok(t, "FailBatch", s.FailBatch(ctx, bt, requeued, seald.ErrorTypeBlockchain, "reverted", now))
	equal(t, "Reached after FailBatch", record(t, s, r.Reference).Reached, seald.StateTimes{IPFSStored: now})
}

// A step that failed for good gives FAILED its time; one that keeps the state gives none.
func testReachedFailJob(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	j := claimOne(t, s, base, time.Minute)
	failed := base.Add(time.Minute)
	ok(t, "FailJob", s.FailJob(ctx, j, seald.StateFailed, seald.ErrorTypeIPFS, "gone", nil, failed))
	got := record(t, s, r.Reference)
	equal(t, "Reached after FailJob", got.Reached, seald.StateTimes{Failed: failed})
	if !got.ReachedAt(seald.StateFailed).Equal(failed) {
		t.Errorf("ReachedAt(FAILED) = %v, want %v", got.ReachedAt(seald.StateFailed), failed)
	}

	r2 := withJobs(t, s, p, &seald.Job{Kind: seald.JobFinish, RunAt: base})
	j = claimOne(t, s, base, time.Minute)
	ok(t, "FailJob keeping the state", s.FailJob(ctx, j, "", seald.ErrorTypeInternal, "no key", nil, failed))
	equal(t, "Reached after FailJob keeping the state", record(t, s, r2.Reference).Reached, seald.StateTimes{})
}

// Times given to CreateRecord are kept to the millisecond, each in its own column, and read back by every
// lookup and by the list.
func testReachedStored(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := newRecord(p, base)
	r.State, r.CID, r.EncryptedFile = seald.StateFailed, "bafkrei"+randomHex(20), "ipfs://x"
	r.Reached = seald.StateTimes{IPFSStored: base.Add(1 * time.Millisecond), AnchorSubmitted: base.Add(2 * time.Second),
		Anchored: base.Add(3 * time.Minute), EmailSent: base.Add(4 * time.Hour), Completed: base.Add(5 * time.Hour),
		Failed: base.Add(6 * time.Hour)}
	create(t, s, r)
	equal(t, "Record", record(t, s, r.Reference), r)
	byCID, err := s.RecordByCID(ctx, r.CID)
	ok(t, "RecordByCID", err)
	equal(t, "RecordByCID", byCID, r)
	list, err := s.ListRecords(ctx, seald.RecordQuery{ProjectID: p.ProjectID, Limit: 10})
	ok(t, "ListRecords", err)
	equal(t, "ListRecords", list.Records, []*seald.Record{r})
}

// AnchorLatencies gives, per interval of anchoring time, how long the project's records took from their
// creation to ANCHORED: bounds half open, the first perInterval by anchoring time, other projects and
// records without an ANCHORED time left out.
func testAnchorLatencies(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	_, other := tenant(t, s)
	day := 24 * time.Hour
	d0 := base.Truncate(day)
	add := func(p *seald.Project, created, anchoredAt time.Time) {
		t.Helper()
		r := newRecord(p, created)
		r.State = seald.StateAnchored
		r.Reached.Anchored = anchoredAt
		create(t, s, r)
	}
	add(p, d0, d0.Add(3*time.Minute))
	add(p, d0.Add(time.Hour), d0.Add(time.Hour+time.Minute))
	add(p, d0.Add(2*time.Hour), d0.Add(2*time.Hour+2*time.Minute))
	add(p, d0.Add(day-time.Hour), d0.Add(day)) // anchored at the second bound: the second day
	add(p, d0.Add(-day), d0.Add(day+time.Hour))
	add(other, d0, d0.Add(time.Second))
	create(t, s, newRecord(p, d0.Add(time.Minute))) // not anchored
	old := newRecord(p, d0.Add(time.Minute))        // anchored before the times were kept
	old.State = seald.StateCompleted
	create(t, s, old)

	bounds := []time.Time{d0, d0.Add(day), d0.Add(2 * day), d0.Add(3 * day)}
	got, err := s.AnchorLatencies(ctx, p.ProjectID, bounds, 10)
	ok(t, "AnchorLatencies", err)
	equal(t, "AnchorLatencies", got, [][]time.Duration{{3 * time.Minute, time.Minute, 2 * time.Minute},
		{time.Hour, 2*day + time.Hour}, {}})
	got, err = s.AnchorLatencies(ctx, p.ProjectID, bounds, 2)
	ok(t, "AnchorLatencies capped", err)
	equal(t, "AnchorLatencies capped at 2 an interval", got, [][]time.Duration{{3 * time.Minute, time.Minute},
		{time.Hour, 2*day + time.Hour}, {}})
	got, err = s.AnchorLatencies(ctx, p.ProjectID, bounds[:1], 10)
	ok(t, "AnchorLatencies with one bound", err)
	if len(got) != 0 {
		t.Errorf("AnchorLatencies with one bound = %v, want none", got)
	}
}
