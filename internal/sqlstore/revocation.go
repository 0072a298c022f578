package sqlstore

import (
	"context"

	"seald.dev/seald"
)

// Revocation returns the revocation of a token; ENOTFOUND when there is none.
func (s *Store) Revocation(ctx context.Context, network string, tokenID uint64) (*seald.Revocation, error) {
	op := s.op("Revocation")
	id, err := integer("token id", tokenID)
	if err != nil {
		return nil, s.D.Wrap(op, err)
	}
	return one(ctx, s, op, scanRevocation, NotFound(op, "no revocation of token %d on %s", tokenID, network),
		`SELECT network, token_id, reference, nonce, tx_hash, tx_hashes, raw_tx, attempt, state, created_at, updated_at
		FROM revocations WHERE network = ? AND token_id = ?`, network, id)
}

func scanRevocation(row Row) (*seald.Revocation, error) {
	var rv seald.Revocation
	var token, nonce int64
	var hashes *string
	var state string
	if err := row.Scan(&rv.Network, &token, &rv.Reference, &nonce, &rv.TxHash, &hashes, &rv.RawTx, &rv.Attempt,
		&state, Time{T: &rv.CreatedAt}, Time{T: &rv.UpdatedAt}); err != nil {
		return nil, err
	}
	rv.TokenID, rv.Nonce, rv.State = uint64(token), uint64(nonce), seald.BatchState(state)
	return &rv, jsonInto("revocation tx_hashes", hashes, &rv.TxHashes)
}

// SaveRevocation inserts the revocation of its token or replaces the one saved (its creation time is kept),
// fenced by fence.
func (s *Store) SaveRevocation(ctx context.Context, rv *seald.Revocation, fence *seald.Fence) error {
	op := s.op("SaveRevocation")
	token, err := integer("token id", rv.TokenID)
	if err != nil {
		return s.D.Wrap(op, err)
	}
	nonce, err := integer("nonce", rv.Nonce)
	if err != nil {
		return s.D.Wrap(op, err)
	}
	hashes, err := jsonText(rv.TxHashes, false)
	if err != nil {
		return s.D.Wrap(op, err)
	}
	return s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		if err := s.checkFence(ctx, q, op, fence); err != nil {
			return err
		}
		_, err := q.Exec(ctx, `INSERT INTO revocations (network, token_id, reference, nonce, tx_hash, tx_hashes, raw_tx,
			attempt, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (network, token_id) DO UPDATE SET reference = excluded.reference, nonce = excluded.nonce,
			tx_hash = excluded.tx_hash, tx_hashes = excluded.tx_hashes, raw_tx = excluded.raw_tx,
			attempt = excluded.attempt, state = excluded.state, updated_at = excluded.updated_at`,
			rv.Network, token, rv.Reference, nonce, rv.TxHash, hashes, rv.RawTx, rv.Attempt, string(rv.State),
			s.D.Time(rv.CreatedAt), s.D.Time(rv.UpdatedAt))
		return err
	})
}
