package sqlite

import (
	"context"
	"errors"

	"seald.dev/seald/internal/group"
)

// Group commit. A commit in WAL mode with synchronous=FULL costs one fsync of the WAL (about a millisecond
// on a good disk), and SQLite has one writer at a time, so committing each write on its own caps the store
// at about a thousand writes per second however many callers wait. Instead, every write transaction of
// this Store is handed to one committer goroutine, which runs the queued writes (up to maxGroup of them)
// one after the other inside one transaction, each under its own savepoint, and commits them with one
// fsync. Each caller then gets the result of its own write:
//
//   - success only after the commit of the group returned, so its rows are durable;
//   - its own error when its write failed: the savepoint is rolled back, so none of its rows stay, and the
//     other writes of the group still commit (a duplicate reference fails alone);
//   - the commit's error when the commit failed, in which case nothing of the group was written.
//
// A write runs with its caller's values but never its cancellation: interrupting a statement would make
// SQLite roll back the whole group. A caller whose context ends while its write is still queued leaves
// the queue and gets the context's error, and its write is never run. Once the committer has taken the
// write, it runs to its end, and the caller waits for that end (one group, normally milliseconds) and gets
// the write's own outcome: it always learns whether its write was committed.
//
// Close stops taking writes and returns after the committer has run (and committed) every queued one.

// defaultMaxGroup bounds the writes of one group, so that one transaction (and the latency of the first
// caller in it) stays short.
const defaultMaxGroup = 256

// Option changes how Open sets up the Store.
type Option func(*options)

type options struct {
	maxGroup int
}

// WithoutGroupCommit makes every write its own transaction, as if writes never ran at the same time. It
// exists to measure group commit against the plain path (BenchmarkCreateRecordParallel).
func WithoutGroupCommit() Option { return func(o *options) { o.maxGroup = 1 } }

// MaxGroup sets how many writes one group transaction takes at most (default 256); 1 turns grouping off.
func MaxGroup(n int) Option { return func(o *options) { o.maxGroup = max(1, n) } }

// writeReq is one caller's write waiting for the committer.
type writeReq struct {
	ctx context.Context // the caller's values, without its cancellation
	op  string
	fn  func(ctx context.Context, q *querier) error
}

// committer runs the queued writes of a Store in group transactions; the queue, the cancellation rule and
// the draining on close are those of package group.
type committer struct {
	s *Store
	g *group.Committer[*writeReq]
}

func newCommitter(s *Store, maxGroup int) *committer {
	c := &committer{s: s}
	c.g = group.New(maxGroup, 1, c.commit, nil)
	return c
}

// errClosed is the error of a write given to a closed Store.
var errClosed = errors.New("the store is closed")

// write queues fn and waits for its result; see the comment at the top of this file.
func (c *committer) write(ctx context.Context, op string, fn func(ctx context.Context, q *querier) error) error {
	err := c.g.Submit(ctx, &writeReq{ctx: context.WithoutCancel(ctx), op: op, fn: fn})
	if errors.Is(err, group.ErrClosed) {
		err = errClosed
	}
	// The errors of a write that ran are already the store's (wrap leaves them as they are); those of a
	// write never run (the caller's context, a closed store) are given the store's codes here.
	return wrap(op, err)
}

// close stops taking writes and waits until every queued one has been run.
func (c *committer) close() { c.g.Close() }

// commit runs one group and returns the result of each write. A single write is a plain transaction;
// several share one, each in a savepoint.
func (c *committer) commit(group []*writeReq) []error {
	results := make([]error, len(group))
	if len(group) == 1 {
		r := group[0]
		results[0] = c.s.writeTx(r.ctx, r.op, r.fn)
		return results
	}
	err := c.s.writeTx(context.Background(), "sqlite.groupCommit", func(ctx context.Context, tx *querier) error {
		for i, r := range group {
			if _, err := tx.Exec(ctx, `SAVEPOINT w`); err != nil {
				return err
			}
			if results[i] = r.fn(r.ctx, tx); results[i] != nil {
				results[i] = wrap(r.op, results[i])
				if _, err := tx.Exec(ctx, `ROLLBACK TO w`); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, `RELEASE w`); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// The group transaction itself failed (its commit, or the database broke under a write): nothing of
		// it was written. Run each write alone, so that each gets the outcome of its own transaction.
		for i, r := range group {
			results[i] = c.s.writeTx(r.ctx, r.op, r.fn)
		}
	}
	return results
}
