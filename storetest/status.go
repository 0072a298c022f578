package storetest

import (
	"sync"
	"testing"
	"time"

	"seald.dev/seald"
)

var statusTests = []test{
	{"ChangeAndTrail", testChangeStatus},
	{"CompareAndSet", testChangeStatusConflict},
	{"NotFound", testChangeStatusNotFound},
	{"ConcurrentChanges", testChangeStatusConcurrent},
	{"AuditTrailAppendOnly", testAuditAppendOnly},
}

// change moves r from its status to to and returns the audit entry.
func change(t *testing.T, s seald.Store, r *seald.Record, to seald.Status, at time.Time, jobs ...*seald.Job) *seald.StatusChange {
	t.Helper()
	c := &seald.StatusChange{Reference: r.Reference, From: r.Status, To: to, Actor: "key_" + randomHex(4), Reason: "because " + string(to), At: at}
	ok(t, "ChangeStatus to "+string(to), s.ChangeStatus(t.Context(), c, r.Status, jobs...))
	r.Status, r.UpdatedAt = to, at
	return c
}

func testChangeStatus(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := newRecord(p, base)
	other := newRecord(p, base)
	create(t, s, r)
	create(t, s, other)

	c1 := change(t, s, r, seald.StatusSuspended, base.Add(time.Minute))
	equal(t, "suspended record", record(t, s, r.Reference), r)
	c2 := change(t, s, r, seald.StatusActive, base.Add(2*time.Minute))
	revoke := &seald.Job{Kind: seald.RevokeJob(r.Network), Reference: r.Reference, RunAt: base.Add(3 * time.Minute)}
	c3 := change(t, s, r, seald.StatusRevoked, base.Add(3*time.Minute), revoke)
	c4 := change(t, s, other, seald.StatusSuspended, base.Add(4*time.Minute))
	equal(t, "revoked record", record(t, s, r.Reference), r)
	if c1.ID == 0 || c2.ID == 0 || c3.ID == 0 || c4.ID == 0 {
		t.Errorf("status change ids %d %d %d %d, want all set", c1.ID, c2.ID, c3.ID, c4.ID)
	}
	if revoke.ID == 0 {
		t.Error("the job inserted with the change got no id")
	}

	trail, err := s.AuditTrail(ctx, r.Reference)
	ok(t, "AuditTrail", err)
	equal(t, "AuditTrail", trail, []*seald.StatusChange{c1, c2, c3})
	trail, err = s.AuditTrail(ctx, other.Reference)
	ok(t, "AuditTrail", err)
	equal(t, "AuditTrail of the other record", trail, []*seald.StatusChange{c4})

	jobs := claimAll(t, s, allKinds, base.Add(time.Hour))
	if len(jobs) != 1 || jobs[0].ID != revoke.ID || jobs[0].Kind != seald.RevokeJob(r.Network) {
		t.Errorf("jobs after the revocation = %s, want the revoke job %d", show(jobs), revoke.ID)
	}
}

// ChangeStatus is compare-and-set: from a status the record is no longer in it is ECONFLICT and changes
// nothing, not the record, not the trail, not the jobs.
func testChangeStatusConflict(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := newRecord(p, base)
	create(t, s, r)
	c1 := change(t, s, r, seald.StatusSuspended, base.Add(time.Minute))

	stale := &seald.StatusChange{Reference: r.Reference, From: seald.StatusActive, To: seald.StatusRevoked, Actor: "cli", At: base.Add(time.Hour)}
	err := s.ChangeStatus(ctx, stale, seald.StatusActive, &seald.Job{Kind: seald.RevokeJob(r.Network), Reference: r.Reference, RunAt: base})
	wantCode(t, "ChangeStatus from a status the record is not in", err, seald.ECONFLICT)
	equal(t, "record after the refused change", record(t, s, r.Reference), r)
	trail, err := s.AuditTrail(ctx, r.Reference)
	ok(t, "AuditTrail", err)
	equal(t, "AuditTrail after the refused change", trail, []*seald.StatusChange{c1})
	counts, err := s.CountJobs(ctx)
	ok(t, "CountJobs", err)
	if len(counts) != 0 {
		t.Errorf("jobs after the refused change: %v", counts)
	}
}

func testChangeStatusNotFound(t *testing.T, s seald.Store) {
	c := &seald.StatusChange{Reference: "D-nothing", From: seald.StatusActive, To: seald.StatusSuspended, Actor: "cli", At: base}
	wantCode(t, "ChangeStatus of an unknown record", s.ChangeStatus(t.Context(), c, seald.StatusActive), seald.ENOTFOUND)
}

// Of many changes from the same status at once, exactly one wins.
func testChangeStatusConcurrent(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := newRecord(p, base)
	create(t, s, r)
	const n = 8
	codes := make(chan seald.Code, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			to := seald.StatusSuspended
			if i%2 == 1 {
				to = seald.StatusRevoked
			}
			c := &seald.StatusChange{Reference: r.Reference, From: seald.StatusActive, To: to, Actor: "cli", At: base}
			codes <- seald.ErrorCode(s.ChangeStatus(ctx, c, seald.StatusActive))
		})
	}
	wg.Wait()
	close(codes)
	won := 0
	for code := range codes {
		switch code {
		case "":
			won++
		case seald.ECONFLICT:
		default:
			t.Errorf("concurrent ChangeStatus: code %q, want success or %q", code, seald.ECONFLICT)
		}
	}
	if won != 1 {
		t.Errorf("%d concurrent changes from ACTIVE succeeded, want exactly 1", won)
	}
	trail, err := s.AuditTrail(ctx, r.Reference)
	ok(t, "AuditTrail", err)
	if len(trail) != 1 || trail[0].To != record(t, s, r.Reference).Status {
		t.Errorf("AuditTrail = %s, want the one winning change", show(trail))
	}
}

// The database itself refuses to change or remove audit rows, whoever asks.
func testAuditAppendOnly(t *testing.T, s seald.Store) {
	ctx := t.Context()
	db := rawSQL(t, s)
	_, p := tenant(t, s)
	r := newRecord(p, base)
	create(t, s, r)
	c := change(t, s, r, seald.StatusSuspended, base)
	for _, q := range []string{
		`UPDATE status_changes SET reason = 'rewritten'`,
		`UPDATE status_changes SET to_status = 'ACTIVE' WHERE reference = '` + r.Reference + `'`,
		`DELETE FROM status_changes`,
		`DELETE FROM status_changes WHERE reference = '` + r.Reference + `'`,
	} {
		if err := db.ExecSQL(ctx, q); err == nil {
			t.Errorf("%s: the database allowed it", q)
		}
	}
	trail, err := s.AuditTrail(ctx, r.Reference)
	ok(t, "AuditTrail", err)
	equal(t, "AuditTrail after the refused changes", trail, []*seald.StatusChange{c})
	// Appending stays possible.
	c2 := change(t, s, r, seald.StatusActive, base.Add(time.Second))
	trail, err = s.AuditTrail(ctx, r.Reference)
	ok(t, "AuditTrail", err)
	equal(t, "AuditTrail after appending", trail, []*seald.StatusChange{c, c2})
}
