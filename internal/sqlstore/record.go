package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"seald.dev/seald"
)

// A record is kept in two rows (migration 0017 on SQLite, 0018 on PostgreSQL). record_facts holds what is
// written once, at acceptance (FactColumns; erasure clears its data key, password and mail, and sets its own
// erased_at, which the retention index needs and no read takes from it); record_states,
// keyed by the record's seq, holds what the pipeline's steps change (StateColumns), with copies of the network,
// project and creation time that its indexes need. A step then rewrites a narrow row and touches only that
// table's indexes, where it rewrote a row of about 950 bytes and, on PostgreSQL, got a new entry in every index
// of the record, none of its updates being HOT. The view records joins the two, under the name the whole row
// had: what reads a whole record reads it there, what writes names the table it changes.

// FactColumns are the columns of a record's record_facts row, in the order of RecordValues.
var FactColumns = []string{"reference", "pipeline", "business_id", "project_id", "network", "hash", "mime_type",
	"privacy", "is_email", "is_encrypted", "has_password", "downloadable", "password_hash", "mail", "ovi",
	"created_at", "data_key"}

// StateColumns are the columns of a record's record_states row that the pipeline changes, after FactColumns in
// RecordValues.
var StateColumns = []string{"status", "state", "error_type", "error_message", "cid", "encrypted_file", "token_id",
	"batch_id", "leaf", "revoked_on_chain", "is_signed", "signature", "message_id", "updated_at", "erased_at",
	"ipfs_stored_at", "anchor_submitted_at", "anchored_at", "email_sent_at", "completed_at", "failed_at",
	"disclosure", "disclosure_blind"}

// RecordColumns are a record's columns of records, in the order of RecordValues and scanRecord. Its
// Merkle paths are kept apart, in record_paths (pathColumns; migration 0015): written once, when the record is
// placed, they were half of a row that every step of the pipeline rewrote.
var RecordColumns = append(slices.Clip(FactColumns), StateColumns...)

// copyColumns are the columns of FactColumns that record_states holds a copy of, for its indexes, and
// copyAt their places in FactColumns.
var (
	copyColumns = []string{"network", "project_id", "created_at"}
	copyAt      = func() (at []int) {
		for _, c := range copyColumns {
			at = append(at, slices.Index(FactColumns, c))
		}
		return at
	}()
)

// FactInsertColumns are the columns record_facts is inserted with, in the order of AppendFactValues: FactColumns and
// its own erased_at (set for a record inserted erased, as an import's may be), which no read takes from it.
var FactInsertColumns = append(slices.Clip(FactColumns), "erased_at")

// erasedAt is the place of erased_at in RecordColumns.
var erasedAt = slices.Index(RecordColumns, "erased_at")

// AppendFactValues appends to dst the values of FactInsertColumns for the record whose RecordValues are vals:
// a group's multi-row INSERT appends each record's to one argument list, with no list of its own.
func AppendFactValues(dst, vals []any) []any {
	return append(append(dst, vals[:len(FactColumns)]...), vals[erasedAt])
}

// StateInsertColumns are the columns record_states is inserted with, in the order of AppendStateValues.
var StateInsertColumns = append(append([]string{"seq"}, copyColumns...), StateColumns...)

// AppendStateValues appends to dst the values of StateInsertColumns for the record at seq whose RecordValues
// are vals.
func AppendStateValues(dst []any, seq int64, vals []any) []any {
	dst = append(dst, seq)
	for _, i := range copyAt {
		dst = append(dst, vals[i])
	}
	return append(dst, vals[len(FactColumns):]...)
}

// seqOfReference is the seq of the record of a reference, for the statements that change its record_states
// row by reference.
const seqOfReference = `(SELECT seq FROM record_facts WHERE reference = ?)`

// pathColumns are a record's Merkle paths, of record_paths, read after RecordColumns by scanRecord.
var pathColumns = []string{"record_paths.merkle_path", "record_paths.disclosure_path"}

// withPaths joins a record's paths to records (those of a record not placed are NULL).
const withPaths = ` LEFT JOIN record_paths ON record_paths.record_seq = records.seq `

// reachedColumn is the column of the time a record reached st (Record.Reached): "" for PENDING, whose time is
// created_at, and for a state that is not one.
func reachedColumn(st seald.State) string {
	switch st {
	case seald.StateIPFSStored:
		return "ipfs_stored_at"
	case seald.StateAnchorSubmitted:
		return "anchor_submitted_at"
	case seald.StateAnchored:
		return "anchored_at"
	case seald.StateEmailSent:
		return "email_sent_at"
	case seald.StateCompleted:
		return "completed_at"
	case seald.StateFailed:
		return "failed_at"
	}
	return ""
}

var (
	selectRecord = `SELECT records.` + strings.Join(RecordColumns, ", records.") + `, ` + strings.Join(pathColumns, ", ") +
		` FROM records` + withPaths
	// InsertRecord inserts a record's record_facts row from AppendFactValues and returns its seq, which keys its
	// state, its payload and its jobs.
	InsertRecord = `INSERT INTO record_facts (` + strings.Join(FactInsertColumns, ", ") + `) VALUES (?` +
		strings.Repeat(", ?", len(FactInsertColumns)-1) + `) RETURNING seq`
	// InsertState inserts a record's record_states row from AppendStateValues.
	InsertState = `INSERT INTO record_states (` + strings.Join(StateInsertColumns, ", ") + `) VALUES (?` +
		strings.Repeat(", ?", len(StateInsertColumns)-1) + `)`
)

// RecordValues returns the stored values of RecordColumns for r.
func (s *Store) RecordValues(r *seald.Record) ([]any, error) {
	token, err := integer("token id", r.TokenID)
	if err != nil {
		return nil, err
	}
	mail, err := jsonText(r.Mail, r.Mail == nil)
	if err != nil {
		return nil, err
	}
	return []any{r.Reference, r.Pipeline, r.BusinessID, r.ProjectID, r.Network, r.Hash, r.MimeType,
		string(r.Privacy), r.IsEmail, r.IsEncrypted, r.HasPassword, r.Downloadable, r.PasswordHash, mail, r.OVI,
		s.D.Time(r.CreatedAt), r.DataKey,
		string(r.Status), string(r.State), r.ErrorType, r.ErrorMessage, r.CID, r.EncryptedFile, nullInt(token),
		nullInt(r.BatchID), r.Leaf, r.RevokedOnChain, r.IsSigned, r.Signature, r.MessageID, s.D.Time(r.UpdatedAt),
		s.nullTime(timeOrNil(r.ErasedAt)), s.nullTime(timeOrNil(r.Reached.IPFSStored)),
		s.nullTime(timeOrNil(r.Reached.AnchorSubmitted)), s.nullTime(timeOrNil(r.Reached.Anchored)),
		s.nullTime(timeOrNil(r.Reached.EmailSent)), s.nullTime(timeOrNil(r.Reached.Completed)),
		s.nullTime(timeOrNil(r.Reached.Failed)), nullString(r.Disclosure), nullString(r.DisclosureBlind)}, nil
}

// HasPaths tells a record created with Merkle paths (tests and imports; a sealed record gets them when it is
// placed): its create inserts them too (InsertValues), and so does not share the multi-row INSERTs of a group.
func HasPaths(r *seald.Record) bool { return r.MerklePath != nil || r.DisclosurePath != nil }

// InsertPaths keeps the Merkle paths of the record inserted at seq (for bulk inserts; CreateRecord keeps them
// itself).
func InsertPaths(ctx context.Context, q Querier, seq int64, r *seald.Record) error {
	return insertPaths(ctx, q, seq, r.MerklePath, r.DisclosurePath)
}

// PathBytes are the stored forms of a record's Merkle paths (nil for none; path.go), for a store's own bulk
// insert.
func PathBytes(r *seald.Record) (merkle, disclosure []byte, err error) {
	if merkle, err = pathBytes(r.MerklePath); err != nil {
		return nil, nil, err
	}
	disclosure, err = pathBytes(r.DisclosurePath)
	return merkle, disclosure, err
}

// insertPaths keeps the Merkle paths of the record at seq, if it has any.
func insertPaths(ctx context.Context, q Querier, seq int64, merkle, disclosure []string) error {
	if merkle == nil && disclosure == nil {
		return nil
	}
	path, err := pathValue(merkle)
	if err != nil {
		return err
	}
	dpath, err := pathValue(disclosure)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `INSERT INTO record_paths (record_seq, merkle_path, disclosure_path) VALUES (?, ?, ?)
		ON CONFLICT (record_seq) DO UPDATE SET merkle_path = excluded.merkle_path, disclosure_path = excluded.disclosure_path`,
		seq, path, dpath)
	return err
}

func scanRecord(row Row) (*seald.Record, error) {
	var r seald.Record
	var privacy, status, state string
	var token, batch *int64
	var mail, disclosure, blind *string
	var path, dpath []byte
	// erased_at, then the times of Reached: NULL when not set.
	var times [7]*time.Time
	if err := row.Scan(&r.Reference, &r.Pipeline, &r.BusinessID, &r.ProjectID, &r.Network, &r.Hash, &r.MimeType,
		&privacy, &r.IsEmail, &r.IsEncrypted, &r.HasPassword, &r.Downloadable, &r.PasswordHash, &mail, &r.OVI,
		Time{T: &r.CreatedAt}, &r.DataKey,
		&status, &state, &r.ErrorType, &r.ErrorMessage, &r.CID, &r.EncryptedFile, &token, &batch, &r.Leaf,
		&r.RevokedOnChain, &r.IsSigned, &r.Signature, &r.MessageID, Time{T: &r.UpdatedAt},
		Time{Null: &times[0]}, Time{Null: &times[1]}, Time{Null: &times[2]}, Time{Null: &times[3]},
		Time{Null: &times[4]}, Time{Null: &times[5]}, Time{Null: &times[6]}, &disclosure, &blind, &path, &dpath); err != nil {
		return nil, err
	}
	into := [7]*time.Time{&r.ErasedAt, &r.Reached.IPFSStored, &r.Reached.AnchorSubmitted, &r.Reached.Anchored,
		&r.Reached.EmailSent, &r.Reached.Completed, &r.Reached.Failed}
	for i, t := range times {
		if t != nil {
			*into[i] = *t
		}
	}
	if disclosure != nil {
		r.Disclosure = *disclosure
	}
	if blind != nil {
		r.DisclosureBlind = *blind
	}
	r.Privacy, r.Status, r.State = seald.Privacy(privacy), seald.Status(status), seald.State(state)
	if token != nil {
		r.TokenID = uint64(*token)
	}
	if batch != nil {
		r.BatchID = *batch
	}
	// A mail that is not NULL is decoded into a new MailRequest: json allocates through the pointer.
	if err := cmp.Or(pathFrom("merkle_path", path, &r.MerklePath), pathFrom("disclosure_path", dpath, &r.DisclosurePath),
		jsonInto("mail", mail, &r.Mail)); err != nil {
		return nil, fmt.Errorf("record %s: %w", r.Reference, err) // named here, not on every read
	}
	return &r, nil
}

// CreateRecord inserts the record, its payload and its first jobs in one transaction, so a record never
// exists without the job that moves it on. A job with no Reference is given the record's; each job's ID is
// set once the transaction has committed.
func (s *Store) CreateRecord(ctx context.Context, r *seald.Record, payload []byte, jobs ...*seald.Job) error {
	op := s.op("CreateRecord")
	vals, err := s.RecordValues(r)
	if err != nil {
		return s.D.Wrap(op, err)
	}
	return s.CreateValues(ctx, r, vals, payload, jobs)
}

// CreateValues is CreateRecord with the record's values already made, for a store's own group path.
func (s *Store) CreateValues(ctx context.Context, r *seald.Record, vals []any, payload []byte, jobs []*seald.Job) error {
	op := s.op("CreateRecord")
	var ids []int64
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		var err error
		ids, err = s.InsertValues(ctx, q, op, r, vals, payload, jobs)
		return err
	})
	if err != nil {
		return err
	}
	SetJobIDs(r.Reference, jobs, ids)
	return nil
}

// InsertValues inserts a record from its values, its payload and its jobs on q, inside the caller's
// transaction, and returns the jobs' ids (to set with SetJobIDs once the transaction has committed). A
// record that exists already is ECONFLICT.
func (s *Store) InsertValues(ctx context.Context, q Querier, op string, r *seald.Record, vals []any, payload []byte,
	jobs []*seald.Job) ([]int64, error) {
	var seq int64
	if err := q.QueryRow(ctx, InsertRecord, AppendFactValues(nil, vals)...).Scan(&seq); err != nil {
		if seald.ErrorCode(s.D.Wrap(op, err)) == seald.ECONFLICT {
			return nil, Conflict(op, "record %s already exists", r.Reference)
		}
		return nil, err
	}
	if _, err := q.Exec(ctx, InsertState, AppendStateValues(nil, seq, vals)...); err != nil {
		return nil, err
	}
	if payload != nil {
		if _, err := q.Exec(ctx, InsertPayload, seq, payload); err != nil {
			return nil, err
		}
	}
	if err := insertPaths(ctx, q, seq, r.MerklePath, r.DisclosurePath); err != nil {
		return nil, err
	}
	return s.InsertJobs(ctx, q, r.Reference, seq, jobs)
}

// InsertPayload keeps a record's canonical data until its store step, under the record's seq.
const InsertPayload = `INSERT INTO payloads (seq, data) VALUES (?, ?)`

// updateRecord applies a step's update to its record: only the columns u sets, and only while the record is
// in u.When. A record that moved on is ECONFLICT; a record that is gone, ENOTFOUND.
func (s *Store) updateRecord(ctx context.Context, q Querier, op, reference string, u *seald.RecordUpdate) error {
	set := []string{"updated_at = ?"}
	args := []any{s.D.Time(u.At)}
	add := func(column string, v any) {
		set = append(set, column+" = ?")
		args = append(args, v)
	}
	if u.State != "" {
		add("state", string(u.State))
		if c := reachedColumn(u.State); c != "" {
			add(c, s.D.Time(u.At))
		}
	}
	if u.ClearError {
		add("error_type", "")
		add("error_message", "")
	}
	if u.CID != "" {
		add("cid", u.CID)
		add("encrypted_file", u.EncryptedFile)
	}
	if u.Disclosure != "" {
		add("disclosure", u.Disclosure)
		add("disclosure_blind", u.DisclosureBlind)
	}
	if u.MessageID != "" {
		add("message_id", u.MessageID)
		if u.State != seald.StateEmailSent {
			// The notify step saves its e-mail and the record's completion in one update, which
			// passes through EMAIL_SENT: the e-mail was sent at u.At all the same.
			add(reachedColumn(seald.StateEmailSent), s.D.Time(u.At))
		}
	}
	if u.Signature != "" {
		add("signature", u.Signature)
		add("is_signed", true)
	}
	if u.RevokedOnChain {
		add("revoked_on_chain", true)
	}
	query := `UPDATE record_states SET ` + strings.Join(set, ", ") + ` WHERE seq = ` + seqOfReference
	args = append(args, reference)
	if u.When != "" {
		query += ` AND state = ?`
		args = append(args, string(u.When))
	}
	if u.Unerased {
		query += ` AND erased_at IS NULL`
	}
	n, err := q.Exec(ctx, query, args...)
	if err != nil || n > 0 {
		return err
	}
	var cur string
	var erased int
	if err := q.QueryRow(ctx, `SELECT state, CASE WHEN erased_at IS NULL THEN 0 ELSE 1 END FROM records WHERE reference = ?`,
		reference).Scan(&cur, &erased); errors.Is(err, sql.ErrNoRows) {
		return NotFound(op, "record %s not found", reference)
	} else if err != nil {
		return err
	}
	if u.Unerased && erased == 1 {
		return Conflict(op, "record %s was erased", reference)
	}
	return Conflict(op, "record %s is %s, no longer %s", reference, cur, u.When)
}

// Record finds a record by its reference.
func (s *Store) Record(ctx context.Context, reference string) (*seald.Record, error) {
	op := s.op("Record")
	return one(ctx, s, op, scanRecord, NotFound(op, "record %s not found", reference),
		selectRecord+`WHERE reference = ?`, reference)
}

// RecordsByHash returns the records of a hash, newest first; none is an empty list, not an error, because the
// service decides which of them the caller may see.
func (s *Store) RecordsByHash(ctx context.Context, hash string) ([]*seald.Record, error) {
	return list(ctx, s, s.op("RecordsByHash"), scanRecord, selectRecord+`WHERE hash = ? ORDER BY created_at DESC, seq DESC`, hash)
}

// RecordByCID finds the record stored under a CID. Records not yet stored have no CID, so "" finds nothing.
func (s *Store) RecordByCID(ctx context.Context, cid string) (*seald.Record, error) {
	op := s.op("RecordByCID")
	if cid == "" {
		return nil, NotFound(op, "no record has an empty CID")
	}
	where, args := `cid = ?`, []any{cid}
	if s.D.CIDTable {
		// record_cids gives the records that ever had the CID; the row's own cid says which have it now.
		where, args = `records.seq IN (SELECT record_seq FROM record_cids WHERE cid = ?) AND cid = ?`, []any{cid, cid}
	}
	return one(ctx, s, op, scanRecord, NotFound(op, "no record with CID %s", cid),
		selectRecord+`WHERE `+where+` ORDER BY created_at DESC, seq DESC LIMIT 1`, args...)
}

// RecordByToken finds the record of a token id on a network. Token ids start at 1, so 0 finds nothing.
func (s *Store) RecordByToken(ctx context.Context, network string, tokenID uint64) (*seald.Record, error) {
	op := s.op("RecordByToken")
	missing := NotFound(op, "no record with token id %d on %s", tokenID, network)
	if tokenID == 0 || tokenID > 1<<63-1 {
		return nil, missing
	}
	return one(ctx, s, op, scanRecord, missing,
		selectRecord+`WHERE records.seq IN (SELECT seq FROM record_states WHERE network = ? AND token_id = ?)
		ORDER BY created_at DESC, seq DESC LIMIT 1`, network, int64(tokenID))
}

// Payload returns the canonical data kept for the store step.
func (s *Store) Payload(ctx context.Context, reference string) ([]byte, error) {
	op := s.op("Payload")
	b, err := one(ctx, s, op, func(row Row) ([]byte, error) {
		var b []byte
		err := row.Scan(&b)
		return b, err
	}, NotFound(op, "no payload kept for record %s", reference),
		`SELECT payloads.data FROM record_facts JOIN payloads ON payloads.seq = record_facts.seq WHERE record_facts.reference = ?`, reference)
	if err == nil && b == nil {
		b = []byte{}
	}
	return b, err
}

// ChangeStatus moves a record from status from to c.To only if it is still in from (compare-and-set),
// appends c to the audit trail and inserts jobs, in one transaction. c.ID and the jobs' IDs are set once it
// has committed.
func (s *Store) ChangeStatus(ctx context.Context, c *seald.StatusChange, from seald.Status, jobs ...*seald.Job) error {
	op := s.op("ChangeStatus")
	var id int64
	var ids []int64
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		n, err := q.Exec(ctx, `UPDATE record_states SET status = ?, updated_at = ?
			WHERE seq = `+seqOfReference+` AND status = ?`,
			string(c.To), s.D.Time(c.At), c.Reference, string(from))
		if err != nil {
			return err
		}
		if n == 0 {
			var cur string
			err := q.QueryRow(ctx, `SELECT status FROM records WHERE reference = ?`, c.Reference).Scan(&cur)
			if errors.Is(err, sql.ErrNoRows) {
				return NotFound(op, "record %s not found", c.Reference)
			} else if err != nil {
				return err
			}
			return Conflict(op, "record %s is %s, not %s", c.Reference, cur, from)
		}
		if err := q.QueryRow(ctx, `INSERT INTO status_changes (reference, from_status, to_status, actor, reason, at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, c.Reference, string(from), string(c.To), c.Actor, c.Reason,
			s.D.Time(c.At)).Scan(&id); err != nil {
			return err
		}
		if err := s.insertEvent(ctx, q, c.Event); err != nil {
			return err
		}
		ids, err = s.InsertJobs(ctx, q, c.Reference, 0, jobs)
		return err
	})
	if err != nil {
		return err
	}
	c.ID, c.From, c.Action = id, from, seald.ActionStatus
	SetJobIDs(c.Reference, jobs, ids)
	return nil
}

// AuditTrail returns a record's status changes in the order they were made; none is an empty list.
func (s *Store) AuditTrail(ctx context.Context, reference string) ([]*seald.StatusChange, error) {
	return list(ctx, s, s.op("AuditTrail"), func(row Row) (*seald.StatusChange, error) {
		var c seald.StatusChange
		var from, to string
		if err := row.Scan(&c.ID, &c.Reference, &from, &to, &c.Actor, &c.Reason, Time{T: &c.At}, &c.Action); err != nil {
			return nil, err
		}
		c.From, c.To = seald.Status(from), seald.Status(to)
		return &c, nil
	}, `SELECT id, reference, from_status, to_status, actor, reason, at, action FROM status_changes WHERE reference = ? ORDER BY id`, reference)
}

// CountWaiting counts the records in each state of the pipeline that is not final, with the creation time
// of the oldest. One statement reads one snapshot, so a record moving on while it runs is counted once. The
// record_states_anchor_queue index (state, network, created_at; on PostgreSQL, of the waiting states only)
// answers it without reading the records that are done.
func (s *Store) CountWaiting(ctx context.Context) (map[seald.State]seald.Waiting, error) {
	type count struct {
		state  string
		n      int
		oldest *time.Time
	}
	counts, err := list(ctx, s, s.op("CountWaiting"), func(row Row) (c count, err error) {
		err = row.Scan(&c.state, &c.n, Time{Null: &c.oldest})
		return c, err
	}, `SELECT state, count(*), min(created_at) FROM record_states WHERE state IN (`+waitingStates+`) GROUP BY state`)
	if err != nil {
		return nil, err
	}
	out := map[seald.State]seald.Waiting{}
	for _, c := range counts {
		if c.n > 0 && c.oldest != nil {
			out[seald.State(c.state)] = seald.Waiting{Count: c.n, Oldest: *c.oldest}
		}
	}
	return out, nil
}

// waitingStates is seald.WaitingStates as a list of SQL literals. They are written into the statements, not
// passed as parameters, so that a planner proves from the statement alone that the rows it asks for are in
// PostgreSQL's record_states_anchor_queue, an index of those states only (migration 0020): with parameters, a
// plan made once for any value could not use it.
var waitingStates = func() string {
	quoted := make([]string, len(seald.WaitingStates))
	for i, st := range seald.WaitingStates {
		quoted[i] = stateLiteral(st)
	}
	return strings.Join(quoted, ", ")
}()

// stateLiteral is a state as an SQL literal. A state is one of seald's constants, upper-case letters and
// underscores, but a quote is doubled all the same.
func stateLiteral(st seald.State) string {
	return "'" + strings.ReplaceAll(string(st), "'", "''") + "'"
}

// CountWaitingByNetwork counts the records in the pipeline's waiting states by network.
func (s *Store) CountWaitingByNetwork(ctx context.Context) (map[string]int, error) {
	return s.countWaiting(ctx, "CountWaitingByNetwork", "network")
}

// CountWaitingByProject counts the records in the pipeline's waiting states by project.
func (s *Store) CountWaitingByProject(ctx context.Context) (map[string]int, error) {
	return s.countWaiting(ctx, "CountWaitingByProject", "project_id")
}

// countWaiting counts the records in the waiting states grouped by column, one of seald's own column names.
func (s *Store) countWaiting(ctx context.Context, op, column string) (map[string]int, error) {
	type count struct {
		key string
		n   int
	}
	counts, err := list(ctx, s, s.op(op), func(row Row) (c count, err error) {
		err = row.Scan(&c.key, &c.n)
		return c, err
	}, `SELECT `+column+`, count(*) FROM record_states WHERE state IN (`+waitingStates+`) GROUP BY `+column)
	if err != nil {
		return nil, err
	}
	m := make(map[string]int, len(counts))
	for _, c := range counts {
		m[c.key] = c.n
	}
	return m, nil
}

// ListRecords returns a page of a project's records, newest first. The records_project index (project_id,
// created_at, seq) answers it by walking a range from the cursor's row: no OFFSET, so the thousandth page
// costs what the first does. Each statement gives the walk one upper and one lower bound at most (the
// cursor's row or the end of the date range, whichever comes first; the start of the date range or the end
// of the bounded walk), so SQLite's planner cannot start from the wrong one. The status and state are not
// in the index, so with either set the walk is bounded (seald.RecordQuery.Walk): a first statement finds
// the walk's last row, its Walk-th, reading the index alone, and the page reads no row past it. When the
// page is not full and a row lies past that last one, the page resumes after it.
func (s *Store) ListRecords(ctx context.Context, q seald.RecordQuery) (*seald.RecordPage, error) {
	// A position in the walk's order.
	type key struct {
		created time.Time
		seq     int64
	}
	filter, fargs := "", []any{}
	if q.Status != "" {
		filter += ` AND status = ?`
		fargs = append(fargs, string(q.Status))
	}
	if q.State != "" {
		filter += ` AND state = ?`
		fargs = append(fargs, string(q.State))
	}
	const order = ` ORDER BY created_at DESC, seq DESC`
	limit := max(q.Limit, 1)
	page := &seald.RecordPage{Records: []*seald.Record{}}
	err := s.E.Read(ctx, s.op("ListRecords"), func(db Querier) error {
		upper, lower := "", ""
		var uargs, largs []any
		if !q.Until.IsZero() {
			upper, uargs = ` AND created_at < ?`, []any{s.D.Time(q.Until)}
		}
		if q.After != "" {
			var after key
			err := db.QueryRow(ctx, `SELECT created_at, seq FROM record_facts WHERE reference = ? AND project_id = ?`,
				q.After, q.ProjectID).Scan(Time{T: &after.created}, &after.seq)
			if errors.Is(err, sql.ErrNoRows) {
				return nil // not a record of the project: an empty page
			}
			if err != nil {
				return err
			}
			// (created_at, seq) < (Until, 0) is created_at < Until: seq starts at 1.
			if q.Until.IsZero() || after.created.Before(q.Until) {
				upper, uargs = ` AND (created_at, seq) < (?, ?)`, []any{s.D.Time(after.created), after.seq}
			}
		}
		if !q.Since.IsZero() {
			lower, largs = ` AND created_at >= ?`, []any{s.D.Time(q.Since)}
		}
		scope := `WHERE project_id = ?` + upper + lower
		sargs := append(append([]any{q.ProjectID}, uargs...), largs...)
		// The walk's last row and the one past it, if any, from the index alone (an index-only scan on
		// PostgreSQL once the table is vacuumed): its entries are skipped, none of the table's rows read.
		var ends []key
		if filter != "" {
			walk := q.Walk
			if walk <= 0 {
				walk = seald.ListWalk
			}
			rows, err := db.Query(ctx, `SELECT created_at, seq FROM record_facts `+scope+order+` LIMIT 2 OFFSET ?`,
				append(sargs, walk-1)...)
			if err != nil {
				return err
			}
			if ends, err = collect(rows, func(r Row) (k key, err error) {
				return k, r.Scan(Time{T: &k.created}, &k.seq)
			}); err != nil {
				return err
			}
			if len(ends) > 0 {
				// The walk's last row is within the dates, so it replaces their start as the lower bound.
				scope = `WHERE project_id = ?` + upper + ` AND (created_at, seq) >= (?, ?)`
				sargs = append(append([]any{q.ProjectID}, uargs...), s.D.Time(ends[0].created), ends[0].seq)
			}
		}
		rows, err := db.Query(ctx, selectRecord+scope+filter+order+` LIMIT ?`, append(append(sargs, fargs...), limit)...)
		if err != nil {
			return err
		}
		if page.Records, err = collect(rows, scanRecord); err != nil {
			return err
		}
		if len(page.Records) < limit && len(ends) == 2 {
			page.ResumeCreated = ends[0].created
			return db.QueryRow(ctx, `SELECT reference FROM record_facts WHERE seq = ?`, ends[0].seq).Scan(&page.Resume)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return page, nil
}

// CountProjectRecords counts a project's records by status and state (one pass over the project's rows of the
// records_project index), and those created in each interval of bounds (a range of that index each).
func (s *Store) CountProjectRecords(ctx context.Context, projectID string, bounds []time.Time) (*seald.RecordCounts, error) {
	out := &seald.RecordCounts{}
	err := s.E.Read(ctx, s.op("CountProjectRecords"), func(q Querier) error {
		out.ByStatus, out.ByState, out.PerDay = map[seald.Status]int{}, map[seald.State]int{}, nil
		rows, err := q.Query(ctx, `SELECT status, state, count(*) FROM records WHERE project_id = ? GROUP BY status, state`, projectID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var status, state string
			var n int
			if err := rows.Scan(&status, &state, &n); err != nil {
				return err
			}
			out.ByStatus[seald.Status(status)] += n
			out.ByState[seald.State(state)] += n
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for i := 0; i+1 < len(bounds); i++ {
			var n int
			if err := q.QueryRow(ctx, `SELECT count(*) FROM record_facts WHERE project_id = ? AND created_at >= ? AND created_at < ?`,
				projectID, s.D.Time(bounds[i]), s.D.Time(bounds[i+1])).Scan(&n); err != nil {
				return err
			}
			out.PerDay = append(out.PerDay, n)
		}
		return nil
	})
	return out, err
}

// AnchorLatencies reads, for each interval of bounds, up to perInterval (created_at, anchored_at) pairs of
// the project's records anchored in it, from the record_states_anchored index alone (it holds both columns): one
// bounded range of the index per interval, so the cost does not grow with the project's records.
func (s *Store) AnchorLatencies(ctx context.Context, projectID string, bounds []time.Time, perInterval int) ([][]time.Duration, error) {
	var out [][]time.Duration
	err := s.E.Read(ctx, s.op("AnchorLatencies"), func(q Querier) error {
		out = nil
		for i := 0; i+1 < len(bounds); i++ {
			rows, err := q.Query(ctx, `SELECT created_at, anchored_at FROM record_states WHERE project_id = ? AND anchored_at >= ?
				AND anchored_at < ? ORDER BY anchored_at LIMIT ?`, projectID, s.D.Time(bounds[i]), s.D.Time(bounds[i+1]),
				max(perInterval, 1))
			if err != nil {
				return err
			}
			ds, err := collect(rows, func(row Row) (time.Duration, error) {
				var created, anchored time.Time
				err := row.Scan(Time{T: &created}, Time{T: &anchored})
				return anchored.Sub(created), err
			})
			if err != nil {
				return err
			}
			out = append(out, ds)
		}
		return nil
	})
	return out, err
}
