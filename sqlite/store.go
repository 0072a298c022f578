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
	var se *seald.Error
	if errors.As(err, &se) && se.Code != "" {
		if se.Op == "" {
			se.Op = op
		}
		return se
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

// notFound is the error of a lookup that found nothing.
func notFound(op, format string, args ...any) error {
	return &seald.Error{Code: seald.ENOTFOUND, Op: op, Message: fmt.Sprintf(format, args...)}
}

// conflict is the error of a change that the current state does not allow.
func conflict(op, format string, args ...any) error {
	return &seald.Error{Code: seald.ECONFLICT, Op: op, Message: fmt.Sprintf(format, args...)}
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface {
	Scan(dest ...any) error
}

// millis stores a time as unix milliseconds: SQLite has no time type, and integers sort and compare.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis turns stored milliseconds back into a UTC time.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// nullMillis stores nil as NULL.
func nullMillis(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

// timePtr turns a nullable column back into nil or a UTC time.
func timePtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMillis(v.Int64)
	return &t
}

// nullString stores "" as NULL, for optional references such as a subscription key's project.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// integer converts an unsigned counter (token id, nonce, block number) into SQLite's signed INTEGER. No real
// counter comes near 2^63; one that does is refused rather than stored wrapped.
func integer(what string, v uint64) (int64, error) {
	if v > 1<<63-1 {
		return 0, fmt.Errorf("%s %d does not fit in a signed 64-bit integer", what, v)
	}
	return int64(v), nil
}
