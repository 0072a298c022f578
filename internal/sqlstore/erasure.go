package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"seald.dev/seald"
)

// timeOrNil is nil for the zero time, for a nullable time column.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// EraseRecord erases a record's data (see seald.Records): the conditional update (erased_at IS NULL) makes a
// second erasure, or two at once, change nothing, and the audit entry and the job are written only by the
// transaction that erased.
func (s *Store) EraseRecord(ctx context.Context, c *seald.StatusChange, jobs ...*seald.Job) (bool, error) {
	op := s.op("EraseRecord")
	var id int64
	var ids []int64
	var status string
	var seq int64
	erased := false
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		erased, ids = false, nil
		// The mail request (recipients, subject, body) is the record's data too: it goes with the key.
		err := q.QueryRow(ctx, `UPDATE record_states SET erased_at = ?, updated_at = ?
			WHERE seq = `+seqOfReference+` AND erased_at IS NULL RETURNING status, seq`,
			s.D.Time(c.At), s.D.Time(c.At), c.Reference).Scan(&status, &seq)
		if errors.Is(err, sql.ErrNoRows) {
			var one int
			err := q.QueryRow(ctx, `SELECT 1 FROM record_facts WHERE reference = ?`, c.Reference).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return NotFound(op, "record %s not found", c.Reference)
			}
			return err // nil: already erased
		}
		if err != nil {
			return err
		}
		// record_facts keeps the erasure's time too, for its retention index (records_retention), which then
		// changes only at acceptance and erasure, never with a step.
		if _, err := q.Exec(ctx, `UPDATE record_facts SET data_key = '', password_hash = '', mail = NULL, downloadable = ?,
			erased_at = ? WHERE seq = ?`, false, s.D.Time(c.At), seq); err != nil {
			return err
		}
		// The canonical data kept for a store step that has not run is sealed under the key just cleared;
		// it goes too, so that nothing of the data is left in the database's live rows.
		if _, err := q.Exec(ctx, `DELETE FROM payloads WHERE seq = ?`, seq); err != nil {
			return err
		}
		// So is the credential kept for the record's e-mail (mailcredential.go): it holds the data as claims.
		if _, err := q.Exec(ctx, `DELETE FROM mail_credentials WHERE reference = ?`, c.Reference); err != nil {
			return err
		}
		if err := q.QueryRow(ctx, `INSERT INTO status_changes (reference, from_status, to_status, actor, reason, at, action)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, c.Reference, status, status, c.Actor, c.Reason,
			s.D.Time(c.At), seald.ActionErase).Scan(&id); err != nil {
			return err
		}
		if ids, err = s.InsertJobs(ctx, q, c.Reference, seq, jobs); err != nil {
			return err
		}
		erased = true
		return nil
	})
	if err != nil || !erased {
		return false, err
	}
	c.ID, c.From, c.To, c.Action = id, seald.Status(status), seald.Status(status), seald.ActionErase
	SetJobIDs(c.Reference, jobs, ids)
	return true, nil
}

// RetentionDue returns the references of records past their project's retention, oldest first. The cutoff of
// each project is computed here rather than in SQL, so that the query is the same in both dialects; the
// records_retention index of record_facts (project_id, created_at) WHERE erased_at IS NULL answers it per
// project.
func (s *Store) RetentionDue(ctx context.Context, now time.Time, limit int) ([]string, error) {
	op := s.op("RetentionDue")
	type project struct {
		id     string
		retain int64
	}
	projects, err := list(ctx, s, op, func(row Row) (project, error) {
		var p project
		err := row.Scan(&p.id, &p.retain)
		return p, err
	}, `SELECT project_id, retain_ms FROM projects WHERE retain_ms > 0 ORDER BY project_id`)
	if err != nil {
		return nil, err
	}
	type due struct {
		ref string
		at  time.Time
	}
	var all []due
	for _, p := range projects {
		cutoff := now.Add(-time.Duration(p.retain) * time.Millisecond)
		refs, err := list(ctx, s, op, func(row Row) (due, error) {
			var d due
			err := row.Scan(&d.ref, Time{T: &d.at})
			return d, err
		}, `SELECT reference, created_at FROM record_facts WHERE project_id = ? AND erased_at IS NULL AND created_at < ?
			ORDER BY created_at, seq LIMIT ?`, p.id, s.D.Time(cutoff), limit)
		if err != nil {
			return nil, err
		}
		all = append(all, refs...)
	}
	slices.SortStableFunc(all, func(a, b due) int { return a.at.Compare(b.at) })
	if len(all) > limit {
		all = all[:limit]
	}
	out := make([]string, len(all))
	for i, d := range all {
		out[i] = d.ref
	}
	return out, nil
}

// SetProjectRetention saves how long a project's stored copies are kept.
func (s *Store) SetProjectRetention(ctx context.Context, projectID string, retain time.Duration) error {
	op := s.op("SetProjectRetention")
	return s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		n, err := q.Exec(ctx, `UPDATE projects SET retain_ms = ? WHERE project_id = ?`, retain.Milliseconds(), projectID)
		return mustAffect(n, err, NotFound(op, "project %s not found", projectID))
	})
}

// RevokedTokens returns up to limit REVOKED records of a network in CONFIRMED batches with a token id above
// after, by token id.
func (s *Store) RevokedTokens(ctx context.Context, network string, after uint64, limit int) ([]*seald.Record, error) {
	if limit < 1 || after > 1<<63-1 {
		return []*seald.Record{}, nil
	}
	// A range of record_states_token (network, token_id), in record_states, which holds the network it indexes.
	return list(ctx, s, s.op("RevokedTokens"), scanRecord, selectRecord+`WHERE records.seq IN (SELECT seq FROM record_states
		WHERE status = ? AND network = ? AND token_id > ? AND batch_id IN (SELECT id FROM batches WHERE state = ?)
		ORDER BY token_id LIMIT ?) ORDER BY token_id`,
		string(seald.StatusRevoked), network, int64(after), string(seald.BatchConfirmed), limit)
}

// ErasedCopies returns up to limit erased records holding a CID, with a reference above after, by reference.
func (s *Store) ErasedCopies(ctx context.Context, after string, limit int) ([]*seald.Record, error) {
	if limit < 1 {
		return []*seald.Record{}, nil
	}
	return list(ctx, s, s.op("ErasedCopies"), scanRecord, selectRecord+`WHERE erased_at IS NOT NULL AND cid <> ''
		AND reference > ? ORDER BY reference LIMIT ?`, after, limit)
}
