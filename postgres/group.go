package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"seald.dev/seald"
	"seald.dev/seald/internal/group"
	"seald.dev/seald/internal/sqlstore"
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

// committers is how many groups may be in flight at once: while one waits for its commit's WAL flush,
// another is inserted.
var committers = 2

// defaultMaxGroup bounds the records of one group: 39 parameters each (len(sqlstore.RecordColumns)) stays far
// below PostgreSQL's 65535, even at the largest MaxGroup (1000).
const defaultMaxGroup = 256

// Option changes how Open sets up the Store.
type Option func(*options)

type options struct {
	maxGroup  int
	idleInTxn time.Duration // the sessions' idle_in_transaction_session_timeout (idleInTransaction)
}

// WithoutGroupCommit makes every write its own transaction, as if writes never ran at the same time. It
// exists to measure group commit against the plain path (BenchmarkCreateRecordParallel).
func WithoutGroupCommit() Option { return func(o *options) { o.maxGroup = 1 } }

// MaxGroup sets how many records one group transaction takes at most (default 256); 1 turns grouping off.
func MaxGroup(n int) Option { return func(o *options) { o.maxGroup = min(max(1, n), 1000) } }

// createReq is one caller's CreateRecord waiting for the committer.
type createReq struct {
	r       *seald.Record
	args    []any
	payload []byte
	jobs    []*seald.Job
	ids     []int64 // the jobs' ids, once inserted
}

// committer creates the queued records in group transactions; the queue, the cancellation rule and the
// draining on close are those of package group.
type committer struct {
	s *Store
	g *group.Committer[*createReq]
}

func newCommitter(s *Store, maxGroup int) *committer {
	c := &committer{s: s}
	c.g = group.New(maxGroup, committers, c.commit, nil,
		group.Distinct(func(r *createReq) string { return r.r.Reference }))
	return c
}

// create queues req and waits for its result.
func (c *committer) create(ctx context.Context, op string, req *createReq) error {
	err := c.g.Submit(ctx, req)
	if errors.Is(err, group.ErrClosed) {
		err = errors.New("the store is closed")
	}
	// The errors of a record that was created or tried are already the store's (wrap leaves them as they
	// are); those of a record never tried (the caller's context, a closed store) are given its codes here.
	return wrap(op, err)
}

func (c *committer) close() { c.g.Close() }

const opCreate = "postgres.CreateRecord"

// commit creates the records of one group and returns the result of each; see the comment at the top of
// this file.
func (c *committer) commit(group []*createReq) []error {
	results := make([]error, len(group))
	if len(group) == 1 {
		results[0] = c.alone(group[0])
		return results
	}
	ctx := context.Background()
	sentCommit, err := c.s.txCommit(ctx, func(tx pgx.Tx) error {
		clear(results)
		return c.s.insertGroup(ctx, tx, group, results)
	})
	switch {
	case err == nil:
		for i, r := range group {
			if results[i] == nil {
				sqlstore.SetJobIDs(r.r.Reference, r.jobs, r.ids)
			}
		}
	case sentCommit:
		for i := range group {
			results[i] = wrap(opCreate, err)
		}
	default:
		for i, r := range group {
			results[i] = c.alone(r)
		}
	}
	return results
}

// alone creates one record in its own transaction, the path without group commit.
func (c *committer) alone(r *createReq) error {
	return c.s.CreateValues(context.Background(), r.r, r.args, r.payload, r.jobs)
}

// insertGroup inserts the records of a group, then the payloads and jobs of those that were new, setting
// ECONFLICT in results for the others.
func (s *Store) insertGroup(ctx context.Context, tx pgx.Tx, group []*createReq, results []error) error {
	var q strings.Builder
	q.WriteString(`INSERT INTO records (` + strings.Join(sqlstore.RecordColumns, ", ") + `) VALUES `)
	args := make([]any, 0, len(group)*len(sqlstore.RecordColumns))
	for i, r := range group {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?" + strings.Repeat(", ?", len(sqlstore.RecordColumns)-1) + ")")
		args = append(args, r.args...)
	}
	q.WriteString(` ON CONFLICT (reference) DO NOTHING RETURNING reference`)
	// Its text changes with the group's size: an unnamed statement, so that neither pgx's statement cache
	// nor the server keeps a prepared statement for every size (memory that would only grow).
	rows, err := tx.Query(ctx, number(q.String()), append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
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

	if err := insertPayloads(ctx, tx, group, results); err != nil {
		return err
	}
	if ok, err := s.insertJobsTogether(ctx, tx, group, results); ok || err != nil {
		return err
	}
	// Two jobs of one reference and kind in the group: their ids cannot be told apart by what the multi-row
	// INSERT returns, so they are inserted one statement each, in one pipelined batch.
	var b pgx.Batch
	for i, r := range group {
		if results[i] != nil {
			continue
		}
		for _, j := range r.jobs {
			b.Queue(rebind(sqlstore.InsertJob), s.JobValues(j, r.r.Reference)...)
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

// insertPayloads inserts the payloads of the group's new records in one multi-row INSERT.
func insertPayloads(ctx context.Context, tx pgx.Tx, group []*createReq, results []error) error {
	var q strings.Builder
	args := []any{pgx.QueryExecModeDescribeExec}
	for i, r := range group {
		if results[i] != nil || r.payload == nil {
			continue
		}
		if len(args) == 1 {
			q.WriteString(`INSERT INTO payloads (reference, data) VALUES (?, ?)`)
		} else {
			q.WriteString(`, (?, ?)`)
		}
		args = append(args, r.r.Reference, r.payload)
	}
	if len(args) == 1 {
		return nil
	}
	_, err := tx.Exec(ctx, number(q.String()), args...)
	return err
}

// insertJobsTogether inserts the jobs of the group's new records in one multi-row INSERT
// (sqlstore.JobsTogether) and gives each its id. It returns false, having inserted nothing, when two jobs
// of the group share a reference and kind.
func (s *Store) insertJobsTogether(ctx context.Context, tx pgx.Tx, group []*createReq, results []error) (bool, error) {
	b := s.JobsTogether()
	for i, r := range group {
		if results[i] == nil {
			r.ids = make([]int64, len(r.jobs))
			b.Add(r.r.Reference, r.jobs, r.ids)
		}
	}
	query, args, ok := b.Query()
	if !ok || query == "" {
		return ok, nil
	}
	rows, err := tx.Query(ctx, number(query), append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	return true, b.Match(rows)
}

// CreateRecord inserts the record, its payload and its first jobs in one transaction, so a record never
// exists without the job that moves it on. A job with no Reference is given the record's; each job's ID is
// set once the transaction has committed. Concurrent calls share transactions (see the top of this file).
func (s *Store) CreateRecord(ctx context.Context, r *seald.Record, payload []byte, jobs ...*seald.Job) error {
	args, err := s.RecordValues(r)
	if err != nil {
		return wrap(opCreate, err)
	}
	if s.group != nil {
		return s.group.create(ctx, opCreate, &createReq{r: r, args: args, payload: payload, jobs: jobs})
	}
	return s.CreateValues(ctx, r, args, payload, jobs)
}
