package postgres

import (
	"context"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald/internal/migration"
	"seald.dev/seald/storetest"
)

// releaseDump is pg_dump's plain dump of a schema made by the last release, 42a61d0 (see
// testdata/release-42a61d0/README.md), with the schema named seald_release_42a61d0 (storetest.ReleaseDumpSQL renames it): records COMPLETED, records
// ANCHORED whose notify jobs wait, and PENDING records whose payloads and store jobs wait.
var releaseDump = filepath.Join("testdata", "release-42a61d0", "dump.sql")

// restoreRelease loads the release's dump into the schema of dsn's search_path, which exists and is empty: the
// dump's own schema is renamed to it, and psql's meta-commands (\restrict) and the dump's CREATE SCHEMA are
// left out.
func restoreRelease(t *testing.T, dsn string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := pgx.Identifier{u.Query().Get("search_path")}.Sanitize()
	admin(t, dsn, storetest.ReleaseDumpSQL(t, releaseDump, schema))
}

// readRelease reads, with raw SQL on the release's schema, what migrations 0014, 0015 and 0018 move.
func readRelease(t *testing.T, dsn string) storetest.Release {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rel := storetest.Release{Payloads: map[string][]byte{}, Jobs: map[int64]storetest.ReleaseJob{}, Paths: map[string][2]string{}}
	rel.Records = readRecordRows(t, conn, storetest.ReleaseRecords)
	rows, _ := conn.Query(ctx, storetest.ReleasePayloads)
	var ref string
	var data []byte
	if _, err := pgx.ForEachRow(rows, []any{&ref, &data}, func() error {
		rel.Payloads[ref] = data
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var id int64
	var j storetest.ReleaseJob
	rows, _ = conn.Query(ctx, storetest.ReleaseJobs)
	if _, err := pgx.ForEachRow(rows, []any{&id, &j.Kind, &j.Reference, &j.Attempts, &j.LastError}, func() error {
		rel.Jobs[id] = j
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var p [2]string
	rows, _ = conn.Query(ctx, storetest.ReleasePaths)
	if _, err := pgx.ForEachRow(rows, []any{&ref, &p[0], &p[1]}, func() error {
		rel.Paths[ref] = p
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT last_value FROM jobs_id_seq`).Scan(&rel.LastJobID); err != nil {
		t.Fatal(err)
	}
	return rel
}

// readRecordRows reads every record's whole row with query (storetest.ReleaseRecords or MigratedRecords) on conn.
func readRecordRows(t *testing.T, conn *pgx.Conn, query string) map[string][]any {
	t.Helper()
	rows, err := conn.Query(t.Context(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	return storetest.RecordRows(t, rows)
}

// A schema made by the last release opens with today's code: migrations 0014 (payloads keyed by the
// record's seq, jobs found by it through jobs_record instead of jobs_reference, the record lookups by
// reference and hash kept), 0015 (Merkle paths in record_paths) and 0018 (a record's row split into record_facts
// and record_states) run; every record's row reads the same, value by value, from the view records; and every
// payload and job the release left is kept, for its record, and is worked on as before
// (storetest.CheckRelease).
func TestMigrateReleaseDatabase(t *testing.T) {
	dsn := freshSchema(t)
	restoreRelease(t, dsn)
	rel := readRelease(t, dsn)
	h := openDSN(t, dsn)
	ctx := t.Context()
	// Every migration ran: 0014 and 0015, and those after them (0016, the paths' compact form; 0017, the jobs'
	// fillfactor; 0018, the split of a record's row).
	ms, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := h.QueryInt(ctx, `SELECT max(version) FROM schema_migrations`); err != nil || v != int64(ms[len(ms)-1].Version) || v < 18 {
		t.Errorf("schema version %d (%v), want %d", v, err, ms[len(ms)-1].Version)
	}
	for _, c := range []struct {
		index string
		want  int64
	}{{"jobs_reference", 0}, {"jobs_record", 1}, {"jobs_kind_run_at", 1}, {"payloads_pkey", 1}} {
		n, err := h.QueryInt(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = '`+c.index+`'`)
		if err != nil || n != c.want {
			t.Errorf("index %s: %d (%v), want %d", c.index, n, err, c.want)
		}
	}
	if n, err := h.QueryInt(ctx, `SELECT count(*) FROM jobs JOIN records ON records.seq = jobs.record_seq
		WHERE records.reference <> jobs.reference`); err != nil || n != 0 {
		t.Errorf("%d jobs whose record_seq is not their reference's record (%v)", n, err)
	}
	checkSplit(t, dsn, rel)
	storetest.CheckRelease(t, h, rel)
}

// checkSplit checks the schema and rows migration 0018 leaves in the schema of dsn, which held rel's records
// before: record_facts (records renamed) with only the columns written at acceptance and the indexes of
// those, record_states with the others, one row per record, and the indexes that were records' on them, as
// they were (columns, uniqueness, rows); every record's row the same in the view records; the foreign keys
// that named records naming record_facts, and the one to batches moved with batch_id.
func checkSplit(t *testing.T, dsn string, rel storetest.Release) {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	storetest.CheckReleaseRecords(t, rel, readRecordRows(t, conn, storetest.MigratedRecords))
	storetest.EqualStrings(t, "the view records' columns", queryStrings(t, conn, `SELECT attname FROM pg_attribute
		WHERE attrelid = 'records'::regclass AND attnum > 0 ORDER BY attnum`), storetest.RecordRowColumns)
	for _, table := range []string{"records", "record_facts", "record_states"} {
		var n int64
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil || n != int64(len(rel.Records)) {
			t.Errorf("%s: %d rows (%v), the release's records %d", table, n, err, len(rel.Records))
		}
	}

	// Each column: its name, type, NOT NULL and default.
	for table, want := range map[string][]string{
		"record_facts": {"seq bigint NOT NULL", "reference text NOT NULL", "pipeline text NOT NULL",
			"business_id text NOT NULL", "project_id text NOT NULL", "network text NOT NULL", "hash text NOT NULL",
			"mime_type text NOT NULL", "privacy text NOT NULL", "is_email boolean NOT NULL",
			"is_encrypted boolean NOT NULL", "has_password boolean NOT NULL", "downloadable boolean NOT NULL",
			"password_hash text NOT NULL", "mail text", "ovi text NOT NULL",
			"created_at timestamp with time zone NOT NULL", "data_key text NOT NULL DEFAULT ''::text",
			"erased_at timestamp with time zone"},
		"record_states": {"seq bigint NOT NULL", "network text NOT NULL", "project_id text NOT NULL",
			"created_at timestamp with time zone NOT NULL", "status text NOT NULL",
			"revoked_on_chain boolean NOT NULL", "error_type text NOT NULL", "error_message text NOT NULL",
			"erased_at timestamp with time zone", "failed_at timestamp with time zone", "cid text NOT NULL",
			"encrypted_file text NOT NULL", "disclosure text", "disclosure_blind text",
			"ipfs_stored_at timestamp with time zone", "token_id bigint", "batch_id bigint", "leaf text NOT NULL",
			"anchor_submitted_at timestamp with time zone", "anchored_at timestamp with time zone",
			"is_signed boolean NOT NULL", "signature text NOT NULL", "message_id text NOT NULL",
			"email_sent_at timestamp with time zone", "completed_at timestamp with time zone",
			"state text NOT NULL", "updated_at timestamp with time zone NOT NULL"},
	} {
		storetest.EqualStrings(t, table+"'s columns", queryStrings(t, conn, `SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
			|| CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
			FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, table), want)
	}

	// Each index of both tables, as PostgreSQL gives it back (the schema's name left out).
	for table, want := range map[string][]string{
		"record_facts": {
			"CREATE INDEX records_hash ON record_facts USING btree (hash, created_at)",
			"CREATE UNIQUE INDEX records_pkey ON record_facts USING btree (seq)",
			"CREATE INDEX records_project ON record_facts USING btree (project_id, created_at, seq)",
			"CREATE UNIQUE INDEX records_reference_key ON record_facts USING btree (reference)",
			"CREATE INDEX records_retention ON record_facts USING btree (project_id, created_at) WHERE (erased_at IS NULL)",
		},
		"record_states": {
			"CREATE INDEX record_states_anchor_queue ON record_states USING btree (state, network, created_at) WHERE (state = ANY (ARRAY['PENDING'::text, 'IPFS_STORED'::text, 'ANCHOR_SUBMITTED'::text, 'ANCHORED'::text, 'EMAIL_SENT'::text]))",
			"CREATE INDEX record_states_anchored ON record_states USING btree (project_id, anchored_at, created_at) WHERE (anchored_at IS NOT NULL)",
			"CREATE UNIQUE INDEX record_states_pkey ON record_states USING btree (seq)",
			"CREATE UNIQUE INDEX record_states_token ON record_states USING btree (network, token_id) WHERE (token_id IS NOT NULL)",
		},
	} {
		storetest.EqualStrings(t, table+"'s indexes", queryStrings(t, conn, `SELECT replace(indexdef, ' ON ' || quote_ident(schemaname) || '.', ' ON ')
			FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 ORDER BY indexname`, table), want)
	}
	storetest.EqualStrings(t, "the indexes records had on the columns that moved", queryStrings(t, conn, `SELECT indexname FROM pg_indexes
		WHERE schemaname = current_schema() AND indexname IN ('records_cid', 'records_token', 'records_anchor_queue',
			'records_batch', 'records_anchored')`), nil)
	// record_states is filled with the release's records first, then keeps room on its pages for the rows to come.
	storetest.EqualStrings(t, "record_states' options", queryStrings(t, conn, `SELECT unnest(reloptions) FROM pg_class
		WHERE oid = 'record_states'::regclass`), []string{"fillfactor=15"})
	if n := queryStrings(t, conn, `SELECT (count(DISTINCT (ctid::text::point)[0]) = 1)::text FROM record_states`); len(n) != 1 || n[0] != "true" {
		t.Errorf("the release's records' state rows on one page: %v, want true (they were copied packed)", n)
	}
	// record_cids (0019) holds each record's CID, and no other pair.
	storetest.EqualStrings(t, "record_cids", queryStrings(t, conn, `SELECT cid || ' ' || record_seq FROM record_cids
		ORDER BY 1`), queryStrings(t, conn, `SELECT cid || ' ' || seq FROM record_states WHERE cid <> '' ORDER BY 1`))
	if n := queryStrings(t, conn, `SELECT count(*)::text FROM record_cids`); len(n) != 1 || n[0] == "0" {
		t.Errorf("record_cids holds %v rows: the release's database has stored records", n)
	}
	var differ int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM record_facts f JOIN record_states s ON s.seq = f.seq
		WHERE f.erased_at IS DISTINCT FROM s.erased_at`).Scan(&differ); err != nil || differ != 0 {
		t.Errorf("%d records whose two erased_at differ (%v)", differ, err)
	}

	// The foreign keys of both tables and of those that name a record.
	storetest.EqualStrings(t, "the foreign keys", queryStrings(t, conn, `SELECT conrelid::regclass || ' ' || pg_get_constraintdef(oid)
		FROM pg_constraint WHERE contype = 'f' AND (confrelid = 'record_facts'::regclass
			OR conrelid IN ('record_facts'::regclass, 'record_states'::regclass))
		ORDER BY conrelid::regclass::text, conname`), []string{
		"jobs FOREIGN KEY (record_seq) REFERENCES record_facts(seq)",
		"mail_credentials FOREIGN KEY (reference) REFERENCES record_facts(reference)",
		"payloads FOREIGN KEY (seq) REFERENCES record_facts(seq)",
		"record_facts FOREIGN KEY (business_id) REFERENCES businesses(business_id)",
		"record_facts FOREIGN KEY (project_id) REFERENCES projects(project_id)",
		"record_paths FOREIGN KEY (record_seq) REFERENCES record_facts(seq)",
		"record_states FOREIGN KEY (batch_id) REFERENCES batches(id)",
		"record_states FOREIGN KEY (seq) REFERENCES record_facts(seq)",
		"status_changes FOREIGN KEY (reference) REFERENCES record_facts(reference)",
	})
}

// queryStrings reads one text column of query on conn.
func queryStrings(t *testing.T, conn *pgx.Conn, query string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(t.Context(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}
