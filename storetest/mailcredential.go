package storetest

import (
	"testing"
	"time"

	"seald.dev/seald"
)

var mailCredentialTests = []test{
	{"AttachCredentialSetting", testAttachCredentialSetting},
	{"KeepFirst", testKeepMailCredential},
	{"ErasureDeletes", testMailCredentialErased},
}

// A project attaches no credential until told; the setting is saved by a tenant update of it alone, read back
// by Project, and turned off again; other fields are left as they were.
func testAttachCredentialSetting(t *testing.T, s seald.Store) {
	ctx := t.Context()
	b, p := tenant(t, s)
	got, err := s.Project(ctx, p.ProjectID)
	ok(t, "Project", err)
	if got.AttachCredential {
		t.Fatal("a new project attaches credentials: the setting is off by default")
	}
	for _, on := range []bool{true, false, true} {
		_, gp, err := s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: b.BusinessID, ProjectID: p.ProjectID, AttachCredential: &on})
		ok(t, "UpdateTenant of attach_credential", err)
		p.AttachCredential = on
		equal(t, "the project it answers", gp, p)
		saved, err := s.Project(ctx, p.ProjectID)
		ok(t, "Project", err)
		equal(t, "the saved project", saved, p)
	}
	name := "renamed"
	_, gp, err := s.UpdateTenant(ctx, &seald.TenantChange{BusinessID: b.BusinessID, ProjectID: p.ProjectID, ProjectName: &name})
	ok(t, "UpdateTenant of the name", err)
	if !gp.AttachCredential {
		t.Error("an update of another field turned attach_credential off")
	}
	c := newProject(b)
	c.AttachCredential = true
	ok(t, "CreateProject", s.CreateProject(ctx, c))
	saved, err := s.Project(ctx, c.ProjectID)
	ok(t, "Project", err)
	equal(t, "a project created attaching credentials", saved, c)
}

// The first credential kept for a record's e-mail is the one every later call returns, so that a notify step
// run again sends the same; none is ENOTFOUND, and an unknown record keeps none.
func testKeepMailCredential(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := newRecord(p, base)
	create(t, s, r)
	_, err := s.MailCredential(ctx, r.Reference)
	wantCode(t, "MailCredential before any is kept", err, seald.ENOTFOUND)
	kept, err := s.KeepMailCredential(ctx, r.Reference, "first")
	ok(t, "KeepMailCredential", err)
	if kept != "first" {
		t.Errorf("kept %q, want first", kept)
	}
	kept, err = s.KeepMailCredential(ctx, r.Reference, "second")
	ok(t, "KeepMailCredential again", err)
	if kept != "first" {
		t.Errorf("a second credential replaced the first: kept %q", kept)
	}
	got, err := s.MailCredential(ctx, r.Reference)
	ok(t, "MailCredential", err)
	if got != "first" {
		t.Errorf("MailCredential %q, want first", got)
	}
	_, err = s.KeepMailCredential(ctx, "D-nosuchrecord", "x")
	wantCode(t, "KeepMailCredential of an unknown record", err, seald.ENOTFOUND)
}

// An erasure deletes the kept credential (it holds the data as claims), and an erased record keeps none.
func testMailCredentialErased(t *testing.T, s seald.Store) {
	ctx := t.Context()
	_, p := tenant(t, s)
	r := newRecord(p, base)
	create(t, s, r)
	_, err := s.KeepMailCredential(ctx, r.Reference, "credential")
	ok(t, "KeepMailCredential", err)
	if _, _, erased := erasure(t, s, r, base.Add(time.Hour)); !erased {
		t.Fatal("the record was not erased")
	}
	_, err = s.MailCredential(ctx, r.Reference)
	wantCode(t, "MailCredential after the erasure", err, seald.ENOTFOUND)
	_, err = s.KeepMailCredential(ctx, r.Reference, "again")
	wantCode(t, "KeepMailCredential of an erased record", err, seald.ENOTFOUND)
}
