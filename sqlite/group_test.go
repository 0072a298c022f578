package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"seald.dev/seald"
)

// A group of creates is inserted together by multi-row statements, and each caller still gets its own
// outcome: a reference that exists already is that one's ECONFLICT while the others commit with their
// payloads and job ids (each id that of its own job's row, whichever order the multi-row INSERT returned
// them in); when one create's job cannot be inserted, that create alone fails and leaves
// nothing, and the others of its group commit (they run again apart).
func TestCreatesTogether(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "seald.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := &seald.Business{ID: "00000000-0000-4000-8000-000000000001", BusinessID: "biz_group", Name: "Group",
		DateRegistered: at}
	p := &seald.Project{ID: "00000000-0000-4000-9000-000000000001", ProjectID: "prj_group", BusinessID: b.BusinessID,
		Name: "Docs", Privacy: seald.PrivacyPublic, Network: seald.NetworkPolygon}
	if err := s.CreateBusiness(ctx, b, p); err != nil {
		t.Fatal(err)
	}
	n := 0
	record := func() *seald.Record {
		n++
		return &seald.Record{Reference: fmt.Sprintf("D-group-%04d", n), Pipeline: seald.PipelinePolygon,
			BusinessID: b.BusinessID, ProjectID: p.ProjectID, Network: seald.NetworkPolygon,
			Hash: fmt.Sprintf("%064x", n), MimeType: "application/json", Privacy: seald.PrivacyPublic,
			Status: seald.StatusActive, State: seald.StatePending, CreatedAt: at, UpdatedAt: at}
	}
	existing := record()
	if err := s.CreateRecord(ctx, existing, []byte(`{"first":true}`)); err != nil {
		t.Fatal(err)
	}

	type create struct {
		r    *seald.Record
		jobs []*seald.Job
		want seald.Code // "" for success
	}
	run := func(name string, cs []create, apart int64) {
		t.Helper()
		var group []*writeReq
		for _, c := range cs {
			w, err := s.createWrite(c.r, []byte(`{"ref":"`+c.r.Reference+`"}`), c.jobs)
			if err != nil {
				t.Fatal(err)
			}
			w.ctx = ctx
			group = append(group, w)
		}
		if got := createRun(group); got != len(group) {
			t.Fatalf("%s: a run of %d creates, want %d", name, got, len(group))
		}
		before := s.group.apart.Load()
		results := s.group.commit(group)
		if got := s.group.apart.Load() - before; got != apart {
			t.Errorf("%s: %d runs apart, want %d", name, got, apart)
		}
		ids := map[int64]bool{}
		for i, c := range cs {
			if seald.ErrorCode(results[i]) != c.want || (c.want == "") != (results[i] == nil) {
				t.Errorf("%s: %s: %v, want %q", name, c.r.Reference, results[i], c.want)
				continue
			}
			if c.want != "" {
				if c.r.Reference == existing.Reference {
					if pl, err := s.Payload(ctx, existing.Reference); err != nil || string(pl) != `{"first":true}` {
						t.Errorf("%s: the existing record's payload: %s, %v", name, pl, err)
					}
					continue
				}
				if _, err := s.Record(ctx, c.r.Reference); seald.ErrorCode(err) != seald.ENOTFOUND {
					t.Errorf("%s: %s failed but is there: %v", name, c.r.Reference, err)
				}
				if _, err := s.Payload(ctx, c.r.Reference); seald.ErrorCode(err) != seald.ENOTFOUND {
					t.Errorf("%s: %s failed but its payload is there: %v", name, c.r.Reference, err)
				}
				continue
			}
			if _, err := s.Record(ctx, c.r.Reference); err != nil {
				t.Errorf("%s: %s: %v", name, c.r.Reference, err)
			}
			if pl, err := s.Payload(ctx, c.r.Reference); err != nil || string(pl) != `{"ref":"`+c.r.Reference+`"}` {
				t.Errorf("%s: payload of %s: %s, %v", name, c.r.Reference, pl, err)
			}
			for _, j := range c.jobs {
				if j.ID <= 0 || ids[j.ID] || j.Reference != c.r.Reference {
					t.Errorf("%s: job of %s: %+v", name, c.r.Reference, j)
				}
				ids[j.ID] = true
				var rows int
				if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE id = ? AND reference = ? AND kind = ?`,
					j.ID, j.Reference, j.Kind).Scan(&rows); err != nil || rows != 1 {
					t.Errorf("%s: job %d of %s (%s) is not that row: %d, %v", name, j.ID, j.Reference, j.Kind, rows, err)
				}
			}
		}
	}
	job := func() []*seald.Job { return []*seald.Job{{Kind: seald.JobStore, RunAt: at}} }
	jobs := func(kinds ...string) []*seald.Job {
		var js []*seald.Job
		for _, k := range kinds {
			js = append(js, &seald.Job{Kind: k, RunAt: at})
		}
		return js
	}
	dup := record()
	dup.Reference = existing.Reference
	run("a reference that exists", []create{{record(), job(), ""}, {dup, job(), seald.ECONFLICT}, {record(), job(), ""},
		{record(), nil, ""}}, 0)
	run("several jobs each", []create{{record(), jobs(seald.JobStore, seald.JobErase), ""},
		{record(), jobs(seald.JobErase, seald.JobStore), ""}, {record(), job(), ""}}, 0)
	run("two jobs of one reference and kind", []create{{record(), job(), ""},
		{record(), jobs(seald.JobStore, seald.JobStore), ""}, {record(), job(), ""}}, 0)
	run("a job that cannot be inserted", []create{{record(), job(), ""},
		{record(), []*seald.Job{{Kind: seald.JobStore, RunAt: at}, {Kind: seald.JobStore, Reference: "D-absent", RunAt: at}}, seald.ENOTFOUND},
		{record(), job(), ""}}, 1)

	// More creates than one chunk: the records go in by statements of 64, 32, 4 and 1 rows, with a conflict
	// in the second chunk, and their statements are prepared once for the groups after.
	var many []create
	for i := range 101 {
		if i == 70 {
			d := record()
			d.Reference = existing.Reference
			many = append(many, create{d, job(), seald.ECONFLICT})
			continue
		}
		many = append(many, create{record(), job(), ""})
	}
	run("chunks", many, 0)
	for _, text := range []string{recordRows.Text(64), recordRows.Text(32), recordRows.Text(4), recordRows.Text(1),
		payloadRows.Text(64), payloadRows.Text(32), payloadRows.Text(4)} {
		if _, ok := s.writes.stmts[text]; !ok {
			t.Errorf("the chunk statement %.60s... (%d bytes) is not prepared on the writer", text, len(text))
		}
	}
}

// The committer lingers between groups only while no create waits (group.Linger does the lingering): a
// create is urgent, any other write is not.
func TestCreatesAreUrgent(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "seald.db"))
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	create, err := s.createWrite(&seald.Record{Reference: "D-urgent-1", Pipeline: seald.PipelinePolygon,
		BusinessID: "biz_urgent", ProjectID: "prj_urgent", Network: seald.NetworkPolygon, Hash: fmt.Sprintf("%064x", 1),
		MimeType: "application/json", Privacy: seald.PrivacyPublic, Status: seald.StatusActive,
		State: seald.StatePending, CreatedAt: at, UpdatedAt: at}, []byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !urgent(create) {
		t.Error("a create is not urgent: acceptances would wait for the committer's linger")
	}
	if urgent(&writeReq{op: "sqlite.CompleteJob"}) {
		t.Error("a plain write is urgent: the pipeline's saves would never share a lingering group")
	}
}
