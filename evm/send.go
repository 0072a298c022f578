package evm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"seald.dev/seald"
)

// nonceSettle is how long Send keeps looking before it concludes that another transaction took its
// transaction's nonce. The answers it weighs come from parts of a node that do not move at the same
// instant (geth's pool resets to a new head after the chain moved to it, so for a moment it refuses a
// transaction as "nonce too low" against a block a rewind or a reorganisation has just removed; a
// transaction index may trail the state), or from different nodes behind one URL, a block or two apart.
// A transaction the chain did include shows up within moments; a nonce truly taken by another transaction
// costs this wait once, and is rare.
const nonceSettle = 5 * time.Second

// Send broadcasts a signed transaction. A transaction the node already has, or one already mined, is
// success, so re-sending a saved transaction after a crash is always safe.
//
// A Permanent error wrapping ErrNonceUsed means that, for nonceSettle, the chain's latest block was past
// the transaction's nonce while neither its receipt nor the transaction itself could be found: another
// transaction took the nonce. Send never says so from the pool's "nonce too low" alone, nor from a single
// lookup, nor when ctx ends first: the anchor leader fails a batch on ErrNonceUsed and anchors its records
// anew, which for a batch the chain did include would mint its records twice.
func (a *Anchorer) Send(ctx context.Context, rawTx []byte) error {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(rawTx); err != nil {
		return seald.Permanent(seald.Errorf(seald.EINVALID, "not a signed transaction: %v", err))
	}
	hash := tx.Hash()
	var deadline time.Time
	for {
		err := a.client.SendTransaction(ctx, tx)
		if err == nil {
			return nil
		}
		msg := strings.ToLower(err.Error())
		if strings.Contains(msg, "already known") || strings.Contains(msg, "known transaction") {
			return nil
		}
		// Whatever the node's words ("nonce too low"; "replacement transaction underpriced" from a pool that
		// has not yet seen the block that took the nonce; other nodes' own), a nonce the chain has already
		// passed was taken: by this transaction, or by another that can never be undone.
		used, nerr := a.nonceUsed(ctx, tx)
		if nerr != nil {
			return ended(ctx, fmt.Errorf("evm: send %s: %w (and the chain's nonce: %w)", hash.Hex(), err, nerr))
		}
		tooLow := strings.Contains(msg, "nonce too low")
		if !used && !tooLow {
			return fmt.Errorf("evm: send %s: %w", hash.Hex(), err)
		}
		mined, lerr := a.onChain(ctx, hash)
		if lerr != nil {
			return ended(ctx, fmt.Errorf("evm: send %s: %w (and looking it up: %w)", hash.Hex(), err, lerr))
		}
		if mined {
			return nil
		}
		// Either the chain passed the nonce and the transaction is not found (yet), or the pool says "nonce
		// too low" while the chain has not passed it: look again, and send again, until the node agrees
		// with itself.
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(nonceSettle)
		}
		if !now.Before(deadline) {
			if !used {
				return fmt.Errorf("evm: send %s: %w (yet the chain has not passed nonce %d)", hash.Hex(), err, tx.Nonce())
			}
			a.ResetNonce()
			return seald.Permanent(fmt.Errorf("evm: transaction %s at nonce %d: %w", hash.Hex(), tx.Nonce(), ErrNonceUsed))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("evm: send %s: %w (while looking for it: %w)", hash.Hex(), err, ctx.Err())
		case <-time.After(min(a.opts.PollInterval, time.Until(deadline))):
		}
	}
}

// ended adds ctx's end to err when ctx has ended and err does not already say so: a lookup cut short by
// the context fails with the transport's words, which need not wrap context.DeadlineExceeded, and a caller
// must still see that the context, not the chain, stopped Send.
func ended(ctx context.Context, err error) error {
	if c := ctx.Err(); c != nil && !errors.Is(err, c) {
		return fmt.Errorf("%w (%w)", err, c)
	}
	return err
}

// nonceUsed reports whether the chain's latest block has passed tx's nonce for its sender.
func (a *Anchorer) nonceUsed(ctx context.Context, tx *types.Transaction) (bool, error) {
	from, err := types.Sender(a.s.signer, tx)
	if err != nil {
		return false, err
	}
	n, err := a.client.NonceAt(ctx, from, nil)
	if err != nil {
		return false, err
	}
	return n > tx.Nonce(), nil
}

// onChain reports whether the node has the transaction in a block: its receipt, or the transaction with a
// block number where a node's receipts trail its transaction index.
func (a *Anchorer) onChain(ctx context.Context, hash common.Hash) (bool, error) {
	_, err := a.client.TransactionReceipt(ctx, hash)
	if err == nil {
		return true, nil
	}
	if !notFound(err) {
		return false, err
	}
	_, pending, err := a.client.TransactionByHash(ctx, hash)
	if notFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !pending, nil
}
