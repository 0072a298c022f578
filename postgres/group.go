package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"seald"
)

// Group commit of CreateRecord. Each commit waits for PostgreSQL to flush its WAL, and the API creates one
// record per request, so under load most of a create's time was that flush and a round trip per statement.
// Concurrent CreateRecord calls are instead queued for committer goroutines (two, so that one group is
// inserted while the other waits for its flush), each of which inserts up to maxGroup records in one
// transaction: one multi-row INSERT of the records (ON CONFLICT (reference) DO NOTHING, so a
// duplicate reference is found without aborting the transaction), then their payloads and jobs in one
// pipelined batch, then one commit. Each caller gets the result of its own record:
//
//   - success only after the group's commit returned, so its rows are durable;
//   - ECONFLICT when its reference already existed; the others still commit;
//   - when anything else fails in the group (a job of a record that does not exist, a lost connection...),
//     nothing of the group is kept and every record is created again alone, in its own transaction, so
//     that each caller gets the outcome of its own record as if it had been alone;
//   - when the commit itself failed after being sent, the outcome is unknown (as for one transaction whose
//     connection broke during COMMIT): every caller of the group gets that error.
//
// Two creates of one reference in one group would be ambiguous (which caller won?), so the second waits for
// a later group, where it finds the first and gets ECONFLICT (or waits on the unique index for the first's
// group to end, if that is still in flight, as any two transactions do).
//
// A caller whose context ends while its record is queued leaves the queue with the context's error: the
// record is never written. Once the committer has taken it, the group runs to its end and the caller waits
// for it and gets its record's own outcome, so it always learns whether its record was committed.
// Close returns after the committer has committed every queued record.

// defaultMaxGroup bounds the records of one group: 31 parameters each stays far below PostgreSQL's 65535.
const defaultMaxGroup = 256

// committers is how many groups may be in flight at once: while one waits for its commit's WAL flush,
// another is inserted.
var committers = 2

// Option changes how Open sets up the Store.
type Option func(*options)

type options struct {
	maxGroup int
}

// WithoutGroupCommit makes every CreateRecord its own transaction, as if creates never ran at the same time.
// It exists to measure group commit against the plain path (BenchmarkCreateRecordParallel).
func WithoutGroupCommit() Option { return func(o *options) { o.maxGroup = 1 } }

// MaxGroup sets how many records one group transaction takes at most (default 256); 1 turns grouping off.
func MaxGroup(n int) Option { return func(o *options) { o.maxGroup = min(max(1, n), 1000) } }

// Create states: queued, taken by the committer, or abandoned by its caller before that.
const (
	queued int32 = iota
	taken
	abandoned
)

// createReq is one caller's CreateRecord waiting for the committer.
type createReq struct {
	r       *seald.Record
	args    []any
	payload []byte
	jobs    []*seald.Job
	ids     []int64 // the jobs' ids, once inserted
	state   atomic.Int32
	done    chan error
}

type committer struct {
	s        *Store
	maxGroup int

	mu     sync.Mutex
	queue  []*createReq
	closed bool
	wake   chan struct{}
	exited chan struct{}
}

func newCommitter(s *Store, maxGroup int) *committer {
	c := &committer{s: s, maxGroup: maxGroup, wake: make(chan struct{}, 1), exited: make(chan struct{})}
	var wg sync.WaitGroup
	for range committers {
		wg.Go(c.run)
	}
	go func() { wg.Wait(); close(c.exited) }()
	return c
}

// create queues req and waits for its result.
func (c *committer) create(ctx context.Context, op string, req *createReq) error {
	if err := ctx.Err(); err != nil {
		return wrap(op, err)
	}
	req.done = make(chan error, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return wrap(op, errors.New("the store is closed"))
	}
	c.queue = append(c.queue, req)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	select {
	case err := <-req.done:
		return err
	case <-ctx.Done():
		if req.state.CompareAndSwap(queued, abandoned) {
			return wrap(op, ctx.Err())
		}
		// The committer has it: it runs to its end whatever the caller's context says, and the caller,
		// which shares the write's variables, waits for the outcome (one group: milliseconds, bounded by
		// the store's own timeouts) so that it learns whether it was committed.
		return <-req.done
	}
}

func (c *committer) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	<-c.exited
}

func (c *committer) run() {
	for range c.wake {
		for {
			c.mu.Lock()
			var group, later []*createReq
			seen := map[string]bool{}
			i := 0
			for ; i < len(c.queue) && len(group) < c.maxGroup; i++ {
				r := c.queue[i]
				if seen[r.r.Reference] {
					later = append(later, r)
					continue
				}
				if r.state.CompareAndSwap(queued, taken) {
					seen[r.r.Reference] = true
					group = append(group, r)
				}
			}
			c.queue = append(later, c.queue[i:]...)
			empty, closed := len(c.queue) == 0, c.closed
			c.mu.Unlock()
			if !empty {
				// Let another committer start the next group while this one commits.
				select {
				case c.wake <- struct{}{}:
				default:
				}
			}
			if len(group) > 0 {
				c.commit(group)
			}
			if empty {
				if closed {
					select { // wake the other committers so that they stop too
					case c.wake <- struct{}{}:
					default:
					}
					return
				}
				break
			}
		}
	}
}

const opCreate = "postgres.CreateRecord"

// commit creates the records of one group; see the comment at the top of this file.
func (c *committer) commit(group []*createReq) {
	if len(group) == 1 {
		c.alone(group[0])
		return
	}
	ctx := context.Background()
	results := make([]error, len(group))
	sentCommit, err := c.s.txCommit(ctx, func(tx pgx.Tx) error {
		clear(results)
		return insertGroup(ctx, tx, group, results)
	})
	switch {
	case err == nil:
		for i, r := range group {
			if results[i] == nil {
				setJobIDs(r.r.Reference, r.jobs, r.ids)
			}
			r.done <- results[i]
		}
	case sentCommit:
		for _, r := range group {
			r.done <- wrap(opCreate, err)
		}
	default:
		for _, r := range group {
			c.alone(r)
		}
	}
}

// alone creates one record in its own transaction, the path without group commit.
func (c *committer) alone(r *createReq) {
	r.done <- c.s.createOne(context.Background(), r.r, r.args, r.payload, r.jobs)
}

// insertGroup inserts the records of a group, then the payloads and jobs of those that were new, setting
// ECONFLICT in results for the others.
func insertGroup(ctx context.Context, tx pgx.Tx, group []*createReq, results []error) error {
	var q strings.Builder
	q.WriteString(`INSERT INTO records (` + recordColumns + `) VALUES `)
	args := make([]any, 0, len(group)*len(recordCols))
	for i, r := range group {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(" + placeholders(len(args)+1, len(recordCols)) + ")")
		args = append(args, r.args...)
	}
	q.WriteString(` ON CONFLICT (reference) DO NOTHING RETURNING reference`)
	// Its text changes with the group's size: an unnamed statement, so that neither pgx's statement cache
	// nor the server keeps a prepared statement for every size (memory that would only grow).
	rows, err := tx.Query(ctx, q.String(), append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
	if err != nil {
		return err
	}
	inserted := map[string]bool{}
	for rows.Next() {
		var ref string
		if err := rows.Scan(&ref); err != nil {
			rows.Close()
			return err
		}
		inserted[ref] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	var b pgx.Batch
	for i, r := range group {
		if !inserted[r.r.Reference] {
			results[i] = conflict(opCreate, "record %s already exists", r.r.Reference)
			continue
		}
		if r.payload != nil {
			b.Queue(`INSERT INTO payloads (reference, data) VALUES ($1, $2)`, r.r.Reference, r.payload)
		}
		for _, j := range r.jobs {
			ref := j.Reference
			if ref == "" {
				ref = r.r.Reference
			}
			b.Queue(insertJobSQL, j.Kind, ref, j.Attempts, ts(j.RunAt), j.LastError)
		}
	}
	if b.Len() == 0 {
		return nil
	}
	br := tx.SendBatch(ctx, &b)
	for i, r := range group {
		if results[i] != nil {
			continue
		}
		if r.payload != nil {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return err
			}
		}
		r.ids = make([]int64, len(r.jobs))
		for k := range r.jobs {
			if err := br.QueryRow().Scan(&r.ids[k]); err != nil {
				br.Close()
				return fmt.Errorf("job of record %s: %w", r.r.Reference, err)
			}
		}
	}
	return br.Close()
}
