package sqlite

import (
	"context"
	"database/sql"
	"sync"

	"seald.dev/seald/internal/sqlstore"
)

// querier runs the shared SQL on a write transaction or on the read pool, preparing each statement once:
// the writes of a group run the same few statements (the record, payload and job inserts) once per record,
// and the pipeline reads a record and a payload for every step; parsing them again each time was a quarter
// of a group's CPU and a tenth of the embedded pipeline's. Statements without arguments (savepoints,
// migrations, which may hold several statements) are run as given. A transaction's statements close with
// it; the read pool's (a fixed set, at most maxStmts) close with the Store.
type querier struct {
	db interface {
		PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
	mu    sync.Mutex // for the read pool's, which goroutines share
	stmts map[string]*sql.Stmt
}

// maxStmts bounds a querier's statements: a query built at run time beyond it is simply run unprepared.
const maxStmts = 64

// stmt returns the prepared statement of query, or nil to run it as given (no arguments, a full cache, or a
// query that does not prepare: running it reports the error).
func (q *querier) stmt(ctx context.Context, query string, args []any) *sql.Stmt {
	if len(args) == 0 {
		return nil
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
	return res.RowsAffected()
}

func (q *querier) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	var rows *sql.Rows
	var err error
	if st := q.stmt(ctx, query, args); st != nil {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = q.db.QueryContext(ctx, query, args...)
	}
	return sqlRows{rows}, err
}

func (q *querier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	if st := q.stmt(ctx, query, args); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return q.db.QueryRowContext(ctx, query, args...)
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
