package storetest

import (
	"testing"
	"time"

	"seald.dev/seald"
)

var erasureTests = []test{
	{"EraseKeepsProof", testErase},
	{"EraseTwiceChangesNothing", testEraseTwice},
	{"EraseNotFound", testEraseNotFound},
	{"ProjectRetention", testProjectRetention},
	{"RetentionDue", testRetentionDue},
	{"UnerasedUpdate", testUnerasedUpdate},
}

// An update made only while the record is not erased (RecordUpdate.Unerased, the notify step's after a
// send) is ECONFLICT once it is, and changes nothing; the same update without it applies.
func testUnerasedUpdate(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := withJobs(t, s, p, &seald.Job{Kind: seald.JobNotify, RunAt: base})
	j := claimOne(t, s, base, time.Minute)
	u := &seald.RecordUpdate{When: seald.StatePending, State: seald.StateEmailSent, MessageID: "<m@x>",
		At: base.Add(time.Second), Unerased: true}
	if _, _, erased := erasure(t, s, r, base); !erased {
		t.Fatal("EraseRecord did not erase")
	}
	wantCode(t, "CompleteJob of an erased record, Unerased", s.CompleteJob(ctx, j, u, false), seald.ECONFLICT)
	if got := record(t, s, r.Reference); got.MessageID != "" || got.State != seald.StatePending {
		t.Fatalf("the refused update changed the record: message %q, state %s", got.MessageID, got.State)
	}
	u.Unerased = false
	ok(t, "CompleteJob of an erased record", s.CompleteJob(ctx, j, u, false))
	if got := record(t, s, r.Reference); got.MessageID != "<m@x>" || got.State != seald.StateEmailSent {
		t.Fatalf("the update did not apply: message %q, state %s", got.MessageID, got.State)
	}
}

// erasure erases r at at with a job, returning the audit entry, the job and whether it erased.
func erasure(t *testing.T, s seald.Store, r *seald.Record, at time.Time) (*seald.StatusChange, *seald.Job, bool) {
	t.Helper()
	c := &seald.StatusChange{Reference: r.Reference, Actor: "key_" + randomHex(4), Reason: "asked by the holder", At: at,
		Action: seald.ActionErase}
	j := &seald.Job{Kind: seald.JobErase, Reference: r.Reference, RunAt: at}
	erased, err := s.EraseRecord(t.Context(), c, j)
	ok(t, "EraseRecord", err)
	return c, j, erased
}

// EraseRecord clears the key, the password hash and the payload, sets erased_at and keeps everything a proof
// is made of; the audit entry and the job are written with it.
func testErase(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := fullRecord(p, emptyBatch(t, s, seald.NetworkEOS).ID)
	r.ErasedAt = time.Time{}
	create(t, s, r)
	other := fullRecord(p, 0)
	other.BatchID, other.TokenID, other.ErasedAt = 0, 0, time.Time{}
	create(t, s, other)
	at := base.Add(time.Hour)
	c, j, erased := erasure(t, s, r, at)
	if !erased {
		t.Fatal("EraseRecord of a record never erased said erased = false")
	}
	want := *r
	want.DataKey, want.PasswordHash, want.Downloadable, want.ErasedAt, want.UpdatedAt = "", "", false, at, at
	want.Mail = nil // the e-mail's recipients, subject and body are the record's data too
	equal(t, "erased record", record(t, s, r.Reference), &want)
	equal(t, "the other record", record(t, s, other.Reference), other)
	if _, err := s.Payload(ctx, r.Reference); seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Errorf("Payload after erasure: %v, want ENOTFOUND", err)
	}
	if _, err := s.Payload(ctx, other.Reference); err != nil {
		t.Errorf("Payload of the other record: %v", err)
	}
	if c.ID == 0 || c.From != r.Status || c.To != r.Status {
		t.Errorf("audit entry id %d, %s -> %s; want an id and %s -> %s", c.ID, c.From, c.To, r.Status, r.Status)
	}
	trail, err := s.AuditTrail(ctx, r.Reference)
	ok(t, "AuditTrail", err)
	equal(t, "AuditTrail", trail, []*seald.StatusChange{c})
	if trail[0].Action != seald.ActionErase {
		t.Errorf("audit action %q, want %q", trail[0].Action, seald.ActionErase)
	}
	jobs := claimAll(t, s, allKinds, base.Add(2*time.Hour))
	if len(jobs) != 1 || jobs[0].ID != j.ID || jobs[0].Kind != seald.JobErase || jobs[0].Reference != r.Reference {
		t.Errorf("jobs after the erasure = %s, want the erase job %d", show(jobs), j.ID)
	}
	// A status change afterwards keeps the erasure and is an ordinary entry.
	ch := change(t, s, r, seald.StatusSuspended, at.Add(time.Minute))
	if got := record(t, s, r.Reference); !got.ErasedAt.Equal(at) || got.Status != seald.StatusSuspended {
		t.Errorf("after a status change: erased %v, status %s", got.ErasedAt, got.Status)
	}
	trail, err = s.AuditTrail(ctx, r.Reference)
	ok(t, "AuditTrail", err)
	if len(trail) != 2 || trail[1].ID != ch.ID || trail[1].Action != seald.ActionStatus {
		t.Errorf("trail after a status change = %+v, want the erasure then a status entry", trail)
	}
}

// A second erasure is no error and changes nothing: not erased_at, not the trail, no second job.
func testEraseTwice(t *testing.T, s seald.Store) {
	_, p := tenant(t, s)
	r := newRecord(p, base)
	create(t, s, r)
	first := base.Add(time.Hour)
	_, _, erased := erasure(t, s, r, first)
	if !erased {
		t.Fatal("first erasure: erased = false")
	}
	before := record(t, s, r.Reference)
	c, j, erased := erasure(t, s, r, first.Add(time.Hour))
	if erased {
		t.Error("second erasure: erased = true")
	}
	if c.ID != 0 || j.ID != 0 {
		t.Errorf("second erasure set audit id %d, job id %d; want none written", c.ID, j.ID)
	}
	equal(t, "record after a second erasure", record(t, s, r.Reference), before)
	trail, err := s.AuditTrail(t.Context(), r.Reference)
	ok(t, "AuditTrail", err)
	if len(trail) != 1 {
		t.Errorf("trail has %d entries after two erasures, want 1", len(trail))
	}
	if jobs := claimAll(t, s, []string{seald.JobErase}, first.Add(3*time.Hour)); len(jobs) != 1 {
		t.Errorf("erase jobs = %s, want one", show(jobs))
	}
}

func testEraseNotFound(t *testing.T, s seald.Store) {
	c := &seald.StatusChange{Reference: "D-nosuchrecord", Actor: "cli", Reason: "x", At: base, Action: seald.ActionErase}
	_, err := s.EraseRecord(t.Context(), c, &seald.Job{Kind: seald.JobErase, RunAt: base})
	wantCode(t, "EraseRecord of an unknown record", err, seald.ENOTFOUND)
}

func testProjectRetention(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := tenant(t, s)
	if got, err := s.Project(ctx, p.ProjectID); err != nil || got.Retain != 0 {
		t.Fatalf("new project: retain %v, %v; want 0", got.Retain, err)
	}
	ok(t, "SetProjectRetention", s.SetProjectRetention(ctx, p.ProjectID, 365*24*time.Hour))
	if got, err := s.Project(ctx, p.ProjectID); err != nil || got.Retain != 365*24*time.Hour {
		t.Errorf("retain %v, %v; want 8760h", got.Retain, err)
	}
	wantCode(t, "SetProjectRetention of an unknown project", s.SetProjectRetention(ctx, "prj_nosuch", time.Hour), seald.ENOTFOUND)
	// Created with a retention.
	p2 := newProject(b)
	p2.Retain = 90 * time.Minute
	ok(t, "CreateProject", s.CreateProject(ctx, p2))
	equal(t, "project created with a retention", mustProject(t, s, p2.ProjectID), p2)
}

func mustProject(t *testing.T, s seald.Store, id string) *seald.Project {
	t.Helper()
	p, err := s.Project(t.Context(), id)
	ok(t, "Project", err)
	return p
}

// RetentionDue lists the records sealed longer ago than their project's retention, oldest first, not those
// of projects without one, nor erased ones, nor those within their period.
func testRetentionDue(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, day := tenant(t, s)
	ok(t, "SetProjectRetention", s.SetProjectRetention(ctx, day.ProjectID, 24*time.Hour))
	week := newProject(b)
	week.Retain = 7 * 24 * time.Hour
	ok(t, "CreateProject", s.CreateProject(ctx, week))
	forever := newProject(b)
	ok(t, "CreateProject", s.CreateProject(ctx, forever))

	now := base.Add(30 * 24 * time.Hour)
	old1 := newRecord(day, now.Add(-3*24*time.Hour))
	old2 := newRecord(week, now.Add(-10*24*time.Hour))
	fresh := newRecord(day, now.Add(-23*time.Hour))
	weekFresh := newRecord(week, now.Add(-5*24*time.Hour))
	kept := newRecord(forever, now.Add(-300*24*time.Hour))
	gone := newRecord(day, now.Add(-5*24*time.Hour))
	for _, r := range []*seald.Record{old1, old2, fresh, weekFresh, kept, gone} {
		create(t, s, r)
	}
	erasure(t, s, gone, now.Add(-time.Hour))

	due, err := s.RetentionDue(ctx, now, 100)
	ok(t, "RetentionDue", err)
	equal(t, "RetentionDue", due, []string{old2.Reference, old1.Reference})
	due, err = s.RetentionDue(ctx, now, 1)
	ok(t, "RetentionDue limit 1", err)
	equal(t, "RetentionDue limit 1", due, []string{old2.Reference})
	due, err = s.RetentionDue(ctx, now.Add(2*time.Hour), 100)
	ok(t, "RetentionDue later", err)
	equal(t, "RetentionDue two hours later", due, []string{old2.Reference, old1.Reference, fresh.Reference})
}
