package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"seald.dev/seald/internal/migration"
	"seald.dev/seald/storetest"
)

// The last release's data (42a61d0, before issue 45's migration 0014 keyed payloads and jobs by the record's
// seq): a data dir with its SQLite database, and a PostgreSQL dump with the data dir (chain, IPFS, keys) of
// the same run. Each README says how they were made.
var (
	releaseSQLite   = filepath.Join("..", "sqlite", "testdata", "release-42a61d0")
	releasePostgres = filepath.Join("..", "postgres", "testdata", "release-42a61d0")
)

// releaseStates is the query of the records' references and states, the same on both stores.
const releaseStates = `SELECT reference, state FROM records`

// TestUpgradeFromReleaseSQLite runs today's binary on a copy of a data dir made by the last release: serve
// migrates its database at start, and the records the release left in the middle of the pipeline (ANCHORED
// with their notify jobs waiting, PENDING with their payloads and store jobs) go on to COMPLETED, while those
// it had completed stay so, and every record's proof verifies against the chain.
func TestUpgradeFromReleaseSQLite(t *testing.T) {
	t.Parallel()
	dir := copyRelease(t, releaseSQLite)
	db, err := sql.Open("sqlite", filepath.Join(dir, "seald.db")+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	rows, err := db.QueryContext(t.Context(), releaseStates)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ref, state string
		if err := rows.Scan(&ref, &state); err != nil {
			t.Fatal(err)
		}
		states[ref] = state
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	rpc := freePort(t)
	in := startServe(t, dir, nil, "--chain-rpc-addr", rpc)
	resumed := checkUpgraded(t, in, "http://"+rpc, states)
	in.stop()
	db, err = sql.Open("sqlite", filepath.Join(dir, "seald.db")+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version, jobs, payloads int
	if err := db.QueryRow(`SELECT (SELECT max(version) FROM schema_migrations), (SELECT count(*) FROM jobs),
		(SELECT count(*) FROM payloads)`).Scan(&version, &jobs, &payloads); err != nil {
		t.Fatal(err)
	}
	if want := latestMigration(t, "sqlite"); version != want || jobs != 0 || payloads != 0 {
		t.Errorf("after %d records resumed: schema version %d, %d jobs and %d payloads left; want %d, none, none",
			resumed, version, jobs, payloads, want)
	}
}

// latestMigration is the version of the last migration of a store (its package's directory), which a
// database upgraded from the release must have reached.
func latestMigration(t *testing.T, store string) int {
	t.Helper()
	ms, err := migration.Load(os.DirFS(filepath.Join("..", store)), "migrations")
	if err != nil || len(ms) == 0 {
		t.Fatalf("the %s migrations: %v", store, err)
	}
	return ms[len(ms)-1].Version
}

// TestUpgradeFromReleasePostgres is TestUpgradeFromReleaseSQLite on PostgreSQL: the release's dump restored
// into a schema of its own, serve run on it with the release run's data dir.
func TestUpgradeFromReleasePostgres(t *testing.T) {
	t.Parallel()
	dsn := freshPostgresSchema(t)
	dir := copyRelease(t, filepath.Join(releasePostgres, "datadir"))
	db, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	restoreReleaseDump(t, db, dsn, filepath.Join(releasePostgres, "dump.sql"))
	states := map[string]string{}
	rows, _ := db.Query(t.Context(), releaseStates)
	var ref, state string
	if _, err := pgx.ForEachRow(rows, []any{&ref, &state}, func() error {
		states[ref] = state
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	rpc := freePort(t)
	in := startServe(t, dir, nil, "--database", dsn, "--chain-rpc-addr", rpc)
	resumed := checkUpgraded(t, in, "http://"+rpc, states)
	in.stop()
	var version, jobs, payloads int
	if err := db.QueryRow(t.Context(), `SELECT (SELECT max(version) FROM schema_migrations), (SELECT count(*) FROM jobs),
		(SELECT count(*) FROM payloads)`).Scan(&version, &jobs, &payloads); err != nil {
		t.Fatal(err)
	}
	if want := latestMigration(t, "postgres"); version != want || jobs != 0 || payloads != 0 {
		t.Errorf("after %d records resumed: schema version %d, %d jobs and %d payloads left; want %d, none, none",
			resumed, version, jobs, payloads, want)
	}
}

// copyRelease copies a release's data dir (less its README) into a new one, private as serve keeps its own.
func copyRelease(t *testing.T, from string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(dir, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "README.md")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(path, 0o700)
		}
		return os.Chmod(path, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// restoreReleaseDump loads pg_dump's plain dump of the release's schema (seald_release_42a61d0) into the
// schema of dsn's search_path, which exists and is empty, leaving out psql's meta-commands (\restrict) and
// the dump's CREATE SCHEMA.
func restoreReleaseDump(t *testing.T, db *pgx.Conn, dsn, path string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := pgx.Identifier{u.Query().Get("search_path")}.Sanitize()
	if _, err := db.Exec(t.Context(), storetest.ReleaseDumpSQL(t, path, schema)); err != nil {
		t.Fatalf("restore %s: %v", path, err)
	}
	// The dump empties the session's search_path.
	if _, err := db.Exec(t.Context(), `SET search_path TO `+schema); err != nil {
		t.Fatal(err)
	}
}

// checkUpgraded waits for every record of states (the release's, by reference) to be COMPLETED, and returns
// how many were not when the release stopped; there must be some of both.
func checkUpgraded(t *testing.T, in *instance, rpc string, states map[string]string) int {
	t.Helper()
	code, trust := fetch(t, in.URL+"/.well-known/seald-trust.json")
	if code != 200 {
		t.Fatalf("trust root: %d %s", code, trust)
	}
	trustFile := writeTemp(t, "trust.json", trust)
	resumed := 0
	for ref, was := range states {
		if was != "COMPLETED" {
			resumed++
		}
		in.waitState(ref, "COMPLETED", 2*time.Minute)
		// Its proof, Merkle path and all (migration 0015 moved the paths of those the release had placed),
		// verifies against the chain.
		answer := in.get(verifyBase + "reference?reference=" + ref + "&proof=1")
		bundle, _ := json.Marshal(field(answer.Body, "data.proof"))
		if out, code, err := proofCLI(t, writeTemp(t, "p.json", bundle), "--rpc", rpc, "--trust", trustFile); code != 0 || !strings.HasPrefix(out, "ok:") {
			t.Errorf("the proof of %s (was %s in the release): exit %d %q %v", ref, was, code, out, err)
		}
	}
	if resumed == 0 || resumed == len(states) {
		t.Errorf("the release left %d of its %d records in the middle of the pipeline: want some, not all", resumed, len(states))
	}
	return resumed
}
