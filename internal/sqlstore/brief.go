package sqlstore

import (
	"context"
	"strings"
	"time"

	"seald.dev/seald"
)

// BriefColumns are the columns of a record a verification reads (seald.Record.Brief), in the order of
// ScanBrief: 23 of the 42, and none of the JSON ones (Merkle path, e-mail, disclosure path), whose decoding
// and the scanning of the rest were a third of a verification's store read.
var BriefColumns = []string{"reference", "pipeline", "business_id", "project_id", "network", "hash", "mime_type",
	"privacy", "status", "state", "error_type", "cid", "encrypted_file", "token_id", "revoked_on_chain", "is_email",
	"is_encrypted", "is_signed", "has_password", "downloadable", "created_at", "updated_at", "erased_at"}

// SelectBrief selects BriefColumns from records; a WHERE clause follows.
var SelectBrief = `SELECT ` + strings.Join(BriefColumns, ", ") + ` FROM records `

// BriefOrder is the order of the records of one hash in RecordsByHashBrief (and RecordsByHash): the newest
// first.
const BriefOrder = `created_at DESC, seq DESC`

// ScanBrief scans a row of SelectBrief.
func ScanBrief(row Row) (*seald.Record, error) {
	var r seald.Record
	var privacy, status, state string
	var token *int64
	var erased *time.Time
	if err := row.Scan(&r.Reference, &r.Pipeline, &r.BusinessID, &r.ProjectID, &r.Network, &r.Hash, &r.MimeType,
		&privacy, &status, &state, &r.ErrorType, &r.CID, &r.EncryptedFile, &token, &r.RevokedOnChain, &r.IsEmail,
		&r.IsEncrypted, &r.IsSigned, &r.HasPassword, &r.Downloadable, Time{T: &r.CreatedAt}, Time{T: &r.UpdatedAt},
		Time{Null: &erased}); err != nil {
		return nil, err
	}
	r.Privacy, r.Status, r.State = seald.Privacy(privacy), seald.Status(status), seald.State(state)
	if token != nil {
		r.TokenID = uint64(*token)
	}
	if erased != nil {
		r.ErasedAt = *erased
	}
	return &r, nil
}

// RecordBrief finds a record by its reference, with only the fields of seald.Record.Brief.
func (s *Store) RecordBrief(ctx context.Context, reference string) (*seald.Record, error) {
	op := s.op("RecordBrief")
	return one(ctx, s, op, ScanBrief, NotFound(op, "record %s not found", reference),
		SelectBrief+`WHERE reference = ?`, reference)
}

// RecordsByHashBrief is RecordsByHash with only the fields of seald.Record.Brief.
func (s *Store) RecordsByHashBrief(ctx context.Context, hash string) ([]*seald.Record, error) {
	return list(ctx, s, s.op("RecordsByHashBrief"), ScanBrief, SelectBrief+`WHERE hash = ? ORDER BY `+BriefOrder, hash)
}
