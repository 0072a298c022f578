package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"seald.dev/seald"
)

// Jobs are found by their record's seq (the record's sequential row id, jobs_record), not by its random
// reference: the index entry of a new job lands on the last page of the index instead of a random one
// (docs/architecture.md, "Where a seal's rows land"). jobs.reference stays, unindexed, for what reads a job.
const (
	// insertJobOf inserts one job of the record of a known seq and returns its id.
	insertJobOf = `INSERT INTO jobs (kind, reference, record_seq, attempts, run_at, leased_until, last_error)
	VALUES (?, ?, ?, ?, ?, NULL, ?) RETURNING id`
	// insertJobByReference inserts one job, finding its record's seq by reference, and returns its id; it
	// inserts nothing (no row returned) when no record has the reference.
	insertJobByReference = `INSERT INTO jobs (kind, reference, record_seq, attempts, run_at, leased_until, last_error)
	SELECT ?, reference, seq, ?, ?, NULL, ? FROM record_facts WHERE reference = ? RETURNING id`
)

// JobInsert is the INSERT of job j, given the reference of the record it belongs to when j names none and
// that record's seq (0: not known), with its arguments; it returns the job's id. A job of another record, or
// of a record whose seq is not known, finds the seq by reference, and a record that does not exist inserts
// nothing, which InsertJobs reports as ENOTFOUND.
func (s *Store) JobInsert(j *seald.Job, reference string, seq int64) (query string, args []any) {
	if j.Reference != "" && j.Reference != reference {
		reference, seq = j.Reference, 0
	}
	if seq == 0 {
		return insertJobByReference, []any{j.Kind, j.Attempts, s.D.Time(j.RunAt), j.LastError, reference}
	}
	return insertJobOf, []any{j.Kind, reference, seq, j.Attempts, s.D.Time(j.RunAt), j.LastError}
}

// InsertJobs inserts jobs, giving those with no Reference the record's, and returns their new ids; seq is
// the record's (0: not known, found by reference). A job whose record does not exist is ENOTFOUND.
func (s *Store) InsertJobs(ctx context.Context, q Querier, reference string, seq int64, jobs []*seald.Job) ([]int64, error) {
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		query, args := s.JobInsert(j, reference, seq)
		err := q.QueryRow(ctx, query, args...).Scan(&ids[i])
		if errors.Is(err, sql.ErrNoRows) {
			return nil, NotFound(s.op("InsertJobs"), "no record %s for a %s job", cmp.Or(j.Reference, reference), j.Kind)
		}
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// SetJobIDs records in the caller's jobs what the committed transaction stored.
func SetJobIDs(reference string, jobs []*seald.Job, ids []int64) {
	for i, j := range jobs {
		j.ID, j.LeasedUntil = ids[i], time.Time{}
		if j.Reference == "" {
			j.Reference = reference
		}
	}
}

const jobColumns = `id, kind, reference, attempts, run_at, leased_until, last_error, failing_since`

func scanJob(row Row) (*seald.Job, error) {
	var j seald.Job
	var leased, failing *time.Time
	if err := row.Scan(&j.ID, &j.Kind, &j.Reference, &j.Attempts, Time{T: &j.RunAt}, Time{Null: &leased}, &j.LastError,
		Time{Null: &failing}); err != nil {
		return nil, err
	}
	if leased != nil {
		j.LeasedUntil = *leased
	}
	if failing != nil {
		j.FailingSince = *failing
	}
	return &j, nil
}

// ClaimJobs leases up to limit due jobs of the given kinds, kind by kind in the order given (the caller's
// priority: the pipeline puts later stages first, so that records already anchored finish while a backlog
// of store jobs waits), earliest first within a kind, in one transaction: SQLite's writer lock, or
// PostgreSQL's row locks skipped by other claimers, make the choice and the lease atomic across processes.
// jobs_kind_run_at serves each kind's select as one range scan. No kinds, or a limit below 1, claims nothing.
func (s *Store) ClaimJobs(ctx context.Context, kinds []string, limit int, now time.Time, lease time.Duration) ([]*seald.Job, error) {
	if len(kinds) == 0 || limit < 1 {
		return []*seald.Job{}, nil
	}
	kinds = distinct(kinds)
	claim := `UPDATE jobs SET leased_until = ? WHERE id IN (
		SELECT id FROM jobs WHERE kind = ? AND run_at <= ? AND (leased_until IS NULL OR leased_until <= ?)
		ORDER BY run_at, id LIMIT ? ` + s.D.ClaimLock + `)
	RETURNING ` + jobColumns + `, record_seq`
	var jobs []*seald.Job
	err := s.E.Write(ctx, s.op("ClaimJobs"), func(ctx context.Context, q Querier) error {
		jobs = []*seald.Job{}
		seqs := map[string]int64{} // the claimed jobs' records: their seqs by reference
		for _, kind := range kinds {
			if len(jobs) == limit {
				break
			}
			rows, err := q.Query(ctx, claim, s.D.Time(now.Add(lease)), kind, s.D.Time(now), s.D.Time(now), limit-len(jobs))
			if err != nil {
				return err
			}
			got, err := collect(rows, func(row Row) (*seald.Job, error) {
				var seq int64
				j, err := scanJob(scanAlso{row, []any{&seq}})
				if err == nil {
					seqs[j.Reference] = seq
				}
				return j, err
			})
			if err != nil {
				return err
			}
			// RETURNING gives no order.
			sort.Slice(got, func(a, b int) bool {
				if !got[a].RunAt.Equal(got[b].RunAt) {
					return got[a].RunAt.Before(got[b].RunAt)
				}
				return got[a].ID < got[b].ID
			})
			jobs = append(jobs, got...)
		}
		return s.claimRecords(ctx, q, jobs, seqs)
	})
	if err != nil {
		return nil, err
	}
	return jobs, nil
}

// claimedRecords reads the records of the claimed jobs and any payload they keep, by the records' seqs (their
// primary keys: no lookup in the index of references); the IN list is completed by claimRecords.
var claimedRecords = `SELECT records.` + strings.Join(RecordColumns, `, records.`) + `, ` + strings.Join(pathColumns, `, `) +
	`, payloads.seq, payloads.data FROM records` + withPaths + `LEFT JOIN payloads ON payloads.seq = records.seq
	WHERE records.seq IN (?`

// claimRecords gives each claimed job its record (Job.Record) and, for a store job, the payload its record
// keeps (Job.Payload), read in the claim's transaction with one query: the runner the job goes to read them
// itself, one query each, at once, and those reads were a tenth of the embedded pipeline's CPU (issue #33).
// They are as fresh as that read was: the pipeline runs a job about one step after its claim (it claims
// ahead of its runners by one job each), and each step's save holds only while the record is in the state the
// step saw (RecordUpdate.When).
// The payload is read for every reference and kept only on store jobs: the other kinds rarely find one (the
// store step drops it), and one IN list keeps the query simple. The list (of the records' seqs, which the
// claim returned) is padded to a power of two with its last seq, so that the stores' statement caches hold a
// handful of queries, not one per claim size. A job whose record is missing gets none; its runner then finds
// that out as before.
func (s *Store) claimRecords(ctx context.Context, q Querier, jobs []*seald.Job, seqs map[string]int64) error {
	if len(jobs) == 0 {
		return nil
	}
	keys := make([]any, 0, len(jobs))
	seen := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		if !seen[j.Reference] {
			seen[j.Reference] = true
			keys = append(keys, seqs[j.Reference])
		}
	}
	for len(keys)&(len(keys)-1) != 0 {
		keys = append(keys, keys[len(keys)-1])
	}
	rows, err := q.Query(ctx, claimedRecords+strings.Repeat(`, ?`, len(keys)-1)+`)`, keys...)
	if err != nil {
		return err
	}
	type read struct {
		r       *seald.Record
		payload []byte // nil: none kept
	}
	got, err := collect(rows, func(row Row) (read, error) {
		var k read
		var kept *int64
		var err error
		k.r, err = scanRecord(scanAlso{row, []any{&kept, &k.payload}})
		if kept != nil && k.payload == nil {
			k.payload = []byte{} // an empty payload is kept all the same, as Payload says
		}
		return k, err
	})
	if err != nil {
		return err
	}
	byRef := make(map[string]read, len(got))
	for _, k := range got {
		byRef[k.r.Reference] = k
	}
	for _, j := range jobs {
		k, ok := byRef[j.Reference]
		if !ok {
			continue
		}
		// Jobs of one record get a copy each: steps only read their record, but run side by side.
		r := *k.r
		j.Record = &r
		if j.Kind == seald.JobStore {
			j.Payload = k.payload
		}
	}
	return nil
}

// scanAlso scans a row into its destinations, then into also: the columns a query adds after a scanner's.
type scanAlso struct {
	Row
	also []any
}

func (r scanAlso) Scan(dest ...any) error { return r.Row.Scan(append(dest, r.also...)...) }

// distinct returns kinds without repeats, in their first order: a kind named twice would otherwise be
// claimed twice when the lease is zero.
func distinct(kinds []string) []string {
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// ownJob runs a statement on the job that must match it only while it is still the caller's: it ends with
// "WHERE id = ? AND <SameLease>", whose parameters follow args. It returns ECONFLICT otherwise: the job is
// gone (another worker finished it) or it was leased again after the caller's lease ran out, and either way
// the caller's result must not be saved.
func (s *Store) ownJob(ctx context.Context, q Querier, op string, j *seald.Job, query string, args ...any) error {
	var lease any
	if !j.LeasedUntil.IsZero() {
		lease = s.D.Time(j.LeasedUntil)
	}
	n, err := q.Exec(ctx, query+` WHERE id = ? AND `+s.D.SameLease, append(args, j.ID, lease)...)
	if err != nil || n > 0 {
		return err
	}
	if found, err := exists(ctx, q, "jobs", j.ID); err != nil || !found {
		return cmp.Or(err, Conflict(op, "job %d no longer exists", j.ID))
	}
	return Conflict(op, "job %d was leased again after this lease ended", j.ID)
}

// CompleteJob applies u to the job's record (when u is not nil), drops its payload when dropPayload, deletes
// the job and inserts the next jobs, in one transaction. The job must still be the caller's (same id and
// lease as ClaimJobs gave), so a worker whose lease ran out cannot overwrite the work of the worker that took
// the job over, and the record must still be in u.When; otherwise it is ECONFLICT and nothing changes.
func (s *Store) CompleteJob(ctx context.Context, j *seald.Job, u *seald.RecordUpdate, dropPayload bool, next ...*seald.Job) error {
	op := s.op("CompleteJob")
	c := seald.Completion{Job: j, Update: u, DropPayload: dropPayload, Next: next}
	var ids []int64
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) (err error) {
		ids, err = s.completeJob(ctx, q, op, c)
		return err
	})
	if err != nil {
		return err
	}
	SetJobIDs(j.Reference, next, ids)
	return nil
}

// CompleteJobs does the CompleteJob of each completion (seald.JobsTogether): all in one transaction while
// each applies. When one does not (its job is no longer the caller's, its record moved on) or the
// transaction fails, nothing of it stays and each completion runs again alone, so that each gets its own
// outcome; that is rare (a lease that ran out, an erasure during a step), so the common case pays no
// savepoint per job.
func (s *Store) CompleteJobs(ctx context.Context, cs []seald.Completion) []error {
	errs := make([]error, len(cs))
	if len(cs) == 0 {
		return errs
	}
	op := s.op("CompleteJobs")
	ids := make([][]int64, len(cs))
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		for i, c := range cs {
			var err error
			if ids[i], err = s.completeJob(ctx, q, op, c); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		for i, c := range cs {
			SetJobIDs(c.Job.Reference, c.Next, ids[i])
		}
		return errs
	}
	for i, c := range cs {
		errs[i] = s.CompleteJob(ctx, c.Job, c.Update, c.DropPayload, c.Next...)
	}
	return errs
}

// completeJob writes one completion in q and returns the ids of its next jobs.
func (s *Store) completeJob(ctx context.Context, q Querier, op string, c seald.Completion) ([]int64, error) {
	j, u := c.Job, c.Update
	if err := s.ownJob(ctx, q, op, j, `DELETE FROM jobs`); err != nil {
		return nil, err
	}
	if u != nil {
		if err := s.updateRecord(ctx, q, op, j.Reference, u); err != nil {
			return nil, err
		}
		if err := s.insertEvent(ctx, q, u.Event); err != nil {
			return nil, err
		}
	}
	if c.DropPayload {
		if _, err := q.Exec(ctx, `DELETE FROM payloads WHERE seq = `+seqOfReference,
			j.Reference); err != nil {
			return nil, err
		}
	}
	return s.InsertJobs(ctx, q, j.Reference, 0, c.Next)
}

// RetryJob saves the job's attempts, last error, failing time and next run, releases its lease, and sets
// the record's error type and message, in one transaction; ECONFLICT when the job is no longer the caller's.
func (s *Store) RetryJob(ctx context.Context, j *seald.Job, errorType, errorMessage string) error {
	op := s.op("RetryJob")
	var failing any
	if !j.FailingSince.IsZero() {
		failing = s.D.Time(j.FailingSince)
	}
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		if err := s.ownJob(ctx, q, op, j, `UPDATE jobs SET attempts = ?, last_error = ?, run_at = ?, leased_until = NULL,
			failing_since = ?`, j.Attempts, j.LastError, s.D.Time(j.RunAt), failing); err != nil {
			return err
		}
		_, err := q.Exec(ctx, `UPDATE record_states SET error_type = ?, error_message = ?
			WHERE seq = `+seqOfReference,
			errorType, errorMessage, j.Reference)
		return err
	})
	if err != nil {
		return err
	}
	j.LeasedUntil = time.Time{}
	return nil
}

// FailJob deletes the job and sets the record's error type and message and, unless state is empty, its
// state and the time it reached it (now), and saves the webhook event ev (when not nil), in one transaction;
// ECONFLICT when the job is no longer the caller's.
func (s *Store) FailJob(ctx context.Context, j *seald.Job, state seald.State, errorType, errorMessage string, ev *seald.Event, now time.Time) error {
	op := s.op("FailJob")
	set, args := `error_type = ?, error_message = ?`, []any{errorType, errorMessage}
	if state != "" {
		set += `, state = ?`
		args = append(args, string(state))
		if c := reachedColumn(state); c != "" {
			set += `, ` + c + ` = ?`
			args = append(args, s.D.Time(now))
		}
	}
	args = append(args, j.Reference)
	return s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		if err := s.ownJob(ctx, q, op, j, `DELETE FROM jobs`); err != nil {
			return err
		}
		if _, err := q.Exec(ctx, `UPDATE record_states SET `+set+` WHERE seq = `+seqOfReference,
			args...); err != nil {
			return err
		}
		return s.insertEvent(ctx, q, ev)
	})
}

// exists tells whether a table has a row of the id.
func exists(ctx context.Context, q Querier, table string, id int64) (bool, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE id = ?`, id).Scan(&n)
	return n > 0, err
}

// ReleaseLeases frees every job and webhook delivery lease: on an embedded store the process starting is the
// only one, so any lease left is from a process that died.
func (s *Store) ReleaseLeases(ctx context.Context) error {
	return s.E.Write(ctx, s.op("ReleaseLeases"), func(ctx context.Context, q Querier) error {
		if _, err := q.Exec(ctx, `UPDATE jobs SET leased_until = NULL WHERE leased_until IS NOT NULL`); err != nil {
			return err
		}
		_, err := q.Exec(ctx, `UPDATE webhook_deliveries SET leased_until = NULL WHERE leased_until IS NOT NULL`)
		return err
	})
}

// CountJobs counts the jobs of each kind; kinds with no job are absent.
func (s *Store) CountJobs(ctx context.Context) (map[string]int, error) {
	type count struct {
		kind string
		n    int
	}
	counts, err := list(ctx, s, s.op("CountJobs"), func(row Row) (c count, err error) {
		err = row.Scan(&c.kind, &c.n)
		return c, err
	}, `SELECT kind, count(*) FROM jobs GROUP BY kind`)
	if err != nil {
		return nil, err
	}
	m := make(map[string]int, len(counts))
	for _, c := range counts {
		m[c.kind] = c.n
	}
	return m, nil
}

// OldestFailing returns, for each kind with a failed job, the earliest time one of its jobs began failing.
func (s *Store) OldestFailing(ctx context.Context) (map[string]time.Time, error) {
	type oldest struct {
		kind string
		at   time.Time
	}
	rows, err := list(ctx, s, s.op("OldestFailing"), func(row Row) (o oldest, err error) {
		err = row.Scan(&o.kind, Time{T: &o.at})
		return o, err
	}, `SELECT kind, min(failing_since) FROM jobs WHERE failing_since IS NOT NULL GROUP BY kind`)
	if err != nil {
		return nil, err
	}
	m := make(map[string]time.Time, len(rows))
	for _, o := range rows {
		m[o.kind] = o.at
	}
	return m, nil
}

// RequeueJob inserts j unless its record already has a job of its kind, in one transaction.
func (s *Store) RequeueJob(ctx context.Context, j *seald.Job) (bool, error) {
	op := s.op("RequeueJob")
	var ids []int64
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		// jobs_record finds the record's jobs; a record that does not exist is the insert's ENOTFOUND.
		var seq int64
		var n int
		err := q.QueryRow(ctx, `SELECT seq, (SELECT count(*) FROM jobs WHERE record_seq = record_facts.seq AND kind = ?)
			FROM record_facts WHERE reference = ?`, j.Kind, j.Reference).Scan(&seq, &n)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if n > 0 {
			return nil
		}
		ids, err = s.InsertJobs(ctx, q, j.Reference, seq, []*seald.Job{j})
		return err
	})
	if err != nil || ids == nil {
		return false, err
	}
	SetJobIDs(j.Reference, []*seald.Job{j}, ids)
	return true, nil
}

// JobsTogether is one multi-row INSERT of the first jobs of several new records, as both stores' group
// commits run it, and gives each job its id: matched by the reference and kind the INSERT returns, since
// neither database promises the rows in the order of the values. Two jobs that share a reference and kind
// cannot be told apart that way, and a job of another record than the one it was added with has no seq
// known; then Query says so and the caller inserts them one by one (InsertJobs).
type JobsTogether struct {
	s     *Store
	q     strings.Builder
	args  []any
	slot  map[jobKey]*int64
	apart bool
}

type jobKey struct{ reference, kind string }

// JobsTogether starts an empty multi-row INSERT of jobs.
func (s *Store) JobsTogether() *JobsTogether { return &JobsTogether{s: s, slot: map[jobKey]*int64{}} }

// Add adds the jobs of the record of reference and seq, whose ids are to go in ids (of the same length),
// given the record's reference to those with none.
func (b *JobsTogether) Add(reference string, seq int64, jobs []*seald.Job, ids []int64) {
	for k, j := range jobs {
		query, vals := b.s.JobInsert(j, reference, seq)
		if query != insertJobOf {
			b.apart = true // another record's job, whose seq is not known here
			continue
		}
		key := jobKey{vals[1].(string), j.Kind}
		if b.slot[key] != nil {
			b.apart = true
		}
		b.slot[key] = &ids[k]
		if len(b.args) == 0 {
			b.q.WriteString(`INSERT INTO jobs (kind, reference, record_seq, attempts, run_at, leased_until, last_error) VALUES `)
		} else {
			b.q.WriteString(`, `)
		}
		b.q.WriteString(`(?, ?, ?, ?, ?, NULL, ?)`)
		b.args = append(b.args, vals...)
	}
}

// Query is the INSERT (with ? placeholders) and its arguments; ok is false when two jobs added share a
// reference and kind, or one names another record than its own, and query is empty when no job was added.
func (b *JobsTogether) Query() (query string, args []any, ok bool) {
	if b.apart {
		return "", nil, false
	}
	if len(b.args) == 0 {
		return "", nil, true
	}
	return b.q.String() + ` RETURNING id, reference, kind`, b.args, true
}

// Match reads the rows the INSERT returned into the ids given to Add: every job added must come back once.
func (b *JobsTogether) Match(rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}) error {
	n := 0
	for rows.Next() {
		var id int64
		var key jobKey
		if err := rows.Scan(&id, &key.reference, &key.kind); err != nil {
			return err
		}
		p := b.slot[key]
		if p == nil {
			return fmt.Errorf("the jobs' INSERT returned a job of %s %s that was not inserted", key.reference, key.kind)
		}
		*p = id
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n != len(b.slot) {
		return fmt.Errorf("the jobs' INSERT returned %d rows for %d jobs", n, len(b.slot))
	}
	return nil
}
