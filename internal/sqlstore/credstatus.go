package sqlstore

import (
	"context"

	"seald.dev/seald"
)

var _ seald.CredentialStatuses = (*Store)(nil)

// StatusIndex is a record's place in the credential status lists: its insertion sequence (seq, from 1 in both
// databases) less one. Every record has one, those sealed before credentials existed included, and it never
// changes, so no column or migration is needed.
func (s *Store) StatusIndex(ctx context.Context, reference string) (int64, error) {
	op := s.op("StatusIndex")
	return one(ctx, s, op, func(row Row) (int64, error) {
		var seq int64
		err := row.Scan(&seq)
		return seq - 1, err
	}, NotFound(op, "record %s not found", reference), `SELECT seq FROM record_facts WHERE reference = ?`, reference)
}

// StatusesBetween reads the records of index in [from, to) that a status list marks: those not ACTIVE, and
// those whose token was revoked on chain (as REVOKED). The range is one of the primary key.
func (s *Store) StatusesBetween(ctx context.Context, from, to int64) (map[int64]seald.Status, error) {
	type indexed struct {
		i  int64
		st seald.Status
	}
	rows, err := list(ctx, s, s.op("StatusesBetween"), func(row Row) (*indexed, error) {
		var seq int64
		var st string
		var onChain bool
		if err := row.Scan(&seq, &st, &onChain); err != nil {
			return nil, err
		}
		if onChain {
			st = string(seald.StatusRevoked)
		}
		return &indexed{seq - 1, seald.Status(st)}, nil
	}, `SELECT seq, status, revoked_on_chain FROM record_states WHERE seq > ? AND seq <= ? AND (status <> 'ACTIVE' OR revoked_on_chain)`, from, to)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]seald.Status, len(rows))
	for _, r := range rows {
		out[r.i] = r.st
	}
	return out, nil
}
