package evm_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"seald.dev/seald"
	"seald.dev/seald/evm"
	"seald.dev/seald/evm/eosevmtest"
	"seald.dev/seald/evm/gethtest"
)

// eosStandIn starts geth under EOS EVM testnet's chain id behind the stand-in proxy, and dials the proxy.
func eosStandIn(t *testing.T, opts gethtest.Options, gasPrice *big.Int) (*gethtest.Geth, *eosevmtest.Proxy, *ethclient.Client) {
	t.Helper()
	opts.ChainID = 15557
	g := gethtest.Start(t, opts)
	p := eosevmtest.Start(t, g, gasPrice)
	c, err := ethclient.Dial(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return g, p, c
}

func decode(t *testing.T, raw []byte) *types.Transaction {
	t.Helper()
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestEOSStandInNarrowsGeth checks the stand-in itself: it refuses what EOS EVM does not have, and geth
// behind it would have taken every one of those requests.
func TestEOSStandInNarrowsGeth(t *testing.T) {
	g, p, c := eosStandIn(t, gethtest.Options{}, nil)
	ctx := context.Background()
	direct := g.Client()
	defer direct.Close()

	if gp, err := c.SuggestGasPrice(ctx); err != nil || gp.Cmp(eosevmtest.DefaultGasPrice) != 0 {
		t.Errorf("eth_gasPrice %v, %v; want the fixed %s", gp, err, eosevmtest.DefaultGasPrice)
	}
	h, err := c.HeaderByNumber(ctx, nil)
	if err != nil || h.BaseFee != nil {
		t.Errorf("latest header through the stand-in: base fee %v, %v", h.BaseFee, err)
	}
	if h, err := direct.HeaderByNumber(ctx, nil); err != nil || h.BaseFee == nil {
		t.Errorf("geth itself has no base fee: %v", err)
	}
	for _, m := range []struct {
		method string
		args   []any
	}{
		{"eth_newFilter", []any{map[string]any{}}}, {"eth_newBlockFilter", nil},
		{"eth_getProof", []any{g.Address, []string{}, "latest"}}, {"eth_subscribe", []any{"newHeads"}},
	} {
		var out any
		err := c.Client().CallContext(ctx, &out, m.method, m.args...)
		var re rpc.Error
		if !errors.As(err, &re) || re.ErrorCode() != -32601 {
			t.Errorf("%s through the stand-in: %v, want method not found", m.method, err)
		}
		if m.method != "eth_subscribe" { // geth serves subscriptions over WebSocket only
			if err := direct.Client().CallContext(ctx, &out, m.method, m.args...); err != nil {
				t.Errorf("%s on geth itself: %v", m.method, err)
			}
		}
	}
	if _, err := c.SubscribeNewHead(ctx, make(chan *types.Header)); err == nil {
		t.Error("a subscription over the stand-in succeeded")
	}

	// A type-2 transaction is refused; the same transfer as a legacy one is taken and mined.
	nonce, err := c.PendingNonceAt(ctx, g.Address)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(g.ChainID)
	to := common.Address{1}
	dyn := types.MustSignNewTx(g.Key, signer, &types.DynamicFeeTx{ChainID: g.ChainID, Nonce: nonce, GasTipCap: big.NewInt(params.GWei),
		GasFeeCap: big.NewInt(200 * params.GWei), Gas: 21000, To: &to, Value: big.NewInt(1)})
	if err := c.SendTransaction(ctx, dyn); err == nil || !strings.Contains(err.Error(), "transaction type 2") {
		t.Errorf("type-2 transaction through the stand-in: %v", err)
	}
	legacy := types.MustSignNewTx(g.Key, signer, &types.LegacyTx{Nonce: nonce, GasPrice: eosevmtest.DefaultGasPrice, Gas: 21000, To: &to, Value: big.NewInt(1)})
	if err := c.SendTransaction(ctx, legacy); err != nil {
		t.Fatalf("legacy transaction through the stand-in: %v", err)
	}
	if r, err := receipt(ctx, c, legacy.Hash()); err != nil || r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("legacy transfer: %+v %v", r, err)
	}
	if got := p.Refused(); got["eth_sendRawTransaction"] != 1 || got["eth_newFilter"] != 1 || got["eth_getProof"] != 1 {
		t.Errorf("refusals counted: %v", got)
	}
}

// receipt waits for a transaction's receipt by polling, as everything on the EOS path does.
func receipt(ctx context.Context, c *ethclient.Client, hash common.Hash) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		r, err := c.TransactionReceipt(ctx, hash)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, ethereum.NotFound) && !strings.Contains(err.Error(), "indexing is in progress") {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestAnchorOnEOSStandIn deploys, anchors, confirms, revokes and verifies a proof through the stand-in with
// the default transaction type (auto): every transaction is legacy at the chain's gas price, Receipt counts
// confirmations on blocks that carry no base fee, and seald asks nothing the stand-in refuses.
func TestAnchorOnEOSStandIn(t *testing.T) {
	g, p, c := eosStandIn(t, gethtest.Options{Period: 1}, nil)
	ctx := context.Background()
	contract, err := evm.Deploy(ctx, c, g.Key)
	if err != nil {
		t.Fatalf("deploy through the stand-in: %v", err)
	}
	a, err := evm.NewAnchorer(ctx, c, contract, g.Key, seald.NetworkEOS, evm.Options{Confirmations: 2, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if name := a.Chain().Name(); name != "EOS EVM testnet (15557)" {
		t.Errorf("chain name %q", name)
	}
	hashes := hashesFor("eos", 8)
	b, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: evm.FirstTokenID, Hashes: hashes})
	if err != nil {
		t.Fatal(err)
	}
	tx := decode(t, b.RawTx)
	if tx.Type() != types.LegacyTxType || tx.GasPrice().Cmp(eosevmtest.DefaultGasPrice) != 0 || tx.ChainId().Int64() != 15557 {
		t.Fatalf("anchor: type %d, gas price %s, chain %s; want legacy at %s on 15557", tx.Type(), tx.GasPrice(), tx.ChainId(), eosevmtest.DefaultGasPrice)
	}
	if err := a.Send(ctx, b.RawTx); err != nil {
		t.Fatal(err)
	}
	r := waitFor(t, a, b.TxHash)
	head, err := c.BlockNumber(ctx)
	if err != nil || head < r.BlockNumber+2 {
		t.Errorf("receipt at head %d for block %d: before 2 confirmations (%v)", head, r.BlockNumber, err)
	}
	proof := signedBundle(t, a, evm.FirstTokenID, hashes, b, r, 3)
	if err := evm.VerifyProof(ctx, c, proof); err != nil {
		t.Fatalf("proof through the stand-in: %v", err)
	}
	if _, err := a.Revoke(ctx, evm.FirstTokenID+3); err != nil {
		t.Fatalf("revoke through the stand-in: %v", err)
	}
	if revoked, err := a.IsRevoked(ctx, evm.FirstTokenID+3); err != nil || !revoked {
		t.Errorf("revoked %v, %v", revoked, err)
	}
	if err := evm.VerifyProof(ctx, c, proof); err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("proof of a revoked token: %v", err)
	}
	if refused := p.Refused(); len(refused) != 0 {
		t.Errorf("seald asked the stand-in for what EOS EVM lacks: %v", refused)
	}

	// Forcing EIP-1559 on a chain without a base fee fails before anything is signed.
	dyn, err := evm.NewAnchorer(ctx, c, contract, g.Key, seald.NetworkEOS, evm.Options{TxType: evm.TxDynamic})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: evm.FirstTokenID + 8, Hashes: hashes}); err == nil || !strings.Contains(err.Error(), "no EIP-1559 base fee") {
		t.Errorf("dynamic transactions without a base fee: %v", err)
	}
}

// TestLegacyReplacementOnEOSStandIn leaves a legacy anchor stuck in geth's pool (the stand-in's gas price
// is under the miner's minimum), replaces it at its nonce until it is mined, and checks that geth took each
// replacement (its gas price at least 10% over the last), that every one stays legacy and under the
// ceiling, that only the last is mined, and that the ceiling stops the bumping when it leaves no room.
func TestLegacyReplacementOnEOSStandIn(t *testing.T) {
	price := big.NewInt(params.GWei)
	g, p, c := eosStandIn(t, gethtest.Options{Period: 1, MinerTip: big.NewInt(2 * params.GWei)}, price)
	ctx := context.Background()
	p.SetGasPrice(big.NewInt(10 * params.GWei)) // enough to deploy
	contract, err := evm.Deploy(ctx, c, g.Key)
	if err != nil {
		t.Fatal(err)
	}
	p.SetGasPrice(price)
	ceiling := big.NewInt(4 * params.GWei)
	a, err := evm.NewAnchorer(ctx, c, contract, g.Key, seald.NetworkEOS, evm.Options{FeeCeiling: ceiling, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	req := seald.BatchRequest{FirstTokenID: evm.FirstTokenID, Hashes: hashesFor("eos-stuck", 4)}
	first, err := a.BuildBatch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Send(ctx, first.RawTx); err != nil {
		t.Fatal(err)
	}
	waitBlocks(t, c, 2)
	if r, err := a.Receipt(ctx, first.TxHash); r != nil || err != nil {
		t.Fatalf("a transaction under the miner's minimum was mined: %+v %v", r, err)
	}
	sent := []*seald.BatchTx{first}
	prev := decode(t, first.RawTx)
	var mined *seald.Receipt
	for attempt := 1; mined == nil; attempt++ {
		if attempt > 20 {
			t.Fatal("never mined")
		}
		nonce := first.Nonce
		req.Nonce, req.Attempt = &nonce, attempt
		b, err := a.BuildBatch(ctx, req)
		if err != nil {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
		tx := decode(t, b.RawTx)
		if tx.Type() != types.LegacyTxType || tx.Nonce() != first.Nonce || tx.GasPrice().Cmp(ceiling) > 0 {
			t.Fatalf("attempt %d: type %d nonce %d gas price %s", attempt, tx.Type(), tx.Nonce(), tx.GasPrice())
		}
		if l, r := new(big.Int).Mul(tx.GasPrice(), big.NewInt(100)), new(big.Int).Mul(prev.GasPrice(), big.NewInt(110)); l.Cmp(r) < 0 {
			t.Fatalf("attempt %d: gas price %s is not 10%% over %s", attempt, tx.GasPrice(), prev.GasPrice())
		}
		if err := a.Send(ctx, b.RawTx); err != nil {
			t.Fatalf("attempt %d: geth refused the replacement at %s wei: %v", attempt, tx.GasPrice(), err)
		}
		sent, prev = append(sent, b), tx
		waitBlocks(t, c, 2)
		if mined, err = a.Receipt(ctx, b.TxHash); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("mined after %d replacements at %s wei", len(sent)-1, prev.GasPrice())
	if prev.GasPrice().Cmp(big.NewInt(2*params.GWei)) < 0 {
		t.Errorf("mined at %s wei, under the miner's minimum", prev.GasPrice())
	}
	for _, old := range sent[:len(sent)-1] {
		if _, err := c.TransactionReceipt(ctx, common.HexToHash(old.TxHash)); err == nil {
			t.Errorf("replaced transaction %s was mined", old.TxHash)
		}
	}
	if next, _ := a.NextTokenID(ctx); next != evm.FirstTokenID+4 {
		t.Errorf("next token id %d: the batch was not minted exactly once", next)
	}

	// The next transaction sits under the miner's minimum again; the ceiling leaves room for few bumps.
	req = seald.BatchRequest{FirstTokenID: evm.FirstTokenID + 4, Hashes: hashesFor("eos-ceiling", 2)}
	var reached bool
	for attempt := 0; attempt < 20 && !reached; attempt++ {
		b, err := a.BuildBatch(ctx, req)
		if errors.Is(err, evm.ErrFeeCeiling) {
			reached = strings.Contains(err.Error(), "gas price")
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if tx := decode(t, b.RawTx); tx.GasPrice().Cmp(ceiling) > 0 || tx.Type() != types.LegacyTxType {
			t.Fatalf("attempt %d: %s wei, type %d", attempt, tx.GasPrice(), tx.Type())
		}
		nonce := b.Nonce
		req.Nonce, req.Attempt = &nonce, attempt+1
	}
	if !reached {
		t.Error("legacy replacements never hit the ceiling")
	}
}

// TestForcedLegacyOnGeth sends legacy transactions to a chain that has a base fee when told to, at the
// node's own gas price, and they are mined.
func TestForcedLegacyOnGeth(t *testing.T) {
	g := gethtest.Start(t, gethtest.Options{})
	ctx := context.Background()
	c := g.Client()
	defer c.Close()
	contract, err := evm.DeployWith(ctx, c, g.Key, evm.DeployOptions{TxType: evm.TxLegacy})
	if err != nil {
		t.Fatal(err)
	}
	a, err := evm.NewAnchorer(ctx, c, contract, g.Key, seald.NetworkPolygon, evm.Options{TxType: evm.TxLegacy})
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: evm.FirstTokenID, Hashes: hashesFor("legacy", 2)})
	if err != nil {
		t.Fatal(err)
	}
	if tx := decode(t, b.RawTx); tx.Type() != types.LegacyTxType {
		t.Fatalf("type %d, want legacy", tx.Type())
	}
	if err := a.Send(ctx, b.RawTx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, a, b.TxHash)
	auto, err := evm.NewAnchorer(ctx, c, contract, g.Key, seald.NetworkPolygon, evm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err = auto.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: evm.FirstTokenID + 2, Hashes: hashesFor("auto", 2)})
	if err != nil {
		t.Fatal(err)
	}
	if tx := decode(t, b.RawTx); tx.Type() != types.DynamicFeeTxType {
		t.Errorf("auto on a chain with a base fee: type %d", tx.Type())
	}
	if _, err := evm.ParseTxType("eip1559"); err == nil {
		t.Error("an unknown transaction type parsed")
	}
}
