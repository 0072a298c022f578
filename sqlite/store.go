// Package sqlite is seald's embedded store: one SQLite file in the data dir, through the pure-Go driver
// modernc.org/sqlite, so that `seald serve` needs no database server and no C compiler.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"seald/internal/sqlstore"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"seald"
)

var _ seald.Store = (*Store)(nil)

// busyTimeout is how long a write waits for another process (the CLI beside `seald serve`) to finish its
// transaction before failing. Write transactions are short, so reaching it means something is stuck.
const busyTimeout = 15 * time.Second

// Store is seald's state in one SQLite file. Writes go through a single connection and begin with BEGIN
// IMMEDIATE: in-process writers queue on that connection, and writers in other processes wait on the busy
// timeout instead of failing with SQLITE_BUSY halfway through a transaction. Reads use a pool of read-only
// connections, which WAL lets run beside the writer.
type Store struct {
	*sqlstore.Store // the shared SQL of every noun

	path string
	w    *sql.DB // the one writer connection
	r    *sql.DB // read-only connections

	group *committer // nil when group commit is off
	reads readStmts

	mu     sync.Mutex
	locks  map[*lock]struct{}
	closed bool
	once   sync.Once
	err    error
}

// Open opens (creating if needed) the database file at path and applies the migrations it lacks. Durability
// is synchronous=FULL: in WAL mode NORMAL may lose the last commits on power loss, and seald promises that
// nothing it accepted is ever lost. Concurrent writes are committed in groups (see group.go) unless an
// option says otherwise.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	o := options{maxGroup: defaultMaxGroup}
	for _, opt := range opts {
		opt(&o)
	}
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") || strings.Contains(path, "?") {
		// An in-memory database would be a different one on each connection of the pool.
		return nil, fmt.Errorf("sqlite.Open: %q is not a database file path", path)
	}
	ms := int64(busyTimeout / time.Millisecond)
	common := url.Values{}
	common.Set("_busy_timeout", fmt.Sprint(ms))
	common.Set("_foreign_keys", "on")

	wq := url.Values{}
	for k, v := range common {
		wq[k] = v
	}
	wq.Set("_txlock", "immediate")
	wq.Set("_journal_mode", "WAL")
	wq.Set("_synchronous", "FULL")
	// The savepoints of group commit (group.go) keep their undo pages in a statement journal; in a file it
	// costs a write per page, in memory nothing. It only serves to roll a savepoint back, never recovery.
	wq.Add("_pragma", "temp_store(MEMORY)")
	w, err := sql.Open("sqlite", path+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite.Open: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)

	rq := url.Values{}
	for k, v := range common {
		rq[k] = v
	}
	rq.Set("_query_only", "on")
	r, err := sql.Open("sqlite", path+"?"+rq.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite.Open: %w", err)
	}
	n := max(4, runtime.NumCPU())
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)

	s := &Store{path: path, w: w, r: r, locks: map[*lock]struct{}{}}
	s.Store = &sqlstore.Store{D: dialect, E: engine{s}}
	if o.maxGroup > 1 {
		s.group = newCommitter(s, o.maxGroup)
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	return s, nil
}

// Close commits the writes already queued, releases the locks this Store holds and closes its connections.
// It may be called more than once.
func (s *Store) Close() error {
	s.once.Do(func() {
		if s.group != nil {
			s.group.close()
		}
		s.mu.Lock()
		s.closed = true
		held := make([]*lock, 0, len(s.locks))
		for l := range s.locks {
			held = append(held, l)
		}
		s.mu.Unlock()
		for _, l := range held {
			l.Release()
		}
		s.closeReads()
		s.err = errors.Join(s.r.Close(), s.w.Close())
	})
	return s.err
}

// write runs fn in a write transaction and returns once that transaction has committed (or failed). With
// group commit, fn shares the transaction with other writes, under a savepoint of its own, and is given
// ctx without its cancellation; fn must use the ctx it is given and may be run a second time (alone) when
// its group fails, so it must set what it returns afresh on each run.
func (s *Store) write(ctx context.Context, op string, fn func(ctx context.Context, tx *wtx) error) error {
	if s.group != nil {
		return s.group.write(ctx, op, fn)
	}
	return s.writeTx(ctx, op, fn)
}

// writeTx runs fn in one write transaction (BEGIN IMMEDIATE) and commits it when fn succeeds.
func (s *Store) writeTx(ctx context.Context, op string, fn func(ctx context.Context, tx *wtx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return wrap(op, err)
	}
	defer tx.Rollback()
	if err := fn(ctx, &wtx{Tx: tx}); err != nil {
		return wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return wrap(op, err)
	}
	return nil
}

// wrap gives err the store's error codes: unique violations are ECONFLICT, references to missing rows
// ENOTFOUND, a database locked past the busy timeout EUNAVAILABLE, and the rest EINTERNAL. An *seald.Error
// made by the store itself passes through with op added.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if known, ok := sqlstore.Known(op, err); ok {
		return known
	}
	var le *sqlite.Error
	if errors.As(err, &le) {
		switch le.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return &seald.Error{Code: seald.ECONFLICT, Op: op, Message: "already exists", Err: err}
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return &seald.Error{Code: seald.ENOTFOUND, Op: op, Message: "refers to something that does not exist", Err: err}
		}
		if le.Code()&0xff == sqlite3.SQLITE_BUSY {
			return &seald.Error{Code: seald.EUNAVAILABLE, Op: op, Message: "the database is busy", Err: err}
		}
	}
	return &seald.Error{Code: seald.EINTERNAL, Op: op, Err: err}
}

// engine runs the shared SQL (package sqlstore) on the one writer, with group commit, and on the read pool
// through prepared statements.
type engine struct{ s *Store }

func (e engine) Write(ctx context.Context, op string, fn func(ctx context.Context, q sqlstore.Querier) error) error {
	return e.s.write(ctx, op, func(ctx context.Context, tx *wtx) error { return fn(ctx, writer{tx}) })
}

func (e engine) Read(ctx context.Context, op string, fn func(q sqlstore.Querier) error) error {
	return wrap(op, fn(reader{e.s}))
}

// writer runs statements in a write transaction, each prepared once per transaction.
type writer struct{ tx *wtx }

func (w writer) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := w.tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (w writer) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := w.tx.QueryContext(ctx, query, args...)
	return sqlRows{rows}, err
}

func (w writer) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return w.tx.QueryRowContext(ctx, query, args...)
}

// reader runs reads on the read pool through the store's prepared statements.
type reader struct{ s *Store }

func (r reader) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return 0, errors.New("sqlite: a write on the read pool")
}

func (r reader) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := r.s.qrows(ctx, query, args...)
	return sqlRows{rows}, err
}

func (r reader) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return r.s.qrow(ctx, query, args...)
}

// sqlRows are *sql.Rows closed without an error to look at (Err tells).
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

// dialect is SQLite's: times as unix milliseconds (SQLite has no time type, and integers sort and compare),
// no claim lock (the one writer already excludes), and IS for "the same lease, NULL included".
var dialect = sqlstore.Dialect{
	Name: "sqlite", Time: sqlstore.Millis, SameLease: "leased_until IS ?", Wrap: wrap,
}
