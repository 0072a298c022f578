package postgres

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"seald"
)

// insertJobSQL inserts one job and returns its id.
const insertJobSQL = `INSERT INTO jobs (kind, reference, attempts, run_at, leased_until, last_error)
	VALUES ($1, $2, $3, $4, NULL, $5) RETURNING id`

// insertJobs inserts jobs, giving those with no Reference the record's, and returns their new ids.
func insertJobs(ctx context.Context, tx pgx.Tx, reference string, jobs []*seald.Job) ([]int64, error) {
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ref := j.Reference
		if ref == "" {
			ref = reference
		}
		if err := tx.QueryRow(ctx, insertJobSQL, j.Kind, ref, j.Attempts, ts(j.RunAt), j.LastError).Scan(&ids[i]); err != nil {
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

const jobColumns = `id, kind, reference, attempts, run_at, leased_until, last_error`

func scanJob(row pgx.Row) (*seald.Job, error) {
	var j seald.Job
	var leased *time.Time
	if err := row.Scan(&j.ID, &j.Kind, &j.Reference, &j.Attempts, &j.RunAt, &leased, &j.LastError); err != nil {
		return nil, err
	}
	j.RunAt = j.RunAt.UTC()
	if leased != nil {
		j.LeasedUntil = leased.UTC()
	}
	return &j, nil
}

// claimKindSQL leases the due jobs of one kind, earliest first, up to a limit; jobs_kind_run_at serves it as
// one range scan. The due rows are locked with FOR UPDATE SKIP LOCKED, so instances claiming at the same
// moment pass over each other's rows instead of waiting or taking the same job.
const claimKindSQL = `WITH due AS (
		SELECT id FROM jobs
		WHERE kind = $1 AND run_at <= $2 AND (leased_until IS NULL OR leased_until <= $2)
		ORDER BY run_at, id LIMIT $3
		FOR UPDATE SKIP LOCKED)
	UPDATE jobs SET leased_until = $4 FROM due WHERE jobs.id = due.id
	RETURNING jobs.id, jobs.kind, jobs.reference, jobs.attempts, jobs.run_at, jobs.leased_until, jobs.last_error`

// ClaimJobs leases up to limit due jobs of the given kinds, kind by kind in the order given (the caller's
// priority: the pipeline puts later stages first, so that records already anchored finish while a backlog
// of store jobs waits), earliest first within a kind, in one transaction. No kinds, or a limit below 1,
// claims nothing.
func (s *Store) ClaimJobs(ctx context.Context, kinds []string, limit int, now time.Time, lease time.Duration) ([]*seald.Job, error) {
	if len(kinds) == 0 || limit < 1 {
		return []*seald.Job{}, nil
	}
	kinds = distinct(kinds)
	var jobs []*seald.Job
	err := s.tx(ctx, "postgres.ClaimJobs", func(tx pgx.Tx) error {
		jobs = []*seald.Job{}
		for _, kind := range kinds {
			if len(jobs) == limit {
				break
			}
			rows, err := tx.Query(ctx, claimKindSQL, kind, ts(now), limit-len(jobs), ts(now.Add(lease)))
			if err != nil {
				return err
			}
			got, err := collect(rows, scanJob)
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
		return nil
	})
	if err != nil {
		return nil, err
	}
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

// leaseArg is the stored form of a job's lease: NULL when it is not leased.
func leaseArg(j *seald.Job) any {
	if j.LeasedUntil.IsZero() {
		return nil
	}
	return ts(j.LeasedUntil)
}

// staleJob explains why a job is no longer the caller's: it is gone (another worker finished it) or it was
// leased again after the caller's lease ran out. Either way the caller's result must not be saved.
func staleJob(ctx context.Context, tx pgx.Tx, op string, j *seald.Job) error {
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE id = $1`, j.ID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return conflict(op, "job %d no longer exists", j.ID)
	}
	return conflict(op, "job %d was leased again after this lease ended", j.ID)
}

// ownJob runs a statement on the job that must match it only while it is still the caller's: same id, same
// lease ($2, NULL for none). It returns ECONFLICT otherwise.
func ownJob(ctx context.Context, tx pgx.Tx, op string, j *seald.Job, sql string, args ...any) error {
	tag, err := tx.Exec(ctx, sql, append([]any{j.ID, leaseArg(j)}, args...)...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return staleJob(ctx, tx, op, j)
	}
	return nil
}

// CompleteJob saves the record (when r is not nil), drops its payload when dropPayload, deletes the job and
// inserts the next jobs, in one transaction. The job must still be the caller's (same id and lease as
// ClaimJobs gave); otherwise it is ECONFLICT and nothing changes, so a worker whose lease ran out cannot
// overwrite the work of the worker that took the job over.
func (s *Store) CompleteJob(ctx context.Context, j *seald.Job, r *seald.Record, dropPayload bool, next ...*seald.Job) error {
	const op = "postgres.CompleteJob"
	var ids []int64
	err := s.tx(ctx, op, func(tx pgx.Tx) error {
		if err := ownJob(ctx, tx, op, j, `DELETE FROM jobs WHERE id = $1 AND leased_until IS NOT DISTINCT FROM $2::timestamptz`); err != nil {
			return err
		}
		if r != nil {
			if err := saveRecord(ctx, tx, op, r); err != nil {
				return err
			}
		}
		if dropPayload {
			if _, err := tx.Exec(ctx, `DELETE FROM payloads WHERE reference = $1`, j.Reference); err != nil {
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
	const op = "postgres.RetryJob"
	err := s.tx(ctx, op, func(tx pgx.Tx) error {
		if err := ownJob(ctx, tx, op, j, `UPDATE jobs SET attempts = $3, last_error = $4, run_at = $5, leased_until = NULL
			WHERE id = $1 AND leased_until IS NOT DISTINCT FROM $2::timestamptz`, j.Attempts, j.LastError, ts(j.RunAt)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE records SET error_type = $1, error_message = $2 WHERE reference = $3`,
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
	const op = "postgres.FailJob"
	return s.tx(ctx, op, func(tx pgx.Tx) error {
		if err := ownJob(ctx, tx, op, j, `DELETE FROM jobs WHERE id = $1 AND leased_until IS NOT DISTINCT FROM $2::timestamptz`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE records SET state = $1, error_type = $2, error_message = $3 WHERE reference = $4`,
			string(state), errorType, errorMessage, j.Reference)
		return err
	})
}

// ReleaseLeases frees every job lease. On a shared database other instances may hold live leases, so it is
// meant for the embedded store's single process; here it does what it says, for tests and operators.
func (s *Store) ReleaseLeases(ctx context.Context) error {
	return s.tx(ctx, "postgres.ReleaseLeases", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE jobs SET leased_until = NULL WHERE leased_until IS NOT NULL`)
		return err
	})
}

// CountJobs counts the jobs of each kind; kinds with no job are absent.
func (s *Store) CountJobs(ctx context.Context) (map[string]int, error) {
	counts := map[string]int{}
	err := s.read(ctx, "postgres.CountJobs", func(q querier) error {
		clear(counts)
		rows, err := q.Query(ctx, `SELECT kind, count(*) FROM jobs GROUP BY kind`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var kind string
			var n int
			if err := rows.Scan(&kind, &n); err != nil {
				return err
			}
			counts[kind] = n
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return counts, nil
}
