package evm

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/evm/registry"
)

// openChain opens a fresh embedded chain in a temporary directory, closed when the test ends.
func openChain(t testing.TB, opts EmbeddedOptions) *Embedded {
	t.Helper()
	e, err := OpenEmbedded(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("close chain: %v", err)
		}
	})
	return e
}

func newAnchorer(t testing.TB, e *Embedded) *Anchorer {
	t.Helper()
	a, err := e.Anchorer(context.Background(), seald.NetworkPolygon)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// contentHashes returns n distinct record hashes, different for each tag.
func contentHashes(tag string, n int) [][32]byte {
	out := make([][32]byte, n)
	for i := range out {
		out[i] = sha256.Sum256(fmt.Appendf(nil, "%s/%d", tag, i))
	}
	return out
}

// anchored is a batch that made it on chain.
type anchored struct {
	first   uint64
	hashes  [][32]byte
	tx      *seald.BatchTx
	receipt *seald.Receipt
}

// anchorBatch builds, sends and waits for a batch of n records starting at the contract's next token id.
func anchorBatch(t testing.TB, a *Anchorer, tag string, n int) anchored {
	t.Helper()
	ctx := context.Background()
	first, err := a.NextTokenID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hashes := contentHashes(tag, n)
	b, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: first, Hashes: hashes})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Send(ctx, b.RawTx); err != nil {
		t.Fatal(err)
	}
	return anchored{first: first, hashes: hashes, tx: b, receipt: waitReceipt(t, a, b.TxHash)}
}

// waitReceipt polls Receipt until the transaction is confirmed, failing on a revert or after a minute.
func waitReceipt(t testing.TB, a *Anchorer, txHash string) *seald.Receipt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		r, err := a.Receipt(ctx, txHash)
		if err != nil {
			t.Fatalf("receipt %s: %v", txHash, err)
		}
		if r != nil {
			return r
		}
		select {
		case <-ctx.Done():
			t.Fatalf("transaction %s not mined: %v", txHash, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// view calls a read-only contract method in the latest state.
func view(client *ethclient.Client, contract common.Address, data []byte) ([]byte, error) {
	return client.CallContract(context.Background(), ethereum.CallMsg{To: &contract, Data: data}, nil)
}

func mustView[T any](t testing.TB, client *ethclient.Client, contract common.Address, data []byte, unpack func([]byte) (T, error)) T {
	t.Helper()
	out, err := view(client, contract, data)
	if err != nil {
		t.Fatalf("call: %s", revertError(err))
	}
	v, err := unpack(out)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// wantRevert checks that a call from `from` reverts with the contract's custom error `name`.
func wantRevert(t testing.TB, client *ethclient.Client, from, contract common.Address, data []byte, name string) {
	t.Helper()
	_, err := client.CallContract(context.Background(), ethereum.CallMsg{From: from, To: &contract, Data: data}, nil)
	if err == nil {
		t.Fatalf("call succeeded, want revert %s", name)
	}
	d, ok := revertData(err)
	if !ok {
		t.Fatalf("call failed without revert data: %v", err)
	}
	if got := revertName(d); got != name {
		t.Fatalf("reverted with %q (%s), want %s", got, describeRevert(d), name)
	}
}

// fundedKey returns a new key holding 1 ether, sent from the chain's dev account.
func fundedKey(t testing.TB, e *Embedded) *ecdsa.PrivateKey {
	t.Helper()
	ctx := context.Background()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := crypto.PubkeyToAddress(key.PublicKey)
	s, err := newSigner(ctx, e.Client(), e.Key(), TxAuto, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := e.Client().PendingNonceAt(ctx, s.from)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.price(ctx, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(s.key, s.signer, &types.DynamicFeeTx{ChainID: s.chainID, Nonce: nonce,
		GasTipCap: f.tip, GasFeeCap: f.feeCap, Gas: 21000, To: &to, Value: big.NewInt(1e18)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Client().SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if _, err := waitMined(ctx, e.Client(), tx.Hash(), 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	return key
}

var sealRegistry = registry.NewSealRegistry()

func big64(n uint64) *big.Int { return new(big.Int).SetUint64(n) }
