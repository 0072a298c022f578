// Package postgres is seald's production store: PostgreSQL through pgx, shared by any number of seald
// instances. Jobs are claimed with FOR UPDATE SKIP LOCKED so that each goes to one instance, and the anchor
// leader of a network is elected with a session advisory lock.
package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"seald.dev/seald/internal/sqlstore"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"seald.dev/seald"
)

var _ seald.Store = (*Store)(nil)

// idleInTransaction is how long the server lets a session of the pool sit idle inside a transaction before
// it ends the session, and the transaction with it (idle_in_transaction_session_timeout; a DSN that sets the
// parameter keeps its own). seald sends a transaction's statements back to back, so only a process that
// stopped without dying (SIGSTOP, a frozen VM) leaves one idle: the locks it holds, such as the fence's
// share lock on its leader row, would otherwise block the next leader's NewEpoch for as long as it sleeps.
const idleInTransaction = 15 * time.Second

// withIdleInTransaction sets idle_in_transaction_session_timeout for the tests.
func withIdleInTransaction(d time.Duration) Option { return func(o *options) { o.idleInTxn = d } }

// Store is seald's state in a PostgreSQL database, in the first schema of the DSN's search_path (so that
// several deployments, or tests, can share one database).
type Store struct {
	*sqlstore.Store // the shared SQL of every noun

	pool   *pgxpool.Pool
	schema string
	// lockCheck is how long a held lock's connection may stay silent before it is pinged; a dead connection
	// that says nothing (a network partition) is noticed within this and pingTimeout.
	lockCheck time.Duration

	group *committer          // group commit of CreateRecord; nil when off
	reads *sqlstore.Coalescer // coalesced verification reads (coalesce.go)

	held sqlstore.Held // the leader locks, released by Close
	once sync.Once
}

// Open connects to the database at dsn (a postgres:// URL or key=value string; pgx passes parameters it
// does not know, such as search_path, to the server) and applies the migrations it lacks. Instances opening
// at once serialize on an advisory lock, so each migration is applied once. Concurrent CreateRecord calls are
// committed in groups (see group.go) unless an option says otherwise.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	o := options{maxGroup: defaultMaxGroup, idleInTxn: idleInTransaction}
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The parse error may quote the DSN, password included.
		return nil, errors.New("postgres.Open: the DSN is not valid")
	}
	if _, set := cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"]; !set {
		cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt(o.idleInTxn.Milliseconds(), 10)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres.Open: %w", err)
	}
	s := &Store{pool: pool, lockCheck: 5 * time.Second}
	s.Store = &sqlstore.Store{D: dialect, E: engine{s}}
	var schema *string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres.Open: %w", err)
	}
	if schema == nil {
		pool.Close()
		return nil, errors.New("postgres.Open: no schema of the search_path exists")
	}
	s.schema = *schema
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres.Open: %w", err)
	}
	if o.maxGroup > 1 {
		s.group = newCommitter(s, o.maxGroup)
	}
	s.reads = newCoalescer(s, cfg.MaxConns)
	return s, nil
}

// Close commits the records already queued, releases the locks this Store holds and closes its
// connections. It may be called more than once.
func (s *Store) Close() error {
	s.once.Do(func() {
		s.reads.Close()
		if s.group != nil {
			s.group.close()
		}
		s.held.Close()
		s.pool.Close()
	})
	return nil
}

// key turns a name into an advisory lock key, unique to this Store's schema so that deployments sharing a
// database do not share locks.
func (s *Store) key(name string) int64 {
	sum := sha256.Sum256([]byte(s.schema + "\x00" + name))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// querier is what statements need: the pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// attempts bounds how often an operation that met a broken connection is tried again.
const attempts = 3

// tx runs fn in one transaction and commits it when fn succeeds. When a connection turns out broken before
// the commit was sent (the server restarted, or the backend was terminated), the server has rolled the
// transaction back, so the pool is emptied of its old connections and the whole transaction is run again on
// a fresh one. A failed commit is never retried: it may have been applied.
func (s *Store) tx(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	_, err := s.txCommit(ctx, fn)
	return wrap(op, err)
}

// txCommit is tx, telling also whether the failed attempt got as far as sending the commit (its outcome is
// then unknown). fn may run more than once, so it must set what it returns afresh on each run.
func (s *Store) txCommit(ctx context.Context, fn func(tx pgx.Tx) error) (sentCommit bool, err error) {
	for try := 1; ; try++ {
		sentCommit, err := s.runTx(ctx, fn)
		if err == nil {
			return false, nil
		}
		if sentCommit || try == attempts || ctx.Err() != nil || !brokenConn(err) {
			return sentCommit, err
		}
		s.pool.Reset()
	}
}

// runTx runs one attempt of tx and tells whether it got as far as sending the commit.
func (s *Store) runTx(ctx context.Context, fn func(tx pgx.Tx) error) (sentCommit bool, err error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := fn(tx); err != nil {
		return false, err
	}
	return true, tx.Commit(ctx)
}

// read runs fn, which only reads, on the pool, trying again on a fresh connection when it met a broken one.
func (s *Store) read(ctx context.Context, op string, fn func(q querier) error) error {
	for try := 1; ; try++ {
		err := fn(s.pool)
		if err == nil {
			return nil
		}
		if try == attempts || ctx.Err() != nil || !brokenConn(err) {
			return wrap(op, err)
		}
		s.pool.Reset()
	}
}

// brokenConn tells whether err means the connection, not the statement, failed: a FATAL error or connection
// exception from the server (it is shutting down or terminated the backend), or a network error.
func brokenConn(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.EqualFold(pe.Severity, "FATAL") || strings.HasPrefix(pe.Code, "08") ||
			pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	return pgconn.SafeToRetry(err) || errors.As(err, &ne) || errors.As(err, &ce) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// wrap gives err the store's error codes (see sqlstore.Dialect.Wrap).
func wrap(op string, err error) error { return dialect.Wrap(op, err) }

// code finds the store's code of a PostgreSQL error: an unreachable server is EUNAVAILABLE.
func code(err error) (seald.Code, string) {
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "23505":
		return seald.ECONFLICT, "already exists"
	case errors.As(err, &pe) && pe.Code == "23503":
		return seald.ENOTFOUND, "refers to something that does not exist"
	case brokenConn(err):
		return seald.EUNAVAILABLE, "the database is unavailable"
	}
	return "", ""
}

// engine runs the shared SQL (package sqlstore) in the store's retried transactions and reads.
type engine struct{ s *Store }

func (e engine) Write(ctx context.Context, op string, fn func(ctx context.Context, q sqlstore.Querier) error) error {
	return e.s.tx(ctx, op, func(tx pgx.Tx) error { return fn(ctx, pq{tx}) })
}

func (e engine) Read(ctx context.Context, op string, fn func(q sqlstore.Querier) error) error {
	return e.s.read(ctx, op, func(q querier) error { return fn(pq{q}) })
}

// pq runs the shared SQL through pgx, its ? placeholders numbered.
type pq struct{ q querier }

func (p pq) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := p.q.Exec(ctx, rebind(query), args...)
	sqlstore.Count(query, 1, tag.RowsAffected())
	return tag.RowsAffected(), err
}

func (p pq) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	sqlstore.Count(query, 1, 0)
	rows, err := p.q.Query(ctx, rebind(query), args...)
	if err != nil {
		return rows, err
	}
	return sqlstore.CountRows(query, rows), nil
}

func (p pq) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	sqlstore.Count(query, 1, 0)
	return p.q.QueryRow(ctx, rebind(query), args...)
}

// rebound caches the numbered form of each query: the store's queries are a fixed set.
var rebound sync.Map

// rebind numbers the ? placeholders of a query ($1, $2...). The store's SQL has no ? in a literal.
func rebind(query string) string {
	if q, ok := rebound.Load(query); ok {
		return q.(string)
	}
	q := number(query)
	rebound.Store(query, q)
	return q
}

// number is rebind without the cache, for queries made at run time.
func number(query string) string {
	b := make([]byte, 0, len(query)+len(query)/2)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b = strconv.AppendInt(append(b, '$'), int64(n), 10)
			continue
		}
		b = append(b, query[i])
	}
	return string(b)
}

// dialect is PostgreSQL's: timestamptz to the millisecond, FOR UPDATE SKIP LOCKED so that instances claim
// jobs side by side, IS NOT DISTINCT FROM for "the same lease, NULL included", and record_cids for a CID's
// records.
var dialect = sqlstore.Dialect{
	Name: "postgres", Time: sqlstore.Timestamp, ClaimLock: "FOR UPDATE SKIP LOCKED", ShareLock: "FOR SHARE", CIDTable: true,
	SameLease: "leased_until IS NOT DISTINCT FROM ?::timestamptz", Bytes: "bytea", Code: code,
}

// HasSchema tells whether the first schema of the DSN's search_path holds a seald store (its migrations
// table), without creating anything: the operator commands open only a store serve has created.
func HasSchema(ctx context.Context, dsn string) (bool, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return false, errors.New("postgres: the DSN is not valid")
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, fmt.Errorf("postgres: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var found bool
	err = conn.QueryRow(ctx, `SELECT current_schema() IS NOT NULL
		AND to_regclass(format('%I.schema_migrations', current_schema())) IS NOT NULL`).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("postgres: %w", err)
	}
	return found, nil
}
