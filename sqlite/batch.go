package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"seald"
)

// AnchorQueue returns up to limit records of a network waiting in IPFS_STORED with no batch, oldest first.
func (s *Store) AnchorQueue(ctx context.Context, network string, limit int) ([]*seald.Record, error) {
	if limit < 1 {
		return []*seald.Record{}, nil
	}
	return s.records(ctx, "sqlite.AnchorQueue", `SELECT `+recordColumns+` FROM records
		WHERE state = ? AND network = ? AND batch_id IS NULL ORDER BY created_at, seq LIMIT ?`,
		string(seald.StateIPFSStored), network, limit)
}

// NextTokenID returns the token id after the last one any batch of the network holds, 1 when none.
func (s *Store) NextTokenID(ctx context.Context, network string) (uint64, error) {
	var next int64
	err := s.qrow(ctx, `SELECT coalesce(max(first_token_id + count), 1) FROM batches WHERE network = ?`,
		network).Scan(&next)
	if err != nil {
		return 0, wrap("sqlite.NextTokenID", err)
	}
	return uint64(next), nil
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
	const op = "sqlite.CreateBatch"
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
	err = s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO batches (network, first_token_id, count, root, nonce, tx_hash,
			tx_hashes, raw_tx, attempt, state, block_number, block_hash, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			b.Network, first, b.Count, b.Root, nonce, b.TxHash, hashes, b.RawTx, b.Attempt, string(b.State), block,
			b.BlockHash, millis(created), millis(updated))
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
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
			res, err := tx.ExecContext(ctx, `UPDATE records SET state = ?, batch_id = ?, token_id = ?, leaf = ?,
				merkle_path = ?, updated_at = ? WHERE reference = ? AND state = ? AND network = ? AND batch_id IS NULL`,
				string(seald.StateAnchorSubmitted), id, token, e.Leaf, path, millis(now), e.Reference,
				string(seald.StateIPFSStored), b.Network)
			if err != nil {
				return err
			}
			if err := mustAffect(res, conflict(op, "record %s is not waiting in %s on %s", e.Reference,
				seald.StateIPFSStored, b.Network)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	b.ID, b.CreatedAt, b.UpdatedAt = id, created.UTC().Truncate(time.Millisecond), updated.UTC().Truncate(time.Millisecond)
	return nil
}

// UpdateBatch saves a batch's state, transaction, attempt and block. The network, token range and creation
// time never change.
func (s *Store) UpdateBatch(ctx context.Context, b *seald.Batch) error {
	const op = "sqlite.UpdateBatch"
	_, nonce, block, hashes, err := batchValues(b)
	if err != nil {
		return wrap(op, err)
	}
	return s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE batches SET root = ?, nonce = ?, tx_hash = ?, tx_hashes = ?, raw_tx = ?,
			attempt = ?, state = ?, block_number = ?, block_hash = ?, updated_at = ? WHERE id = ?`,
			b.Root, nonce, b.TxHash, hashes, b.RawTx, b.Attempt, string(b.State), block, b.BlockHash,
			millis(b.UpdatedAt), b.ID)
		if err != nil {
			return err
		}
		return mustAffect(res, notFound(op, "batch %d not found", b.ID))
	})
}

// ConfirmBatch saves the batch as CONFIRMED with its transaction and block, marks its records ANCHORED with
// their errors cleared, and inserts for each of them a job of kind nextKind due now (none when nextKind is
// empty), in one transaction. A batch already CONFIRMED is ECONFLICT and nothing changes, so confirming twice
// never queues a record's next step twice.
func (s *Store) ConfirmBatch(ctx context.Context, b *seald.Batch, nextKind string, now time.Time) error {
	const op = "sqlite.ConfirmBatch"
	_, _, block, hashes, err := batchValues(b)
	if err != nil {
		return wrap(op, err)
	}
	err = s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE batches SET state = ?, tx_hash = ?, tx_hashes = ?, block_number = ?,
			block_hash = ?, updated_at = ? WHERE id = ? AND state <> ?`,
			string(seald.BatchConfirmed), b.TxHash, hashes, block, b.BlockHash, millis(now), b.ID,
			string(seald.BatchConfirmed))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM batches WHERE id = ?`, b.ID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return notFound(op, "batch %d not found", b.ID)
			}
			return conflict(op, "batch %d is already confirmed", b.ID)
		}
		if nextKind != "" {
			if _, err := tx.ExecContext(ctx, `INSERT INTO jobs (kind, reference, attempts, run_at, leased_until, last_error)
				SELECT ?, reference, 0, ?, NULL, '' FROM records WHERE batch_id = ? AND state = ? ORDER BY token_id`,
				nextKind, millis(now), b.ID, string(seald.StateAnchorSubmitted)); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE records SET state = ?, error_type = '', error_message = '',
			updated_at = ? WHERE batch_id = ? AND state = ?`,
			string(seald.StateAnchored), millis(now), b.ID, string(seald.StateAnchorSubmitted))
		return err
	})
	if err != nil {
		return err
	}
	b.State, b.UpdatedAt = seald.BatchConfirmed, now.UTC().Truncate(time.Millisecond)
	return nil
}

const batchColumns = `id, network, first_token_id, count, root, nonce, tx_hash, tx_hashes, raw_tx, attempt, state,
	block_number, block_hash, created_at, updated_at`

func scanBatch(sc scanner) (*seald.Batch, error) {
	var b seald.Batch
	var first, nonce, block, created, updated int64
	var hashes sql.NullString
	var state string
	if err := sc.Scan(&b.ID, &b.Network, &first, &b.Count, &b.Root, &nonce, &b.TxHash, &hashes, &b.RawTx,
		&b.Attempt, &state, &block, &b.BlockHash, &created, &updated); err != nil {
		return nil, err
	}
	b.FirstTokenID, b.Nonce, b.BlockNumber = uint64(first), uint64(nonce), uint64(block)
	b.State, b.CreatedAt, b.UpdatedAt = seald.BatchState(state), fromMillis(created), fromMillis(updated)
	if hashes.Valid {
		if err := json.Unmarshal([]byte(hashes.String), &b.TxHashes); err != nil {
			return nil, fmt.Errorf("batch %d: tx_hashes: %w", b.ID, err)
		}
	}
	return &b, nil
}

// OpenBatches returns the batches of a network that are not CONFIRMED, oldest first, for the anchor leader
// to resume after a restart.
func (s *Store) OpenBatches(ctx context.Context, network string) ([]*seald.Batch, error) {
	return s.batches(ctx, "sqlite.OpenBatches", `SELECT `+batchColumns+` FROM batches WHERE network = ? AND state <> ?
		ORDER BY id`, network, string(seald.BatchConfirmed))
}

// batches runs a query that returns batches.
func (s *Store) batches(ctx context.Context, op, query string, args ...any) ([]*seald.Batch, error) {
	rows, err := s.qrows(ctx, query, args...)
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	bs := []*seald.Batch{}
	for rows.Next() {
		b, err := scanBatch(rows)
		if err != nil {
			return nil, wrap(op, err)
		}
		bs = append(bs, b)
	}
	return bs, wrap(op, rows.Err())
}

// Batch finds a batch by id.
func (s *Store) Batch(ctx context.Context, id int64) (*seald.Batch, error) {
	const op = "sqlite.Batch"
	b, err := scanBatch(s.qrow(ctx, `SELECT `+batchColumns+` FROM batches WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(op, "batch %d not found", id)
	}
	return b, wrap(op, err)
}

// BatchesFrom returns the batches of a network, in any state, that hold a token id >= tokenID, by first
// token id, for the leader to re-send what a chain that lost blocks no longer has.
func (s *Store) BatchesFrom(ctx context.Context, network string, tokenID uint64) ([]*seald.Batch, error) {
	if tokenID > 1<<63-1 {
		return []*seald.Batch{}, nil
	}
	return s.batches(ctx, "sqlite.BatchesFrom", `SELECT `+batchColumns+` FROM batches
		WHERE network = ? AND first_token_id + count > ? ORDER BY first_token_id, id`, network, int64(tokenID))
}

// SetBatchError records a chain fault on every record of a batch, leaving their state.
func (s *Store) SetBatchError(ctx context.Context, batchID int64, errorType, errorMessage string, now time.Time) error {
	return s.write(ctx, "sqlite.SetBatchError", func(ctx context.Context, tx *wtx) error {
		_, err := tx.ExecContext(ctx, `UPDATE records SET error_type = ?, error_message = ?, updated_at = ?
			WHERE batch_id = ?`, errorType, errorMessage, millis(now), batchID)
		return err
	})
}

// SetAnchorError records a chain fault on the given records, leaving their state; unknown references are
// skipped.
func (s *Store) SetAnchorError(ctx context.Context, references []string, errorType, errorMessage string, now time.Time) error {
	if len(references) == 0 {
		return nil
	}
	return s.write(ctx, "sqlite.SetAnchorError", func(ctx context.Context, tx *wtx) error {
		// One statement per chunk keeps below SQLite's limit on bound variables.
		const chunk = 500
		for len(references) > 0 {
			n := min(chunk, len(references))
			args := []any{errorType, errorMessage, millis(now)}
			for _, r := range references[:n] {
				args = append(args, r)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE records SET error_type = ?, error_message = ?, updated_at = ?
				WHERE reference IN (?`+strings.Repeat(", ?", n-1)+`)`, args...); err != nil {
				return err
			}
			references = references[n:]
		}
		return nil
	})
}
