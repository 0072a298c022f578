package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
	"seald.dev/seald/storetest"
)

// A claim sets only a job's lease, and the jobs table keeps room on each page (migration 0017): the leased
// version of a job is written beside the one it replaces, a HOT update that adds no entry to the table's three
// indexes (issue 45: the claims were 40% of the jobs' index entries in the WAL). On full pages, as before,
// each claimed job moved to another page, with a new entry in every index.
func TestClaimsStayOnTheirPage(t *testing.T) {
	dsn := freshSchema(t)
	s := openDSN(t, dsn)
	ctx := t.Context()
	now := time.Now()
	const n = 400
	storetest.CreatePending(t, s, n, now)
	before := jobPages(t, dsn)
	for claimed := 0; claimed < n; {
		// The pipeline claims a few dozen at a time.
		jobs, err := s.ClaimJobs(ctx, []string{seald.JobStore}, 32, now, time.Minute)
		if err != nil || len(jobs) == 0 {
			t.Fatalf("claimed %d after %d (%v)", len(jobs), claimed, err)
		}
		claimed += len(jobs)
	}
	after := jobPages(t, dsn)
	moved := 0
	for id, page := range before {
		if after[id] != page {
			moved++
		}
	}
	t.Logf("%d of %d claimed jobs moved to another page", moved, len(before))
	if len(before) != n || len(after) != n || moved > n/10 {
		t.Errorf("%d of %d claimed jobs moved to another page (%d jobs after)", moved, len(before), len(after))
	}
}

// jobPages gives the heap page of each job, by id.
func jobPages(t *testing.T, dsn string) map[int64]int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT id, (ctid::text::point)[0]::bigint FROM jobs`)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (p [2]int64, err error) {
		err = r.Scan(&p[0], &p[1])
		return p, err
	})
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[int64]int64, len(pages))
	for _, p := range pages {
		m[p[0]] = p[1]
	}
	return m
}
