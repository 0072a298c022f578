package postgres

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
	"seald.dev/seald/internal/group"
	"seald.dev/seald/internal/sqlstore"
)

// Coalesced verification reads. A verification reads one record by reference (RecordBrief) or the records of
// one hash (RecordsByHashBrief), and under load the server's cost of those reads was mostly per statement:
// a round trip, a backend woken, a statement executed, for one indexed row. The reads that arrive while
// others are in flight are instead gathered and answered by one statement per kind,
//
//	SELECT <brief columns> FROM records WHERE reference = ANY($1)
//	SELECT <brief columns> FROM records WHERE hash = ANY($1) ORDER BY created_at DESC, seq DESC
//
// (both in one pipelined round trip when a batch holds both kinds), and each caller is handed its own rows:
// its record or its own ENOTFOUND, or the records of its hash in the order RecordsByHashBrief has alone. It
// is a group commit of reads, and runs on package group: lookups queue, and a few workers (readers) each
// take up to maxLookups of them at a time. Nothing lingers: a worker that is free takes a lookup as soon as
// it is queued, so a lone lookup goes at once and batches form only from the lookups that arrived while
// every worker was busy. A lookup's statement is always sent after the lookup was queued, so it sees every
// change committed before the call (never the answer of a read already in flight).
//
// A caller whose context ends while its lookup is queued leaves at once with the context's error. Once a
// worker has taken it, the caller waits for its batch (one indexed statement) and then still gets its
// context's error; the batch's own context ends only when every caller of the batch has left, so that one
// caller's cancellation never fails the others.

// readers, when not 0, is how many batches of lookups may be in flight at once (tests set it); otherwise
// half the pool's connections, between 1 and maxReaders, so that reads never hold the whole pool.
var readers = 0

const (
	maxReaders = 4
	// maxLookups bounds the lookups of one batch.
	maxLookups = 64
)

const (
	opBrief     = "postgres.RecordBrief"
	opHashBrief = "postgres.RecordsByHashBrief"
)

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

// lookup is one caller's verification read: by reference or by hash, and its result once answered.
type lookup struct {
	ctx    context.Context // the caller's
	key    string          // the reference, or the hash when byHash
	byHash bool
	rec    *seald.Record
	recs   []*seald.Record
}

// coalescer answers the queued lookups in batches.
type coalescer struct {
	s *Store
	g *group.Committer[*lookup]
	// beforeRead and afterRead, when not nil, are called by a worker with its batch's number of lookups,
	// before its statement is sent and once it has run, before the callers are answered (tests).
	beforeRead, afterRead func(n int)
}

func newCoalescer(s *Store, maxConns int32) *coalescer {
	n := readers
	if n <= 0 {
		n = min(max(int(maxConns)/2, 1), maxReaders)
	}
	c := &coalescer{s: s}
	c.g = group.New(maxLookups, n, c.answer, nil)
	return c
}

func (c *coalescer) close() { c.g.Close() }

// do queues l and waits for its answer.
func (c *coalescer) do(ctx context.Context, op string, l *lookup) error {
	err := c.g.Submit(ctx, l)
	if cerr := ctx.Err(); cerr != nil {
		return wrap(op, cerr)
	}
	if errors.Is(err, group.ErrClosed) {
		err = errors.New("the store is closed")
	}
	return wrap(op, err)
}

// answer reads the records of one batch of lookups and hands each its own.
func (c *coalescer) answer(batch []*lookup) []error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var left atomic.Int64
	left.Store(int64(len(batch)))
	for _, l := range batch {
		stop := context.AfterFunc(l.ctx, func() {
			if left.Add(-1) == 0 {
				cancel() // every caller has left: the batch's statement is abandoned
			}
		})
		defer stop()
	}

	var refs, hashes []string
	seen := make(map[string]bool, len(batch))
	for _, l := range batch {
		switch k := kind(l); {
		case seen[k]:
		case l.byHash:
			hashes = append(hashes, l.key)
		default:
			refs = append(refs, l.key)
		}
		seen[kind(l)] = true
	}
	if c.beforeRead != nil {
		c.beforeRead(len(batch))
	}
	var byRef map[string]*seald.Record
	var byHash map[string][]*seald.Record
	err := c.s.read(ctx, "", func(querier) error { // each caller's error gets its own op below
		byRef, byHash = make(map[string]*seald.Record, len(refs)), make(map[string][]*seald.Record, len(hashes))
		scanRefs := func(rows pgx.Rows) error {
			for rows.Next() {
				r, err := sqlstore.ScanBrief(rows)
				if err != nil {
					return err
				}
				byRef[r.Reference] = r
			}
			return rows.Err()
		}
		scanHashes := func(rows pgx.Rows) error {
			for rows.Next() {
				r, err := sqlstore.ScanBrief(rows)
				if err != nil {
					return err
				}
				byHash[r.Hash] = append(byHash[r.Hash], r)
			}
			return rows.Err()
		}
		refQuery, refArg := statement(refs, briefByReference, briefsByReference)
		hashQuery, hashArg := statement(hashes, briefByHash, briefsByHash)
		if len(refs) > 0 && len(hashes) > 0 {
			var b pgx.Batch
			b.Queue(refQuery, refArg).Query(scanRefs)
			b.Queue(hashQuery, hashArg).Query(scanHashes)
			return c.s.pool.SendBatch(ctx, &b).Close()
		}
		query, arg, scan := refQuery, refArg, scanRefs
		if len(hashes) > 0 {
			query, arg, scan = hashQuery, hashArg, scanHashes
		}
		rows, err := c.s.pool.Query(ctx, query, arg)
		if err != nil {
			return err
		}
		defer rows.Close()
		return scan(rows)
	})
	if c.afterRead != nil {
		c.afterRead(len(batch))
	}

	errs := make([]error, len(batch))
	given := make(map[string]bool, len(batch)) // the results handed out already: a duplicate gets a copy
	for i, l := range batch {
		op, k := opBrief, kind(l)
		if l.byHash {
			op = opHashBrief
		}
		if err != nil {
			errs[i] = wrap(op, err)
			continue
		}
		if l.byHash {
			rs := byHash[l.key]
			if given[k] {
				rs = copies(rs)
			}
			given[k] = true
			if rs == nil {
				rs = []*seald.Record{}
			}
			l.recs = rs
			continue
		}
		r, ok := byRef[l.key]
		if !ok {
			errs[i] = sqlstore.NotFound(op, "record %s not found", l.key)
			continue
		}
		if given[k] {
			cp := *r
			r = &cp
		}
		given[k] = true
		l.rec = r
	}
	return errs
}

// kind tells a lookup's kind and key apart from the other kind's.
func kind(l *lookup) string {
	if l.byHash {
		return "h" + l.key
	}
	return "r" + l.key
}

// copies returns a copy of rs whose records are copies too, for a second caller of one hash, so that no two
// callers share a record.
func copies(rs []*seald.Record) []*seald.Record {
	if rs == nil {
		return nil
	}
	out := make([]*seald.Record, len(rs))
	for i, r := range rs {
		cp := *r
		out[i] = &cp
	}
	return out
}

// RecordBrief finds a record by its reference, with only the fields of seald.Record.Brief; concurrent
// lookups share statements (see the top of this file).
func (s *Store) RecordBrief(ctx context.Context, reference string) (*seald.Record, error) {
	if s.reads == nil {
		return s.Store.RecordBrief(ctx, reference)
	}
	l := &lookup{ctx: ctx, key: reference}
	if err := s.reads.do(ctx, opBrief, l); err != nil {
		return nil, err
	}
	return l.rec, nil
}

// RecordsByHashBrief is RecordsByHash with only the fields of seald.Record.Brief; concurrent lookups share
// statements (see the top of this file).
func (s *Store) RecordsByHashBrief(ctx context.Context, hash string) ([]*seald.Record, error) {
	if s.reads == nil {
		return s.Store.RecordsByHashBrief(ctx, hash)
	}
	l := &lookup{ctx: ctx, key: hash, byHash: true}
	if err := s.reads.do(ctx, opHashBrief, l); err != nil {
		return nil, err
	}
	return l.recs, nil
}
