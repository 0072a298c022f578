package sqlstore

import (
	"strings"
	"sync/atomic"
)

// Counts are the statements both stores ran and the rows they changed, by kind, while counting was on
// (StartCounting): what the bench reports per record (issue 45), to measure the design and not only its time.
// A statement is one SQL statement sent to the engine (a savepoint too; a batch of PostgreSQL statements
// counts each); rows are those a statement reports it changed (an INSERT ... RETURNING read through Query
// counts the rows it returned).
type Counts struct {
	Statements, Inserted, Updated, Deleted int64
}

// counter is on while counting; off (nil), a statement costs one atomic load.
type counter struct {
	statements, inserted, updated, deleted atomic.Int64
}

var counting atomic.Pointer[counter]

// StartCounting turns counting on for every store of the process, from zero, and returns the function that
// turns it off and gives the counts. Counting is for measurements (the bench), never for serving.
func StartCounting() (stop func() Counts) {
	c := &counter{}
	counting.Store(c)
	return func() Counts {
		counting.CompareAndSwap(c, nil)
		return Counts{Statements: c.statements.Load(), Inserted: c.inserted.Load(), Updated: c.updated.Load(),
			Deleted: c.deleted.Load()}
	}
}

// Counting reports whether counting is on, so that a store counts what it runs outside Count's reach (a
// batch) only then.
func Counting() bool { return counting.Load() != nil }

// Count counts n statements that changed rows rows (0 for a read or when unknown), of query's kind.
func Count(query string, n int, rows int64) {
	c := counting.Load()
	if c == nil {
		return
	}
	c.statements.Add(int64(n))
	if rows <= 0 {
		return
	}
	switch verb(query) {
	case "INSERT":
		c.inserted.Add(rows)
	case "UPDATE":
		c.updated.Add(rows)
	case "DELETE":
		c.deleted.Add(rows)
	}
}

// Writes reports whether query changes rows (INSERT, UPDATE or DELETE), so that the rows a write returns
// through Query can be counted.
func Writes(query string) bool {
	switch verb(query) {
	case "INSERT", "UPDATE", "DELETE":
		return true
	}
	return false
}

// verb is the first word of query, in capitals.
func verb(query string) string {
	q := strings.TrimLeft(query, " \t\r\n(")
	i := strings.IndexAny(q, " \t\r\n")
	if i < 0 {
		i = len(q)
	}
	return strings.ToUpper(q[:i])
}

// CountRows counts, when counting is on, the rows a write's Rows return as they are read; otherwise it
// returns rows as they are.
func CountRows(query string, rows Rows) Rows {
	if counting.Load() == nil || !Writes(query) {
		return rows
	}
	return &countedRows{Rows: rows, query: query}
}

type countedRows struct {
	Rows
	query string
}

func (r *countedRows) Next() bool {
	ok := r.Rows.Next()
	if ok {
		Count(r.query, 0, 1)
	}
	return ok
}
