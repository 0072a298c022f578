package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"seald"
)

// recordCols are the columns of a record, in the order of recordArgs and scanRecord.
var recordCols = []string{"reference", "pipeline", "business_id", "project_id", "network", "hash", "mime_type",
	"privacy", "status", "state", "error_type", "error_message", "cid", "encrypted_file", "token_id", "batch_id",
	"leaf", "merkle_path", "revoked_on_chain", "is_email", "is_encrypted", "is_signed", "has_password",
	"downloadable", "password_hash", "mail", "message_id", "ovi", "signature", "created_at", "updated_at"}

// unsaved are the columns a save of the record never writes: its identity, its creation, and its status,
// which only ChangeStatus moves (compare-and-set), so a worker holding an older copy cannot undo an owner's
// suspension.
var unsaved = []string{"reference", "status", "created_at"}

var (
	recordColumns = strings.Join(recordCols, ", ")
	insertRecord  = `INSERT INTO records (` + recordColumns + `) VALUES (` + placeholders(1, len(recordCols)) + `)`
	saveRecordSQL = func() string {
		var set []string
		for _, c := range recordCols {
			if !slices.Contains(unsaved, c) {
				set = append(set, fmt.Sprintf("%s = $%d", c, len(set)+1))
			}
		}
		return `UPDATE records SET ` + strings.Join(set, ", ") + fmt.Sprintf(` WHERE reference = $%d`, len(set)+1)
	}()
)

// recordArgs returns the values of recordCols for r.
func recordArgs(r *seald.Record) ([]any, error) {
	token, err := integer("token id", r.TokenID)
	if err != nil {
		return nil, err
	}
	path, err := jsonText(r.MerklePath, r.MerklePath == nil)
	if err != nil {
		return nil, err
	}
	mail, err := jsonText(r.Mail, r.Mail == nil)
	if err != nil {
		return nil, err
	}
	var tokenID, batchID any
	if token != 0 {
		tokenID = token
	}
	if r.BatchID != 0 {
		batchID = r.BatchID
	}
	return []any{r.Reference, r.Pipeline, r.BusinessID, r.ProjectID, r.Network, r.Hash, r.MimeType,
		string(r.Privacy), string(r.Status), string(r.State), r.ErrorType, r.ErrorMessage, r.CID, r.EncryptedFile,
		tokenID, batchID, r.Leaf, path, r.RevokedOnChain, r.IsEmail, r.IsEncrypted, r.IsSigned, r.HasPassword,
		r.Downloadable, r.PasswordHash, mail, r.MessageID, r.OVI, r.Signature, ts(r.CreatedAt), ts(r.UpdatedAt)}, nil
}

// jsonText encodes v as JSON text, or NULL when isNil, so that nil and empty stay apart.
func jsonText(v any, isNil bool) (any, error) {
	if isNil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func scanRecord(row pgx.Row) (*seald.Record, error) {
	var r seald.Record
	var privacy, status, state string
	var token, batch *int64
	var path, mail *string
	if err := row.Scan(&r.Reference, &r.Pipeline, &r.BusinessID, &r.ProjectID, &r.Network, &r.Hash, &r.MimeType,
		&privacy, &status, &state, &r.ErrorType, &r.ErrorMessage, &r.CID, &r.EncryptedFile, &token, &batch, &r.Leaf,
		&path, &r.RevokedOnChain, &r.IsEmail, &r.IsEncrypted, &r.IsSigned, &r.HasPassword, &r.Downloadable,
		&r.PasswordHash, &mail, &r.MessageID, &r.OVI, &r.Signature, &r.CreatedAt, &r.UpdatedAt); err != nil {
		return nil, err
	}
	r.Privacy, r.Status, r.State = seald.Privacy(privacy), seald.Status(status), seald.State(state)
	if token != nil {
		r.TokenID = uint64(*token)
	}
	if batch != nil {
		r.BatchID = *batch
	}
	if path != nil {
		if err := json.Unmarshal([]byte(*path), &r.MerklePath); err != nil {
			return nil, fmt.Errorf("record %s: merkle_path: %w", r.Reference, err)
		}
	}
	if mail != nil {
		r.Mail = new(seald.MailRequest)
		if err := json.Unmarshal([]byte(*mail), r.Mail); err != nil {
			return nil, fmt.Errorf("record %s: mail: %w", r.Reference, err)
		}
	}
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	return &r, nil
}

// CreateRecord inserts the record, its payload and its first jobs in one transaction, so a record never
// exists without the job that moves it on. A job with no Reference is given the record's; each job's ID is
// set once the transaction has committed. Concurrent calls share transactions (group.go).
func (s *Store) CreateRecord(ctx context.Context, r *seald.Record, payload []byte, jobs ...*seald.Job) error {
	const op = opCreate
	args, err := recordArgs(r)
	if err != nil {
		return wrap(op, err)
	}
	if s.group != nil {
		return s.group.create(ctx, op, &createReq{r: r, args: args, payload: payload, jobs: jobs})
	}
	return s.createOne(ctx, r, args, payload, jobs)
}

// createOne creates one record in a transaction of its own.
func (s *Store) createOne(ctx context.Context, r *seald.Record, args []any, payload []byte, jobs []*seald.Job) error {
	const op = opCreate
	var ids []int64
	err := s.tx(ctx, op, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, insertRecord, args...); err != nil {
			if seald.ErrorCode(wrap(op, err)) == seald.ECONFLICT {
				return conflict(op, "record %s already exists", r.Reference)
			}
			return err
		}
		if payload != nil {
			if _, err := tx.Exec(ctx, `INSERT INTO payloads (reference, data) VALUES ($1, $2)`, r.Reference, payload); err != nil {
				return err
			}
		}
		var err error
		ids, err = insertJobs(ctx, tx, r.Reference, jobs)
		return err
	})
	if err != nil {
		return err
	}
	setJobIDs(r.Reference, jobs, ids)
	return nil
}

// saveRecord writes what the pipeline changes in a record: every column but those in unsaved.
func saveRecord(ctx context.Context, tx pgx.Tx, op string, r *seald.Record) error {
	all, err := recordArgs(r)
	if err != nil {
		return err
	}
	var args []any
	for i, c := range recordCols {
		if !slices.Contains(unsaved, c) {
			args = append(args, all[i])
		}
	}
	tag, err := tx.Exec(ctx, saveRecordSQL, append(args, r.Reference)...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return notFound(op, "record %s not found", r.Reference)
	}
	return nil
}

// recordBy reads the newest record matching a condition on $1 (and $2).
func (s *Store) recordBy(ctx context.Context, op, where string, missing error, args ...any) (*seald.Record, error) {
	var r *seald.Record
	err := s.read(ctx, op, func(q querier) error {
		var err error
		r, err = scanRecord(q.QueryRow(ctx, `SELECT `+recordColumns+` FROM records WHERE `+where+`
			ORDER BY created_at DESC, seq DESC LIMIT 1`, args...))
		if errors.Is(err, pgx.ErrNoRows) {
			return missing
		}
		return err
	})
	return r, err
}

// Record finds a record by its reference.
func (s *Store) Record(ctx context.Context, reference string) (*seald.Record, error) {
	const op = "postgres.Record"
	return s.recordBy(ctx, op, `reference = $1`, notFound(op, "record %s not found", reference), reference)
}

// RecordsByHash returns the records of a hash, newest first; none is an empty list, not an error, because the
// service decides which of them the caller may see.
func (s *Store) RecordsByHash(ctx context.Context, hash string) ([]*seald.Record, error) {
	return s.records(ctx, "postgres.RecordsByHash",
		`SELECT `+recordColumns+` FROM records WHERE hash = $1 ORDER BY created_at DESC, seq DESC`, hash)
}

// RecordByCID finds the record stored under a CID. Records not yet stored have no CID, so "" finds nothing.
func (s *Store) RecordByCID(ctx context.Context, cid string) (*seald.Record, error) {
	const op = "postgres.RecordByCID"
	if cid == "" {
		return nil, notFound(op, "no record has an empty CID")
	}
	return s.recordBy(ctx, op, `cid = $1`, notFound(op, "no record with CID %s", cid), cid)
}

// RecordByToken finds the record of a token id on a network. Token ids start at 1, so 0 finds nothing.
func (s *Store) RecordByToken(ctx context.Context, network string, tokenID uint64) (*seald.Record, error) {
	const op = "postgres.RecordByToken"
	missing := notFound(op, "no record with token id %d on %s", tokenID, network)
	if tokenID == 0 || tokenID > 1<<63-1 {
		return nil, missing
	}
	return s.recordBy(ctx, op, `network = $1 AND token_id = $2`, missing, network, int64(tokenID))
}

// Payload returns the canonical data kept for the store step.
func (s *Store) Payload(ctx context.Context, reference string) ([]byte, error) {
	const op = "postgres.Payload"
	var b []byte
	err := s.read(ctx, op, func(q querier) error {
		err := q.QueryRow(ctx, `SELECT data FROM payloads WHERE reference = $1`, reference).Scan(&b)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound(op, "no payload kept for record %s", reference)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// records runs a query that returns records.
func (s *Store) records(ctx context.Context, op, query string, args ...any) ([]*seald.Record, error) {
	var rs []*seald.Record
	err := s.read(ctx, op, func(q querier) error {
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		rs, err = collect(rows, scanRecord)
		return err
	})
	return rs, err
}

// ChangeStatus moves a record from status from to c.To only if it is still in from (compare-and-set),
// appends c to the audit trail and inserts jobs, in one transaction. c.ID and the jobs' IDs are set once it
// has committed.
func (s *Store) ChangeStatus(ctx context.Context, c *seald.StatusChange, from seald.Status, jobs ...*seald.Job) error {
	const op = "postgres.ChangeStatus"
	var id int64
	var ids []int64
	err := s.tx(ctx, op, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE records SET status = $1, updated_at = $2 WHERE reference = $3 AND status = $4`,
			string(c.To), ts(c.At), c.Reference, string(from))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var cur string
			err := tx.QueryRow(ctx, `SELECT status FROM records WHERE reference = $1`, c.Reference).Scan(&cur)
			if errors.Is(err, pgx.ErrNoRows) {
				return notFound(op, "record %s not found", c.Reference)
			}
			if err != nil {
				return err
			}
			return conflict(op, "record %s is %s, not %s", c.Reference, cur, from)
		}
		if err := tx.QueryRow(ctx, `INSERT INTO status_changes (reference, from_status, to_status, actor, reason, at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, c.Reference, string(from), string(c.To), c.Actor, c.Reason,
			ts(c.At)).Scan(&id); err != nil {
			return err
		}
		ids, err = insertJobs(ctx, tx, c.Reference, jobs)
		return err
	})
	if err != nil {
		return err
	}
	c.ID, c.From = id, from
	setJobIDs(c.Reference, jobs, ids)
	return nil
}

// AuditTrail returns a record's status changes in the order they were made; none is an empty list.
func (s *Store) AuditTrail(ctx context.Context, reference string) ([]*seald.StatusChange, error) {
	var trail []*seald.StatusChange
	err := s.read(ctx, "postgres.AuditTrail", func(q querier) error {
		rows, err := q.Query(ctx, `SELECT id, reference, from_status, to_status, actor, reason, at
			FROM status_changes WHERE reference = $1 ORDER BY id`, reference)
		if err != nil {
			return err
		}
		trail, err = collect(rows, func(row pgx.Row) (*seald.StatusChange, error) {
			var c seald.StatusChange
			var from, to string
			var at time.Time
			if err := row.Scan(&c.ID, &c.Reference, &from, &to, &c.Actor, &c.Reason, &at); err != nil {
				return nil, err
			}
			c.From, c.To, c.At = seald.Status(from), seald.Status(to), at.UTC()
			return &c, nil
		})
		return err
	})
	return trail, err
}
