package sqlite

import (
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"seald.dev/seald/internal/migration"
	"seald.dev/seald/storetest"
)

// releaseDB is the database of a data dir made by the last release, 42a61d0 (see testdata/release-42a61d0/
// README.md): records COMPLETED, records ANCHORED whose notify jobs wait, and PENDING records whose payloads
// and store jobs wait.
var releaseDB = filepath.Join("testdata", "release-42a61d0", "seald.db")

// readRelease reads, with raw SQL on the release's schema, what migrations 0014, 0015 and 0017 move.
func readRelease(t *testing.T, path string) storetest.Release {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rel := storetest.Release{Payloads: map[string][]byte{}, Jobs: map[int64]storetest.ReleaseJob{}, Paths: map[string][2]string{}}
	rows, err := db.QueryContext(t.Context(), storetest.ReleaseRecords)
	if err != nil {
		t.Fatal(err)
	}
	rel.Records = storetest.RecordRows(t, rows)
	rows, err = db.QueryContext(t.Context(), storetest.ReleasePayloads)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ref string
		var data []byte
		if err := rows.Scan(&ref, &data); err != nil {
			t.Fatal(err)
		}
		rel.Payloads[ref] = data
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = db.QueryContext(t.Context(), storetest.ReleaseJobs)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var j storetest.ReleaseJob
		if err := rows.Scan(&id, &j.Kind, &j.Reference, &j.Attempts, &j.LastError); err != nil {
			t.Fatal(err)
		}
		rel.Jobs[id] = j
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = db.QueryContext(t.Context(), storetest.ReleasePaths)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ref string
		var p [2]string
		if err := rows.Scan(&ref, &p[0], &p[1]); err != nil {
			t.Fatal(err)
		}
		rel.Paths[ref] = p
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(t.Context(), `SELECT seq FROM sqlite_sequence WHERE name = 'jobs'`).Scan(&rel.LastJobID); err != nil {
		t.Fatal(err)
	}
	return rel
}

// A database made by the last release opens with today's code: migrations 0014 (payloads keyed by the
// record's seq, jobs found by it through jobs_record instead of jobs_reference, the record lookups by
// reference and hash kept), 0015 (Merkle paths in record_paths) and 0017 (a record's row split into record_facts
// and record_states, record_facts made again) run; every record's row reads the same, value by value, from
// the view records; the tables that name a record name record_facts, and every key holds; and every payload and
// job the release left is kept, for its record, and is worked on as before (storetest.CheckRelease).
func TestMigrateReleaseDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seald.db")
	b, err := os.ReadFile(releaseDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	// The last job given ends, as a step that completed would: the largest id left is then below the
	// sequence, which the migration (a new table for jobs) must carry across for ids never to be reused.
	// The records' sequence is moved past the largest seq too, as if seqs had been given to rows no longer
	// there: 0017 makes the table again, and without this a new table would reach the same sequence from its
	// rows alone, carried across or not.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DELETE FROM jobs WHERE id = (SELECT max(id) FROM jobs)`,
		`UPDATE sqlite_sequence SET seq = seq + 10 WHERE name = 'records'`} {
		if _, err := raw.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var lastSeq int64
	if err := raw.QueryRowContext(t.Context(), `SELECT seq FROM sqlite_sequence WHERE name = 'records'`).Scan(&lastSeq); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	rel := readRelease(t, path)
	h := openAt(t, path)
	ctx := t.Context()
	// Every migration ran: 0014 and 0015, and those after them (0016, the paths' compact form; 0017, the
	// split of a record's row).
	ms, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := h.QueryInt(ctx, `SELECT max(version) FROM schema_migrations`); err != nil || v != int64(ms[len(ms)-1].Version) || v < 17 {
		t.Errorf("schema version %d (%v), want %d", v, err, ms[len(ms)-1].Version)
	}
	for _, c := range []struct {
		index string
		want  int64
	}{{"jobs_reference", 0}, {"jobs_record", 1}, {"jobs_kind_run_at", 1}} {
		n, err := h.QueryInt(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = '`+c.index+`'`)
		if err != nil || n != c.want {
			t.Errorf("index %s: %d (%v), want %d", c.index, n, err, c.want)
		}
	}
	if n, err := h.QueryInt(ctx, `SELECT count(*) FROM jobs JOIN records ON records.seq = jobs.record_seq
		WHERE records.reference <> jobs.reference`); err != nil || n != 0 {
		t.Errorf("%d jobs whose record_seq is not their reference's record (%v)", n, err)
	}
	checkSplit(t, h, rel, lastSeq)
	storetest.CheckRelease(t, h, rel)
}

// checkSplit checks the schema and rows migration 0017 leaves in h's database, which held rel's records and
// the records' sequence lastSeq before: record_facts with only the columns written at acceptance and the
// indexes of those, record_states (STRICT) with the others, one row per record, and the indexes that were
// records' on them, as they were (columns, uniqueness, rows); every record's row the same in the view records;
// the sequence carried across; the tables that named records naming record_facts; every foreign key holding.
func checkSplit(t *testing.T, h *harnessStore, rel storetest.Release, lastSeq int64) {
	t.Helper()
	ctx := t.Context()
	rows, err := h.raw.QueryContext(ctx, storetest.MigratedRecords)
	if err != nil {
		t.Fatal(err)
	}
	storetest.CheckReleaseRecords(t, rel, storetest.RecordRows(t, rows))
	storetest.EqualStrings(t, "the view records' columns", rawStrings(t, h, `SELECT name FROM pragma_table_info('records') ORDER BY cid`),
		storetest.RecordRowColumns)
	for _, table := range []string{"records", "record_facts", "record_states"} {
		if n, err := h.QueryInt(ctx, `SELECT count(*) FROM `+table); err != nil || n != int64(len(rel.Records)) {
			t.Errorf("%s: %d rows (%v), the release's records %d", table, n, err, len(rel.Records))
		}
	}

	for table, want := range map[string][]string{
		"record_facts": {"seq", "reference", "pipeline", "business_id", "project_id", "network", "hash", "mime_type",
			"privacy", "is_email", "is_encrypted", "has_password", "downloadable", "password_hash", "mail", "ovi",
			"created_at", "data_key", "erased_at"},
		"record_states": {"seq", "network", "project_id", "created_at", "status", "state", "error_type",
			"error_message", "cid", "encrypted_file", "token_id", "batch_id", "leaf", "revoked_on_chain", "is_signed",
			"signature", "message_id", "updated_at", "erased_at", "ipfs_stored_at", "anchor_submitted_at",
			"anchored_at", "email_sent_at", "completed_at", "failed_at", "disclosure", "disclosure_blind"},
	} {
		storetest.EqualStrings(t, table+"'s columns", rawStrings(t, h, `SELECT name FROM pragma_table_info('`+table+`') ORDER BY cid`), want)
		if n, err := h.QueryInt(ctx, `SELECT strict FROM pragma_table_list('`+table+`')`); err != nil || n != 1 {
			t.Errorf("%s: strict %d (%v)", table, n, err)
		}
	}

	// Each index of both tables: its name, UNIQUE, its columns and its WHERE. The reference's UNIQUE made
	// again takes the name of record_facts, which the rename of the new table gives it.
	for table, want := range map[string][]string{
		"record_facts": {
			"records_hash (hash, created_at)",
			"records_project (project_id, created_at, seq)",
			"records_retention (project_id, created_at) WHERE erased_at IS NULL",
			"sqlite_autoindex_record_facts_1 UNIQUE (reference)",
		},
		"record_states": {
			"record_states_anchor_queue (state, network, created_at)",
			"record_states_anchored (project_id, anchored_at, created_at) WHERE anchored_at IS NOT NULL",
			"record_states_cid (cid)",
			"record_states_token UNIQUE (network, token_id) WHERE token_id IS NOT NULL",
		},
	} {
		storetest.EqualStrings(t, table+"'s indexes", indexes(t, h, table), want)
	}
	for _, gone := range []string{"records_cid", "records_token", "records_anchor_queue", "records_batch",
		"records_anchored", "record_states_batch"} {
		if n, err := h.QueryInt(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = '`+gone+`'`); err != nil || n != 0 {
			t.Errorf("%s: %d left (%v)", gone, n, err)
		}
	}

	// record_facts' copy of the erasure's time (for records_retention) is record_states'.
	if n, err := h.QueryInt(ctx, `SELECT count(*) FROM record_facts f JOIN record_states s ON s.seq = f.seq
		WHERE f.erased_at IS NOT s.erased_at`); err != nil || n != 0 {
		t.Errorf("%d records whose two erased_at differ (%v)", n, err)
	}

	// The tables that name a record name record_facts, in their schema's text as in their keys.
	for table, want := range map[string]string{"status_changes": "reference -> record_facts (reference)",
		"mail_credentials": "reference -> record_facts (reference)", "payloads": "seq -> record_facts (seq)",
		"jobs": "record_seq -> record_facts (seq)", "record_paths": "record_seq -> record_facts (seq)",
		"record_states": "seq -> record_facts (seq)"} {
		got := rawStrings(t, h, `SELECT "from" || ' -> ' || "table" || ' (' || "to" || ')'
			FROM pragma_foreign_key_list('`+table+`') WHERE "table" LIKE 'record%'`)
		storetest.EqualStrings(t, table+"'s keys to a record", got, []string{want})
		if n, err := h.QueryInt(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = '`+table+`'
			AND (sql LIKE '%REFERENCES "record_facts" (%' OR sql LIKE '%REFERENCES record_facts (%')`); err != nil || n != 1 {
			t.Errorf("%s: its schema names record_facts %d times (%v)", table, n, err)
		}
	}
	if got := rawStrings(t, h, `SELECT name FROM sqlite_schema WHERE sql LIKE '%record_facts_new%' OR name LIKE '%record_facts_new%'`); len(got) != 0 {
		t.Errorf("the schema still names record_facts_new: %v", got)
	}
	if n, err := h.QueryInt(ctx, `SELECT count(*) FROM pragma_foreign_key_check`); err != nil || n != 0 {
		t.Errorf("%d foreign keys broken (%v)", n, err)
	}
	storetest.EqualStrings(t, "the records' sequence", rawStrings(t, h, `SELECT name || ' ' || seq FROM sqlite_sequence
		WHERE name LIKE 'record%' ORDER BY name`), []string{"record_facts " + strconv.FormatInt(lastSeq, 10)})
}

// indexes describes each index of table, by name: its name, UNIQUE if it is, its columns and its WHERE, if
// it has one.
func indexes(t *testing.T, h *harnessStore, table string) []string {
	t.Helper()
	var out []string
	for _, name := range rawStrings(t, h, `SELECT name FROM pragma_index_list('`+table+`') WHERE origin <> 'pk' ORDER BY name`) {
		d := name
		if u := rawStrings(t, h, `SELECT "unique" FROM pragma_index_list('`+table+`') WHERE name = '`+name+`'`); u[0] == "1" {
			d += " UNIQUE"
		}
		d += " (" + strings.Join(rawStrings(t, h, `SELECT name FROM pragma_index_info('`+name+`') ORDER BY seqno`), ", ") + ")"
		// A partial index's WHERE is only in its CREATE INDEX text.
		if def := rawStrings(t, h, `SELECT coalesce(sql, '') FROM sqlite_schema WHERE name = '`+name+`'`); len(def) == 1 {
			if _, where, found := strings.Cut(def[0], " WHERE "); found {
				d += " WHERE " + where
			}
		}
		out = append(out, d)
	}
	return out
}

// rawStrings reads one text column on h's raw connection, outside the Store.
func rawStrings(t *testing.T, h *harnessStore, query string) []string {
	t.Helper()
	rows, err := h.raw.QueryContext(t.Context(), query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}
