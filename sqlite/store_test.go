package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/storetest"

	"seald.dev/seald/internal/migration"
)

// harnessStore is a Store the contract suite can reopen and reach with raw SQL.
type harnessStore struct {
	*Store
	raw *sql.DB
}

var (
	_ storetest.Reopener     = (*harnessStore)(nil)
	_ storetest.RawSQL       = (*harnessStore)(nil)
	_ storetest.BulkInserter = (*harnessStore)(nil)
)

// openAt opens the database file at path for the test, with a second, independent connection for raw SQL.
func openAt(t *testing.T, path string) *harnessStore {
	t.Helper()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	raw, err := sql.Open("sqlite", path+"?_busy_timeout=15000&_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return &harnessStore{Store: s, raw: raw}
}

// Reopen opens the same database again, as a second process would.
func (h *harnessStore) Reopen(t *testing.T) seald.Store { return openAt(t, h.path) }

// ExecSQL runs a statement on a connection of its own, outside the Store.
func (h *harnessStore) ExecSQL(ctx context.Context, query string) error {
	_, err := h.raw.ExecContext(ctx, query)
	return err
}

// QueryInt reads one integer on a connection of its own, outside the Store.
func (h *harnessStore) QueryInt(ctx context.Context, query string) (int64, error) {
	var n int64
	err := h.raw.QueryRowContext(ctx, query).Scan(&n)
	return n, err
}

// TestStore runs the contract suite, each subtest on a new database.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) seald.Store {
		return openAt(t, filepath.Join(t.TempDir(), "seald.db"))
	})
}

// The writer connection runs with the settings durability and concurrency depend on.
func TestPragmas(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "seald.db"))
	ctx := t.Context()
	for pragma, want := range map[string]string{"journal_mode": "wal", "synchronous": "2", "foreign_keys": "1",
		"busy_timeout": "15000", "temp_store": "2", "secure_delete": "1"} {
		var got string
		if err := s.w.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("writer PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
	var qo string
	if err := s.r.QueryRowContext(ctx, "PRAGMA query_only").Scan(&qo); err != nil {
		t.Fatal(err)
	}
	if qo != "1" {
		t.Errorf("reader PRAGMA query_only = %s, want 1", qo)
	}
}

// A new file gets pages of pageSize bytes; a file made with SQLite's default of 4,096 keeps it, and opens
// and migrates as before.
func TestPageSize(t *testing.T) {
	ctx := t.Context()
	s := openAt(t, filepath.Join(t.TempDir(), "seald.db"))
	if n, err := s.QueryInt(ctx, `PRAGMA page_size`); err != nil || n != pageSize {
		t.Errorf("a new file's page size %d (%v), want %d", n, err, pageSize)
	}
	old := filepath.Join(t.TempDir(), "seald.db")
	raw, err := sql.Open("sqlite", old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE made_before (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	o := openAt(t, old)
	if n, err := o.QueryInt(ctx, `PRAGMA page_size`); err != nil || n != 4096 {
		t.Errorf("a file made with 4,096-byte pages has %d (%v)", n, err)
	}
	if n, err := o.QueryInt(ctx, `SELECT count(*) FROM schema_migrations`); err != nil || n == 0 {
		t.Errorf("the file made before: %d migrations applied (%v)", n, err)
	}
}

// Stores opened at once on a new file all succeed, and the migrations are applied once.
func TestConcurrentOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seald.db")
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			s, err := Open(context.Background(), path)
			if err == nil {
				err = s.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Open: %v", err)
		}
	}
	s := openAt(t, path)
	n, err := s.QueryInt(t.Context(), `SELECT count(*) FROM schema_migrations`)
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := migration.Load(migrationFiles, "migrations")
	if n != int64(len(ms)) {
		t.Errorf("%d migrations recorded, want %d", n, len(ms))
	}
}

// Reopening leaves the migrations table as it was: the recorded application times do not move.
func TestMigrationsNotReapplied(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seald.db")
	s := openAt(t, path)
	ctx := t.Context()
	before, err := s.QueryInt(ctx, `SELECT sum(applied_at) FROM schema_migrations`)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2 := openAt(t, path)
	after, err := s2.QueryInt(ctx, `SELECT sum(applied_at) FROM schema_migrations`)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Errorf("migration times changed on reopening: %d then %d", before, after)
	}
}

// An in-memory database would be a different one on each pooled connection: Open refuses it.
func TestOpenRefusesMemory(t *testing.T) {
	for _, p := range []string{"", ":memory:", "file::memory:?cache=shared"} {
		if s, err := Open(t.Context(), p); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}

// A write waiting on another connection's transaction waits for it (busy timeout) instead of failing.
func TestWriterWaitsForOtherProcess(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "seald.db"))
	ctx := t.Context()
	conn, err := s.raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var started atomic.Bool
	go func() {
		started.Store(true)
		b := &seald.Business{ID: "b", BusinessID: "biz_b", Name: "waiting", DateRegistered: time.Now()}
		done <- s.CreateBusiness(ctx, b, nil)
	}()
	// The other "process" commits once the write has had time to reach the lock; whether or not it had,
	// the write must succeed.
	for !started.Load() {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("write behind another connection's transaction: %v", err)
	}
	n, err := s.CountBusinesses(ctx)
	if err != nil || n != 1 {
		t.Fatalf("CountBusinesses = %d, %v", n, err)
	}
}

// A write transaction takes the database's write lock when it begins (BEGIN IMMEDIATE), so that it waits
// for other processes there, where waiting is safe, rather than failing when its first write finds a lock
// taken after it has read.
func TestWriteTransactionsBeginImmediate(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "seald.db"))
	ctx := t.Context()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	other, err := sql.Open("sqlite", s.path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err == nil {
		conn.ExecContext(ctx, "ROLLBACK")
		t.Fatal("another connection took the write lock while a write transaction was open")
	}
}

// BenchmarkCreateRecord measures the API's write path: one record, payload and job per transaction, with
// the writer's statements prepared once ("prepared") and as before, prepared again in every transaction
// ("unprepared"). Beside the wall time, which the fsync of each commit rules, it reports the process's CPU
// time per record.
func BenchmarkCreateRecord(b *testing.B) {
	for _, c := range []struct {
		name string
		opts []Option
	}{{"prepared", nil}, {"unprepared", []Option{func(o *options) { o.unpreparedWrites = true }}}} {
		b.Run(c.name, func(b *testing.B) {
			s, err := Open(context.Background(), filepath.Join(b.TempDir(), "seald.db"), c.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			cpu0 := storetest.CPUTime(b)
			storetest.BenchCreateRecord(b, s)
			b.ReportMetric(float64(storetest.CPUTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkCreateRecordParallel measures CreateRecord from 64 concurrent writers with group commit, beside
// the same run with every record in its own transaction (the path before group commit).
func BenchmarkCreateRecordParallel(b *testing.B) {
	for _, c := range []struct {
		name string
		opts []Option
	}{{"group", nil}, {"single", []Option{WithoutGroupCommit()}}} {
		b.Run(c.name, func(b *testing.B) {
			s, err := Open(context.Background(), filepath.Join(b.TempDir(), "seald.db"), c.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchCreateRecordParallel(b, s, 64)
		})
	}
}

// BenchmarkLookups1M looks records up among 1,000,000 and reports the peak RSS (issue #8: under 300 MB).
func BenchmarkLookups1M(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "seald.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchLookupsLarge(b, s, 1_000_000)
}

// TestWriteStatementsPreparedOnce checks that a write transaction runs a statement prepared once on the
// writer, inside the transaction (a rolled-back write leaves nothing), and that the Store's Close closes it.
func TestWriteStatementsPreparedOnce(t *testing.T) {
	ctx := t.Context()
	h := openAt(t, filepath.Join(t.TempDir(), "seald.db"))
	s := h.Store
	if err := s.write(ctx, "test", func(ctx context.Context, q *querier) error {
		_, err := q.Exec(ctx, `CREATE TABLE t (x INTEGER)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	const insert = `INSERT INTO t (x) VALUES (?)`
	errUndo := errors.New("undo")
	var first *sql.Stmt
	for i := range 3 {
		lent := false
		err := s.write(ctx, "test", func(ctx context.Context, q *querier) error {
			if _, err := q.Exec(ctx, insert, i); err != nil {
				return err
			}
			_, lent = q.stmts[insert]
			if i == 2 {
				return errUndo
			}
			return nil
		})
		if i < 2 && err != nil || i == 2 && !errors.Is(err, errUndo) {
			t.Fatalf("write %d: %v", i, err)
		}
		s.writes.mu.Lock()
		st := s.writes.stmts[insert]
		s.writes.mu.Unlock()
		switch {
		case st == nil:
			t.Fatalf("after write %d the insert is not prepared on the writer", i)
		case i == 0:
			first = st
			if lent {
				t.Fatal("the first write borrowed a statement not yet prepared")
			}
		case st != first:
			t.Fatalf("write %d prepared the insert again", i)
		case !lent:
			t.Fatalf("write %d ran the insert unprepared", i)
		}
	}
	if n, err := h.QueryInt(ctx, `SELECT count(*) FROM t`); err != nil || n != 2 {
		t.Fatalf("rows = %d, %v; want 2 (the third write rolled back)", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Exec(7); err == nil {
		t.Fatal("the writer's statement still runs after Close")
	}
}

// BenchmarkNotifySave measures the notify step's store work after a send, re-reading the record after the
// update as before ("reread") and with the update checking the erasure itself ("guarded").
func BenchmarkNotifySave(b *testing.B) {
	for _, reread := range []bool{true, false} {
		b.Run(map[bool]string{true: "reread", false: "guarded"}[reread], func(b *testing.B) {
			s, err := Open(context.Background(), filepath.Join(b.TempDir(), "seald.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchNotifySave(b, s, reread)
		})
	}
}

// BenchmarkVerifyReads compares a verification's whole and brief record reads (storetest.BenchVerifyReads).
func BenchmarkVerifyReads(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "seald.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchVerifyReads(b, s)
}
