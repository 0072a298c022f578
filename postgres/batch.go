package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"seald"
)

// AnchorQueue returns up to limit records of a network waiting in IPFS_STORED with no batch, oldest first.
func (s *Store) AnchorQueue(ctx context.Context, network string, limit int) ([]*seald.Record, error) {
	if limit < 1 {
		return []*seald.Record{}, nil
	}
	return s.records(ctx, "postgres.AnchorQueue", `SELECT `+recordColumns+` FROM records
		WHERE state = $1 AND network = $2 AND batch_id IS NULL ORDER BY created_at, seq LIMIT $3`,
		string(seald.StateIPFSStored), network, limit)
}

// NextTokenID returns the token id after the last one any batch of the network holds, 1 when none.
func (s *Store) NextTokenID(ctx context.Context, network string) (uint64, error) {
	var next int64
	err := s.read(ctx, "postgres.NextTokenID", func(q querier) error {
		return q.QueryRow(ctx, `SELECT coalesce(max(first_token_id + count), 1) FROM batches WHERE network = $1`,
			network).Scan(&next)
	})
	return uint64(next), err
}

// batchValues returns the stored forms of a batch's unsigned counters and transaction list.
func batchValues(b *seald.Batch) (first, nonce, block int64, hashes any, err error) {
	if first, err = integer("first token id", b.FirstTokenID); err != nil {
		return
	}
	if nonce, err = integer("nonce", b.Nonce); err != nil {
		return
	}
	if block, err = integer("block number", b.BlockNumber); err != nil {
		return
	}
	hashes, err = jsonText(b.TxHashes, b.TxHashes == nil)
	return
}

// CreateBatch saves a signed batch and places its records in one transaction. Each record must still be
// waiting in IPFS_STORED on the batch's network with no batch; otherwise it is ECONFLICT and nothing
// changes, so a record is never in two batches. The batch's ID is set, and a zero CreatedAt or UpdatedAt
// becomes now.
func (s *Store) CreateBatch(ctx context.Context, b *seald.Batch, entries []seald.BatchEntry, now time.Time) error {
	const op = "postgres.CreateBatch"
	first, nonce, block, hashes, err := batchValues(b)
	if err != nil {
		return wrap(op, err)
	}
	created, updated := b.CreatedAt, b.UpdatedAt
	if created.IsZero() {
		created = now
	}
	if updated.IsZero() {
		updated = now
	}
	var id int64
	err = s.tx(ctx, op, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO batches (network, first_token_id, count, root, nonce, tx_hash,
			tx_hashes, raw_tx, attempt, state, block_number, block_hash, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id`,
			b.Network, first, b.Count, b.Root, nonce, b.TxHash, hashes, b.RawTx, b.Attempt, string(b.State), block,
			b.BlockHash, ts(created), ts(updated)).Scan(&id); err != nil {
			return err
		}
		for _, e := range entries {
			token, err := integer("token id", e.TokenID)
			if err != nil {
				return err
			}
			path, err := jsonText(e.MerklePath, e.MerklePath == nil)
			if err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, `UPDATE records SET state = $1, batch_id = $2, token_id = $3, leaf = $4,
				merkle_path = $5, updated_at = $6 WHERE reference = $7 AND state = $8 AND network = $9 AND batch_id IS NULL`,
				string(seald.StateAnchorSubmitted), id, token, e.Leaf, path, ts(now), e.Reference,
				string(seald.StateIPFSStored), b.Network)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return conflict(op, "record %s is not waiting in %s on %s", e.Reference, seald.StateIPFSStored, b.Network)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	b.ID, b.CreatedAt, b.UpdatedAt = id, ts(created), ts(updated)
	return nil
}

// UpdateBatch saves a batch's state, transaction, attempt and block. The network, token range and creation
// time never change.
func (s *Store) UpdateBatch(ctx context.Context, b *seald.Batch) error {
	const op = "postgres.UpdateBatch"
	_, nonce, block, hashes, err := batchValues(b)
	if err != nil {
		return wrap(op, err)
	}
	return s.tx(ctx, op, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE batches SET root = $1, nonce = $2, tx_hash = $3, tx_hashes = $4, raw_tx = $5,
			attempt = $6, state = $7, block_number = $8, block_hash = $9, updated_at = $10 WHERE id = $11`,
			b.Root, nonce, b.TxHash, hashes, b.RawTx, b.Attempt, string(b.State), block, b.BlockHash,
			ts(b.UpdatedAt), b.ID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notFound(op, "batch %d not found", b.ID)
		}
		return nil
	})
}

// ConfirmBatch saves the batch as CONFIRMED with its transaction and block, marks its records ANCHORED with
// their errors cleared, and inserts for each of them a job of kind nextKind due now (none when nextKind is
// empty), in one transaction. A batch already CONFIRMED is ECONFLICT and nothing changes, so confirming twice
// never queues a record's next step twice.
func (s *Store) ConfirmBatch(ctx context.Context, b *seald.Batch, nextKind string, now time.Time) error {
	const op = "postgres.ConfirmBatch"
	_, _, block, hashes, err := batchValues(b)
	if err != nil {
		return wrap(op, err)
	}
	err = s.tx(ctx, op, func(tx pgx.Tx) error {
		// The row lock taken here orders two confirmations of one batch: the second sees CONFIRMED.
		tag, err := tx.Exec(ctx, `UPDATE batches SET state = $1, tx_hash = $2, tx_hashes = $3, block_number = $4,
			block_hash = $5, updated_at = $6 WHERE id = $7 AND state <> $1`,
			string(seald.BatchConfirmed), b.TxHash, hashes, block, b.BlockHash, ts(now), b.ID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM batches WHERE id = $1`, b.ID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return notFound(op, "batch %d not found", b.ID)
			}
			return conflict(op, "batch %d is already confirmed", b.ID)
		}
		if nextKind != "" {
			if _, err := tx.Exec(ctx, `INSERT INTO jobs (kind, reference, attempts, run_at, leased_until, last_error)
				SELECT $1, reference, 0, $2, NULL, '' FROM records WHERE batch_id = $3 AND state = $4 ORDER BY token_id`,
				nextKind, ts(now), b.ID, string(seald.StateAnchorSubmitted)); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE records SET state = $1, error_type = '', error_message = '', updated_at = $2
			WHERE batch_id = $3 AND state = $4`,
			string(seald.StateAnchored), ts(now), b.ID, string(seald.StateAnchorSubmitted))
		return err
	})
	if err != nil {
		return err
	}
	b.State, b.UpdatedAt = seald.BatchConfirmed, ts(now)
	return nil
}

const batchColumns = `id, network, first_token_id, count, root, nonce, tx_hash, tx_hashes, raw_tx, attempt, state,
	block_number, block_hash, created_at, updated_at`

func scanBatch(row pgx.Row) (*seald.Batch, error) {
	var b seald.Batch
	var first, nonce, block int64
	var hashes *string
	var state string
	if err := row.Scan(&b.ID, &b.Network, &first, &b.Count, &b.Root, &nonce, &b.TxHash, &hashes, &b.RawTx,
		&b.Attempt, &state, &block, &b.BlockHash, &b.CreatedAt, &b.UpdatedAt); err != nil {
		return nil, err
	}
	b.FirstTokenID, b.Nonce, b.BlockNumber = uint64(first), uint64(nonce), uint64(block)
	b.State, b.CreatedAt, b.UpdatedAt = seald.BatchState(state), b.CreatedAt.UTC(), b.UpdatedAt.UTC()
	if hashes != nil {
		if err := json.Unmarshal([]byte(*hashes), &b.TxHashes); err != nil {
			return nil, fmt.Errorf("batch %d: tx_hashes: %w", b.ID, err)
		}
	}
	return &b, nil
}

// batches runs a query that returns batches.
func (s *Store) batches(ctx context.Context, op, query string, args ...any) ([]*seald.Batch, error) {
	var bs []*seald.Batch
	err := s.read(ctx, op, func(q querier) error {
		rows, err := q.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		bs, err = collect(rows, scanBatch)
		return err
	})
	return bs, err
}

// OpenBatches returns the batches of a network that are not CONFIRMED, oldest first, for the anchor leader
// to resume after a restart.
func (s *Store) OpenBatches(ctx context.Context, network string) ([]*seald.Batch, error) {
	return s.batches(ctx, "postgres.OpenBatches", `SELECT `+batchColumns+` FROM batches
		WHERE network = $1 AND state <> $2 ORDER BY id`, network, string(seald.BatchConfirmed))
}

// Batch finds a batch by id.
func (s *Store) Batch(ctx context.Context, id int64) (*seald.Batch, error) {
	const op = "postgres.Batch"
	var b *seald.Batch
	err := s.read(ctx, op, func(q querier) error {
		var err error
		b, err = scanBatch(q.QueryRow(ctx, `SELECT `+batchColumns+` FROM batches WHERE id = $1`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound(op, "batch %d not found", id)
		}
		return err
	})
	return b, err
}

// BatchesFrom returns the batches of a network, in any state, that hold a token id >= tokenID, by first
// token id, for the leader to re-send what a chain that lost blocks no longer has.
func (s *Store) BatchesFrom(ctx context.Context, network string, tokenID uint64) ([]*seald.Batch, error) {
	if tokenID > 1<<63-1 {
		return []*seald.Batch{}, nil
	}
	return s.batches(ctx, "postgres.BatchesFrom", `SELECT `+batchColumns+` FROM batches
		WHERE network = $1 AND first_token_id + count > $2 ORDER BY first_token_id, id`, network, int64(tokenID))
}

// SetAnchorError records a chain fault on the given records, leaving their state; unknown references are
// skipped.
func (s *Store) SetAnchorError(ctx context.Context, references []string, errorType, errorMessage string, now time.Time) error {
	if len(references) == 0 {
		return nil
	}
	return s.tx(ctx, "postgres.SetAnchorError", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE records SET error_type = $1, error_message = $2, updated_at = $3
			WHERE reference = ANY($4)`, errorType, errorMessage, ts(now), references)
		return err
	})
}

// SetBatchError records a chain fault on every record of a batch, leaving their state.
func (s *Store) SetBatchError(ctx context.Context, batchID int64, errorType, errorMessage string, now time.Time) error {
	return s.tx(ctx, "postgres.SetBatchError", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE records SET error_type = $1, error_message = $2, updated_at = $3
			WHERE batch_id = $4`, errorType, errorMessage, ts(now), batchID)
		return err
	})
}
