package evm

import (
	"context"
	"fmt"
	"math/big"
)

// Balance reads the signer's balance in wei from the chain's latest block, for the signer balance gauge:
// an operator is warned before the key runs out of gas money.
func (a *Anchorer) Balance(ctx context.Context) (*big.Int, error) {
	b, err := a.client.BalanceAt(ctx, a.s.from, nil)
	if err != nil {
		return nil, fmt.Errorf("evm: balance of %s: %w", a.s.from.Hex(), err)
	}
	return b, nil
}
