package pipeline

import (
	"seald.dev/seald"
	"seald.dev/seald/proof"

	"context"
	"errors"
	"fmt"
	"time"
)

// lead runs the anchor leader of one network for as long as ctx lives: whichever process holds the
// network's lock batches its records and signs its transactions, so only one process ever uses the
// network's nonce. The others wait for the lock.
// The leader's two moves of records, which the store applies as told: a batch's records are placed
// (IPFS_STORED -> ANCHOR_SUBMITTED), then, once its transaction is confirmed, anchored (-> ANCHORED, the
// chain faults met on the way cleared) with their e-mail step queued.
var (
	placed   = seald.TransitionOf(seald.StepPlaced)
	anchored = withNext(seald.TransitionOf(seald.StepAnchored), seald.JobNotify)
	// requeued takes the records of a batch that reverted back to the anchoring queue.
	requeued = seald.TransitionOf(seald.StepRequeued)
)

// withNext is t clearing the records' errors and queueing a job of kind next for each.
func withNext(t seald.Transition, next string) seald.Transition {
	t.ClearError, t.Next = true, next
	return t
}

func (p *Pipeline) lead(ctx context.Context, network string, a seald.Anchorer) {
	log := p.Logger.With("network", network)
	for ctx.Err() == nil {
		lock, err := p.Store.TryLock(ctx, "anchor:"+network) // the name is also the fence's (anchorLoop)
		if err != nil || lock == nil {
			if err != nil && ctx.Err() == nil {
				log.Error("take anchor lock", "err", err)
			}
			sleep(ctx, time.Second)
			continue
		}
		log.Info("anchor leader")
		p.Observer.Leading(network, true)
		err = p.anchorLoop(ctx, network, a, lock)
		lock.Release()
		p.Observer.Leading(network, false)
		log.Info("anchor leadership given up")
		if err != nil && ctx.Err() == nil {
			log.Warn("anchor leader stopped; retrying", "err", err)
			sleep(ctx, p.Retry.Base)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// leaderState is what one leadership term remembers between rounds.
type leaderState struct {
	network string
	a       seald.Anchorer
	fence   *seald.Fence    // this term's leadership: every write of the leader is made under it
	lost    <-chan struct{} // closed when the lock is lost (its connection died)

	lastSend  map[int64]time.Time // when each open batch's transaction was last (re)sent
	failures  int
	reconcile bool // the chain has been checked for lost batches
	// relost are confirmed batches the chain lost and that were re-sent; no new batch is built until the
	// chain has them again.
	relost []*seald.Batch
	// reuseNonce is the nonce of a transaction that was signed but never saved or sent: the next batch takes
	// it, so the Anchorer's nonce sequence has no gap.
	reuseNonce *uint64
}

func (p *Pipeline) anchorLoop(ctx context.Context, network string, a seald.Anchorer, lock seald.Lock) error {
	st := &leaderState{network: network, a: a, lastSend: map[int64]time.Time{}, lost: lock.Lost(),
		fence: &seald.Fence{Name: "anchor:" + network, Epoch: lock.Epoch()}}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-lock.Lost():
			return errors.New("anchor lock lost")
		default:
		}
		wait, err := p.anchorRound(ctx, st)
		if errors.Is(err, errNotLeader) {
			return err
		}
		if err != nil {
			st.failures++
			if st.failures > 1 || !errors.Is(err, errRetryNow) {
				p.Logger.Warn("anchor round", "network", network, "err", err, "failures", st.failures)
			}
			wait = p.Retry.Delay(st.failures)
		} else {
			st.failures = 0
		}
		// Revocations share the leader, its nonce and its fence.
		p.runRevocations(withFence(ctx, st.fence), network)
		p.sleepLeader(ctx, wait)
	}
}

var errRetryNow = errors.New("retry")

// errNotLeader ends a leadership term: the lock was lost, or another process holds a later epoch.
var errNotLeader = errors.New("no longer the anchor leader")

// checkLead is the leader's look at its lock before each broadcast: a process that lost the lock unaware
// (paused, cut off from the database) must not put another transaction on the chain under the key.
func (p *Pipeline) checkLead(ctx context.Context, st *leaderState) error {
	select {
	case <-st.lost:
		return fmt.Errorf("%w: the anchor lock was lost", errNotLeader)
	default:
	}
	return p.checkFence(ctx, st.fence)
}

// checkFence asks the store whether fence is still the latest epoch of its lock.
func (p *Pipeline) checkFence(ctx context.Context, fence *seald.Fence) error {
	if fence == nil {
		return nil
	}
	if err := p.Store.CheckFence(ctx, *fence); err != nil {
		if seald.ErrorCode(err) == seald.ECONFLICT {
			return fmt.Errorf("%w: %v", errNotLeader, err)
		}
		return err
	}
	return nil
}

type fenceKey struct{}

// withFence gives the revocation steps run on the leader its leadership, which their writes are fenced by.
func withFence(ctx context.Context, f *seald.Fence) context.Context {
	return context.WithValue(ctx, fenceKey{}, f)
}

// fenceOf is the leadership a step runs under (nil: none, outside a leader).
func fenceOf(ctx context.Context) *seald.Fence {
	f, _ := ctx.Value(fenceKey{}).(*seald.Fence)
	return f
}

// sleepLeader waits d, or less when a record of this process reaches the anchoring queue (WakeLeader), so
// that an idle leader takes a lone record at once rather than at its next poll.
func (p *Pipeline) sleepLeader(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-p.leaderWake:
	}
}

// wakeLeader tells this process's anchor leaders that a record is waiting. It never blocks; a leader in
// another process finds the record at its next poll.
func (p *Pipeline) wakeLeader() {
	select {
	case p.leaderWake <- struct{}{}:
	default:
	}
}

// anchorRound does one step of anchoring and says how long to wait before the next.
func (p *Pipeline) anchorRound(ctx context.Context, st *leaderState) (time.Duration, error) {
	if !st.reconcile {
		if err := p.reconcile(ctx, st); err != nil {
			return 0, err
		}
		st.reconcile = true
	}
	if len(st.relost) > 0 {
		return p.awaitRelost(ctx, st)
	}
	open, err := p.Store.OpenBatches(ctx, st.network)
	if err != nil {
		return 0, err
	}
	if len(open) > 0 {
		return p.progress(ctx, st, open[0])
	}

	queue, err := p.Store.AnchorQueue(ctx, st.network, placed.From, p.Anchor.MaxRecords)
	if err != nil {
		return 0, err
	}
	if len(queue) == 0 {
		return p.Poll, nil
	}
	// Adaptive batching: no batch is in flight here (an open one is moved on above and keeps this step
	// away), so the waiting records leave at once. While a batch is in flight the queue grows behind it, up
	// to MaxRecords, so the batch size follows the load: a lone record goes alone and without waiting, and
	// at a high rate each batch carries what arrived during its predecessor's confirmation. One transaction
	// in flight per network is a limit of the contract, not a choice: a batch must start at the chain's next
	// token id, and the next batch's gas estimate would revert until its predecessor is mined.
	return 0, p.openBatch(ctx, st, queue)
}

// reconcile runs once per leadership term, before any new batch: it re-sends every saved batch whose
// transaction the chain does not have (the chain lost its last blocks in a crash, or the node restarted
// with an empty pool), oldest first, with the same signed transaction and so the same token ids.
func (p *Pipeline) reconcile(ctx context.Context, st *leaderState) error {
	next, err := st.a.NextTokenID(ctx)
	if err != nil {
		p.setQueueError(ctx, st, err)
		return err
	}
	lost, err := p.Store.BatchesFrom(ctx, st.network, next)
	if err != nil {
		return err
	}
	for _, b := range lost {
		if b.FirstTokenID < next {
			continue // already on chain: the batch straddles next only if it is mined
		}
		p.Logger.Info("re-sending batch the chain does not have", "network", st.network, "batch", b.ID,
			"first_token", b.FirstTokenID, "state", b.State)
		if err := p.checkLead(ctx, st); err != nil {
			return err
		}
		if err := st.a.Send(ctx, b.RawTx); err != nil {
			if errors.Is(err, seald.ErrNonceUsed) && b.State != seald.BatchConfirmed {
				// Its nonce went to another transaction: it can never be included. Anchor its records anew.
				if err := p.nonceTaken(ctx, st, b, err); err != nil {
					return err
				}
				continue
			}
			p.setBatchError(ctx, st, b, err)
			return err
		}
		st.lastSend[b.ID] = time.Now()
		if b.State == seald.BatchConfirmed {
			// Its records went on through the pipeline already; only the chain must get it back.
			st.relost = append(st.relost, b)
		}
	}
	return nil
}

// awaitRelost waits for the re-sent confirmed batches to be included again, re-sending them meanwhile.
func (p *Pipeline) awaitRelost(ctx context.Context, st *leaderState) (time.Duration, error) {
	b := st.relost[0]
	rc, err := st.a.Receipt(ctx, b.TxHash)
	if err != nil {
		return 0, err
	}
	if rc == nil {
		if time.Since(st.lastSend[b.ID]) > 5*time.Second {
			if err := p.checkLead(ctx, st); err != nil {
				return 0, err
			}
			if err := st.a.Send(ctx, b.RawTx); err != nil {
				return 0, err
			}
			st.lastSend[b.ID] = time.Now()
		}
		return receiptWait(time.Since(st.lastSend[b.ID]), p.Poll), nil
	}
	b.BlockNumber, b.BlockHash, b.UpdatedAt = rc.BlockNumber, rc.BlockHash, p.now()
	if err := p.Store.UpdateBatch(ctx, b, st.fence); err != nil {
		return 0, err
	}
	p.Logger.Info("lost batch included again", "network", st.network, "batch", b.ID, "block", rc.BlockNumber)
	delete(st.lastSend, b.ID)
	st.relost = st.relost[1:]
	return 0, nil
}

// openBatch builds, signs and saves a batch of waiting records, then sends it. The batch and its signed
// transaction are saved before the broadcast: after a crash the same transaction is re-sent, never a new one.
func (p *Pipeline) openBatch(ctx context.Context, st *leaderState, queue []*seald.Record) error {
	first, err := st.a.NextTokenID(ctx)
	if err != nil {
		p.setQueueError(ctx, st, err)
		return err
	}
	if stored, err := p.Store.NextTokenID(ctx, st.network); err != nil {
		return err
	} else if stored > first {
		// Batches this store saved are missing on chain and reconcile did not restore them yet.
		st.reconcile = false
		return fmt.Errorf("the chain's next token id %d is behind the store's %d: reconciling", first, stored)
	}
	req := seald.BatchRequest{FirstTokenID: first}
	if req.Hashes, req.Disclosures, req.Blinds, err = batchLeaves(queue); err != nil {
		return err
	}
	req.Nonce = st.reuseNonce
	tx, err := st.a.BuildBatch(ctx, req)
	if err != nil {
		p.setQueueError(ctx, st, err)
		return err
	}
	st.reuseNonce = nil
	if len(tx.Leaves) != len(queue) || len(tx.Proofs) != len(queue) {
		p.abandon(st, tx)
		return fmt.Errorf("anchorer built %d leaves and %d proofs for %d records", len(tx.Leaves), len(tx.Proofs), len(queue))
	}
	now := p.now()
	b := &seald.Batch{
		Network: st.network, FirstTokenID: first, Count: len(queue), Root: tx.Root, Nonce: tx.Nonce,
		TxHash: tx.TxHash, TxHashes: []string{tx.TxHash}, RawTx: tx.RawTx, State: seald.BatchSigned,
		CreatedAt: now, UpdatedAt: now,
	}
	entries := make([]seald.BatchEntry, len(queue))
	for i, r := range queue {
		entries[i] = seald.BatchEntry{Reference: r.Reference, TokenID: first + uint64(i), Leaf: tx.Leaves[i], MerklePath: tx.Proofs[i]}
		if i < len(tx.DisclosureProofs) {
			entries[i].DisclosurePath = tx.DisclosureProofs[i]
		}
	}
	t := placed
	t.Fence = st.fence
	if err := p.Store.CreateBatch(ctx, b, entries, t, now); err != nil {
		p.abandon(st, tx)
		return err
	}
	p.crash(seald.CrashAfterSign)
	return p.send(ctx, st, b)
}

// abandon forgets a signed transaction that was never saved or sent. An Anchorer that can re-read its nonce
// from the chain does so; otherwise the next batch reuses the nonce, so the key's sequence has no gap that
// would hold every later transaction back.
func (p *Pipeline) abandon(st *leaderState, tx *seald.BatchTx) {
	if r, ok := st.a.(interface{ ResetNonce() }); ok {
		r.ResetNonce()
		return
	}
	nonce := tx.Nonce
	st.reuseNonce = &nonce
}

// send broadcasts a saved batch, after a look at the lock. A batch whose nonce another transaction took is
// failed and its records queued again (nonceTaken).
func (p *Pipeline) send(ctx context.Context, st *leaderState, b *seald.Batch) error {
	if err := p.checkLead(ctx, st); err != nil {
		return err
	}
	if err := st.a.Send(ctx, b.RawTx); err != nil {
		if errors.Is(err, seald.ErrNonceUsed) {
			return p.nonceTaken(ctx, st, b, err)
		}
		p.setBatchError(ctx, st, b, err)
		return err
	}
	st.lastSend[b.ID] = time.Now()
	p.crash(seald.CrashAfterBroadcast)
	if b.State == seald.BatchSigned {
		b.State = seald.BatchSent
		b.UpdatedAt = p.now()
		return p.Store.UpdateBatch(ctx, b, st.fence)
	}
	return nil
}

// progress moves an open batch on: send it if it was never sent, confirm it once any of its transactions
// is included, re-send it while it is not, and replace it with higher fees when it is stuck.
func (p *Pipeline) progress(ctx context.Context, st *leaderState, b *seald.Batch) (time.Duration, error) {
	if b.State == seald.BatchSigned {
		return 0, p.send(ctx, st, b)
	}
	for i := len(b.TxHashes) - 1; i >= 0; i-- {
		rc, err := st.a.Receipt(ctx, b.TxHashes[i])
		if seald.IsPermanent(err) {
			return 0, p.failBatch(ctx, st, b, err)
		}
		if err != nil {
			p.setBatchError(ctx, st, b, err)
			return 0, err
		}
		if rc == nil {
			continue
		}
		p.crash(seald.CrashAfterConfirmTx)
		b.TxHash, b.BlockNumber, b.BlockHash = rc.TxHash, rc.BlockNumber, rc.BlockHash
		if b.TxHash == "" {
			b.TxHash = b.TxHashes[i]
		}
		b.State, b.UpdatedAt = seald.BatchConfirmed, p.now()
		t := anchored
		t.Fence = st.fence
		if err := p.Store.ConfirmBatch(ctx, b, t, b.UpdatedAt); err != nil {
			return 0, err
		}
		p.Observer.BatchAnchored(st.network, b.Count, rc.GasUsed)
		delete(st.lastSend, b.ID)
		p.Wake()
		return 0, nil
	}
	if p.now().Sub(b.UpdatedAt) > p.ReplaceAfter {
		nonce := b.Nonce
		req, err := p.batchRequest(ctx, b)
		if err != nil {
			return 0, err
		}
		req.Nonce, req.Attempt = &nonce, b.Attempt+1
		tx, err := st.a.BuildBatch(ctx, req)
		if err != nil {
			p.setBatchError(ctx, st, b, err)
			return 0, err
		}
		b.Attempt++
		b.RawTx, b.TxHash = tx.RawTx, tx.TxHash
		b.TxHashes = append(b.TxHashes, tx.TxHash)
		b.UpdatedAt = p.now()
		if err := p.Store.UpdateBatch(ctx, b, st.fence); err != nil {
			return 0, err
		}
		p.Logger.Warn("replaced stuck batch transaction", "network", st.network, "batch", b.ID, "attempt", b.Attempt, "tx", tx.TxHash)
		return 0, p.send(ctx, st, b)
	}
	if time.Since(st.lastSend[b.ID]) > 5*time.Second {
		// The node may have dropped it (a restart with an empty pool, or a reorganisation took its block
		// away before it was final): sending it again is harmless, and puts it back at its own nonce.
		if err := p.checkLead(ctx, st); err != nil {
			return 0, err
		}
		if err := st.a.Send(ctx, b.RawTx); err != nil {
			if errors.Is(err, seald.ErrNonceUsed) {
				return 0, p.nonceTaken(ctx, st, b, err)
			}
			p.setBatchError(ctx, st, b, err)
			return 0, err
		}
		st.lastSend[b.ID] = time.Now()
	}
	return receiptWait(time.Since(st.lastSend[b.ID]), p.Poll), nil
}

// receiptWait is how long the leader waits before it looks for a batch's receipt again, sent since ago: half
// that time, from 2 ms up to 100 ms (and never past poll). A chain that mines at once, as the embedded one
// does, mines a transaction a few milliseconds after it was sent, in the background: a first look right
// after the send misses it, and a fixed 100 ms then put 100 ms on a lone record's anchoring (p50 0.11 s
// where the look just after the send found it: 0.02 s). A chain with blocks seconds apart gets a few more
// looks in the first few hundred milliseconds after a send, then one each 100 ms as before.
func receiptWait(since, poll time.Duration) time.Duration {
	return min(max(since/2, 2*time.Millisecond), 100*time.Millisecond, poll)
}

// failBatch handles a batch whose transaction reverted: the rule is that the batch is FAILED for good (it
// minted nothing, and its nonce is spent, so nothing waits behind it) and its records go back to the queue
// with the revert shown as their BLOCKCHAIN_ERROR, to be placed in the next batch with new token ids. The
// network goes on anchoring at once. The metric seald_batches_failed_total and an ERROR line say so. A
// cause that would make every batch revert (the signer no longer owns the contract) does not burn gas in a
// loop: the next batch's gas estimate meets the same refusal, and building it fails before anything is sent.
func (p *Pipeline) failBatch(ctx context.Context, st *leaderState, b *seald.Batch, cause error) error {
	last := b.FirstTokenID + uint64(b.Count) - 1
	msg := truncate(fmt.Sprintf("batch %d (tokens %d-%d) failed on chain; the record waits for the next batch: %v",
		b.ID, b.FirstTokenID, last, cause))
	t := requeued
	t.Fence = st.fence
	if err := p.Store.FailBatch(ctx, b, t, seald.ErrorTypeBlockchain, msg, p.now()); err != nil {
		return err
	}
	delete(st.lastSend, b.ID)
	p.Observer.BatchFailed(st.network, b.Count)
	p.Logger.Error("anchoring batch failed on chain; its records are queued again", "network", st.network,
		"batch", b.ID, "first_token", b.FirstTokenID, "count", b.Count, "tx", b.TxHash, "err", cause)
	return nil
}

// nonceTaken handles a batch whose nonce the chain has passed without any transaction of it final. If one
// of its own transactions is included (a replacement, or the first after a replacement was signed), it
// holds the nonce and progress confirms it once its block is final. Otherwise a transaction that is not
// seald's took the nonce (one the operator sent with the anchoring key): the batch can never be included,
// so it is failed, fenced, and its records go back to the queue for a new batch with new token ids, as a
// reverted batch's do. Nothing waits behind it: the next batch takes the key's next nonce.
func (p *Pipeline) nonceTaken(ctx context.Context, st *leaderState, b *seald.Batch, cause error) error {
	for _, h := range b.TxHashes {
		rc, err := st.a.Included(ctx, h)
		if err != nil {
			return err
		}
		if rc != nil {
			st.lastSend[b.ID] = time.Now()
			return nil
		}
	}
	return p.failBatch(ctx, st, b, fmt.Errorf("its nonce %d went to another transaction of the anchoring key: %w", b.Nonce, cause))
}

// batchRequest reads the leaves of a batch's records in token order, to rebuild its transaction.
func (p *Pipeline) batchRequest(ctx context.Context, b *seald.Batch) (seald.BatchRequest, error) {
	rs := make([]*seald.Record, b.Count)
	for i := range b.Count {
		r, err := p.Store.RecordByToken(ctx, b.Network, b.FirstTokenID+uint64(i))
		if err != nil {
			return seald.BatchRequest{}, err
		}
		rs[i] = r
	}
	req := seald.BatchRequest{FirstTokenID: b.FirstTokenID}
	var err error
	req.Hashes, req.Disclosures, req.Blinds, err = batchLeaves(rs)
	return req, err
}

// batchLeaves returns the content hashes of records and, if any has one, their disclosure commitments and
// blinds (nil for a record sealed before selective disclosure).
func batchLeaves(rs []*seald.Record) (hashes [][32]byte, commitments, blinds []*[32]byte, err error) {
	hashes = make([][32]byte, len(rs))
	for i, r := range rs {
		if hashes[i], err = decodeHash(r.Hash); err != nil {
			return nil, nil, nil, err
		}
		if r.Disclosure == "" {
			continue
		}
		if commitments == nil {
			commitments, blinds = make([]*[32]byte, len(rs)), make([]*[32]byte, len(rs))
		}
		c, err := decodeHash(r.Disclosure)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("record %s: disclosure commitment: %w", r.Reference, err)
		}
		bl, err := decodeHash(r.DisclosureBlind)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("record %s: disclosure blind: %w", r.Reference, err)
		}
		commitments[i], blinds[i] = &c, &bl
	}
	return hashes, commitments, blinds, nil
}

func (p *Pipeline) setQueueError(ctx context.Context, st *leaderState, cause error) {
	queue, err := p.Store.AnchorQueue(ctx, st.network, placed.From, p.Anchor.MaxRecords)
	if err != nil || len(queue) == 0 {
		return
	}
	refs := make([]string, len(queue))
	for i, r := range queue {
		refs[i] = r.Reference
	}
	if err := p.Store.SetAnchorError(ctx, refs, seald.ErrorTypeBlockchain, truncate(cause.Error()), p.now()); err != nil {
		p.Logger.Error("save anchor error", "err", err)
	}
}

// setBatchError shows a chain fault on the batch's records and on the records queued behind it: the leader
// moves no new batch on while an open one cannot reach the chain, so they wait for the same cause.
func (p *Pipeline) setBatchError(ctx context.Context, st *leaderState, b *seald.Batch, cause error) {
	if err := p.Store.SetBatchError(ctx, b.ID, seald.ErrorTypeBlockchain, truncate(cause.Error()), p.now()); err != nil {
		p.Logger.Error("save batch error", "err", err)
	}
	p.setQueueError(ctx, st, cause)
}

func truncate(s string) string {
	if len(s) > 1000 {
		return s[:1000]
	}
	return s
}

// runRevocations runs the due revocation jobs of a network, on its leader, each once a round: a revocation
// that waits (for its token's batch, for its transaction) is due again after a short wait, and when saving
// its retry took longer than that wait (a store under load), running due jobs until none was left ran that
// one for ever, and the batch it waited for was never built. So the round ends at the first job it already
// ran (which is run, since its claim leased it) and the leader goes on.
func (p *Pipeline) runRevocations(ctx context.Context, network string) {
	ran := map[int64]bool{}
	for ctx.Err() == nil {
		jobs, err := p.Store.ClaimJobs(ctx, []string{seald.RevokeJob(network)}, 1, p.now(), p.Lease)
		if err != nil || len(jobs) == 0 {
			return
		}
		j := jobs[0]
		again := ran[j.ID]
		ran[j.ID] = true
		p.runJob(context.WithoutCancel(ctx), j)
		if again {
			return
		}
	}
}

func decodeHash(h string) ([32]byte, error) {
	var out [32]byte
	if !proof.IsHash(h) {
		return out, fmt.Errorf("record hash %q is not a SHA-256 hex digest", h)
	}
	for i := range 32 {
		out[i] = unhex(h[2*i])<<4 | unhex(h[2*i+1])
	}
	return out, nil
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}
