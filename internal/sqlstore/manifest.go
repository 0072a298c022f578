package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"seald.dev/seald"
)

// BatchContents returns the CONFIRMED batch of a network that holds tokenID with, per token in order, its
// leaf, blind and disclosure commitment (seald.BatchManifests), in one read. A confirmed batch's records never
// leave it, so the two queries agree; a batch whose records do not fill its token range is EINTERNAL.
func (s *Store) BatchContents(ctx context.Context, network string, tokenID uint64) (*seald.BatchContents, error) {
	op := s.op("BatchContents")
	missing := NotFound(op, "no confirmed batch holds token %d on %s", tokenID, network)
	if tokenID > 1<<63-1 {
		return nil, missing
	}
	var c seald.BatchContents
	err := s.E.Read(ctx, op, func(q Querier) error {
		b, err := scanBatch(q.QueryRow(ctx, selectBatch+`WHERE network = ? AND state = ? AND first_token_id <= ?
			AND first_token_id + count > ?`, network, string(seald.BatchConfirmed), int64(tokenID), int64(tokenID)))
		if errors.Is(err, sql.ErrNoRows) {
			return missing
		}
		if err != nil {
			return err
		}
		rows, err := q.Query(ctx, `SELECT token_id, leaf, disclosure_blind, disclosure FROM record_states WHERE `+inBatch+`
			ORDER BY token_id`, inBatchArgs(b.ID)...)
		if err != nil {
			return err
		}
		c.Batch = b
		c.Tokens, err = collect(rows, func(row Row) (seald.BatchToken, error) {
			var t seald.BatchToken
			var token int64
			var blind, commitment *string
			if err := row.Scan(&token, &t.Leaf, &blind, &commitment); err != nil {
				return t, err
			}
			t.TokenID = uint64(token)
			if blind != nil {
				t.Blind = *blind
			}
			if commitment != nil {
				t.Commitment = *commitment
			}
			return t, nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, t := range c.Tokens {
		if t.TokenID != c.Batch.FirstTokenID+uint64(i) {
			return nil, &seald.Error{Code: seald.EINTERNAL, Op: op, Message: "batch's records do not fill its token range"}
		}
	}
	if len(c.Tokens) != c.Batch.Count {
		return nil, &seald.Error{Code: seald.EINTERNAL, Op: op, Message: "batch's records do not fill its token range"}
	}
	return &c, nil
}
