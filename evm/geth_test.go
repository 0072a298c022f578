package evm_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/evm"
	"seald.dev/seald/evm/gethtest"
	"seald.dev/seald/proof"
)

// Integration tests against a real geth --dev node (SEALD_TEST_GETH), on Polygon's fork rules.

func hashesFor(tag string, n int) [][32]byte {
	out := make([][32]byte, n)
	for i := range out {
		out[i] = sha256.Sum256(fmt.Appendf(nil, "%s/%d", tag, i))
	}
	return out
}

// waitFor polls Receipt until the anchorer reports the transaction, failing after two minutes.
func waitFor(t *testing.T, a *evm.Anchorer, txHash string) *seald.Receipt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
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
			t.Fatalf("transaction %s not confirmed", txHash)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func signedBundle(t *testing.T, a *evm.Anchorer, first uint64, hashes [][32]byte, b *seald.BatchTx, r *seald.Receipt, i int) *proof.Bundle {
	t.Helper()
	_, key, _ := ed25519.GenerateKey(nil)
	p := &proof.Bundle{Version: proof.Version, Reference: fmt.Sprintf("ref-%d", i), Hash: hex.EncodeToString(hashes[i][:]), CID: "bafkreigeth"}
	if err := evm.FillProof(p, a.Chain(), first+uint64(i), b.Proofs[i], b.Root, *r); err != nil {
		t.Fatal(err)
	}
	p.Sign(evm.EdSigner(key))
	return p
}

func TestGethAnchorRevokeVerify(t *testing.T) {
	g := gethtest.Start(t, gethtest.Options{})
	ctx := context.Background()
	client := g.Client()
	defer client.Close()

	contract, err := evm.Deploy(ctx, client, g.Key)
	if err != nil {
		t.Fatal(err)
	}
	a, err := evm.DialAnchorer(ctx, g.URL, contract, g.Key, seald.NetworkEOS, evm.Options{PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if c := a.Chain(); c.Network != seald.NetworkEOS || c.ChainID != g.ChainID.String() || c.Contract != contract.Hex() {
		t.Fatalf("Chain() = %+v", c)
	}

	first, err := a.NextTokenID(ctx)
	if err != nil || first != evm.FirstTokenID {
		t.Fatalf("next token id %d, %v", first, err)
	}
	hashes := hashesFor("geth", 64)
	b, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: first, Hashes: hashes})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Send(ctx, b.RawTx); err != nil {
		t.Fatal(err)
	}
	if err := a.Send(ctx, b.RawTx); err != nil { // the node already has it, or has mined it
		t.Fatalf("second send: %v", err)
	}
	r := waitFor(t, a, b.TxHash)
	if err := a.Send(ctx, b.RawTx); err != nil {
		t.Fatalf("send after mining: %v", err)
	}
	if next, _ := a.NextTokenID(ctx); next != first+64 {
		t.Fatalf("next token id %d after a batch of 64", next)
	}

	for _, i := range []int{0, 31, 63} {
		if err := evm.VerifyProof(ctx, client, signedBundle(t, a, first, hashes, b, r, i)); err != nil {
			t.Fatalf("bundle %d: %v", i, err)
		}
	}
	p := signedBundle(t, a, first, hashes, b, r, 7)
	p.Hash = strings.Repeat("0", 64)
	if err := evm.VerifyProof(ctx, client, p); err == nil || !strings.Contains(err.Error(), "hash does not match") {
		t.Fatalf("changed hash: %v", err)
	}

	if _, err := a.Revoke(ctx, first+7); err != nil {
		t.Fatal(err)
	}
	if revoked, err := a.IsRevoked(ctx, first+7); err != nil || !revoked {
		t.Fatalf("IsRevoked: %v, %v", revoked, err)
	}
	if _, err := a.Revoke(ctx, first+7); err != nil {
		t.Fatalf("second revocation: %v", err)
	}
	err = evm.VerifyProof(ctx, client, signedBundle(t, a, first, hashes, b, r, 7))
	if want := fmt.Sprintf("token %d is revoked", first+7); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("revoked token: %v", err)
	}

	// A second batch follows with the next nonce and token ids.
	b2, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: first + 64, Hashes: hashesFor("geth-2", 3)})
	if err != nil {
		t.Fatal(err)
	}
	if b2.Nonce != b.Nonce+3 { // the batch, then two revocations
		t.Errorf("nonce %d after %d", b2.Nonce, b.Nonce)
	}
	if err := a.Send(ctx, b2.RawTx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, a, b2.TxHash)
}

// TestGethReplacesStuckTransaction leaves a batch stuck in geth's pool with a priority fee under the
// miner's minimum, replaces it at the same nonce, and checks that the node took each replacement (so its
// fees beat the last by 10% on both caps), that only the last one is mined, and that Receipt waits for
// the configured confirmations.
func TestGethReplacesStuckTransaction(t *testing.T) {
	g := gethtest.Start(t, gethtest.Options{Period: 1, MinerTip: big.NewInt(1_000_000_000)})
	ctx := context.Background()
	client := g.Client()
	defer client.Close()
	contract, err := evm.Deploy(ctx, client, g.Key)
	if err != nil {
		t.Fatal(err)
	}

	// A misconfigured anchorer tips 1 wei: the node accepts the transaction but never mines it.
	cheap, err := evm.NewAnchorer(ctx, client, contract, g.Key, seald.NetworkPolygon, evm.Options{TipCap: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	req := seald.BatchRequest{FirstTokenID: evm.FirstTokenID, Hashes: hashesFor("stuck", 10)}
	stuck, err := cheap.BuildBatch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := cheap.Send(ctx, stuck.RawTx); err != nil {
		t.Fatal(err)
	}
	waitBlocks(t, client, 2)
	if r, err := cheap.Receipt(ctx, stuck.TxHash); r != nil || err != nil {
		t.Fatalf("a transaction under the miner's tip was mined: %+v, %v", r, err)
	}
	if _, pending, err := client.TransactionByHash(ctx, common.HexToHash(stuck.TxHash)); err != nil || !pending {
		t.Fatalf("stuck transaction not pending: %v, %v", pending, err)
	}

	// First replacement, still too cheap for the miner but 10% above on both caps: geth swaps it in.
	nonce := stuck.Nonce
	req.Nonce, req.Attempt = &nonce, 1
	second, err := cheap.BuildBatch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := cheap.Send(ctx, second.RawTx); err != nil {
		t.Fatalf("geth refused the bumped replacement: %v", err)
	}
	if _, _, err := client.TransactionByHash(ctx, common.HexToHash(stuck.TxHash)); err == nil {
		t.Fatal("the replaced transaction is still in the pool")
	}

	// The operator fixes the tip; after a restart a fresh anchorer replaces the transaction again.
	fixed, err := evm.NewAnchorer(ctx, client, contract, g.Key, seald.NetworkPolygon, evm.Options{Confirmations: 2})
	if err != nil {
		t.Fatal(err)
	}
	req.Attempt = 2
	third, err := fixed.BuildBatch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := fixed.Send(ctx, third.RawTx); err != nil {
		t.Fatalf("geth refused the replacement with a real tip: %v", err)
	}
	r := waitFor(t, fixed, third.TxHash)
	head, err := client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head < r.BlockNumber+2 {
		t.Errorf("receipt reported at head %d for block %d, before 2 confirmations", head, r.BlockNumber)
	}
	for _, old := range []*seald.BatchTx{stuck, second} {
		if _, err := client.TransactionReceipt(ctx, common.HexToHash(old.TxHash)); err == nil {
			t.Errorf("replaced transaction %s was mined", old.TxHash)
		}
		if err := fixed.Send(ctx, old.RawTx); !errors.Is(err, evm.ErrNonceUsed) {
			t.Errorf("re-sending replaced %s: %v", old.TxHash, err)
		}
	}
	if next, _ := fixed.NextTokenID(ctx); next != evm.FirstTokenID+10 {
		t.Errorf("next token id %d: the batch was not minted exactly once", next)
	}
	p := signedBundle(t, fixed, evm.FirstTokenID, req.Hashes, third, r, 4)
	if err := evm.VerifyProof(ctx, client, p); err != nil {
		t.Fatal(err)
	}
}

// TestGethRestart stops and restarts the node: the URL stays, and the anchors are still there.
func TestGethRestart(t *testing.T) {
	g := gethtest.Start(t, gethtest.Options{})
	ctx := context.Background()
	client := g.Client()
	defer client.Close()
	contract, err := evm.Deploy(ctx, client, g.Key)
	if err != nil {
		t.Fatal(err)
	}
	a, err := evm.NewAnchorer(ctx, client, contract, g.Key, seald.NetworkPolygon, evm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hashes := hashesFor("restart", 5)
	b, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: evm.FirstTokenID, Hashes: hashes})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Send(ctx, b.RawTx); err != nil {
		t.Fatal(err)
	}
	r := waitFor(t, a, b.TxHash)
	url := g.URL

	g.Stop()
	if _, err := a.NextTokenID(ctx); err == nil {
		t.Error("the stopped node answered")
	}
	g.Restart()
	if g.URL != url {
		t.Fatalf("URL moved from %s to %s", url, g.URL)
	}
	// The same client (plain HTTP) reaches the restarted node.
	if err := evm.VerifyProof(ctx, client, signedBundle(t, a, evm.FirstTokenID, hashes, b, r, 2)); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}

// waitBlocks waits until the chain has grown by n blocks.
func waitBlocks(t *testing.T, c *ethclient.Client, n uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for {
		h, err := c.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if h >= start+n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the chain did not grow by %d blocks", n)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
