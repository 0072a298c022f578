package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
	"seald.dev/seald/storetest"

	"seald.dev/seald/internal/migration"
)

// dsnEnv names the variable that points the tests at a PostgreSQL server; CI always sets it.
const dsnEnv = "SEALD_TEST_POSTGRES_DSN"

// testDSN returns the server's DSN, or skips the test, saying so, when there is none.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		t.Skip("SEALD_TEST_POSTGRES_DSN is not set: PostgreSQL contract tests skipped")
	}
	return dsn
}

// withParam returns dsn (a URL or key=value string) with a run-time parameter set.
func withParam(t testing.TB, dsn, key, value string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("%s is not a valid URL", dsnEnv)
		}
		q := u.Query()
		q.Set(key, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " " + key + "=" + value
}

// freshSchema creates a schema of its own for the test, dropped when the test ends, and returns a DSN whose
// search_path is that schema: each test starts from an empty database without creating one.
func freshSchema(t testing.TB) string {
	t.Helper()
	dsn := testDSN(t)
	b := make([]byte, 6)
	rand.Read(b)
	name := "seald_test_" + hex.EncodeToString(b)
	admin(t, dsn, `CREATE SCHEMA `+pgx.Identifier{name}.Sanitize())
	t.Cleanup(func() { admin(t, dsn, `DROP SCHEMA `+pgx.Identifier{name}.Sanitize()+` CASCADE`) })
	return withParam(t, dsn, "search_path", name)
}

// admin runs a statement on a connection of its own.
func admin(t testing.TB, dsn, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// harnessStore is a Store the contract suite can reopen and reach with raw SQL.
type harnessStore struct {
	*Store
	dsn string
}

var (
	_ storetest.Reopener     = (*harnessStore)(nil)
	_ storetest.RawSQL       = (*harnessStore)(nil)
	_ storetest.BulkInserter = (*harnessStore)(nil)
)

func openDSN(t testing.TB, dsn string) *harnessStore {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return &harnessStore{Store: s, dsn: dsn}
}

// Reopen opens the same database again, as a second process would.
func (h *harnessStore) Reopen(t *testing.T) seald.Store { return openDSN(t, h.dsn) }

// ExecSQL runs a statement on a connection of its own, outside the Store's pool.
func (h *harnessStore) ExecSQL(ctx context.Context, query string) error {
	conn, err := pgx.Connect(ctx, h.dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, query)
	return err
}

// QueryInt reads one integer on a connection of its own, outside the Store.
func (h *harnessStore) QueryInt(ctx context.Context, query string) (int64, error) {
	conn, err := pgx.Connect(ctx, h.dsn)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, query).Scan(&n)
	return n, err
}

// TestStore runs the contract suite, each subtest on a new database.
func TestStore(t *testing.T) {
	testDSN(t)
	storetest.Run(t, func(t *testing.T) seald.Store { return openDSN(t, freshSchema(t)) })
}

// A lock whose connection the server terminates is lost: Lost closes, and another session can take it.
func TestLockLostWhenConnectionTerminated(t *testing.T) {
	dsn := freshSchema(t)
	s, other := openDSN(t, dsn), openDSN(t, dsn)
	ctx := t.Context()
	l, err := s.TryLock(ctx, "anchor:POLYGON")
	if err != nil || l == nil {
		t.Fatalf("TryLock = %v, %v", l, err)
	}
	if got, _ := other.TryLock(ctx, "anchor:POLYGON"); got != nil {
		t.Fatal("a second Store took a held lock")
	}
	pid := l.(*lock).conn.PgConn().PID()
	admin(t, dsn, `SELECT pg_terminate_backend($1)`, pid)
	select {
	case <-l.Lost():
	case <-time.After(time.Minute):
		t.Fatal("Lost not closed a minute after the lock's backend was terminated")
	}
	// The server frees the lock as the backend exits, just after it says so.
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := other.TryLock(ctx, "anchor:POLYGON")
		if err != nil {
			t.Fatal(err)
		}
		if got != nil {
			got.Release()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lock of a terminated backend is still held after a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	l.Release() // after the loss: harmless
}

// A held lock's quiet connection is pinged, and the lock stays held across many quiet intervals.
func TestLockSurvivesQuietIntervals(t *testing.T) {
	s := openDSN(t, freshSchema(t))
	s.lockCheck = 10 * time.Millisecond
	l, err := s.TryLock(t.Context(), "anchor:EOS")
	if err != nil || l == nil {
		t.Fatalf("TryLock = %v, %v", l, err)
	}
	defer l.Release()
	var pings int
	other := openDSN(t, s.dsn)
	for pings < 20 {
		time.Sleep(20 * time.Millisecond)
		pings++
		select {
		case <-l.Lost():
			t.Fatal("Lost closed while the connection is alive")
		default:
		}
	}
	if got, _ := other.TryLock(t.Context(), "anchor:EOS"); got != nil {
		got.Release()
		t.Fatal("the lock was free after quiet intervals")
	}
}

// After the server ended every connection of the pool (as a restart does), calls succeed on new ones.
func TestReconnectsAfterConnectionsDie(t *testing.T) {
	name := "seald_reconnect_" + hex.EncodeToString([]byte(t.Name()))[:8]
	b := make([]byte, 4)
	rand.Read(b)
	name += hex.EncodeToString(b)
	dsn := withParam(t, freshSchema(t), "application_name", name)
	s := openDSN(t, dsn)
	ctx := t.Context()
	// Fill the pool with several idle connections.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { s.CountBusinesses(ctx) })
	}
	wg.Wait()

	admin(t, testDSN(t), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, name)
	waitGone(t, name)

	if _, err := s.CountBusinesses(ctx); err != nil {
		t.Fatalf("read after the connections died: %v", err)
	}
	admin(t, testDSN(t), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, name)
	waitGone(t, name)
	biz := &seald.Business{ID: "b1", BusinessID: "biz_1", Name: "after", DateRegistered: time.Now()}
	if err := s.CreateBusiness(ctx, biz, nil); err != nil {
		t.Fatalf("write after the connections died: %v", err)
	}
	admin(t, testDSN(t), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, name)
	waitGone(t, name)
	if l, err := s.TryLock(ctx, "x"); err != nil || l == nil {
		t.Fatalf("TryLock after the connections died = %v, %v", l, err)
	} else {
		l.Release()
	}
}

// waitGone waits until no backend of the application is left.
func waitGone(t *testing.T, application string) {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, application).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d backends of %s still alive a minute after being terminated", n, application)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stores opened at once on an empty schema all succeed, and each migration is applied once.
func TestConcurrentOpen(t *testing.T) {
	dsn := freshSchema(t)
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			s, err := Open(context.Background(), dsn)
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
	s := openDSN(t, dsn)
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
	dsn := freshSchema(t)
	s := openDSN(t, dsn)
	const q = `SELECT sum((extract(epoch FROM applied_at) * 1000)::bigint)::bigint FROM schema_migrations`
	before, err := s.QueryInt(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	after, err := openDSN(t, dsn).QueryInt(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Errorf("migration times changed on reopening: %d then %d", before, after)
	}
}

// Open says when the search_path names no schema, and never repeats a DSN (it may hold a password).
func TestOpenErrors(t *testing.T) {
	dsn := testDSN(t)
	_, err := Open(t.Context(), withParam(t, dsn, "search_path", "seald_no_such_schema"))
	if err == nil || !strings.Contains(err.Error(), "no schema") {
		t.Errorf("Open with a search_path of no existing schema: %v", err)
	}
	_, err = Open(t.Context(), "postgres://user:hunter2@[::1")
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Open with a malformed DSN: %v", err)
	}
}

// BenchmarkCreateRecord measures the API's write path: one record, payload and job per transaction.
func BenchmarkCreateRecord(b *testing.B) {
	s := openDSN(b, freshSchema(b))
	storetest.BenchCreateRecord(b, s)
}

// BenchmarkCreateRecordParallel measures CreateRecord from 64 concurrent writers with group commit, beside
// the same run with every record in its own transaction (the path before group commit).
func BenchmarkCreateRecordParallel(b *testing.B) {
	for _, c := range []struct {
		name string
		opts []Option
	}{{"group", nil}, {"single", []Option{WithoutGroupCommit()}}} {
		b.Run(c.name, func(b *testing.B) {
			s, err := Open(context.Background(), freshSchema(b), c.opts...)
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
	s := openDSN(b, freshSchema(b))
	storetest.BenchLookupsLarge(b, s, 1_000_000)
}

// A process frozen inside a write transaction (SIGSTOP, a frozen VM) while it holds the fence's share lock on
// its leader row does not block the next leader's NewEpoch for as long as it sleeps: the server ends the
// idle transaction, and its locks with it. Without idle_in_transaction_session_timeout NewEpoch waited for ever.
func TestFrozenTransactionReleasesItsLocks(t *testing.T) {
	dsn := freshSchema(t)
	frozen, err := Open(t.Context(), dsn, withIdleInTransaction(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { frozen.Close() })
	if _, err := frozen.NewEpoch(t.Context(), "anchor:POLYGON"); err != nil {
		t.Fatal(err)
	}
	locked, wake, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		_ = frozen.tx(context.Background(), "frozen", func(tx pgx.Tx) error {
			if _, err := tx.Exec(context.Background(), `SELECT epoch FROM leaders WHERE name = 'anchor:POLYGON' FOR SHARE`); err != nil {
				return err
			}
			once.Do(func() { close(locked) })
			<-wake
			return nil
		})
	}()
	<-locked
	next := openDSN(t, dsn)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	epoch, err := next.NewEpoch(ctx, "anchor:POLYGON")
	close(wake)
	<-done
	if err != nil || epoch != 2 {
		t.Fatalf("NewEpoch beside a frozen transaction = %d, %v; want epoch 2", epoch, err)
	}
}

// BenchmarkVerifyReads compares a verification's whole and brief record reads (storetest.BenchVerifyReads).
func BenchmarkVerifyReads(b *testing.B) {
	storetest.BenchVerifyReads(b, openDSN(b, freshSchema(b)))
}
