package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"time"

	"seald.dev/seald"
)

// AnchorQueue returns up to limit records of a network waiting in state with no batch, oldest first.
func (s *Store) AnchorQueue(ctx context.Context, network string, state seald.State, limit int) ([]*seald.Record, error) {
	if limit < 1 {
		return []*seald.Record{}, nil
	}
	// The queue is a range of record_states_anchor_queue (state, network, created_at), walked in record_states,
	// whose copies of the network and creation time that index holds; the view's are record_facts'. The state
	// is written into the statement (see waitingStates): on PostgreSQL the index holds the waiting states only.
	return list(ctx, s, s.op("AnchorQueue"), scanRecord, selectRecord+`WHERE records.seq IN (SELECT seq FROM record_states
		WHERE state = `+stateLiteral(state)+` AND network = ? AND batch_id IS NULL ORDER BY created_at, seq LIMIT ?)
		ORDER BY created_at, seq`, network, limit)
}

// NextTokenID returns the token id after the last one any batch of the network holds, 1 when none.
func (s *Store) NextTokenID(ctx context.Context, network string) (uint64, error) {
	next, err := one(ctx, s, s.op("NextTokenID"), func(row Row) (n int64, err error) {
		err = row.Scan(&n)
		return n, err
	}, nil, `SELECT coalesce(max(first_token_id + count), 1) FROM batches WHERE network = ? AND state <> ?`, network, string(seald.BatchFailed))
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

// CreateBatch saves a signed batch and places its records in one transaction, moving each as t says. Each
// record must still be in t.From on the batch's network with no batch; otherwise it is ECONFLICT and nothing
// changes, so a record is never in two batches. The batch's ID is set, and a zero CreatedAt or UpdatedAt
// becomes now.
func (s *Store) CreateBatch(ctx context.Context, b *seald.Batch, entries []seald.BatchEntry, t seald.Transition, now time.Time) error {
	op := s.op("CreateBatch")
	first, nonce, block, hashes, err := batchValues(b)
	if err != nil {
		return s.D.Wrap(op, err)
	}
	created, updated := b.CreatedAt, b.UpdatedAt
	if created.IsZero() {
		created = now
	}
	if updated.IsZero() {
		updated = now
	}
	reached, reachedArgs := s.reach(t, now)
	var id int64
	err = s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		if err := s.checkFence(ctx, q, op, t.Fence); err != nil {
			return err
		}
		if err := q.QueryRow(ctx, `INSERT INTO batches (network, first_token_id, count, root, nonce, tx_hash,
			tx_hashes, raw_tx, attempt, state, block_number, block_hash, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			b.Network, first, b.Count, b.Root, nonce, b.TxHash, hashes, b.RawTx, b.Attempt, string(b.State), block,
			b.BlockHash, s.D.Time(created), s.D.Time(updated)).Scan(&id); err != nil {
			return err
		}
		return s.placeRecords(ctx, q, op, id, b.Network, entries, t, now, reached, reachedArgs)
	})
	if err != nil {
		return err
	}
	b.ID, b.CreatedAt, b.UpdatedAt = id, created.UTC().Truncate(time.Millisecond), updated.UTC().Truncate(time.Millisecond)
	return nil
}

// placeRecords moves the records of a new batch (id) as t says, by chunks (Chunks): one UPDATE ... FROM a
// list of (reference, token, leaf) rows per chunk, then their paths (placePaths), rather than one UPDATE per record (the casts give
// PostgreSQL the parameters' types). In SQLite each statement of a write that shares a group transaction
// truncates the in-memory sub-journal back to where it began, walking it from its start, so a batch of n
// records placed one statement each cost time in n squared on the one writer, and held up every write
// queued behind it. A record that is not waiting in t.From on the network with no batch is ECONFLICT,
// named, and the caller's transaction is rolled back, as before.
func (s *Store) placeRecords(ctx context.Context, q Querier, op string, id int64, network string,
	entries []seald.BatchEntry, t seald.Transition, now time.Time, reached string, reachedArgs []any) error {
	texts, _ := placeTexts.LoadOrStore(reached, NewChunkTexts(func(n int) string { return placeText(reached, n) }))
	head := append([]any{string(t.To), id, s.D.Time(now)}, reachedArgs...)
	start := 0
	for _, size := range Chunks(len(entries)) {
		chunk := entries[start : start+size]
		start += size
		args := append(make([]any, 0, len(head)+3*size+2), head...)
		for _, e := range chunk {
			token, err := integer("token id", e.TokenID)
			if err != nil {
				return err
			}
			args = append(args, e.Reference, token, e.Leaf)
		}
		args = append(args, string(t.From), network)
		n, err := q.Exec(ctx, texts.(*ChunkTexts).Text(size), args...)
		if err != nil {
			return err
		}
		if n != int64(size) {
			return s.unplaced(ctx, q, op, id, network, chunk, t)
		}
		if err := s.placePaths(ctx, q, id, chunk); err != nil {
			return err
		}
	}
	return nil
}

// placePaths keeps the Merkle paths of a chunk of records just placed in batch id (record_paths, under each
// record's seq), with one INSERT ... SELECT per chunk: the records of a batch were created one after the
// other, so their paths land side by side at the end of the table's B-tree.
func (s *Store) placePaths(ctx context.Context, q Querier, id int64, chunk []seald.BatchEntry) error {
	args := make([]any, 0, 3*len(chunk)+1)
	for _, e := range chunk {
		path, err := pathValue(e.MerklePath)
		if err != nil {
			return err
		}
		dpath, err := pathValue(e.DisclosurePath)
		if err != nil {
			return err
		}
		args = append(args, e.Reference, path, dpath)
	}
	args = append(args, id)
	_, err := q.Exec(ctx, s.pathTexts().Text(len(chunk)), args...)
	return err
}

// pathTextsBy are placePaths' statements by chunk size, by dialect (Dialect.Bytes casts the paths).
var pathTextsBy sync.Map

func (s *Store) pathTexts() *ChunkTexts {
	if t, ok := pathTextsBy.Load(s.D.Name); ok {
		return t.(*ChunkTexts)
	}
	bytes := s.D.Bytes
	t, _ := pathTextsBy.LoadOrStore(s.D.Name, NewChunkTexts(func(n int) string {
		return `INSERT INTO record_paths (record_seq, merkle_path, disclosure_path)
		SELECT records.seq, v.mpath, v.dpath FROM (` + castRows(n, "TEXT reference", bytes+" mpath", bytes+" dpath") + `) AS v
		JOIN records ON records.reference = v.reference
		WHERE records.batch_id = ? AND (v.mpath IS NOT NULL OR v.dpath IS NOT NULL) ORDER BY records.seq
		ON CONFLICT (record_seq) DO UPDATE SET merkle_path = excluded.merkle_path, disclosure_path = excluded.disclosure_path`
	}))
	return t.(*ChunkTexts)
}

// castRows is a list of n rows of parameters, each cast to its column's type ("TEXT reference": the casts give
// PostgreSQL the parameters' types), as a SELECT ... UNION ALL to join or update from.
func castRows(n int, columns ...string) string {
	var rows strings.Builder
	for i := range n {
		if i > 0 {
			rows.WriteString(` UNION ALL `)
		}
		rows.WriteString(`SELECT `)
		for k, c := range columns {
			typ, name, _ := strings.Cut(c, " ")
			if k > 0 {
				rows.WriteString(`, `)
			}
			rows.WriteString(`CAST(? AS ` + typ + `)`)
			if i == 0 {
				rows.WriteString(` AS ` + name)
			}
		}
	}
	return rows.String()
}

// placeTexts are placeRecords' statements by the clause that sets the time the records reach their state.
var placeTexts sync.Map // string -> *ChunkTexts

// placeText is the UPDATE of placeRecords for n records.
func placeText(reached string, n int) string {
	return `UPDATE record_states SET state = ?, batch_id = ?, token_id = v.token, leaf = v.leaf,
		updated_at = ?` + reached + ` FROM (` + castRows(n, "TEXT reference", "BIGINT token", "TEXT leaf") + `) AS v
		JOIN record_facts ON record_facts.reference = v.reference
		WHERE record_states.seq = record_facts.seq AND record_states.state = ? AND record_states.network = ?
		AND record_states.batch_id IS NULL`
}

// unplaced names the first record of chunk that placeRecords did not move into batch id.
func (s *Store) unplaced(ctx context.Context, q Querier, op string, id int64, network string, chunk []seald.BatchEntry,
	t seald.Transition) error {
	seen := map[string]bool{}
	for _, e := range chunk {
		var n int
		if err := q.QueryRow(ctx, `SELECT count(*) FROM records WHERE reference = ? AND batch_id = ?`, e.Reference, id).Scan(&n); err != nil {
			return err
		}
		if n == 0 || seen[e.Reference] {
			return Conflict(op, "record %s is not waiting in %s on %s", e.Reference, t.From, network)
		}
		seen[e.Reference] = true
	}
	return Conflict(op, "a record of the batch is not waiting in %s on %s", t.From, network)
}

// UpdateBatch saves a batch's state, transaction, attempt and block, fenced by fence. The network, token
// range and creation time never change.
func (s *Store) UpdateBatch(ctx context.Context, b *seald.Batch, fence *seald.Fence) error {
	op := s.op("UpdateBatch")
	_, nonce, block, hashes, err := batchValues(b)
	if err != nil {
		return s.D.Wrap(op, err)
	}
	return s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		if err := s.checkFence(ctx, q, op, fence); err != nil {
			return err
		}
		n, err := q.Exec(ctx, `UPDATE batches SET root = ?, nonce = ?, tx_hash = ?, tx_hashes = ?, raw_tx = ?,
			attempt = ?, state = ?, block_number = ?, block_hash = ?, updated_at = ? WHERE id = ?`,
			b.Root, nonce, b.TxHash, hashes, b.RawTx, b.Attempt, string(b.State), block, b.BlockHash,
			s.D.Time(b.UpdatedAt), b.ID)
		return mustAffect(n, err, NotFound(op, "batch %d not found", b.ID))
	})
}

// inBatch is the condition on record_states that finds the records of a batch (inBatchArgs): the batch's
// token range on its network, a range of record_states_token, and its id, since the tokens of a batch that
// failed are given again. record_states has no index of batch_id: each record placed, and each taken out of
// a failed batch, would write an entry in it, for what the token index finds as well.
const inBatch = `network = (SELECT network FROM batches WHERE id = ?)
	AND token_id >= (SELECT first_token_id FROM batches WHERE id = ?)
	AND token_id < (SELECT first_token_id + count FROM batches WHERE id = ?) AND batch_id = ?`

// inBatchArgs are the arguments of inBatch for the batch of id.
func inBatchArgs(id int64) []any { return []any{id, id, id, id} }

// ConfirmBatch saves the batch as CONFIRMED with its transaction and block and moves its records in t.From as
// t says (their errors cleared when t.ClearError), inserting for each of them a job of kind t.Next due now
// (none when it is empty), in one transaction. A batch already CONFIRMED is ECONFLICT and nothing changes, so
// confirming twice never queues a record's next step twice.
func (s *Store) ConfirmBatch(ctx context.Context, b *seald.Batch, t seald.Transition, now time.Time) error {
	op := s.op("ConfirmBatch")
	_, _, block, hashes, err := batchValues(b)
	if err != nil {
		return s.D.Wrap(op, err)
	}
	err = s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		if err := s.checkFence(ctx, q, op, t.Fence); err != nil {
			return err
		}
		n, err := q.Exec(ctx, `UPDATE batches SET state = ?, tx_hash = ?, tx_hashes = ?, block_number = ?,
			block_hash = ?, updated_at = ? WHERE id = ? AND state <> ?`,
			string(seald.BatchConfirmed), b.TxHash, hashes, block, b.BlockHash, s.D.Time(now), b.ID,
			string(seald.BatchConfirmed))
		if err != nil {
			return err
		}
		if n == 0 {
			if found, err := exists(ctx, q, "batches", b.ID); err != nil || !found {
				return cmp.Or(err, NotFound(op, "batch %d not found", b.ID))
			}
			return Conflict(op, "batch %d is already confirmed", b.ID)
		}
		if t.Next != "" {
			if _, err := q.Exec(ctx, `INSERT INTO jobs (kind, reference, record_seq, attempts, run_at, leased_until, last_error)
				SELECT ?, (SELECT reference FROM record_facts WHERE record_facts.seq = record_states.seq), seq, 0, ?, NULL, ''
				FROM record_states WHERE `+inBatch+` AND state = ? ORDER BY token_id`,
				append(append([]any{t.Next, s.D.Time(now)}, inBatchArgs(b.ID)...), string(t.From))...); err != nil {
				return err
			}
		}
		set := `state = ?`
		if t.ClearError {
			set += `, error_type = '', error_message = ''`
		}
		reached, reachedArgs := s.reach(t, now)
		_, err = q.Exec(ctx, `UPDATE record_states SET `+set+`, updated_at = ?`+reached+` WHERE `+inBatch+` AND state = ?`,
			append(append(append([]any{string(t.To), s.D.Time(now)}, reachedArgs...), inBatchArgs(b.ID)...), string(t.From))...)
		return err
	})
	if err != nil {
		return err
	}
	b.State, b.UpdatedAt = seald.BatchConfirmed, now.UTC().Truncate(time.Millisecond)
	return nil
}

const selectBatch = `SELECT id, network, first_token_id, count, root, nonce, tx_hash, tx_hashes, raw_tx, attempt,
	state, block_number, block_hash, created_at, updated_at FROM batches `

func scanBatch(row Row) (*seald.Batch, error) {
	var b seald.Batch
	var first, nonce, block int64
	var hashes *string
	var state string
	if err := row.Scan(&b.ID, &b.Network, &first, &b.Count, &b.Root, &nonce, &b.TxHash, &hashes, &b.RawTx,
		&b.Attempt, &state, &block, &b.BlockHash, Time{T: &b.CreatedAt}, Time{T: &b.UpdatedAt}); err != nil {
		return nil, err
	}
	b.FirstTokenID, b.Nonce, b.BlockNumber, b.State = uint64(first), uint64(nonce), uint64(block), seald.BatchState(state)
	return &b, jsonInto("batch tx_hashes", hashes, &b.TxHashes)
}

// OpenBatches returns the batches of a network that are not CONFIRMED, oldest first, for the anchor leader
// to resume after a restart.
func (s *Store) OpenBatches(ctx context.Context, network string) ([]*seald.Batch, error) {
	return list(ctx, s, s.op("OpenBatches"), scanBatch, selectBatch+`WHERE network = ? AND state NOT IN (?, ?) ORDER BY id`,
		network, string(seald.BatchConfirmed), string(seald.BatchFailed))
}

// Batch finds a batch by id.
func (s *Store) Batch(ctx context.Context, id int64) (*seald.Batch, error) {
	op := s.op("Batch")
	return one(ctx, s, op, scanBatch, NotFound(op, "batch %d not found", id), selectBatch+`WHERE id = ?`, id)
}

// BatchesFrom returns the batches of a network, in any state, that hold a token id >= tokenID, by first
// token id, for the leader to re-send what a chain that lost blocks no longer has.
func (s *Store) BatchesFrom(ctx context.Context, network string, tokenID uint64) ([]*seald.Batch, error) {
	if tokenID > 1<<63-1 {
		return []*seald.Batch{}, nil
	}
	return list(ctx, s, s.op("BatchesFrom"), scanBatch, selectBatch+`WHERE network = ? AND first_token_id + count > ?
		AND state <> ? ORDER BY first_token_id, id`, network, int64(tokenID), string(seald.BatchFailed))
}

// FailBatch saves a batch as FAILED and takes its records in t.From out of it, moving them to t.To with the
// error given and no batch, token id, leaf or Merkle path, in one transaction (fenced by t.Fence). A batch
// already CONFIRMED or FAILED is ECONFLICT and nothing changes.
func (s *Store) FailBatch(ctx context.Context, b *seald.Batch, t seald.Transition, errorType, errorMessage string, now time.Time) error {
	op := s.op("FailBatch")
	err := s.E.Write(ctx, op, func(ctx context.Context, q Querier) error {
		if err := s.checkFence(ctx, q, op, t.Fence); err != nil {
			return err
		}
		n, err := q.Exec(ctx, `UPDATE batches SET state = ?, updated_at = ? WHERE id = ? AND state NOT IN (?, ?)`,
			string(seald.BatchFailed), s.D.Time(now), b.ID, string(seald.BatchConfirmed), string(seald.BatchFailed))
		if err != nil {
			return err
		}
		if n == 0 {
			if found, err := exists(ctx, q, "batches", b.ID); err != nil || !found {
				return cmp.Or(err, NotFound(op, "batch %d not found", b.ID))
			}
			return Conflict(op, "batch %d is already confirmed or failed", b.ID)
		}
		// The records go back to t.To: it is reached again now, and t.From, which they left, is no longer.
		reached, reachedArgs := s.reach(t, now)
		if c := reachedColumn(t.From); c != "" && t.From != t.To {
			reached += `, ` + c + ` = NULL`
		}
		if _, err := q.Exec(ctx, `DELETE FROM record_paths WHERE record_seq IN
			(SELECT seq FROM record_states WHERE `+inBatch+` AND state = ?)`, append(inBatchArgs(b.ID), string(t.From))...); err != nil {
			return err
		}
		_, err = q.Exec(ctx, `UPDATE record_states SET state = ?, batch_id = NULL, token_id = NULL, leaf = '',
			error_type = ?, error_message = ?, updated_at = ?`+reached+` WHERE `+inBatch+` AND state = ?`,
			append(append(append([]any{string(t.To), errorType, errorMessage, s.D.Time(now)}, reachedArgs...), inBatchArgs(b.ID)...),
				string(t.From))...)
		return err
	})
	if err != nil {
		return err
	}
	b.State, b.UpdatedAt = seald.BatchFailed, now.UTC().Truncate(time.Millisecond)
	return nil
}

// SetBatchError records a chain fault on every record of a batch, leaving their state.
func (s *Store) SetBatchError(ctx context.Context, batchID int64, errorType, errorMessage string, now time.Time) error {
	return s.E.Write(ctx, s.op("SetBatchError"), func(ctx context.Context, q Querier) error {
		_, err := q.Exec(ctx, `UPDATE record_states SET error_type = ?, error_message = ?, updated_at = ? WHERE `+inBatch,
			append([]any{errorType, errorMessage, s.D.Time(now)}, inBatchArgs(batchID)...)...)
		return err
	})
}

// SetAnchorError records a chain fault on the given records, leaving their state; unknown references are
// skipped.
func (s *Store) SetAnchorError(ctx context.Context, references []string, errorType, errorMessage string, now time.Time) error {
	if len(references) == 0 {
		return nil
	}
	return s.E.Write(ctx, s.op("SetAnchorError"), func(ctx context.Context, q Querier) error {
		// One statement per chunk keeps below SQLite's limit on bound variables.
		const chunk = 500
		for refs := references; len(refs) > 0; {
			n := min(chunk, len(refs))
			args := []any{errorType, errorMessage, s.D.Time(now)}
			for _, r := range refs[:n] {
				args = append(args, r)
			}
			if _, err := q.Exec(ctx, `UPDATE record_states SET error_type = ?, error_message = ?, updated_at = ?
				WHERE seq IN (SELECT seq FROM record_facts WHERE reference IN (?`+strings.Repeat(", ?", n-1)+`))`, args...); err != nil {
				return err
			}
			refs = refs[n:]
		}
		return nil
	})
}

// NewEpoch gives the holder of the named lock, which has just taken it, the next epoch and returns it.
func (s *Store) NewEpoch(ctx context.Context, name string) (int64, error) {
	var epoch int64
	err := s.E.Write(ctx, s.op("NewEpoch"), func(ctx context.Context, q Querier) error {
		return q.QueryRow(ctx, `INSERT INTO leaders (name, epoch) VALUES (?, 1)
			ON CONFLICT (name) DO UPDATE SET epoch = leaders.epoch + 1 RETURNING epoch`, name).Scan(&epoch)
	})
	return epoch, err
}

// CheckFence is ECONFLICT when f is no longer the latest epoch of its lock.
func (s *Store) CheckFence(ctx context.Context, f seald.Fence) error {
	op := s.op("CheckFence")
	var epoch int64
	err := s.E.Read(ctx, op, func(q Querier) error {
		err := q.QueryRow(ctx, `SELECT epoch FROM leaders WHERE name = ?`, f.Name).Scan(&epoch)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	if epoch != f.Epoch {
		return Conflict(op, "the %s lock has passed to another process (epoch %d, this one holds %d)", f.Name, epoch, f.Epoch)
	}
	return nil
}

// checkFence refuses a write made under a leadership that has ended: another process took the lock since.
func (s *Store) checkFence(ctx context.Context, q Querier, op string, f *seald.Fence) error {
	if f == nil {
		return nil
	}
	var epoch int64
	err := q.QueryRow(ctx, `SELECT epoch FROM leaders WHERE name = ? `+s.D.ShareLock, f.Name).Scan(&epoch)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if epoch != f.Epoch {
		return Conflict(op, "the %s lock has passed to another process (epoch %d, this one holds %d)", f.Name, epoch, f.Epoch)
	}
	return nil
}

// reach is what a transition's update of records adds to its SET (", <column> = ?") and its arguments, to
// record that they reached t.To at now (Record.Reached); nothing for a state without a time of its own.
func (s *Store) reach(t seald.Transition, now time.Time) (string, []any) {
	c := reachedColumn(t.To)
	if c == "" {
		return "", nil
	}
	return `, ` + c + ` = ?`, []any{s.D.Time(now)}
}
