package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"seald"
)

// recordColumns are the columns of a record, in the order scanRecord and recordValues use.
const recordColumns = `reference, pipeline, business_id, project_id, network, hash, mime_type, privacy, status,
	state, error_type, error_message, cid, encrypted_file, token_id, batch_id, leaf, merkle_path, revoked_on_chain,
	is_email, is_encrypted, is_signed, has_password, downloadable, password_hash, mail, message_id, ovi,
	signature, created_at, updated_at`

const insertRecord = `INSERT INTO records (` + recordColumns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// recordValues returns the values of recordColumns for r.
func recordValues(r *seald.Record) ([]any, error) {
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
		r.Downloadable, r.PasswordHash, mail, r.MessageID, r.OVI, r.Signature, millis(r.CreatedAt),
		millis(r.UpdatedAt)}, nil
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

func scanRecord(sc scanner) (*seald.Record, error) {
	var r seald.Record
	var privacy, status, state string
	var token, batch sql.NullInt64
	var path, mail sql.NullString
	var created, updated int64
	if err := sc.Scan(&r.Reference, &r.Pipeline, &r.BusinessID, &r.ProjectID, &r.Network, &r.Hash, &r.MimeType,
		&privacy, &status, &state, &r.ErrorType, &r.ErrorMessage, &r.CID, &r.EncryptedFile, &token, &batch, &r.Leaf, &path,
		&r.RevokedOnChain, &r.IsEmail, &r.IsEncrypted, &r.IsSigned, &r.HasPassword, &r.Downloadable,
		&r.PasswordHash, &mail, &r.MessageID, &r.OVI, &r.Signature, &created, &updated); err != nil {
		return nil, err
	}
	r.Privacy, r.Status, r.State = seald.Privacy(privacy), seald.Status(status), seald.State(state)
	r.TokenID, r.BatchID = uint64(token.Int64), batch.Int64
	if path.Valid {
		if err := json.Unmarshal([]byte(path.String), &r.MerklePath); err != nil {
			return nil, fmt.Errorf("record %s: merkle_path: %w", r.Reference, err)
		}
	}
	if mail.Valid {
		r.Mail = new(seald.MailRequest)
		if err := json.Unmarshal([]byte(mail.String), r.Mail); err != nil {
			return nil, fmt.Errorf("record %s: mail: %w", r.Reference, err)
		}
	}
	r.CreatedAt, r.UpdatedAt = fromMillis(created), fromMillis(updated)
	return &r, nil
}

// CreateRecord inserts the record, its payload and its first jobs in one transaction, so a record never
// exists without the job that moves it on. A job with no Reference is given the record's; each job's ID is
// set once the transaction has committed.
func (s *Store) CreateRecord(ctx context.Context, r *seald.Record, payload []byte, jobs ...*seald.Job) error {
	const op = "sqlite.CreateRecord"
	vals, err := recordValues(r)
	if err != nil {
		return wrap(op, err)
	}
	var ids []int64
	err = s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		if _, err := tx.ExecContext(ctx, insertRecord, vals...); err != nil {
			if seald.ErrorCode(wrap(op, err)) == seald.ECONFLICT {
				return conflict(op, "record %s already exists", r.Reference)
			}
			return err
		}
		if payload != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO payloads (reference, data) VALUES (?, ?)`, r.Reference, payload); err != nil {
				return err
			}
		}
		ids, err = insertJobs(ctx, tx, r.Reference, jobs)
		return err
	})
	if err != nil {
		return err
	}
	setJobIDs(r.Reference, jobs, ids)
	return nil
}

// saveRecord writes what the pipeline changes in a record. Status is never written here: only ChangeStatus
// moves it, compare-and-set, so a worker holding an older copy cannot undo an owner's suspension.
func saveRecord(ctx context.Context, tx *wtx, op string, r *seald.Record) error {
	token, err := integer("token id", r.TokenID)
	if err != nil {
		return err
	}
	path, err := jsonText(r.MerklePath, r.MerklePath == nil)
	if err != nil {
		return err
	}
	mail, err := jsonText(r.Mail, r.Mail == nil)
	if err != nil {
		return err
	}
	var tokenID, batchID any
	if token != 0 {
		tokenID = token
	}
	if r.BatchID != 0 {
		batchID = r.BatchID
	}
	res, err := tx.ExecContext(ctx, `UPDATE records SET pipeline = ?, business_id = ?, project_id = ?, network = ?,
		hash = ?, mime_type = ?, privacy = ?, state = ?, error_type = ?, error_message = ?, cid = ?,
		encrypted_file = ?, token_id = ?, batch_id = ?, leaf = ?, merkle_path = ?, revoked_on_chain = ?, is_email = ?,
		is_encrypted = ?, is_signed = ?, has_password = ?, downloadable = ?, password_hash = ?, mail = ?,
		message_id = ?, ovi = ?, signature = ?, updated_at = ?
		WHERE reference = ?`,
		r.Pipeline, r.BusinessID, r.ProjectID, r.Network, r.Hash, r.MimeType, string(r.Privacy), string(r.State),
		r.ErrorType, r.ErrorMessage, r.CID, r.EncryptedFile, tokenID, batchID, r.Leaf, path, r.RevokedOnChain, r.IsEmail,
		r.IsEncrypted, r.IsSigned, r.HasPassword, r.Downloadable, r.PasswordHash, mail, r.MessageID, r.OVI,
		r.Signature, millis(r.UpdatedAt), r.Reference)
	if err != nil {
		return err
	}
	return mustAffect(res, notFound(op, "record %s not found", r.Reference))
}

// mustAffect returns missing when the statement changed no row.
func mustAffect(res sql.Result, missing error) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return missing
	}
	return nil
}

// Record finds a record by its reference.
func (s *Store) Record(ctx context.Context, reference string) (*seald.Record, error) {
	const op = "sqlite.Record"
	r, err := scanRecord(s.qrow(ctx, `SELECT `+recordColumns+` FROM records WHERE reference = ?`, reference))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, "record %s not found", reference)
	}
	return r, wrap(op, err)
}

// RecordsByHash returns the records of a hash, newest first; none is an empty list, not an error, because the
// service decides which of them the caller may see.
func (s *Store) RecordsByHash(ctx context.Context, hash string) ([]*seald.Record, error) {
	return s.records(ctx, "sqlite.RecordsByHash",
		`SELECT `+recordColumns+` FROM records WHERE hash = ? ORDER BY created_at DESC, seq DESC`, hash)
}

// RecordByCID finds the record stored under a CID. Records not yet stored have no CID, so "" finds nothing.
func (s *Store) RecordByCID(ctx context.Context, cid string) (*seald.Record, error) {
	const op = "sqlite.RecordByCID"
	if cid == "" {
		return nil, notFound(op, "no record has an empty CID")
	}
	r, err := scanRecord(s.qrow(ctx, `SELECT `+recordColumns+` FROM records WHERE cid = ?
		ORDER BY created_at DESC, seq DESC LIMIT 1`, cid))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, "no record with CID %s", cid)
	}
	return r, wrap(op, err)
}

// RecordByToken finds the record of a token id on a network. Token ids start at 1, so 0 finds nothing.
func (s *Store) RecordByToken(ctx context.Context, network string, tokenID uint64) (*seald.Record, error) {
	const op = "sqlite.RecordByToken"
	if tokenID == 0 || tokenID > 1<<63-1 {
		return nil, notFound(op, "no record with token id %d on %s", tokenID, network)
	}
	r, err := scanRecord(s.qrow(ctx, `SELECT `+recordColumns+` FROM records
		WHERE network = ? AND token_id = ? ORDER BY created_at DESC, seq DESC LIMIT 1`, network, int64(tokenID)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, "no record with token id %d on %s", tokenID, network)
	}
	return r, wrap(op, err)
}

// Payload returns the canonical data kept for the store step.
func (s *Store) Payload(ctx context.Context, reference string) ([]byte, error) {
	const op = "sqlite.Payload"
	var b []byte
	err := s.qrow(ctx, `SELECT data FROM payloads WHERE reference = ?`, reference).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, "no payload kept for record %s", reference)
	}
	if err != nil {
		return nil, wrap(op, err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// records runs a query that returns records.
func (s *Store) records(ctx context.Context, op string, query string, args ...any) ([]*seald.Record, error) {
	rows, err := s.qrows(ctx, query, args...)
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	rs := []*seald.Record{}
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, wrap(op, err)
		}
		rs = append(rs, r)
	}
	return rs, wrap(op, rows.Err())
}

// ChangeStatus moves a record from status from to c.To only if it is still in from (compare-and-set),
// appends c to the audit trail and inserts jobs, in one transaction. c.ID and the jobs' IDs are set once it
// has committed.
func (s *Store) ChangeStatus(ctx context.Context, c *seald.StatusChange, from seald.Status, jobs ...*seald.Job) error {
	const op = "sqlite.ChangeStatus"
	var id int64
	var ids []int64
	err := s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE records SET status = ?, updated_at = ? WHERE reference = ? AND status = ?`,
			string(c.To), millis(c.At), c.Reference, string(from))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			var cur string
			err := tx.QueryRowContext(ctx, `SELECT status FROM records WHERE reference = ?`, c.Reference).Scan(&cur)
			if errors.Is(err, sql.ErrNoRows) {
				return notFound(op, "record %s not found", c.Reference)
			}
			if err != nil {
				return err
			}
			return conflict(op, "record %s is %s, not %s", c.Reference, cur, from)
		}
		res, err = tx.ExecContext(ctx, `INSERT INTO status_changes (reference, from_status, to_status, actor, reason, at)
			VALUES (?, ?, ?, ?, ?, ?)`, c.Reference, string(from), string(c.To), c.Actor, c.Reason, millis(c.At))
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
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
	const op = "sqlite.AuditTrail"
	rows, err := s.qrows(ctx, `SELECT id, reference, from_status, to_status, actor, reason, at
		FROM status_changes WHERE reference = ? ORDER BY id`, reference)
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	trail := []*seald.StatusChange{}
	for rows.Next() {
		var c seald.StatusChange
		var from, to string
		var at int64
		if err := rows.Scan(&c.ID, &c.Reference, &from, &to, &c.Actor, &c.Reason, &at); err != nil {
			return nil, wrap(op, err)
		}
		c.From, c.To, c.At = seald.Status(from), seald.Status(to), fromMillis(at)
		trail = append(trail, &c)
	}
	return trail, wrap(op, rows.Err())
}
