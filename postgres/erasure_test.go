package postgres

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
	"seald.dev/seald/storetest"
)

// relationFiles returns the paths of the files of the tables (and their TOAST tables) in the test's schema,
// read from the server's data directory: the test runs on the database's machine, as root.
func relationFiles(t *testing.T, dsn string, tables ...string) []string {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var dataDir string
	if err := conn.QueryRow(ctx, `SHOW data_directory`).Scan(&dataDir); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, table := range tables {
		rows, err := conn.Query(ctx, `SELECT pg_relation_filepath(c.oid) FROM pg_class c WHERE c.oid = $1::regclass
			UNION ALL SELECT pg_relation_filepath(c.reltoastrelid) FROM pg_class c WHERE c.oid = $1::regclass AND c.reltoastrelid <> 0`, table)
		if err != nil {
			t.Fatal(err)
		}
		paths, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			segs, _ := filepath.Glob(filepath.Join(dataDir, p) + "*") // the main file, its segments, its maps
			out = append(out, segs...)
		}
	}
	if len(out) == 0 {
		t.Fatal("no table file found")
	}
	return out
}

// inFiles lists which marks the files hold.
func inFiles(t *testing.T, files []string, marks []string) []string {
	t.Helper()
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("reading the table file %s (the test must run on the database's machine with access to its files): %v", f, err)
		}
		for _, m := range marks {
			if bytes.Contains(b, []byte(m)) {
				out = append(out, filepath.Base(f)+": "+m)
			}
		}
	}
	return out
}

// After an erasure and the VACUUM docs/privacy.md tells the operator to run, the table files of record_facts and
// payloads (TOAST included) no longer hold the erased record's key, password hash, e-mail or payload, while
// the other record's are still there.
func TestEraseThenVacuumLeavesNoBytes(t *testing.T) {
	dsn := freshSchema(t)
	s := openDSN(t, dsn)
	ctx := context.Background()
	_, keptMarks := storetest.Erasable(t, s.Store, 1)
	r, marks := storetest.Erasable(t, s.Store, 2)
	c := &seald.StatusChange{Reference: r.Reference, Actor: "key_x", Reason: "asked", At: time.Now(), Action: seald.ActionErase}
	if erased, err := s.EraseRecord(ctx, c, &seald.Job{Kind: seald.JobErase, Reference: r.Reference, RunAt: c.At}); err != nil || !erased {
		t.Fatalf("EraseRecord = %v, %v", erased, err)
	}
	admin(t, dsn, vacuumAfterErasure)
	admin(t, dsn, `CHECKPOINT`) // the table files as they are after the VACUUM, not in shared buffers only
	files := relationFiles(t, dsn, "record_facts", "payloads")
	if got := inFiles(t, files, keptMarks); len(got) == 0 {
		t.Fatal("the table files hold none of the other record's values: the search cannot see them")
	}
	if got := inFiles(t, files, marks); len(got) > 0 {
		t.Errorf("after the erasure and %q, the table files still hold:\n%s", vacuumAfterErasure, strings.Join(got, "\n"))
	}
}

// vacuumAfterErasure is the statement docs/privacy.md tells an operator on PostgreSQL to run after erasures.
// A plain VACUUM is not enough: it frees a dead tuple's space in its page without overwriting it (this test
// found a deleted payload that way); VACUUM (FULL) writes the tables anew and deletes the old files.
const vacuumAfterErasure = `VACUUM (FULL) record_facts, payloads`
