package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// Reads run prepared statements, prepared once per query on the read pool (database/sql prepares each
// again on each connection that runs it, once). The pipeline reads a record and a payload for every step;
// parsing those queries again each time was a tenth of the embedded pipeline's CPU.

// maxReadStmts bounds the cache: the store's queries are a fixed set, and a query built at run time beyond
// it is simply run unprepared.
const maxReadStmts = 64

type readStmts struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// stmt returns the prepared statement of query, or nil when it cannot be prepared or cached.
func (s *Store) readStmt(ctx context.Context, query string) *sql.Stmt {
	s.reads.mu.Lock()
	defer s.reads.mu.Unlock()
	if st, ok := s.reads.m[query]; ok {
		return st
	}
	if len(s.reads.m) >= maxReadStmts {
		return nil
	}
	st, err := s.r.PrepareContext(ctx, query)
	if err != nil {
		return nil // run unprepared, which reports the error
	}
	if s.reads.m == nil {
		s.reads.m = map[string]*sql.Stmt{}
	}
	s.reads.m[query] = st
	return st
}

// qrow runs a read that returns one row.
func (s *Store) qrow(ctx context.Context, query string, args ...any) *sql.Row {
	if st := s.readStmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return s.r.QueryRowContext(ctx, query, args...)
}

// qrows runs a read that returns rows.
func (s *Store) qrows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := s.readStmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return s.r.QueryContext(ctx, query, args...)
}

// closeReads closes the prepared read statements.
func (s *Store) closeReads() {
	s.reads.mu.Lock()
	defer s.reads.mu.Unlock()
	for _, st := range s.reads.m {
		st.Close()
	}
	s.reads.m = nil
}
