package evm

import (
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/core/types"

	"seald.dev/seald"
)

// Send broadcasts a signed transaction. A transaction the node already has, or one already mined, is
// success, so re-sending a saved transaction after a crash is always safe.
func (a *Anchorer) Send(ctx context.Context, rawTx []byte) error {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(rawTx); err != nil {
		return seald.Permanent(seald.Errorf(seald.EINVALID, "not a signed transaction: %v", err))
	}
	err := a.client.SendTransaction(ctx, tx)
	if err == nil {
		return nil
	}
	msg := strings.ToLower(err.Error())
	if strings.Contains(msg, "already known") || strings.Contains(msg, "known transaction") {
		return nil
	}
	// Whatever the node's words ("nonce too low"; "replacement transaction underpriced" from a pool that has
	// not yet seen the block that took the nonce; other nodes' own), a nonce the chain has already passed
	// was taken: by this transaction, or by another that can never be undone.
	if !strings.Contains(msg, "nonce too low") {
		used, nerr := a.nonceUsed(ctx, tx)
		if nerr != nil || !used {
			return fmt.Errorf("evm: send %s: %w", tx.Hash().Hex(), err)
		}
	}
	_, rerr := a.client.TransactionReceipt(ctx, tx.Hash())
	if rerr == nil {
		return nil
	}
	if !notFound(rerr) {
		return fmt.Errorf("evm: send %s: %w (and its receipt: %v)", tx.Hash().Hex(), err, rerr)
	}
	a.ResetNonce()
	return seald.Permanent(fmt.Errorf("evm: transaction %s at nonce %d: %w", tx.Hash().Hex(), tx.Nonce(), ErrNonceUsed))
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
