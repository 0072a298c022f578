package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"sort"
	"time"

	"seald"
)

// insertJobs inserts jobs, giving those with no Reference the record's, and returns their new ids.
func insertJobs(ctx context.Context, tx *wtx, reference string, jobs []*seald.Job) ([]int64, error) {
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ref := j.Reference
		if ref == "" {
			ref = reference
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO jobs (kind, reference, attempts, run_at, leased_until, last_error)
			VALUES (?, ?, ?, ?, NULL, ?)`, j.Kind, ref, j.Attempts, millis(j.RunAt), j.LastError)
		if err != nil {
			return nil, err
		}
		if ids[i], err = res.LastInsertId(); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// setJobIDs records in the caller's jobs what the committed transaction stored.
func setJobIDs(reference string, jobs []*seald.Job, ids []int64) {
	for i, j := range jobs {
		j.ID, j.LeasedUntil = ids[i], time.Time{}
		if j.Reference == "" {
			j.Reference = reference
		}
	}
}

// claimKindSQL leases the due jobs of one kind, earliest first, up to a limit; jobs_kind_run_at serves it as
// one range scan.
const claimKindSQL = `UPDATE jobs SET leased_until = ? WHERE id IN (
		SELECT id FROM jobs WHERE kind = ? AND run_at <= ? AND (leased_until IS NULL OR leased_until <= ?)
		ORDER BY run_at, id LIMIT ?)
	RETURNING id, kind, reference, attempts, run_at, leased_until, last_error`

// ClaimJobs leases up to limit due jobs of the given kinds, kind by kind in the order given (the caller's
// priority: the pipeline puts later stages first, so that records already anchored finish while a backlog
// of store jobs waits), earliest first within a kind. Every kind's statement runs in one write transaction:
// the writer lock makes the choice and the lease atomic, across processes too. No kinds, or a limit below
// 1, claims nothing.
func (s *Store) ClaimJobs(ctx context.Context, kinds []string, limit int, now time.Time, lease time.Duration) ([]*seald.Job, error) {
	const op = "sqlite.ClaimJobs"
	if len(kinds) == 0 || limit < 1 {
		return []*seald.Job{}, nil
	}
	kinds = distinct(kinds)
	var jobs []*seald.Job
	err := s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		jobs = []*seald.Job{}
		for _, kind := range kinds {
			if len(jobs) == limit {
				break
			}
			got, err := claimKind(ctx, tx, kind, limit-len(jobs), now, lease)
			if err != nil {
				return err
			}
			jobs = append(jobs, got...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return jobs, nil
}

// claimKind leases up to limit due jobs of one kind and returns them earliest first.
func claimKind(ctx context.Context, tx *wtx, kind string, limit int, now time.Time, lease time.Duration) ([]*seald.Job, error) {
	st, err := tx.stmt(ctx, claimKindSQL)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, millis(now.Add(lease)), kind, millis(now), millis(now), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var jobs []*seald.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// RETURNING gives no order.
	sort.Slice(jobs, func(a, b int) bool {
		if !jobs[a].RunAt.Equal(jobs[b].RunAt) {
			return jobs[a].RunAt.Before(jobs[b].RunAt)
		}
		return jobs[a].ID < jobs[b].ID
	})
	return jobs, nil
}

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

func scanJob(sc scanner) (*seald.Job, error) {
	var j seald.Job
	var runAt int64
	var leased sql.NullInt64
	if err := sc.Scan(&j.ID, &j.Kind, &j.Reference, &j.Attempts, &runAt, &leased, &j.LastError); err != nil {
		return nil, err
	}
	j.RunAt = fromMillis(runAt)
	if leased.Valid {
		j.LeasedUntil = fromMillis(leased.Int64)
	}
	return &j, nil
}

// leaseArg is the stored form of a job's lease: NULL when it is not leased.
func leaseArg(j *seald.Job) any {
	if j.LeasedUntil.IsZero() {
		return nil
	}
	return millis(j.LeasedUntil)
}

// staleJob explains why a job is no longer the caller's: it is gone (another worker finished it) or it was
// leased again after the caller's lease ran out. Either way the caller's result must not be saved.
func staleJob(ctx context.Context, tx *wtx, op string, j *seald.Job) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE id = ?`, j.ID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return conflict(op, "job %d no longer exists", j.ID)
	}
	return conflict(op, "job %d was leased again after this lease ended", j.ID)
}

// ownJob runs a statement on the job that must match it only while it is still the caller's: its last two
// parameters are the job's id and lease (NULL for none), after args. It returns ECONFLICT otherwise.
func ownJob(ctx context.Context, tx *wtx, op string, j *seald.Job, query string, args ...any) error {
	res, err := tx.ExecContext(ctx, query, append(args, j.ID, leaseArg(j))...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return staleJob(ctx, tx, op, j)
	}
	return nil
}

// CompleteJob saves the record (when r is not nil), drops its payload when dropPayload, deletes the job and
// inserts the next jobs, in one transaction. The job must still be the caller's (same id and lease as
// ClaimJobs gave); otherwise it is ECONFLICT and nothing changes, so a worker whose lease ran out cannot
// overwrite the work of the worker that took the job over.
func (s *Store) CompleteJob(ctx context.Context, j *seald.Job, r *seald.Record, dropPayload bool, next ...*seald.Job) error {
	const op = "sqlite.CompleteJob"
	var ids []int64
	err := s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		if err := ownJob(ctx, tx, op, j, `DELETE FROM jobs WHERE id = ? AND leased_until IS ?`); err != nil {
			return err
		}
		if r != nil {
			if err := saveRecord(ctx, tx, op, r); err != nil {
				return err
			}
		}
		if dropPayload {
			if _, err := tx.ExecContext(ctx, `DELETE FROM payloads WHERE reference = ?`, j.Reference); err != nil {
				return err
			}
		}
		var err error
		ids, err = insertJobs(ctx, tx, j.Reference, next)
		return err
	})
	if err != nil {
		return err
	}
	setJobIDs(j.Reference, next, ids)
	return nil
}

// RetryJob saves the job's attempts, last error and next run, releases its lease, and sets the record's
// error type and message, in one transaction; ECONFLICT when the job is no longer the caller's.
func (s *Store) RetryJob(ctx context.Context, j *seald.Job, errorType, errorMessage string) error {
	const op = "sqlite.RetryJob"
	err := s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		if err := ownJob(ctx, tx, op, j, `UPDATE jobs SET attempts = ?, last_error = ?, run_at = ?, leased_until = NULL
			WHERE id = ? AND leased_until IS ?`, j.Attempts, j.LastError, millis(j.RunAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE records SET error_type = ?, error_message = ? WHERE reference = ?`,
			errorType, errorMessage, j.Reference)
		return err
	})
	if err != nil {
		return err
	}
	j.LeasedUntil = time.Time{}
	return nil
}

// FailJob deletes the job and sets the record's state, error type and message, in one transaction;
// ECONFLICT when the job is no longer the caller's.
func (s *Store) FailJob(ctx context.Context, j *seald.Job, state seald.State, errorType, errorMessage string) error {
	const op = "sqlite.FailJob"
	return s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		if err := ownJob(ctx, tx, op, j, `DELETE FROM jobs WHERE id = ? AND leased_until IS ?`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE records SET state = ?, error_type = ?, error_message = ? WHERE reference = ?`,
			string(state), errorType, errorMessage, j.Reference)
		return err
	})
}

// ReleaseLeases frees every job lease: on an embedded store the process starting is the only one, so any
// lease left is from a process that died.
func (s *Store) ReleaseLeases(ctx context.Context) error {
	return s.write(ctx, "sqlite.ReleaseLeases", func(ctx context.Context, tx *wtx) error {
		_, err := tx.ExecContext(ctx, `UPDATE jobs SET leased_until = NULL WHERE leased_until IS NOT NULL`)
		return err
	})
}

// CountJobs counts the jobs of each kind; kinds with no job are absent.
func (s *Store) CountJobs(ctx context.Context) (map[string]int, error) {
	const op = "sqlite.CountJobs"
	rows, err := s.qrows(ctx, `SELECT kind, count(*) FROM jobs GROUP BY kind`)
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var kind string
		var n int
		if err := rows.Scan(&kind, &n); err != nil {
			return nil, wrap(op, err)
		}
		counts[kind] = n
	}
	return counts, wrap(op, rows.Err())
}
