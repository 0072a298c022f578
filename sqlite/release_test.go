package sqlite

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"seald.dev/seald/internal/migration"
	"seald.dev/seald/storetest"
)

// releaseDB is the database of a data dir made by the last release, 42a61d0 (see testdata/release-42a61d0/
// README.md): records COMPLETED, records ANCHORED whose notify jobs wait, and PENDING records whose payloads
// and store jobs wait.
var releaseDB = filepath.Join("testdata", "release-42a61d0", "seald.db")

// readRelease reads, with raw SQL on the release's schema, what migrations 0014 and 0015 move.
func readRelease(t *testing.T, path string) storetest.Release {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rel := storetest.Release{Payloads: map[string][]byte{}, Jobs: map[int64]storetest.ReleaseJob{}, Paths: map[string][2]string{}}
	rows, err := db.QueryContext(t.Context(), storetest.ReleasePayloads)
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
// reference and hash kept) and 0015 (Merkle paths in record_paths) run and every payload and job the release left is kept, for its record, and is worked
// on as before (storetest.CheckRelease).
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
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(t.Context(), `DELETE FROM jobs WHERE id = (SELECT max(id) FROM jobs)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	rel := readRelease(t, path)
	h := openAt(t, path)
	ctx := t.Context()
	// Every migration ran: 0014 and 0015, and those after them (0016, the paths' compact form).
	ms, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := h.QueryInt(ctx, `SELECT max(version) FROM schema_migrations`); err != nil || v != int64(ms[len(ms)-1].Version) || v < 16 {
		t.Errorf("schema version %d (%v), want %d", v, err, ms[len(ms)-1].Version)
	}
	for _, c := range []struct {
		index string
		want  int64
	}{{"jobs_reference", 0}, {"jobs_record", 1}, {"jobs_kind_run_at", 1}, {"records_hash", 1},
		{"sqlite_autoindex_records_1", 1}} {
		n, err := h.QueryInt(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = '`+c.index+`'`)
		if err != nil || n != c.want {
			t.Errorf("index %s: %d (%v), want %d", c.index, n, err, c.want)
		}
	}
	if n, err := h.QueryInt(ctx, `SELECT count(*) FROM jobs JOIN records ON records.seq = jobs.record_seq
		WHERE records.reference <> jobs.reference`); err != nil || n != 0 {
		t.Errorf("%d jobs whose record_seq is not their reference's record (%v)", n, err)
	}
	if n, err := h.QueryInt(ctx, `SELECT count(*) FROM pragma_foreign_key_check`); err != nil || n != 0 {
		t.Errorf("%d foreign keys broken (%v)", n, err)
	}
	storetest.CheckRelease(t, h, rel)
}
