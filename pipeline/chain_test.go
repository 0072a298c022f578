package pipeline_test

import (
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/evm"
	"seald.dev/seald/evm/gethtest"
	"seald.dev/seald/evm/registry"
)

// The tests in this file anchor on a real chain (the embedded one, or geth --dev) through the real
// contract; only IPFS and mail are the fakes of env.

// chainUnder is a chain the pipeline anchors on, with a client and the anchoring key for tests that play
// the operator sending transactions of their own with it.
type chainUnder struct {
	client   *ethclient.Client
	key      *ecdsa.PrivateKey
	contract common.Address
	anchorer *evm.Anchorer
}

func embeddedChain(t *testing.T) *chainUnder {
	t.Helper()
	e, err := evm.OpenEmbedded(t.TempDir(), evm.EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	a, err := e.Anchorer(t.Context(), seald.NetworkPolygon)
	if err != nil {
		t.Fatal(err)
	}
	return &chainUnder{client: e.Client(), key: e.Key(), contract: e.Contract(), anchorer: a}
}

// gethChain deploys the contract on a geth --dev node and anchors there under opts.
func gethChain(t *testing.T, g *gethtest.Geth, opts evm.Options) *chainUnder {
	t.Helper()
	client := g.Client()
	t.Cleanup(client.Close)
	contract, err := evm.Deploy(t.Context(), client, g.Key)
	if err != nil {
		t.Fatal(err)
	}
	a, err := evm.NewAnchorer(t.Context(), client, contract, g.Key, seald.NetworkPolygon, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &chainUnder{client: client, key: g.Key, contract: contract, anchorer: a}
}

// foreignTx sends, with the anchoring key and behind seald's back, the setBaseURI that docs/api.md tells
// operators they may send, and waits until it is mined: it takes the nonce seald's anchorer counts on next.
func (c *chainUnder) foreignTx(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	from := c.anchorer.Address()
	chainID, err := c.client.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := c.client.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tip := big.NewInt(2_000_000_000)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	data := registry.NewSealRegistry().PackSetBaseURI("https://operator.example/tokens/")
	tx, err := types.SignNewTx(c.key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{ChainID: chainID,
		Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 200_000, To: &c.contract, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		rc, err := c.client.TransactionReceipt(ctx, tx.Hash())
		if err == nil && rc.Status == types.ReceiptStatusSuccessful {
			return
		}
		if err == nil || time.Now().After(deadline) {
			t.Fatalf("the operator's setBaseURI was not mined: %v %+v", err, rc)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// onChain checks that a COMPLETED record's token exists on the chain's canonical state (ownerOf answers)
// and that its batch's transaction is included there.
func (c *chainUnder) onChain(t *testing.T, e *env, r *seald.Record) {
	t.Helper()
	ctx := t.Context()
	reg := registry.NewSealRegistry()
	out, err := c.client.CallContract(ctx, ethereum.CallMsg{To: &c.contract, Data: reg.PackOwnerOf(new(big.Int).SetUint64(r.TokenID))}, nil)
	if err != nil {
		t.Errorf("%s is COMPLETED with token %d, which the contract does not know: %v", r.Reference, r.TokenID, err)
		return
	}
	if _, err := reg.UnpackOwnerOf(out); err != nil {
		t.Errorf("ownerOf(%d): %v", r.TokenID, err)
	}
	b, err := e.store.Batch(ctx, r.BatchID)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := c.anchorer.Included(ctx, b.TxHash)
	if err != nil || rc == nil {
		t.Errorf("%s is COMPLETED in batch %d whose transaction %s is not on the chain (%v)", r.Reference, b.ID, b.TxHash, err)
	}
}

// nonceTakenBetweenSeals: a transaction of the operator's, sent with the anchoring key between two seals,
// takes the nonce the leader counts on. The batch signed at that nonce can never be included: it is failed
// and its record anchored anew, so every record completes with a token the contract holds. The same goes for
// a revocation whose nonce is taken.
func nonceTakenBetweenSeals(t *testing.T, c *chainUnder) {
	e := newEnvOn(t, c.anchorer)
	e.patience = time.Minute
	first := e.seal(1).Reference
	e.start(8)
	e.waitState(first, seald.StateCompleted)

	c.foreignTx(t)
	refs := []string{first, e.seal(2).Reference}
	e.waitState(refs[1], seald.StateCompleted)
	refs = append(refs, e.seal(3).Reference)
	e.waitState(refs[2], seald.StateCompleted)

	c.foreignTx(t)
	if _, err := e.svc.SetStatus(t.Context(), e.caller, first, "REVOKED", "test"); err != nil {
		t.Fatal(err)
	}
	done := e.wait(first, "revoked on chain", func(r *seald.Record) bool { return r.RevokedOnChain })
	if revoked, err := c.anchorer.IsRevoked(t.Context(), done.TokenID); err != nil || !revoked {
		t.Errorf("the contract says token %d is not revoked (%v)", done.TokenID, err)
	}
	for _, ref := range refs {
		r, err := e.store.Record(t.Context(), ref)
		if err != nil {
			t.Fatal(err)
		}
		c.onChain(t, e, r)
	}
}

func TestNonceTakenEmbedded(t *testing.T) {
	nonceTakenBetweenSeals(t, embeddedChain(t))
}

func TestNonceTakenGeth(t *testing.T) {
	g := gethtest.Start(t, gethtest.Options{})
	nonceTakenBetweenSeals(t, gethChain(t, g, evm.Options{PollInterval: 20 * time.Millisecond}))
}

// TestReorgBeforeFinalityGeth rewinds geth's chain (debug_setHead) under a record whose batch is included
// but not final yet, with Polygon's rule (the node's finalized block; geth --dev finalizes every 32 blocks).
// The record is not ANCHORED, let alone COMPLETED, while its transaction can still vanish. On the new branch
// a transaction of the operator's takes the batch's nonce, so the batch's transaction can never come back:
// the batch is failed and its record anchored anew, and it ends COMPLETED with a token on the canonical
// chain, never with a lost transaction.
func TestReorgBeforeFinalityGeth(t *testing.T) {
	g := gethtest.Start(t, gethtest.Options{Period: 1, Debug: true})
	c := gethChain(t, g, evm.Options{Finality: evm.FinalityFinalized, PollInterval: 20 * time.Millisecond})
	ctx := t.Context()
	start := time.Now()
	// Seal just after an epoch boundary, so the batch's block is not final for a good many blocks.
	for {
		head, err := c.client.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if head%32 >= 1 && head%32 <= 8 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	e := newEnvOn(t, c.anchorer)
	e.patience = 3 * time.Minute
	ref := e.seal(1).Reference
	e.start(8)

	// Wait for the batch's transaction to be included, not final.
	var included *seald.Receipt
	for deadline := time.Now().Add(time.Minute); included == nil; {
		if time.Now().After(deadline) {
			t.Fatal("the batch was never included")
		}
		time.Sleep(50 * time.Millisecond)
		r, err := e.store.Record(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if r.BatchID == 0 {
			continue
		}
		b, err := e.store.Batch(ctx, r.BatchID)
		if err != nil {
			t.Fatal(err)
		}
		if included, err = c.anchorer.Included(ctx, b.TxHash); err != nil {
			t.Fatal(err)
		}
	}
	r, err := e.store.Record(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if r.State != seald.StateAnchorSubmitted {
		t.Fatalf("the record is %s once its batch is included in block %d, before that block is final", r.State, included.BlockNumber)
	}
	if err := c.client.Client().CallContext(ctx, nil, "debug_setHead", hexutil.EncodeUint64(included.BlockNumber-1)); err != nil {
		t.Fatal(err)
	}
	if rc, err := c.anchorer.Included(ctx, included.TxHash); err != nil || (rc != nil && rc.BlockHash == included.BlockHash) {
		t.Fatalf("after the rewind the transaction is still in block %s (%v)", included.BlockHash, err)
	}
	t.Logf("rewound to block %d under the batch of %s", included.BlockNumber-1, ref)
	// On the new branch another transaction of the key takes the batch's nonce, as a competing fork's
	// would: the batch's transaction can never come back, and its record must be anchored anew.
	c.foreignTx(t)

	done := e.waitState(ref, seald.StateCompleted)
	c.onChain(t, e, done)
	b, err := e.store.Batch(ctx, done.BatchID)
	if err != nil {
		t.Fatal(err)
	}
	final, err := c.anchorer.Receipt(ctx, b.TxHash)
	if err != nil || final == nil || final.BlockHash != b.BlockHash {
		t.Errorf("the batch is confirmed in block %s, the chain's final receipt says %+v (%v)", b.BlockHash, final, err)
	}
	t.Logf("the record completed %s after the test began", time.Since(start).Round(time.Second))
}

// TestSweepRevokesEmbedded: a REVOKED record whose revocation job an earlier version deleted after its
// retries (FailJob, as pipeline.fail did) is revoked on the real contract by the sweep at the next start.
func TestSweepRevokesEmbedded(t *testing.T) {
	c := embeddedChain(t)
	e := newEnvOn(t, c.anchorer)
	ref := e.seal(1).Reference
	e.start(8)
	r := e.waitState(ref, seald.StateCompleted)
	e.halt()
	if _, err := e.svc.SetStatus(t.Context(), e.caller, ref, "REVOKED", "test"); err != nil {
		t.Fatal(err)
	}
	jobs, err := e.store.ClaimJobs(t.Context(), []string{seald.RevokeJob(seald.NetworkPolygon)}, 1, time.Now(), time.Minute)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("claim the revocation job: %v %v", jobs, err)
	}
	if err := e.store.FailJob(t.Context(), jobs[0], "", seald.ErrorTypeBlockchain, "gave up", nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.start(8)
	e.wait(ref, "revoked on chain", func(r *seald.Record) bool { return r.RevokedOnChain })
	if revoked, err := c.anchorer.IsRevoked(t.Context(), r.TokenID); err != nil || !revoked {
		t.Errorf("the contract says token %d is not revoked (%v)", r.TokenID, err)
	}
}
