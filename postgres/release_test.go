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

// readRelease reads, with raw SQL on the release's schema, what migrations 0014 and 0015 move.
func readRelease(t *testing.T, dsn string) storetest.Release {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rel := storetest.Release{Payloads: map[string][]byte{}, Jobs: map[int64]storetest.ReleaseJob{}, Paths: map[string][2]string{}}
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

// A schema made by the last release opens with today's code: migrations 0014 (payloads keyed by the
// record's seq, jobs found by it through jobs_record instead of jobs_reference, the record lookups by
// reference and hash kept) and 0015 (Merkle paths in record_paths) run and every payload and job the release left is kept, for its record, and is worked
// on as before (storetest.CheckRelease).
func TestMigrateReleaseDatabase(t *testing.T) {
	dsn := freshSchema(t)
	restoreRelease(t, dsn)
	rel := readRelease(t, dsn)
	h := openDSN(t, dsn)
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
		{"records_reference_key", 1}, {"payloads_pkey", 1}} {
		n, err := h.QueryInt(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = '`+c.index+`'`)
		if err != nil || n != c.want {
			t.Errorf("index %s: %d (%v), want %d", c.index, n, err, c.want)
		}
	}
	if n, err := h.QueryInt(ctx, `SELECT count(*) FROM jobs JOIN records ON records.seq = jobs.record_seq
		WHERE records.reference <> jobs.reference`); err != nil || n != 0 {
		t.Errorf("%d jobs whose record_seq is not their reference's record (%v)", n, err)
	}
	storetest.CheckRelease(t, h, rel)
}
