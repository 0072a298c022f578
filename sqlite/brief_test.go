package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/sqlstore"
)

// TestBriefReadsHeldAtAVersion: verification's reads are answered from memory only while nothing was
// committed since they were made, by this Store, another Store on the same file, or another process.
func TestBriefReadsHeldAtAVersion(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "seald.db")
	a, b := openAt(t, path), openAt(t, path) // two Stores on one file, as two instances would be
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	biz := &seald.Business{ID: "00000000-0000-4000-8000-000000000001", BusinessID: "biz_brief", Name: "Brief",
		DateRegistered: at}
	prj := &seald.Project{ID: "00000000-0000-4000-9000-000000000001", ProjectID: "prj_brief", BusinessID: biz.BusinessID,
		Name: "Docs", Privacy: seald.PrivacyPublic, Network: seald.NetworkPolygon}
	if err := a.CreateBusiness(ctx, biz, prj); err != nil {
		t.Fatal(err)
	}
	hash := fmt.Sprintf("%064x", 45)
	record := func(ref string) *seald.Record {
		return &seald.Record{Reference: ref, Pipeline: seald.PipelinePolygon, BusinessID: biz.BusinessID,
			ProjectID: prj.ProjectID, Network: seald.NetworkPolygon, Hash: hash, MimeType: "application/json",
			Privacy: seald.PrivacyPublic, Status: seald.StatusActive, State: seald.StatePending, CreatedAt: at,
			UpdatedAt: at}
	}
	const ref = "D-brief-0001"
	if err := a.CreateRecord(ctx, record(ref), []byte(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	brief := func(t *testing.T) *seald.Record {
		t.Helper()
		r, err := a.RecordBrief(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	byHash := func(t *testing.T) []*seald.Record {
		t.Helper()
		rs, err := a.RecordsByHashBrief(ctx, hash)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	if a.version == nil {
		t.Fatal("the store reads no version of its database")
	}

	t.Run("nothing changed: no statement is run", func(t *testing.T) {
		brief(t)
		byHash(t)
		stop := sqlstore.StartCounting()
		for range 3 {
			if r := brief(t); r.Reference != ref || r.Status != seald.StatusActive {
				t.Errorf("held record %s %s, want %s ACTIVE", r.Reference, r.Status, ref)
			}
			if rs := byHash(t); len(rs) != 1 || rs[0].Reference != ref {
				t.Errorf("held lookup by hash: %d records, want %s", len(rs), ref)
			}
		}
		if n := stop().Statements; n != 0 {
			t.Errorf("%d statements for 6 lookups with nothing committed, want 0", n)
		}
	})
	t.Run("a record handed out is the caller's own", func(t *testing.T) {
		brief(t).Status = seald.StatusRevoked
		byHash(t)[0].CID = "changed by a caller"
		if r := brief(t); r.Status != seald.StatusActive || r.CID != "" {
			t.Errorf("after a caller changed its copies: %s %q, want ACTIVE and no CID", r.Status, r.CID)
		}
	})
	t.Run("another Store's change is seen at once", func(t *testing.T) {
		c := &seald.StatusChange{Reference: ref, To: seald.StatusSuspended, Actor: "test", At: at.Add(time.Minute)}
		if err := b.ChangeStatus(ctx, c, seald.StatusActive); err != nil {
			t.Fatal(err)
		}
		if r := brief(t); r.Status != seald.StatusSuspended {
			t.Errorf("after another Store suspended it: %s, want SUSPENDED", r.Status)
		}
		if rs := byHash(t); rs[0].Status != seald.StatusSuspended {
			t.Errorf("by hash, after another Store suspended it: %s, want SUSPENDED", rs[0].Status)
		}
	})
	t.Run("another Store's seal of the same data counts at once", func(t *testing.T) {
		if err := b.CreateRecord(ctx, record("D-brief-0002"), []byte(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
		if rs := byHash(t); len(rs) != 2 {
			t.Errorf("%d records of the hash after another Store sealed it again, want 2", len(rs))
		}
	})
	t.Run("another process's change is seen at once", func(t *testing.T) {
		brief(t)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestBriefWriterProcess$")
		cmd.Env = append(os.Environ(), "SEALD_TEST_BRIEF_DB="+path, "SEALD_TEST_BRIEF_REF="+ref)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the other process: %v\n%s", err, out)
		}
		if r := brief(t); r.CID != "bafy-other-process" {
			t.Errorf("after another process set its CID: %q, want bafy-other-process", r.CID)
		}
	})
}

// TestBriefWriterProcess is the other process of TestBriefReadsHeldAtAVersion (as the CLI beside `seald
// serve`): it changes a record's CID on a connection of its own. Alone, it does nothing.
func TestBriefWriterProcess(t *testing.T) {
	path, ref := os.Getenv("SEALD_TEST_BRIEF_DB"), os.Getenv("SEALD_TEST_BRIEF_REF")
	if path == "" {
		t.Skip("run by TestBriefReadsHeldAtAVersion")
	}
	db, err := sql.Open("sqlite", path+"?_busy_timeout=15000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.ExecContext(context.Background(), `UPDATE record_states SET cid = 'bafy-other-process'
		WHERE seq = (SELECT seq FROM record_facts WHERE reference = ?)`, ref)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%d records changed, want 1", n)
	}
}

// BenchmarkRecordBrief compares a verification's read of a record with the same lookup answered from
// memory at an unchanged version (the header read, the copy).
func BenchmarkRecordBrief(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "seald.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	biz := &seald.Business{ID: "00000000-0000-4000-8000-000000000001", BusinessID: "biz_bench", Name: "Bench",
		DateRegistered: at}
	prj := &seald.Project{ID: "00000000-0000-4000-9000-000000000001", ProjectID: "prj_bench", BusinessID: biz.BusinessID,
		Name: "Docs", Privacy: seald.PrivacyPublic, Network: seald.NetworkPolygon}
	if err := s.CreateBusiness(ctx, biz, prj); err != nil {
		b.Fatal(err)
	}
	r := &seald.Record{Reference: "D-bench-0001", Pipeline: seald.PipelinePolygon, BusinessID: biz.BusinessID,
		ProjectID: prj.ProjectID, Network: seald.NetworkPolygon, Hash: fmt.Sprintf("%064x", 1),
		MimeType: "application/json", Privacy: seald.PrivacyPublic, Status: seald.StatusActive,
		State: seald.StatePending, CreatedAt: at, UpdatedAt: at}
	if err := s.CreateRecord(ctx, r, []byte(`{"n":1}`)); err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Store.RecordBrief(ctx, r.Reference); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("held", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.RecordBrief(ctx, r.Reference); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestBriefNotHeldWhenACommitLandsDuringIt: a lookup during which something was committed is answered but not
// held (it is at a version already gone, and would never be answered again): under sealing load that is
// nearly every read, and holding them grew the soak's heap for nothing.
func TestBriefNotHeldWhenACommitLandsDuringIt(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "seald.db")
	a, b := openAt(t, path), openAt(t, path)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	biz := &seald.Business{ID: "00000000-0000-4000-8000-000000000002", BusinessID: "biz_during", Name: "During",
		DateRegistered: at}
	prj := &seald.Project{ID: "00000000-0000-4000-9000-000000000002", ProjectID: "prj_during", BusinessID: biz.BusinessID,
		Name: "Docs", Privacy: seald.PrivacyPublic, Network: seald.NetworkPolygon}
	if err := a.CreateBusiness(ctx, biz, prj); err != nil {
		t.Fatal(err)
	}
	n := 0
	read := func() ([]*seald.Record, error) {
		n++
		// Another instance commits while this lookup reads.
		err := b.CreateRecord(ctx, &seald.Record{Reference: fmt.Sprintf("D-during-%04d", n), Pipeline: seald.PipelinePolygon,
			BusinessID: biz.BusinessID, ProjectID: prj.ProjectID, Network: seald.NetworkPolygon, Hash: fmt.Sprintf("%064x", n),
			MimeType: "application/json", Privacy: seald.PrivacyPublic, Status: seald.StatusActive, State: seald.StatePending,
			CreatedAt: at, UpdatedAt: at}, []byte(`{"n":1}`))
		return []*seald.Record{{Reference: "D-during-read"}}, err
	}
	k := briefKey{key: "D-during-read"}
	for range 2 {
		if _, err := a.brief(ctx, k, read); err != nil {
			t.Fatal(err)
		}
	}
	if n != 2 {
		t.Errorf("%d reads for 2 lookups, each during a commit: want 2", n)
	}
	if got := a.briefs.Len(); got != 0 {
		t.Errorf("%d lookups held, each read during a commit: want none", got)
	}
}

// TestBriefHeldDroppedAtACommit: a commit anywhere drops what was held (it is all at an older version and
// would never be answered again), at the next lookup, so that under sealing load the memory held is what was
// read since the last commit, not a minute of stale reads (the soak's heap grew by them).
func TestBriefHeldDroppedAtACommit(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "seald.db")
	a, b := openAt(t, path), openAt(t, path)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	biz := &seald.Business{ID: "00000000-0000-4000-8000-000000000003", BusinessID: "biz_drop", Name: "Drop",
		DateRegistered: at}
	prj := &seald.Project{ID: "00000000-0000-4000-9000-000000000003", ProjectID: "prj_drop", BusinessID: biz.BusinessID,
		Name: "Docs", Privacy: seald.PrivacyPublic, Network: seald.NetworkPolygon}
	if err := a.CreateBusiness(ctx, biz, prj); err != nil {
		t.Fatal(err)
	}
	create := func(n int) string {
		ref := fmt.Sprintf("D-drop-%04d", n)
		if err := b.CreateRecord(ctx, &seald.Record{Reference: ref, Pipeline: seald.PipelinePolygon,
			BusinessID: biz.BusinessID, ProjectID: prj.ProjectID, Network: seald.NetworkPolygon, Hash: fmt.Sprintf("%064x", n),
			MimeType: "application/json", Privacy: seald.PrivacyPublic, Status: seald.StatusActive, State: seald.StatePending,
			CreatedAt: at, UpdatedAt: at}, []byte(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
		return ref
	}
	refs := []string{create(1), create(2), create(3)}
	for _, ref := range refs {
		if _, err := a.RecordBrief(ctx, ref); err != nil {
			t.Fatal(err)
		}
	}
	if got := a.briefs.Len(); got != len(refs) {
		t.Fatalf("%d lookups held with nothing committed since, want %d", got, len(refs))
	}
	create(4) // another instance commits
	if _, err := a.RecordBrief(ctx, refs[0]); err != nil {
		t.Fatal(err)
	}
	if got := a.briefs.Len(); got != 1 {
		t.Errorf("%d lookups held after a commit and one lookup, want 1 (the older ones dropped)", got)
	}
}
