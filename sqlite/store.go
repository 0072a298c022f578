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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"seald.dev/seald/internal/sqlstore"
	"seald.dev/seald/internal/ttlcache"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"seald.dev/seald"
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

	group  *committer    // nil when group commit is off
	ckpt   *checkpointer // the checkpoints, off the writer (checkpoint.go)
	reads  querier       // the read pool, its statements prepared once
	writes writeStmts    // the writer's statements, prepared once

	held sqlstore.Held            // the leader locks, released by Close
	wal  atomic.Pointer[walMeter] // nil unless a measurement counts the log's bytes (walmeter.go)

	version *walVersion                     // the database's version (version.go); nil: not read
	briefs  ttlcache.Map[briefKey, *briefs] // verification's reads, held at a version (brief.go)
	briefMu sync.RWMutex                    // guards briefAt
	briefAt walHeader                       // the newest version a lookup saw; what briefs hold is at it or older
	once    sync.Once
	err     error
}

// pageSize is the page size of a new database file: 2,048 bytes, half SQLite's default. A commit writes each
// page it changed whole into the log, and most of what a sealed record changes lands on pages of its own (a
// random key in the hash, CID and reference indexes; its state row, which each step rewrites), so the log
// grows by about half as much per record (docs/bench.md, issue 45: 16,367 to 12,757 bytes per COMPLETED
// record), and intake rose with it (10,000-10,500 to 11,600-12,000 records/s on the same run), while
// verification did not move beyond the noise of the runs. 1,024 bytes cost CPU per record and intake.
const pageSize = 2048

// Open opens (creating if needed) the database file at path and applies the migrations it lacks. Durability
// is synchronous=FULL: in WAL mode NORMAL may lose the last commits on power loss, and seald promises that
// nothing it accepted is ever lost. Concurrent writes are committed in groups (see group.go) unless an
// option says otherwise.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	o := options{maxGroup: defaultMaxGroup, linger: defaultLinger, dueAt: defaultDueAt}
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

	// with returns the common parameters and those of one pool.
	with := func() url.Values {
		q := url.Values{}
		for k, v := range common {
			q[k] = slices.Clone(v)
		}
		return q
	}

	wq := with()
	// A new file gets pages of pageSize bytes; a file made before keeps its own (SQLite fixes it when it
	// writes the file's first page), and so does one another process is creating.
	wq.Add("_pragma", fmt.Sprintf("page_size(%d)", pageSize))
	wq.Set("_txlock", "immediate")
	wq.Set("_journal_mode", "WAL")
	wq.Set("_synchronous", "FULL")
	// The savepoints of group commit (group.go) keep their undo pages in a statement journal; in a file it
	// costs a write per page, in memory nothing. It only serves to roll a savepoint back, never recovery.
	wq.Add("_pragma", "temp_store(MEMORY)")
	// What a write deletes or overwrites (an erased record's key and password hash, a payload once stored) is
	// zeroed in its page rather than left in free space for anyone who reads the file (see erasure.go). Only
	// the writer writes, so only the writer needs it.
	wq.Add("_pragma", "secure_delete(ON)")
	// The checkpointer copies the log into the file (checkpoint.go); the writer only when it falls behind.
	wq.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", backstopPages))
	w, err := sql.Open("sqlite", path+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite.Open: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)

	rq := with()
	rq.Set("_query_only", "on")
	r, err := sql.Open("sqlite", path+"?"+rq.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite.Open: %w", err)
	}
	n := max(4, runtime.NumCPU())
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)

	cq := with()
	cq.Set("_synchronous", "FULL")
	cdb, err := sql.Open("sqlite", path+"?"+cq.Encode())
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("sqlite.Open: %w", err)
	}
	cdb.SetMaxOpenConns(1)
	cdb.SetMaxIdleConns(1)

	s := &Store{path: path, w: w, r: r, ckpt: newCheckpointer(cdb)}
	s.reads.db = r
	s.writes = writeStmts{db: w, stmts: map[string]*sql.Stmt{}, off: o.unpreparedWrites}
	s.Store = &sqlstore.Store{D: dialect, E: engine{s}}
	if o.maxGroup > 1 {
		s.group = newCommitter(s, o.maxGroup, o.linger, o.dueAt)
	}
	if err := s.migrateWhenFree(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	s.briefs.Limit = briefLimit
	// Without a version (not on unix), every verification reads its record, as it did before.
	// A version that failed to map is kept all the same (it reads no version) when it opened the -shm file: its
	// descriptor must close last (version_unix.go).
	if v, _ := openVersion(ctx, path, path+"?"+rq.Encode()); v != nil { // an error: it reads no version
		s.version = v
	}
	return s, nil
}

// migrateWhenFree migrates, waiting out SQLITE_BUSY for up to busyTimeout. Each connection switches the file
// to WAL as it connects, and SQLite answers a switch that meets another process's (two instances opening a
// new file at once) with SQLITE_BUSY at once, without the busy timeout.
func (s *Store) migrateWhenFree(ctx context.Context) error {
	for start := time.Now(); ; {
		err := s.migrate(ctx)
		if seald.ErrorCode(err) != seald.EUNAVAILABLE || time.Since(start) > busyTimeout {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Close commits the writes already queued, releases the locks this Store holds and closes its connections.
// It may be called more than once.
func (s *Store) Close() error {
	s.once.Do(func() {
		if s.group != nil {
			s.group.close()
		}
		s.held.Close()
		s.reads.close()
		s.writes.close()
		if s.version != nil {
			s.version.close()
		}
		// The writer last: the last connection to close checkpoints the whole log and removes it.
		s.err = errors.Join(s.ckpt.close(), s.r.Close(), s.w.Close())
		if s.version != nil {
			// After every connection: closing this descriptor releases the process's locks on the -shm file.
			s.err = errors.Join(s.err, s.version.closeFile())
		}
	})
	return s.err
}

// write runs fn in a write transaction and returns once that transaction has committed (or failed). With
// group commit, fn shares the transaction with other writes, under a savepoint of its own, and is given
// ctx without its cancellation; fn must use the ctx it is given and may be run a second time (alone) when
// its group fails, so it must set what it returns afresh on each run.
func (s *Store) write(ctx context.Context, op string, fn func(ctx context.Context, q *querier) error) error {
	if s.group != nil {
		return s.group.write(ctx, op, fn)
	}
	return s.writeTx(ctx, op, 1, fn)
}

// writeTx runs fn, which makes the given number of writes, in one write transaction (BEGIN IMMEDIATE) and
// commits it when fn succeeds.
func (s *Store) writeTx(ctx context.Context, op string, writes int, fn func(ctx context.Context, q *querier) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return wrap(op, err)
	}
	defer tx.Rollback() // should fn panic
	q := &querier{db: tx, tx: tx, writes: &s.writes}
	err = fn(ctx, q)
	if err == nil {
		err = tx.Commit()
	} else {
		tx.Rollback()
	}
	q.close()
	// The transaction has ended and given the writer's connection back: prepare what it ran first.
	s.writes.prepareNoted(context.WithoutCancel(ctx))
	if err == nil {
		s.ckpt.committed(writes)
		if m := s.wal.Load(); m != nil {
			m.committed()
		}
	}
	return wrap(op, err)
}

// wrap gives err the store's error codes (see sqlstore.Dialect.Wrap).
func wrap(op string, err error) error { return dialect.Wrap(op, err) }

// code finds the store's code of an SQLite error: a database locked past the busy timeout is EUNAVAILABLE.
func code(err error) (seald.Code, string) {
	var le *sqlite.Error
	if !errors.As(err, &le) {
		return "", ""
	}
	switch c := le.Code(); {
	case c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return seald.ECONFLICT, "already exists"
	case c == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return seald.ENOTFOUND, "refers to something that does not exist"
	case c&0xff == sqlite3.SQLITE_BUSY:
		return seald.EUNAVAILABLE, "the database is busy"
	}
	return "", ""
}

// engine runs the shared SQL (package sqlstore) on the one writer, with group commit, and on the read pool
// through prepared statements.
type engine struct{ s *Store }

func (e engine) Write(ctx context.Context, op string, fn func(ctx context.Context, q sqlstore.Querier) error) error {
	return e.s.write(ctx, op, func(ctx context.Context, q *querier) error { return fn(ctx, q) })
}

func (e engine) Read(ctx context.Context, op string, fn func(q sqlstore.Querier) error) error {
	return wrap(op, fn(&e.s.reads))
}

// dialect is SQLite's: times as unix milliseconds (SQLite has no time type, and integers sort and compare),
// no claim lock (the one writer already excludes), and IS for "the same lease, NULL included".
var dialect = sqlstore.Dialect{
	Name: "sqlite", Time: sqlstore.Millis, SameLease: "leased_until IS ?", Bytes: "BLOB", Code: code,
}
