package postgres

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
	"seald.dev/seald/storetest"
)

// A record's state row keeps its page through the pipeline's steps (migration 0018: the table keeps room
// for its rows to grow), so that each step's version is logged as the bytes it changed rather than whole on
// another page. Enough records are walked for their first versions to fill several pages.
func TestStateVersionsStayOnTheirPage(t *testing.T) {
	h := openDSN(t, freshSchema(t))
	ctx := t.Context()
	const n = 240
	storetest.Walk(t, h, n, func(step string) {
		if step == "created" {
			if err := h.ExecSQL(ctx, `CREATE TABLE first_pages AS
				SELECT seq, (ctid::text::point)[0] AS page FROM record_states`); err != nil {
				t.Fatal(err)
			}
		}
	})
	pages, err := h.QueryInt(ctx, `SELECT count(DISTINCT page) FROM first_pages`)
	if err != nil {
		t.Fatal(err)
	}
	stayed, err := h.QueryInt(ctx, `SELECT count(*) FROM record_states s JOIN first_pages f USING (seq)
		WHERE (s.ctid::text::point)[0] = f.page AND s.state = 'COMPLETED'`)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d completed rows on the page of their first version (%d pages at acceptance)", stayed, n, pages)
	if pages < 4 || stayed < n*3/4 {
		t.Errorf("%d of %d completed rows on the page of their first version (%d pages at acceptance), want three quarters or more, on 4 pages or more", stayed, n, pages)
	}
}

// A record's CID is found through record_cids (migration 0019), which gets one row when the CID is set and
// none at the steps after; no index of record_states holds the CID, so those steps write no entry of it. A
// record whose CID changes is found by its new CID only.
func TestCIDsKeptApart(t *testing.T) {
	h := openDSN(t, freshSchema(t))
	ctx := t.Context()
	count := func(query string) int64 {
		t.Helper()
		n, err := h.QueryInt(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	const n = 8
	rs := storetest.Walk(t, h, n, func(step string) {
		if got := count(`SELECT count(*) FROM record_cids`); step != "created" && got != n || step == "created" && got != 0 {
			t.Errorf("once %s: %d rows in record_cids", step, got)
		}
	})
	if got := count(`SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'record_states'
		AND indexdef LIKE '%cid%'`); got != 0 {
		t.Errorf("%d indexes of record_states hold the CID", got)
	}
	for _, r := range rs {
		got, err := h.Record(ctx, r.Reference)
		if err != nil {
			t.Fatal(err)
		}
		byCID, err := h.RecordByCID(ctx, got.CID)
		if err != nil || byCID.Reference != r.Reference {
			t.Fatalf("RecordByCID(%s) of %s: %v, %v", got.CID, r.Reference, byCID, err)
		}
	}
	first, err := h.Record(ctx, rs[0].Reference)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.ExecSQL(ctx, `UPDATE record_states SET cid = 'bafkreichanged' WHERE cid = '`+first.CID+`'`); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RecordByCID(ctx, first.CID); seald.ErrorCode(err) != seald.ENOTFOUND {
		t.Errorf("RecordByCID of the CID the record had: %v, want ENOTFOUND", err)
	}
	if r, err := h.RecordByCID(ctx, "bafkreichanged"); err != nil || r.Reference != first.Reference {
		t.Errorf("RecordByCID of the record's new CID: %v, %v", r, err)
	}
}

// The anchor queue's index holds the records of the waiting states only (migration 0020), so the step to
// COMPLETED writes no entry in it; the statements that walk it, which name those states as literals, are
// planned on it, and the states it holds are seald.WaitingStates (a state added there must be added to it).
func TestAnchorQueueIndexHoldsTheWaitingStates(t *testing.T) {
	h := openDSN(t, freshSchema(t))
	ctx := t.Context()
	storetest.Walk(t, h, 8, func(string) {})
	entries, err := h.QueryInt(ctx, `SELECT count(*) FROM record_states WHERE state IN ('PENDING', 'IPFS_STORED',
		'ANCHOR_SUBMITTED', 'ANCHORED', 'EMAIL_SENT')`)
	if err != nil || entries != 0 {
		t.Fatalf("%d records still waiting after the walk (%v)", entries, err)
	}
	conn, err := pgx.Connect(ctx, h.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var def string
	if err := conn.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema()
		AND indexname = 'record_states_anchor_queue'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	_, predicate, _ := strings.Cut(def, " WHERE ")
	for _, st := range seald.WaitingStates {
		if !strings.Contains(predicate, "'"+string(st)+"'") {
			t.Errorf("the anchor queue's index lacks the waiting state %s: %s", st, def)
		}
	}
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	for _, query := range []string{
		`SELECT seq FROM record_states WHERE state = 'IPFS_STORED' AND network = $1::text AND batch_id IS NULL
			ORDER BY created_at, seq LIMIT 10`,
		`SELECT state, count(*), min(created_at) FROM record_states WHERE state IN ('PENDING', 'IPFS_STORED',
			'ANCHOR_SUBMITTED', 'ANCHORED', 'EMAIL_SENT') AND $1::text <> '' GROUP BY state`,
	} {
		rows, err := conn.Query(ctx, `EXPLAIN `+query, "POLYGON")
		if err != nil {
			t.Fatal(err)
		}
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if text := strings.Join(plan, "\n"); !strings.Contains(text, "record_states_anchor_queue") {
			t.Errorf("%s\nis not planned on the anchor queue's index:\n%s", query, text)
		}
	}
}

// Records inserted whole by BulkInsertRecords (an import, the bench's history) fill record_states' pages
// instead of leaving the room kept for rows that grow (fillfactor 15) empty, and the table keeps its setting.
func TestBulkInsertPacksStates(t *testing.T) {
	h := openDSN(t, freshSchema(t))
	ctx := t.Context()
	walked := storetest.Walk(t, h, 1, func(string) {})
	model, err := h.Record(ctx, walked[0].Reference)
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	rs := make([]*seald.Record, n)
	for i := range rs {
		r := *model
		r.Reference, r.Hash = fmt.Sprintf("D-bulk-%06d", i), fmt.Sprintf("%064x", i)
		r.CID = fmt.Sprintf("bafkreibulk%053d", i)
		r.TokenID = model.TokenID + 1 + uint64(i)
		rs[i] = &r
	}
	if err := h.BulkInsertRecords(ctx, rs); err != nil {
		t.Fatal(err)
	}
	pages, err := h.QueryInt(ctx, `SELECT count(DISTINCT (ctid::text::point)[0]) FROM record_states`)
	if err != nil {
		t.Fatal(err)
	}
	bytes, err := h.QueryInt(ctx, `SELECT sum(pg_column_size(s.*)) FROM record_states s`)
	if err != nil {
		t.Fatal(err)
	}
	// Packed, the rows take their bytes' worth of 8 KiB pages and a little more; at 15% fill, six times that.
	if packed := bytes/8192 + 1; pages > packed*3/2 {
		t.Errorf("%d records of %d bytes in all on %d pages, about %d when packed", n+1, bytes, pages, packed)
	}
	var options []string
	conn, err := pgx.Connect(ctx, h.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT reloptions FROM pg_class WHERE oid = 'record_states'::regclass`).Scan(&options); err != nil {
		t.Fatal(err)
	}
	if len(options) != 1 || options[0] != "fillfactor=15" {
		t.Errorf("record_states' options after a bulk insert: %v, want [fillfactor=15]", options)
	}
}
