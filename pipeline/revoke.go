package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"seald.dev/seald"
)

// errNotAnchored postpones a revocation until the record's token is minted and confirmed.
var errNotAnchored = errors.New("the record's token is not minted and confirmed yet; its revocation waits for it")

// revoke records a revocation on the chain. It runs on the network's anchor leader (see RevokeJob). The
// contract refuses to revoke a token it has not minted, so the job waits until the record's batch is
// CONFIRMED: a token id alone is given when the batch is built, before its transaction is mined.
func (p *Pipeline) revoke(ctx context.Context, j *seald.Job, r *seald.Record) error {
	a, ok := p.Anchorers[r.Network]
	if !ok {
		return fmt.Errorf("no chain configured for %s", r.Network)
	}
	done := &seald.RecordUpdate{RevokedOnChain: true, At: p.now()}
	if r.TokenID == 0 || r.BatchID == 0 {
		if r.State == seald.StateFailed { // never anchored: nothing on chain to revoke
			return p.save(ctx, func() error { return p.Store.CompleteJob(ctx, j, nil, false) })
		}
		return errNotAnchored
	}
	b, err := p.Store.Batch(ctx, r.BatchID)
	if err != nil {
		return err
	}
	if b.State != seald.BatchConfirmed {
		return errNotAnchored
	}
	rv, err := p.Store.Revocation(ctx, r.Network, r.TokenID)
	if seald.ErrorCode(err) == seald.ENOTFOUND {
		return p.signRevocation(ctx, a, r, nil)
	}
	if err != nil {
		return err
	}
	switch rv.State {
	case seald.BatchConfirmed:
		// A revocation confirmed before may be gone from the chain (a restore of the chain, or the sweep at
		// start found the token not revoked): the contract is the truth, so it is read before the job ends.
		revoked, err := a.IsRevoked(ctx, r.TokenID)
		if err != nil {
			return err
		}
		if !revoked {
			return p.signRevocation(ctx, a, r, nil)
		}
		return p.save(ctx, func() error { return p.Store.CompleteJob(ctx, j, done, false) })
	case seald.BatchFailed:
		return p.signRevocation(ctx, a, r, nil) // a new transaction, at a new nonce
	case seald.BatchSigned:
		return p.sendRevocation(ctx, a, rv)
	}
	for i := len(rv.TxHashes) - 1; i >= 0; i-- {
		rc, err := a.Receipt(ctx, rv.TxHashes[i])
		if seald.IsPermanent(err) {
			// It reverted: the next run signs a new one. The job counts the failure and retries at the
			// capped backoff; a cause that never goes away (the key lost the contract) shows in the
			// metric of the oldest failing job, and the gas estimate refuses before anything is signed.
			rv.State, rv.UpdatedAt = seald.BatchFailed, p.now()
			if serr := p.Store.SaveRevocation(ctx, rv, fenceOf(ctx)); serr != nil {
				return serr
			}
			return err
		}
		if err != nil {
			return err
		}
		if rc == nil {
			continue
		}
		rv.State, rv.TxHash, rv.UpdatedAt = seald.BatchConfirmed, rc.TxHash, p.now()
		if rv.TxHash == "" {
			rv.TxHash = rv.TxHashes[i]
		}
		if err := p.Store.SaveRevocation(ctx, rv, fenceOf(ctx)); err != nil {
			return err
		}
		p.revokeSent.Delete(revocationKey(rv))
		return p.save(ctx, func() error { return p.Store.CompleteJob(ctx, j, done, false) })
	}
	if p.now().Sub(rv.UpdatedAt) > p.ReplaceAfter {
		return p.signRevocation(ctx, a, r, rv)
	}
	if last, ok := p.revokeSent.Load(revocationKey(rv)); !ok || time.Since(last.(time.Time)) > 5*time.Second {
		// Not sent by this process yet, or the node may have dropped it: sending again is harmless.
		return p.sendRevocation(ctx, a, rv)
	}
	return errRevocationSent
}

func revocationKey(rv *seald.Revocation) string {
	return rv.Network + ":" + strconv.FormatUint(rv.TokenID, 10)
}

// errRevocationSent postpones a revocation job whose transaction is sent and not yet included: the leader
// looks again at its next round, and anchoring goes on meanwhile.
var errRevocationSent = errors.New("the revocation transaction is sent and not yet included")

// signRevocation signs a revocation of the record's token and saves it before sending it, so that a crash
// re-sends the same transaction. With stuck set, the new transaction replaces that one at its nonce with
// higher fees. A signed transaction that could not be saved is forgotten and its nonce given back.
func (p *Pipeline) signRevocation(ctx context.Context, a seald.Anchorer, r *seald.Record, stuck *seald.Revocation) error {
	req := seald.RevokeRequest{TokenID: r.TokenID}
	now := p.now()
	rv := &seald.Revocation{Network: r.Network, TokenID: r.TokenID, Reference: r.Reference, CreatedAt: now}
	if stuck != nil {
		nonce := stuck.Nonce
		req.Nonce, req.Attempt = &nonce, stuck.Attempt+1
		rv = stuck
	}
	tx, err := a.BuildRevoke(ctx, req)
	if err != nil {
		return err
	}
	rv.Nonce, rv.TxHash, rv.RawTx, rv.Attempt = tx.Nonce, tx.TxHash, tx.RawTx, req.Attempt
	rv.TxHashes = append(rv.TxHashes, tx.TxHash)
	rv.State, rv.UpdatedAt = seald.BatchSigned, now
	if err := p.Store.SaveRevocation(ctx, rv, fenceOf(ctx)); err != nil {
		if stuck == nil {
			if rn, ok := a.(interface{ ResetNonce() }); ok {
				rn.ResetNonce()
			}
		}
		return err
	}
	if stuck != nil {
		p.Logger.Warn("replaced stuck revocation transaction", "network", r.Network, "token", r.TokenID,
			"attempt", rv.Attempt, "tx", tx.TxHash)
	}
	return p.sendRevocation(ctx, a, rv)
}

// sendRevocation broadcasts a saved revocation and marks it SENT.
func (p *Pipeline) sendRevocation(ctx context.Context, a seald.Anchorer, rv *seald.Revocation) error {
	if err := p.checkFence(ctx, fenceOf(ctx)); err != nil {
		return err
	}
	if err := a.Send(ctx, rv.RawTx); err != nil {
		if errors.Is(err, seald.ErrNonceUsed) {
			// One of its own transactions (a replacement) may hold the nonce: then it waits for that one.
			for _, h := range rv.TxHashes {
				rc, ierr := a.Included(ctx, h)
				if ierr != nil {
					return ierr
				}
				if rc != nil {
					return errRevocationSent
				}
			}
		}
		if seald.IsPermanent(err) {
			// Its nonce went to another transaction (a crash dropped it from the pool and the nonce was
			// reused, or the operator sent one with the key): it can never be included, so the next run
			// signs the revocation again at a new nonce.
			rv.State, rv.UpdatedAt = seald.BatchFailed, p.now()
			if serr := p.Store.SaveRevocation(ctx, rv, fenceOf(ctx)); serr != nil {
				return serr
			}
			// Not a fault of the revocation: the job retries, and its next run signs a new transaction.
			return fmt.Errorf("revocation of token %d signed again: %v", rv.TokenID, err)
		}
		return err
	}
	p.revokeSent.Store(revocationKey(rv), time.Now())
	if rv.State == seald.BatchSigned {
		rv.State = seald.BatchSent
		if err := p.Store.SaveRevocation(ctx, rv, fenceOf(ctx)); err != nil {
			return err
		}
	}
	return errRevocationSent
}
