package sqlstore

import (
	"context"
	"errors"
	"sync/atomic"

	"seald.dev/seald"
	"seald.dev/seald/internal/group"
)

// Coalesced verification reads. A verification reads one record by reference (RecordBrief) or the records of
// one hash (RecordsByHashBrief), and under load most of such a read's cost is per statement, not per row: on
// PostgreSQL a round trip, a backend woken and a statement executed; on SQLite the driver's and
// database/sql's work around every statement run (rows made, columns described, results converted). The
// reads that arrive while others are in flight are instead gathered, and a store's Fetch answers them with
// one statement per kind, each caller then handed its own rows: its record or its own ENOTFOUND, or the
// records of its hash in BriefOrder, as RecordsByHashBrief gives them alone.
//
// It is a group commit of reads, on package group: lookups queue, and a few workers each take up to
// MaxLookups of them at a time. Nothing lingers: a worker that is free takes a lookup as soon as it is
// queued, so a lone lookup goes at once and batches form only from the lookups that arrived while every
// worker was busy. A lookup's statement is always run after the lookup was queued, so it sees every change
// committed before the call (never the answer of a read already in flight).
//
// A caller whose context ends while its lookup is queued leaves at once with the context's error. Once a
// worker has taken it, the caller waits for its batch (one indexed statement per kind) and then still gets
// its context's error; the batch's own context ends only when every caller of the batch has left, so that
// one caller's cancellation never fails the others.

// MaxLookups bounds the lookups of one batch.
const MaxLookups = 64

// Fetch reads the brief records of refs (each at most once in the result) and of hashes (the records of
// each hash in BriefOrder), for one batch; keys that match nothing are absent.
type Fetch func(ctx context.Context, refs, hashes []string) (map[string]*seald.Record, map[string][]*seald.Record, error)

// Coalescer answers queued verification reads in batches (see above).
type Coalescer struct {
	d     Dialect
	fetch Fetch
	g     *group.Committer[*lookup]
	// BeforeRead and AfterRead, when not nil, are called by a worker with its batch's number of lookups,
	// before its statement is run and once it has run, before the callers are answered (tests).
	BeforeRead, AfterRead func(n int)
}

// lookup is one caller's verification read: by reference or by hash, and its result once answered.
type lookup struct {
	ctx    context.Context // the caller's
	key    string          // the reference, or the hash when byHash
	byHash bool
	rec    *seald.Record
	recs   []*seald.Record
}

// NewCoalescer returns a Coalescer of d's store whose batches are read by fetch, at most readers at once.
func NewCoalescer(d Dialect, readers int, fetch Fetch) *Coalescer {
	c := &Coalescer{d: d, fetch: fetch}
	c.g = group.New(MaxLookups, max(readers, 1), c.answer, nil)
	return c
}

// Close stops the workers once the queued lookups are answered.
func (c *Coalescer) Close() { c.g.Close() }

// Queued is how many lookups wait for a worker (tests).
func (c *Coalescer) Queued() int { return c.g.Queued() }

// RecordBrief is Store.RecordBrief, coalesced.
func (c *Coalescer) RecordBrief(ctx context.Context, reference string) (*seald.Record, error) {
	l := &lookup{ctx: ctx, key: reference}
	if err := c.do(ctx, c.op("RecordBrief"), l); err != nil {
		return nil, err
	}
	return l.rec, nil
}

// RecordsByHashBrief is Store.RecordsByHashBrief, coalesced.
func (c *Coalescer) RecordsByHashBrief(ctx context.Context, hash string) ([]*seald.Record, error) {
	l := &lookup{ctx: ctx, key: hash, byHash: true}
	if err := c.do(ctx, c.op("RecordsByHashBrief"), l); err != nil {
		return nil, err
	}
	return l.recs, nil
}

func (c *Coalescer) op(name string) string { return c.d.Name + "." + name }

// do queues l and waits for its answer.
func (c *Coalescer) do(ctx context.Context, op string, l *lookup) error {
	err := c.g.Submit(ctx, l)
	if cerr := ctx.Err(); cerr != nil {
		return c.d.Wrap(op, cerr)
	}
	if errors.Is(err, group.ErrClosed) {
		err = ErrClosed
	}
	return c.d.Wrap(op, err)
}

// answer reads the records of one batch of lookups and hands each its own.
func (c *Coalescer) answer(batch []*lookup) []error {
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
		k := kind(l)
		switch {
		case seen[k]:
		case l.byHash:
			hashes = append(hashes, l.key)
		default:
			refs = append(refs, l.key)
		}
		seen[k] = true
	}
	if c.BeforeRead != nil {
		c.BeforeRead(len(batch))
	}
	byRef, byHash, err := c.fetch(ctx, refs, hashes)
	if c.AfterRead != nil {
		c.AfterRead(len(batch))
	}

	errs := make([]error, len(batch))
	given := make(map[string]bool, len(batch)) // the results handed out already: a duplicate gets a copy
	for i, l := range batch {
		op, k := c.op("RecordBrief"), kind(l)
		if l.byHash {
			op = c.op("RecordsByHashBrief")
		}
		if err != nil {
			errs[i] = c.d.Wrap(op, err)
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
			errs[i] = NotFound(op, "record %s not found", l.key)
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

// Briefs collects rows of SelectBrief into fetch's maps: by reference into byRef, or, when byHash is not
// nil, appended by hash in the rows' order.
func Briefs(rows Rows, byRef map[string]*seald.Record, byHash map[string][]*seald.Record) error {
	defer rows.Close()
	for rows.Next() {
		r, err := ScanBrief(rows)
		if err != nil {
			return err
		}
		if byHash != nil {
			byHash[r.Hash] = append(byHash[r.Hash], r)
		} else {
			byRef[r.Reference] = r
		}
	}
	return rows.Err()
}
