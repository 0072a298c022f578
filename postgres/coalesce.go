package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
	"seald.dev/seald/internal/sqlstore"
)

// Verification reads are coalesced (sqlstore.Coalescer): the reads that arrive while others are in flight
// are answered by one statement per kind,
//
//	SELECT <brief columns> FROM records WHERE reference = ANY($1)
//	SELECT <brief columns> FROM records WHERE hash = ANY($1) ORDER BY created_at DESC, seq DESC
//
// both in one pipelined round trip when a batch holds both kinds. Under load the server's cost of these
// reads was mostly per statement: a round trip, a backend woken, a statement executed, for one indexed row.

// readers, when not 0, is how many batches of lookups may be in flight at once (tests set it); otherwise
// half the pool's connections, between 1 and maxReaders, so that reads never hold the whole pool.
var readers = 0

const maxReaders = 4

// The statements of a batch, by kind: for one key the very statement of a read alone (the lone lookup
// at low load, whose plan stays the plain index lookup), for several the = ANY form.
var (
	briefByReference  = sqlstore.SelectBrief + `WHERE reference = $1`
	briefsByReference = sqlstore.SelectBrief + `WHERE reference = ANY($1)`
	briefByHash       = sqlstore.SelectBrief + `WHERE hash = $1 ORDER BY ` + sqlstore.BriefOrder
	briefsByHash      = sqlstore.SelectBrief + `WHERE hash = ANY($1) ORDER BY ` + sqlstore.BriefOrder
)

// statement returns the statement and argument that read the records of keys.
func statement(keys []string, one, many string) (string, any) {
	if len(keys) == 1 {
		return one, keys[0]
	}
	return many, keys
}

func newCoalescer(s *Store, maxConns int32) *sqlstore.Coalescer {
	n := readers
	if n <= 0 {
		n = min(max(int(maxConns)/2, 1), maxReaders)
	}
	return sqlstore.NewCoalescer(dialect, n, s.fetchBriefs)
}

// fetchBriefs reads the records of one batch of coalesced lookups.
func (s *Store) fetchBriefs(ctx context.Context, refs, hashes []string) (byRef map[string]*seald.Record,
	byHash map[string][]*seald.Record, err error) {
	err = s.read(ctx, "", func(querier) error { // each caller's error gets its own op
		byRef, byHash = make(map[string]*seald.Record, len(refs)), make(map[string][]*seald.Record, len(hashes))
		scanRefs := func(rows pgx.Rows) error { return sqlstore.Briefs(rows, byRef, nil) }
		scanHashes := func(rows pgx.Rows) error { return sqlstore.Briefs(rows, nil, byHash) }
		refQuery, refArg := statement(refs, briefByReference, briefsByReference)
		hashQuery, hashArg := statement(hashes, briefByHash, briefsByHash)
		if len(refs) > 0 && len(hashes) > 0 {
			var b pgx.Batch
			b.Queue(refQuery, refArg).Query(scanRefs)
			b.Queue(hashQuery, hashArg).Query(scanHashes)
			sqlstore.Count("", b.Len(), 0)
			return s.pool.SendBatch(ctx, &b).Close()
		}
		query, arg, scan := refQuery, refArg, scanRefs
		if len(hashes) > 0 {
			query, arg, scan = hashQuery, hashArg, scanHashes
		}
		rows, err := s.pool.Query(ctx, query, arg)
		if err != nil {
			return err
		}
		return scan(rows)
	})
	return byRef, byHash, err
}

// RecordBrief finds a record by its reference, with only the fields of seald.Record.Brief; concurrent
// lookups share statements (sqlstore.Coalescer).
func (s *Store) RecordBrief(ctx context.Context, reference string) (*seald.Record, error) {
	if s.reads == nil {
		return s.Store.RecordBrief(ctx, reference)
	}
	return s.reads.RecordBrief(ctx, reference)
}

// RecordsByHashBrief is RecordsByHash with only the fields of seald.Record.Brief; concurrent lookups share
// statements (sqlstore.Coalescer).
func (s *Store) RecordsByHashBrief(ctx context.Context, hash string) ([]*seald.Record, error) {
	if s.reads == nil {
		return s.Store.RecordsByHashBrief(ctx, hash)
	}
	return s.reads.RecordsByHashBrief(ctx, hash)
}
