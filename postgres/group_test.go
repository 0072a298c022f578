package postgres

import (
	"fmt"
	"testing"
	"time"

	"seald.dev/seald"
)

// A group of creates is inserted with multi-row statements (records, payloads, jobs), and each caller gets
// its own outcome and its own jobs' ids: a reference that exists already is that one's ECONFLICT while the
// others commit; each id returned is the row of that job (its reference and kind), whichever order the
// jobs' INSERT returned them in; and two jobs of one reference and kind in a group take the path of one
// statement per job, with the same outcome.
func TestCreateGroupJobIDs(t *testing.T) {
	h := openDSN(t, freshSchema(t))
	ctx := t.Context()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b, p := createOwner(t, h, 1, "group", at)
	n := 0
	record := func() *seald.Record {
		n++
		return &seald.Record{Reference: fmt.Sprintf("D-group-%04d", n), Pipeline: seald.PipelinePolygon,
			BusinessID: b.BusinessID, ProjectID: p.ProjectID, Network: seald.NetworkPolygon,
			Hash: fmt.Sprintf("%064x", n), MimeType: "application/json", Privacy: seald.PrivacyPublic,
			Status: seald.StatusActive, State: seald.StatePending, CreatedAt: at, UpdatedAt: at}
	}
	existing := record()
	if err := h.CreateRecord(ctx, existing, []byte(`{"first":true}`)); err != nil {
		t.Fatal(err)
	}
	type create struct {
		r    *seald.Record
		jobs []*seald.Job
		want seald.Code
	}
	run := func(name string, cs []create) {
		t.Helper()
		var group []*createReq
		for _, c := range cs {
			args, err := h.RecordValues(c.r)
			if err != nil {
				t.Fatal(err)
			}
			group = append(group, &createReq{r: c.r, args: args, payload: []byte(`{"ref":"` + c.r.Reference + `"}`), jobs: c.jobs})
		}
		results := h.group.commit(group)
		seen := map[int64]bool{}
		for i, c := range cs {
			if seald.ErrorCode(results[i]) != c.want || (c.want == "") != (results[i] == nil) {
				t.Errorf("%s: %s: %v, want %q", name, c.r.Reference, results[i], c.want)
				continue
			}
			if c.want != "" {
				continue
			}
			if pl, err := h.Payload(ctx, c.r.Reference); err != nil || string(pl) != `{"ref":"`+c.r.Reference+`"}` {
				t.Errorf("%s: payload of %s: %s, %v", name, c.r.Reference, pl, err)
			}
			for _, j := range c.jobs {
				if j.ID <= 0 || seen[j.ID] {
					t.Errorf("%s: job of %s: %+v", name, c.r.Reference, j)
					continue
				}
				seen[j.ID] = true
				got, err := h.QueryInt(ctx, fmt.Sprintf(`SELECT count(*) FROM jobs WHERE id = %d AND reference = '%s' AND kind = '%s'`,
					j.ID, j.Reference, j.Kind))
				if err != nil || got != 1 {
					t.Errorf("%s: job %d of %s (%s) is not that row: %d, %v", name, j.ID, j.Reference, j.Kind, got, err)
				}
			}
		}
	}
	dup := record()
	dup.Reference = existing.Reference
	jobs := func(kinds ...string) []*seald.Job {
		var js []*seald.Job
		for _, k := range kinds {
			js = append(js, &seald.Job{Kind: k, RunAt: at})
		}
		return js
	}
	var cs []create
	for range 20 {
		cs = append(cs, create{record(), jobs(seald.JobStore, seald.JobErase), ""})
	}
	cs = append(cs, create{dup, jobs(seald.JobStore), seald.ECONFLICT}, create{record(), nil, ""})
	run("multi-row", cs)
	run("one statement per job", []create{{record(), jobs(seald.JobStore), ""},
		{record(), jobs(seald.JobStore, seald.JobStore), ""}, {record(), jobs(seald.JobErase), ""}})

	// More creates than one chunk, one job each as the API makes them: records, payloads and jobs go in by
	// statements of 64, 32, 4 and 1 rows (the prepared chunk texts), with a conflict in the second chunk.
	cs = nil
	for i := range 101 {
		if i == 70 {
			d := record()
			d.Reference = existing.Reference
			cs = append(cs, create{d, jobs(seald.JobStore), seald.ECONFLICT})
			continue
		}
		cs = append(cs, create{record(), jobs(seald.JobStore), ""})
	}
	run("chunks", cs)
	cs = nil
	for range 37 {
		cs = append(cs, create{record(), jobs(seald.JobStore), ""})
	}
	run("chunks again", cs)
}

// createOwner creates a business and its PUBLIC Polygon project, numbered n and named after name, registered
// at at.
func createOwner(t *testing.T, h *harnessStore, n int, name string, at time.Time) (*seald.Business, *seald.Project) {
	t.Helper()
	b := &seald.Business{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), BusinessID: "biz_" + name,
		Name: name, DateRegistered: at}
	p := &seald.Project{ID: fmt.Sprintf("00000000-0000-4000-9000-%012d", n), ProjectID: "prj_" + name,
		BusinessID: b.BusinessID, Name: "Docs", Privacy: seald.PrivacyPublic, Network: seald.NetworkPolygon}
	if err := h.CreateBusiness(t.Context(), b, p); err != nil {
		t.Fatal(err)
	}
	return b, p
}
