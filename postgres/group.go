package postgres

import (
	"context"
	"errors"
	"fmt"
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
// transaction: multi-row INSERTs of the records (ON CONFLICT (reference) DO NOTHING, so a duplicate
// reference is found without aborting the transaction; RETURNING reference, seq, the key of the payloads and
// jobs) in one pipelined batch, then their payloads and jobs in another, then one commit. The rows go in by chunks of power-of-two sizes (sqlstore.Chunks), whose few
// statements stay prepared. Each caller gets the result of its own record:
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
	seq     int64   // the record's, once inserted
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

// The multi-row statements of a group, by chunk size (sqlstore.Chunks): a few fixed texts, which pgx
// prepares once per connection and the server parses and plans once, where a text that changed with the
// group's size was sent unnamed, parsed and planned for every group, at two round trips per statement.
var (
	recordRows  = sqlstore.NewChunkTexts(func(n int) string { return number(sqlstore.InsertRecordRows(n)) })
	stateRows   = sqlstore.NewChunkTexts(func(n int) string { return number(sqlstore.InsertStateRows(n)) })
	payloadRows = sqlstore.NewChunkTexts(func(n int) string { return number(sqlstore.InsertPayloadRows(n)) })
)

// insertGroup inserts the records of a group, then the states, payloads and jobs of those that were new,
// setting ECONFLICT in results for the others: one pipelined batch of the records' chunks, then one of the
// states', payloads' and jobs'.
func (s *Store) insertGroup(ctx context.Context, tx pgx.Tx, group []*createReq, results []error) error {
	inserted := make(map[string]int64, len(group)) // the seqs of the records inserted, by reference
	var b pgx.Batch
	at := 0
	for _, n := range sqlstore.Chunks(len(group)) {
		args := make([]any, 0, n*len(sqlstore.FactInsertColumns))
		for _, r := range group[at : at+n] {
			args = sqlstore.AppendFactValues(args, r.args)
		}
		at += n
		b.Queue(recordRows.Text(n), args...).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var ref string
				var seq int64
				if err := rows.Scan(&ref, &seq); err != nil {
					return err
				}
				inserted[ref] = seq
			}
			return rows.Err()
		})
	}
	sqlstore.Count("", b.Len(), 0)
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		return err
	}
	var fresh []*createReq // the new records, whose states, payloads and jobs follow
	var payloads []any
	for i, r := range group {
		seq, ok := inserted[r.r.Reference]
		if !ok {
			results[i] = sqlstore.Conflict(opCreate, "record %s already exists", r.r.Reference)
			continue
		}
		r.seq = seq
		fresh = append(fresh, r)
		if r.payload != nil {
			payloads = append(payloads, seq, r.payload)
		}
	}

	b = pgx.Batch{}
	at = 0
	for _, n := range sqlstore.Chunks(len(fresh)) {
		args := make([]any, 0, n*len(sqlstore.StateInsertColumns))
		for _, r := range fresh[at : at+n] {
			args = sqlstore.AppendStateValues(args, r.seq, r.args)
		}
		at += n
		b.Queue(stateRows.Text(n), args...)
	}
	for rest := payloads; len(rest) > 0; {
		n := sqlstore.Chunks(len(rest) / 2)[0]
		b.Queue(payloadRows.Text(n), rest[:2*n]...)
		rest = rest[2*n:]
	}
	if !s.queueJobsTogether(&b, fresh) {
		// Two jobs of one reference and kind, whose ids cannot be told apart by what the multi-row INSERT
		// returns, a job of another record, or records of several jobs (or none): the jobs are inserted one
		// statement each. A job of a record that does not exist inserts nothing, and its Scan fails the group.
		for _, r := range fresh {
			r.ids = make([]int64, len(r.jobs))
			for k, j := range r.jobs {
				id := &r.ids[k]
				query, args := s.JobInsert(j, r.r.Reference, r.seq)
				b.Queue(rebind(query), args...).QueryRow(func(row pgx.Row) error {
					if err := row.Scan(id); err != nil {
						return fmt.Errorf("job of record %s: %w", r.r.Reference, err)
					}
					return nil
				})
			}
		}
	}
	if b.Len() == 0 {
		return nil
	}
	sqlstore.Count("", b.Len(), 0)
	return tx.SendBatch(ctx, &b).Close()
}

// queueJobsTogether queues the jobs of the new records, by chunks of records, each chunk's with one
// multi-row INSERT (sqlstore.JobsTogether) that gives each job its id. It returns false, having queued
// nothing, when two jobs of one chunk share a reference and kind, one is of another record, or a chunk has
// other than one job per record: the texts kept prepared are then those of the chunk sizes only, not one per mix of jobs (a batch
// cannot send one statement unnamed).
func (s *Store) queueJobsTogether(b *pgx.Batch, fresh []*createReq) bool {
	type chunk struct {
		jt    *sqlstore.JobsTogether
		query string
		args  []any
	}
	var chunks []chunk
	at := 0
	for _, n := range sqlstore.Chunks(len(fresh)) {
		jt, jobs := s.JobsTogether(), 0
		for _, r := range fresh[at : at+n] {
			r.ids = make([]int64, len(r.jobs))
			jt.Add(r.r.Reference, r.seq, r.jobs, r.ids)
			jobs += len(r.jobs)
		}
		at += n
		query, args, ok := jt.Query()
		if !ok || jobs != n {
			return false
		}
		chunks = append(chunks, chunk{jt, rebind(query), args})
	}
	for _, c := range chunks {
		b.Queue(c.query, c.args...).Query(func(rows pgx.Rows) error { return c.jt.Match(rows) })
	}
	return true
}

// CreateRecord inserts the record, its payload and its first jobs in one transaction, so a record never
// exists without the job that moves it on. A job with no Reference is given the record's; each job's ID is
// set once the transaction has committed. Concurrent calls share transactions (see the top of this file).
func (s *Store) CreateRecord(ctx context.Context, r *seald.Record, payload []byte, jobs ...*seald.Job) error {
	args, err := s.RecordValues(r)
	if err != nil {
		return wrap(opCreate, err)
	}
	if s.group != nil && !sqlstore.HasPaths(r) { // one with paths is inserted alone, paths and all (InsertValues)
		return s.group.create(ctx, opCreate, &createReq{r: r, args: args, payload: payload, jobs: jobs})
	}
	return s.CreateValues(ctx, r, args, payload, jobs)
}
