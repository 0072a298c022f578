package storetest

import (
	"testing"
	"time"

	"seald.dev/seald"
)

var sweepTests = []test{
	{"OldestFailing", testOldestFailing},
	{"RequeueJob", testRequeueJob},
	{"RevokedTokens", testRevokedTokens},
	{"ErasedCopies", testErasedCopies},
	{"CountWaitingByNetwork", testCountWaitingByNetwork},
}

// CountWaitingByNetwork counts the records not final by network, and CountWaitingByProject by project: the
// backlog bounds are per network and per project.
func testCountWaitingByNetwork(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	got, err := s.CountWaitingByNetwork(ctx)
	ok(t, "CountWaitingByNetwork", err)
	equal(t, "CountWaitingByNetwork of an empty store", len(got), 0)
	stored(t, s, p, seald.NetworkEOS, 0)
	stored(t, s, p, seald.NetworkEOS, time.Second)
	stored(t, s, p, seald.NetworkPolygon, 0)
	done := newRecord(p, base)
	done.State = seald.StateCompleted
	create(t, s, done)
	got, err = s.CountWaitingByNetwork(ctx)
	ok(t, "CountWaitingByNetwork", err)
	equal(t, "CountWaitingByNetwork", got, map[string]int{seald.NetworkEOS: 2, seald.NetworkPolygon: 1})

	_, other := tenant(t, s)
	stored(t, s, other, seald.NetworkPolygon, 0)
	byProject, err := s.CountWaitingByProject(ctx)
	ok(t, "CountWaitingByProject", err)
	equal(t, "CountWaitingByProject", byProject, map[string]int{p.ProjectID: 3, other.ProjectID: 1})
}

// A retried job keeps when it began failing, and OldestFailing gives the earliest of each kind: the source
// of the metric of overdue jobs.
func testOldestFailing(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	got, err := s.OldestFailing(ctx)
	ok(t, "OldestFailing", err)
	equal(t, "OldestFailing with no job", len(got), 0)
	withJobs(t, s, p, &seald.Job{Kind: seald.JobErase, RunAt: base})
	withJobs(t, s, p, &seald.Job{Kind: seald.JobErase, RunAt: base})
	withJobs(t, s, p, &seald.Job{Kind: seald.JobStore, RunAt: base})
	jobs := claimAll(t, s, []string{seald.JobErase}, base)
	equal(t, "erase jobs claimed", len(jobs), 2)
	for i, j := range jobs {
		j.Attempts, j.LastError, j.RunAt = 1, "down", base.Add(time.Hour)
		j.FailingSince = base.Add(time.Duration(2-i) * time.Minute)
		ok(t, "RetryJob", s.RetryJob(ctx, j, seald.ErrorTypeIPFS, "down"))
	}
	got, err = s.OldestFailing(ctx)
	ok(t, "OldestFailing", err)
	equal(t, "OldestFailing", got, map[string]time.Time{seald.JobErase: base.Add(time.Minute)})
	again := claimAll(t, s, []string{seald.JobErase}, base.Add(2*time.Hour))
	for _, j := range again {
		if j.FailingSince.IsZero() || j.Attempts != 1 {
			t.Errorf("claimed again without its failing time: %+v", j)
		}
	}
}

// RequeueJob adds a job only when the record has none of its kind.
func testRequeueJob(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobErase, RunAt: base})
	queued, err := s.RequeueJob(ctx, &seald.Job{Kind: seald.JobErase, Reference: r.Reference, RunAt: base})
	ok(t, "RequeueJob", err)
	equal(t, "RequeueJob of a kind the record has", queued, false)
	revoke := seald.RevokeJob(seald.NetworkPolygon)
	queued, err = s.RequeueJob(ctx, &seald.Job{Kind: revoke, Reference: r.Reference, RunAt: base})
	ok(t, "RequeueJob", err)
	equal(t, "RequeueJob of a new kind", queued, true)
	queued, err = s.RequeueJob(ctx, &seald.Job{Kind: revoke, Reference: r.Reference, RunAt: base})
	ok(t, "RequeueJob", err)
	equal(t, "RequeueJob twice", queued, false)
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	equal(t, "jobs", counts, map[string]int{seald.JobErase: 1, revoke: 1})
}

// RevokedTokens lists the REVOKED records of a network in confirmed batches, by token id, from a token on.
func testRevokedTokens(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	rs := []*seald.Record{stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, time.Second),
		stored(t, s, p, seald.NetworkPolygon, 2*time.Second)}
	b := batch(t, s, seald.NetworkPolygon, 1, rs...)
	ok(t, "ConfirmBatch", s.ConfirmBatch(ctx, b, anchored, base))
	unconfirmed := stored(t, s, p, seald.NetworkPolygon, 3*time.Second)
	batch(t, s, seald.NetworkPolygon, 4, unconfirmed)
	for _, r := range []*seald.Record{rs[0], rs[2], unconfirmed} {
		c := &seald.StatusChange{Reference: r.Reference, To: seald.StatusRevoked, Actor: "cli", At: base}
		ok(t, "ChangeStatus", s.ChangeStatus(ctx, c, seald.StatusActive))
	}
	got, err := s.RevokedTokens(ctx, seald.NetworkPolygon, 0, 10)
	ok(t, "RevokedTokens", err)
	equal(t, "RevokedTokens", references(got), []string{rs[0].Reference, rs[2].Reference})
	got, err = s.RevokedTokens(ctx, seald.NetworkPolygon, 1, 10)
	ok(t, "RevokedTokens after token 1", err)
	equal(t, "RevokedTokens after token 1", references(got), []string{rs[2].Reference})
	got, err = s.RevokedTokens(ctx, seald.NetworkEOS, 0, 10)
	ok(t, "RevokedTokens of another network", err)
	equal(t, "RevokedTokens of another network", len(got), 0)
}

// ErasedCopies lists the erased records that hold a CID, by reference, from a reference on.
func testErasedCopies(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	a, b := stored(t, s, p, seald.NetworkPolygon, 0), stored(t, s, p, seald.NetworkPolygon, time.Second)
	stored(t, s, p, seald.NetworkPolygon, 2*time.Second)
	for _, r := range []*seald.Record{a, b} {
		erasure(t, s, r, base)
	}
	want := []string{a.Reference, b.Reference}
	if want[0] > want[1] {
		want[0], want[1] = want[1], want[0]
	}
	got, err := s.ErasedCopies(ctx, "", 10)
	ok(t, "ErasedCopies", err)
	equal(t, "ErasedCopies", references(got), want)
	got, err = s.ErasedCopies(ctx, want[0], 10)
	ok(t, "ErasedCopies after the first", err)
	equal(t, "ErasedCopies after the first", references(got), want[1:])
}
