package evm

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"seald.dev/seald"
)

func TestBumpBeatsTenPercent(t *testing.T) {
	for _, x := range []int64{0, 1, 2, 7, 9, 10, 99, 1000, 1_000_000_007, 30_000_000_000} {
		prev := fees{tip: big.NewInt(x), feeCap: big.NewInt(x)}
		next := fees{tip: bump(prev.tip), feeCap: bump(prev.feeCap)}
		if !replaces(next, prev) {
			t.Errorf("bump(%d) = %s is not 10%% more", x, next.tip)
		}
		if x > 0 && replaces(prev, prev) {
			t.Errorf("equal fees of %d count as a replacement", x)
		}
	}
}

func decodeTx(t *testing.T, raw []byte) *types.Transaction {
	t.Helper()
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestReplacementFees builds a transaction and replacements at its nonce without sending them, and checks
// the fees each time beat the last by more than the 10% nodes require, whatever the attempt number says.
func TestReplacementFees(t *testing.T) {
	e := openChain(t, EmbeddedOptions{})
	ctx := context.Background()
	a, err := NewAnchorer(ctx, e.Client(), e.Contract(), e.Key(), seald.NetworkPolygon, Options{TipCap: big.NewInt(1_000_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	req := seald.BatchRequest{FirstTokenID: FirstTokenID, Hashes: contentHashes("fees", 4)}
	b0, err := a.BuildBatch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	prev := decodeTx(t, b0.RawTx)
	if prev.GasTipCap().Int64() != 1_000_000_000 {
		t.Errorf("tip %s, want the fixed 1 gwei", prev.GasTipCap())
	}
	if prev.ChainId().Int64() != 1337 || prev.Type() != types.DynamicFeeTxType {
		t.Errorf("chain id %s, type %d", prev.ChainId(), prev.Type())
	}
	for _, attempt := range []int{1, 1, 3, 0} { // a repeated or lower attempt still outbids the last one
		nonce := b0.Nonce
		req.Nonce, req.Attempt = &nonce, attempt
		b, err := a.BuildBatch(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		tx := decodeTx(t, b.RawTx)
		if tx.Nonce() != b0.Nonce || b.Root != b0.Root {
			t.Fatalf("replacement at nonce %d with root %s", tx.Nonce(), b.Root)
		}
		if !replaces(fees{tip: tx.GasTipCap(), feeCap: tx.GasFeeCap()}, fees{tip: prev.GasTipCap(), feeCap: prev.GasFeeCap()}) {
			t.Fatalf("attempt %d: fees %s/%s do not beat %s/%s by 10%%", attempt, tx.GasTipCap(), tx.GasFeeCap(), prev.GasTipCap(), prev.GasFeeCap())
		}
		prev = tx
	}
	// A new batch takes the next nonce.
	req.Nonce, req.Attempt = nil, 0
	b1, err := a.BuildBatch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if b1.Nonce != b0.Nonce+1 {
		t.Errorf("next nonce %d after %d", b1.Nonce, b0.Nonce)
	}
	// Sending the last replacement mines the batch once.
	last, _ := prev.MarshalBinary()
	if err := a.Send(ctx, last); err != nil {
		t.Fatal(err)
	}
	waitReceipt(t, a, prev.Hash().Hex())
	// The first version can no longer be mined: its nonce is taken.
	if err := a.Send(ctx, b0.RawTx); !errors.Is(err, ErrNonceUsed) || !seald.IsPermanent(err) {
		t.Errorf("sending a replaced transaction: %v", err)
	}
}

func TestFeeCeiling(t *testing.T) {
	e := openChain(t, EmbeddedOptions{})
	ctx := context.Background()
	ceiling := big.NewInt(3_000_000_000) // 3 gwei: room for the first, not for many bumps
	a, err := NewAnchorer(ctx, e.Client(), e.Contract(), e.Key(), seald.NetworkPolygon, Options{FeeCeiling: ceiling, TipCap: big.NewInt(1_000_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	req := seald.BatchRequest{FirstTokenID: FirstTokenID, Hashes: contentHashes("ceiling", 2)}
	var reached bool
	for attempt := 0; attempt < 20; attempt++ {
		b, err := a.BuildBatch(ctx, req)
		if errors.Is(err, ErrFeeCeiling) {
			reached = true
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		tx := decodeTx(t, b.RawTx)
		if tx.GasFeeCap().Cmp(ceiling) > 0 || tx.GasTipCap().Cmp(tx.GasFeeCap()) > 0 {
			t.Fatalf("attempt %d: fees %s/%s over the ceiling %s", attempt, tx.GasTipCap(), tx.GasFeeCap(), ceiling)
		}
		nonce := b.Nonce
		req.Nonce, req.Attempt = &nonce, attempt+1
	}
	if !reached {
		t.Error("replacements never hit the fee ceiling")
	}
}
