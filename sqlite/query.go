package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"sync"

	"seald.dev/seald/internal/sqlstore"
)

// querier runs the shared SQL on a write transaction or on the read pool, preparing each statement once:
// the writes of a group run the same few statements (the record, payload and job inserts) once per record,
// and the pipeline reads a record and a payload for every step; parsing them again each time was a quarter
// of a group's CPU and a tenth of the embedded pipeline's. Statements without arguments (savepoints,
// migrations, which may hold several statements) are run as given. The read pool's statements (a fixed
// set, at most maxStmts) close with the Store.
//
// A write transaction's querier (tx set) takes its statements from the writer's (writeStmts): each is
// prepared once on the one writer connection and lent to every transaction by tx.StmtContext, which
// reuses the statement already prepared on that connection (modernc.org/sqlite keeps the compiled SQLite
// statement in it and only resets it between runs). Preparing again in every transaction was 4-7% of the
// embedded pipeline's CPU.
type querier struct {
	db interface {
		PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
	mu    sync.Mutex // for the read pool's, which goroutines share
	stmts map[string]*sql.Stmt

	tx     *sql.Tx     // a write transaction's, with
	writes *writeStmts // the writer's statements, lent to it
}

// maxStmts bounds a querier's statements: a query built at run time beyond it is simply run unprepared.
const maxStmts = 96

// stmt returns the prepared statement of query, or nil to run it as given (no arguments, a full cache, or a
// query that does not prepare: running it reports the error).
func (q *querier) stmt(ctx context.Context, query string, args []any) *sql.Stmt {
	if len(args) == 0 {
		return nil
	}
	if q.tx != nil {
		return q.txStmt(ctx, query)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if st, ok := q.stmts[query]; ok || len(q.stmts) >= maxStmts {
		return st
	}
	st, err := q.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if q.stmts == nil {
		q.stmts = map[string]*sql.Stmt{}
	}
	q.stmts[query] = st
	return st
}

func (q *querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if st := q.stmt(ctx, query, args); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = q.db.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	sqlstore.Count(query, 1, n)
	return n, err
}

func (q *querier) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	var rows *sql.Rows
	var err error
	if st := q.stmt(ctx, query, args); st != nil {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = q.db.QueryContext(ctx, query, args...)
	}
	sqlstore.Count(query, 1, 0)
	if err != nil {
		return sqlRows{rows}, err
	}
	return sqlstore.CountRows(query, sqlRows{rows}), nil
}

func (q *querier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	sqlstore.Count(query, 1, 0)
	if st := q.stmt(ctx, query, args); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return q.db.QueryRowContext(ctx, query, args...)
}

// txStmt returns the writer's statement of query lent to q's transaction, or nil to run it as given: a
// query new to the writer is run as given and prepared once the transaction has ended (see writeStmts).
// The statements lent close with the transaction; the writer's stay.
func (q *querier) txStmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := q.stmts[query]; ok {
		return st
	}
	ws := q.writes.get(query)
	if ws == nil {
		return nil
	}
	st := q.tx.StmtContext(ctx, ws)
	if q.stmts == nil {
		q.stmts = make(map[string]*sql.Stmt, 8)
	}
	q.stmts[query] = st
	return st
}

// writeStmts are the statements prepared on the one writer connection (Store.w, a pool of one), which
// write transactions borrow. A statement cannot be prepared on the writer while a transaction holds its
// one connection, so a query is noted when a transaction first runs it and prepared when that transaction
// has ended (prepareNoted). At most maxStmts are kept; all close with the Store.
type writeStmts struct {
	db    *sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt // nil once closed
	noted []string
	off   bool // run every statement as given (once closed, and to measure against: BenchmarkCreateRecord)
}

// get returns the prepared statement of query, or nil after noting query to be prepared.
func (w *writeStmts) get(query string) *sql.Stmt {
	w.mu.Lock()
	defer w.mu.Unlock()
	if st, ok := w.stmts[query]; ok || w.off {
		return st
	}
	if len(w.stmts)+len(w.noted) < maxStmts && !slices.Contains(w.noted, query) {
		w.noted = append(w.noted, query)
	}
	return nil
}

// prepareNoted prepares the queries noted; it must be called outside any transaction of the writer. A
// query that does not prepare is dropped: running it as given reports its error, and it is noted again.
// The lock is not held while preparing, which waits for the writer's connection: a transaction on it
// (without group commit, transactions of several goroutines queue there) may be looking a statement up.
func (w *writeStmts) prepareNoted(ctx context.Context) {
	w.mu.Lock()
	noted := w.noted
	w.noted = nil
	w.mu.Unlock()
	for _, query := range noted {
		st, err := w.db.PrepareContext(ctx, query)
		if err != nil {
			continue
		}
		w.mu.Lock()
		if _, dup := w.stmts[query]; dup || w.stmts == nil {
			// Prepared by another goroutine meanwhile, or the Store closed.
			st.Close()
		} else {
			w.stmts[query] = st
		}
		w.mu.Unlock()
	}
}

// close closes the writer's statements; none is kept after.
func (w *writeStmts) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, st := range w.stmts {
		st.Close()
	}
	w.stmts, w.noted, w.off = nil, nil, true
}

// close closes the prepared statements.
func (q *querier) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, st := range q.stmts {
		st.Close()
	}
	q.stmts = nil
}

// sqlRows are *sql.Rows closed without an error to look at (Err tells).
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }
