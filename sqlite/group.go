package sqlite

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/internal/group"
	"seald.dev/seald/internal/sqlstore"
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
// CreateRecord, the API's one write per accepted record, goes further: consecutive creates of one group
// (of distinct references) are inserted together, under one savepoint, by multi-row INSERTs of their
// records (ON CONFLICT (reference) DO NOTHING RETURNING reference, seq, so that a reference that exists
// already is that caller's ECONFLICT without failing the others, and the payloads and jobs that follow are
// keyed by its seq), of their payloads and of their jobs (RETURNING
// id, reference, kind, to give each job its id), each cut into chunks of power-of-two sizes whose
// statements stay prepared (sqlstore.Chunks). If
// anything else fails there, the savepoint is rolled back and each of those creates runs again on its own
// savepoint as any other write, so that each caller gets its own outcome.
//
// Close stops taking writes and returns after the committer has run (and committed) every queued one.

// defaultMaxGroup bounds the writes of one group, so that one transaction (and the latency of the first
// caller in it) stays short.
const defaultMaxGroup = 256

// defaultLinger is how long after the start of a group the committer waits before it starts the next one
// while fewer than defaultDueAt creates (acceptances, which a client waits for) are queued: the writes that
// come meanwhile share one commit. Each commit writes every page it changed whole into the WAL, and at
// moderate rates the pages are mostly the same ones (the last pages of the records table and of the indexes
// keyed in order, each random index leaf that a few records share), so how often commits come decides the
// WAL bytes per record more than what a record writes. Measured with `sealbench --only writes` (3,000
// records at 1,000/s, docs/bench.md): a commit whenever a create was queued (the earlier rule, linger 5 ms)
// wrote 37-42 KB of WAL per record; lingering 50 ms for up to 32 creates, 19 KB, and 0.95-1.0 ms of CPU per
// record against 1.3. The pipeline's runners do not wait for these commits (its saver hands them over in
// groups), so only an acceptance waits: at most the linger, and less as soon as 32 are queued.
const defaultLinger = 50 * time.Millisecond

// The committer lingers only after a group of two writes or more (group.LingerFrom): a lone record's writes
// (its acceptance, the claim, the store step, the batch, the anchoring) come one at a time, each after the one
// before was committed, and lingering 50 ms before each of them took a lone record from acceptance to
// ANCHORED in 251 ms instead of 33, grouping nothing.
//
// defaultDueAt is how many queued creates end the committer's linger (see defaultLinger): under intake (many
// clients each waiting for its acceptance) they come in bursts and commit at once, as they did when every
// create was urgent; at 1,000 records/s they share a commit every 32 ms or so.
const defaultDueAt = 32

// Option changes how Open sets up the Store.
type Option func(*options)

type options struct {
	maxGroup int
	linger   time.Duration
	dueAt    int
	// unpreparedWrites runs the statements of write transactions as given, as before they were prepared
	// once on the writer (to measure against: BenchmarkCreateRecord).
	unpreparedWrites bool
}

// WithoutGroupCommit makes every write its own transaction, as if writes never ran at the same time. It
// exists to measure group commit against the plain path (BenchmarkCreateRecordParallel).
func WithoutGroupCommit() Option { return func(o *options) { o.maxGroup = 1 } }

// MaxGroup sets how many writes one group transaction takes at most (default 256); 1 turns grouping off.
func MaxGroup(n int) Option { return func(o *options) { o.maxGroup = max(1, n) } }

// Linger sets how long the committer waits after the start of a group before it starts the next, while
// fewer creates than DueAt's are queued (default 50 ms; 0: it never waits). See defaultLinger.
func Linger(d time.Duration) Option { return func(o *options) { o.linger = max(0, d) } }

// DueAt sets how many queued creates end the committer's linger (default 32; 1: a create is never held for
// others). See defaultDueAt.
func DueAt(n int) Option { return func(o *options) { o.dueAt = max(1, n) } }

// writeReq is one caller's write waiting for the committer.
type writeReq struct {
	ctx context.Context // the caller's values, without its cancellation
	op  string
	fn  func(ctx context.Context, q *querier) error
	// create, for a CreateRecord, lets a group insert it with the other creates of the group; fn does the
	// same alone.
	create *createReq
}

// createReq is one CreateRecord: the record's values, its payload and jobs, and the record's seq and the
// jobs' ids once inserted (set afresh by every run).
type createReq struct {
	r       *seald.Record
	vals    []any
	payload []byte
	jobs    []*seald.Job
	seq     int64
	ids     []int64
}

// committer runs the queued writes of a Store in group transactions; the queue, the cancellation rule and
// the draining on close are those of package group.
type committer struct {
	s *Store
	g *group.Committer[*writeReq]
	// apart counts the runs of creates that could not be inserted together and ran apart (for tests).
	apart atomic.Int64
}

func newCommitter(s *Store, maxGroup int, linger time.Duration, dueAt int) *committer {
	c := &committer{s: s}
	c.g = group.New(maxGroup, 1, c.commit, nil, group.Linger(linger, urgent), group.DueAt[*writeReq](dueAt),
		group.LingerFrom[*writeReq](2))
	return c
}

// urgent tells the writes the committer lingers for only until DueAt of them wait: creates, which an
// accepting client waits for.
func urgent(r *writeReq) bool { return r.create != nil }

// errClosed is the error of a write given to a closed Store.
var errClosed = errors.New("the store is closed")

// write queues fn and waits for its result; see the comment at the top of this file.
func (c *committer) write(ctx context.Context, op string, fn func(ctx context.Context, q *querier) error) error {
	return c.submit(ctx, &writeReq{op: op, fn: fn})
}

// submit queues req, run with ctx's values but not its cancellation, and waits for its result.
func (c *committer) submit(ctx context.Context, req *writeReq) error {
	req.ctx = context.WithoutCancel(ctx)
	err := c.g.Submit(ctx, req)
	if errors.Is(err, group.ErrClosed) {
		err = errClosed
	}
	// The errors of a write that ran are already the store's (wrap leaves them as they are); those of a
	// write never run (the caller's context, a closed store) are given the store's codes here.
	return wrap(req.op, err)
}

// close stops taking writes and waits until every queued one has been run.
func (c *committer) close() { c.g.Close() }

// commit runs one group and returns the result of each write. A single write is a plain transaction;
// several share one, each in a savepoint.
func (c *committer) commit(group []*writeReq) []error {
	results := make([]error, len(group))
	if len(group) == 1 {
		results[0] = c.alone(group[0])
		return results
	}
	err := c.s.writeTx(context.Background(), "sqlite.groupCommit", len(group), func(ctx context.Context, tx *querier) error {
		clear(results)
		for i := 0; i < len(group); {
			if n := createRun(group[i:]); n > 1 {
				done, err := c.createTogether(ctx, tx, group[i:i+n], results[i:i+n])
				if err != nil {
					return err
				}
				if done {
					i += n
					continue
				}
				// Run apart, one savepoint each.
				c.apart.Add(1)
				for k := i; k < i+n; k++ {
					if err := c.one(ctx, tx, group[k], &results[k]); err != nil {
						return err
					}
				}
				i += n
				continue
			}
			if err := c.one(ctx, tx, group[i], &results[i]); err != nil {
				return err
			}
			i++
		}
		return nil
	})
	if err == nil {
		for i, r := range group {
			if r.create != nil && results[i] == nil {
				sqlstore.SetJobIDs(r.create.r.Reference, r.create.jobs, r.create.ids)
			}
		}
	}
	if err != nil {
		// The group transaction itself failed (its commit, or the database broke under a write): nothing of
		// it was written. Run each write alone, so that each gets the outcome of its own transaction.
		for i, r := range group {
			results[i] = c.alone(r)
		}
	}
	return results
}

// alone runs one write in its own transaction.
func (c *committer) alone(r *writeReq) error {
	err := c.s.writeTx(r.ctx, r.op, 1, r.fn)
	if err == nil && r.create != nil {
		sqlstore.SetJobIDs(r.create.r.Reference, r.create.jobs, r.create.ids)
	}
	return err
}

// one runs a write of a group under its own savepoint, setting its result; the error returned is the
// group transaction's (a savepoint that could not be rolled back or released).
func (c *committer) one(ctx context.Context, tx *querier, r *writeReq, result *error) error {
	if _, err := tx.Exec(ctx, `SAVEPOINT w`); err != nil {
		return err
	}
	if *result = r.fn(r.ctx, tx); *result != nil {
		*result = wrap(r.op, *result)
		if _, err := tx.Exec(ctx, `ROLLBACK TO w`); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, `RELEASE w`)
	return err
}

// maxCreateRun bounds the creates inserted together: their values stay well under SQLite's limit of 32,766
// bound parameters in one statement.
const maxCreateRun = 512

// createRun is the number of creates of distinct references at the head of group (at most maxCreateRun).
func createRun(group []*writeReq) int {
	seen := map[string]bool{}
	n := 0
	for _, r := range group {
		// A record created with Merkle paths (tests, imports) is inserted alone, paths and all (InsertValues).
		if r.create == nil || sqlstore.HasPaths(r.create.r) || seen[r.create.r.Reference] || n == maxCreateRun {
			break
		}
		seen[r.create.r.Reference] = true
		n++
	}
	return n
}

// createTogether inserts creates of distinct references under one savepoint with multi-row statements,
// setting each one's result (nil, or ECONFLICT for a reference that exists). When anything else fails, it
// rolls the savepoint back and returns done false, for the creates to run apart; the error returned is the
// group transaction's.
func (c *committer) createTogether(ctx context.Context, tx *querier, run []*writeReq, results []error) (bool, error) {
	if _, err := tx.Exec(ctx, `SAVEPOINT c`); err != nil {
		return false, err
	}
	err := c.insertCreates(ctx, tx, run, results)
	if err != nil {
		clear(results)
		if _, err := tx.Exec(ctx, `ROLLBACK TO c`); err != nil {
			return false, err
		}
	}
	if _, err := tx.Exec(ctx, `RELEASE c`); err != nil {
		return false, err
	}
	return err == nil, nil
}

// The multi-row statements of a run, by chunk size (sqlstore.Chunks): each is prepared once on the writer
// and reused by every group; preparing a statement whose text changed with the group's size was a tenth of
// the committer's CPU.
var (
	recordRows  = sqlstore.NewChunkTexts(sqlstore.InsertRecordRows)
	stateRows   = sqlstore.NewChunkTexts(sqlstore.InsertStateRows)
	payloadRows = sqlstore.NewChunkTexts(sqlstore.InsertPayloadRows)
)

// insertCreates is createTogether's statements: the records, then the states and payloads of those that were
// new, then their jobs, each by chunks.
func (c *committer) insertCreates(ctx context.Context, tx *querier, run []*writeReq, results []error) error {
	inserted := make(map[string]int64, len(run)) // the seqs of the records inserted, by reference
	var args []any
	at := 0
	for _, n := range sqlstore.Chunks(len(run)) {
		args = args[:0]
		for _, r := range run[at : at+n] {
			args = sqlstore.AppendFactValues(args, r.create.vals)
		}
		at += n
		rows, err := tx.Query(ctx, recordRows.Text(n), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var ref string
			var seq int64
			if err := rows.Scan(&ref, &seq); err != nil {
				rows.Close()
				return err
			}
			inserted[ref] = seq
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	var fresh []*writeReq // the new records, whose states, payloads and jobs follow
	for i, r := range run {
		seq, ok := inserted[r.create.r.Reference]
		if !ok {
			results[i] = sqlstore.Conflict(r.op, "record %s already exists", r.create.r.Reference)
			continue
		}
		r.create.seq = seq
		fresh = append(fresh, r)
	}
	at = 0
	for _, n := range sqlstore.Chunks(len(fresh)) {
		args = args[:0]
		for _, r := range fresh[at : at+n] {
			args = sqlstore.AppendStateValues(args, r.create.seq, r.create.vals)
		}
		at += n
		if _, err := tx.Exec(ctx, stateRows.Text(n), args...); err != nil {
			return err
		}
	}
	args = args[:0]
	for _, r := range fresh {
		if r.create.payload != nil {
			args = append(args, r.create.seq, r.create.payload)
		}
	}
	for rest := args; len(rest) > 0; {
		n := sqlstore.Chunks(len(rest) / 2)[0]
		if _, err := tx.Exec(ctx, payloadRows.Text(n), rest[:2*n]...); err != nil {
			return err
		}
		rest = rest[2*n:]
	}
	at = 0
	for _, n := range sqlstore.Chunks(len(fresh)) {
		part := fresh[at : at+n]
		at += n
		if ok, err := c.insertJobsTogether(ctx, tx, part); ok || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		// Two jobs of one reference and kind (their ids cannot be told apart by what the multi-row INSERT
		// returns), or a job of another record: each job is inserted by its own statement.
		for _, r := range part {
			var err error
			if r.create.ids, err = c.s.InsertJobs(r.ctx, tx, r.create.r.Reference, r.create.seq, r.create.jobs); err != nil {
				return err
			}
		}
	}
	return nil
}

// insertJobsTogether inserts the jobs of new records with one multi-row INSERT (sqlstore.JobsTogether) and
// gives each its id. It returns false, having inserted nothing, when two of the jobs share a reference and
// kind, or one is of another record.
func (c *committer) insertJobsTogether(ctx context.Context, tx *querier, fresh []*writeReq) (bool, error) {
	b := c.s.JobsTogether()
	for _, r := range fresh {
		r.create.ids = make([]int64, len(r.create.jobs))
		b.Add(r.create.r.Reference, r.create.seq, r.create.jobs, r.create.ids)
	}
	query, args, ok := b.Query()
	if !ok || query == "" {
		return ok, nil
	}
	// Its text is one per number of jobs: with one job per record, as the API creates them, the chunks'.
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	return true, b.Match(rows)
}

// CreateRecord inserts the record, its payload and its first jobs in one transaction, so a record never
// exists without the job that moves it on. A job with no Reference is given the record's; each job's ID is
// set once the transaction has committed. With group commit, concurrent creates are inserted together (see
// the top of group.go).
func (s *Store) CreateRecord(ctx context.Context, r *seald.Record, payload []byte, jobs ...*seald.Job) error {
	if s.group == nil {
		return s.Store.CreateRecord(ctx, r, payload, jobs...)
	}
	req, err := s.createWrite(r, payload, jobs)
	if err != nil {
		return wrap(opCreate, err)
	}
	return s.group.submit(ctx, req)
}

// createWrite is the group's write of a CreateRecord: fn inserts it alone, create lets a group insert it
// with others.
func (s *Store) createWrite(r *seald.Record, payload []byte, jobs []*seald.Job) (*writeReq, error) {
	vals, err := s.RecordValues(r)
	if err != nil {
		return nil, err
	}
	cr := &createReq{r: r, vals: vals, payload: payload, jobs: jobs}
	return &writeReq{op: opCreate, create: cr, fn: func(ctx context.Context, q *querier) error {
		var err error
		cr.ids, err = s.InsertValues(ctx, q, opCreate, r, vals, payload, jobs)
		return err
	}}, nil
}

// opCreate names CreateRecord in errors, as the shared SQL does.
const opCreate = "sqlite.CreateRecord"
