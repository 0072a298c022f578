package evm

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
)

func TestEmbeddedPersists(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	_, svcKey, _ := ed25519.GenerateKey(nil)

	e, err := OpenEmbedded(dir, EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := newAnchorer(t, e)
	b := anchorBatch(t, a, "persist", 16)
	if _, err := a.Revoke(ctx, b.first+2); err != nil {
		t.Fatal(err)
	}
	contract, owner := e.Contract(), a.Address()
	proof := bundle(t, a, b, 5, svcKey)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}

	fi, err := os.Stat(filepath.Join(dir, keyFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}

	e, err = OpenEmbedded(dir, EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Contract() != contract {
		t.Fatalf("contract moved from %s to %s", contract, e.Contract())
	}
	a = newAnchorer(t, e)
	if a.Address() != owner {
		t.Fatalf("owner changed from %s to %s", owner, a.Address())
	}
	if next, err := a.NextTokenID(ctx); err != nil || next != b.first+16 {
		t.Fatalf("next token id after reopen: %d, %v", next, err)
	}
	checkBatch(t, e, b)
	if revoked, err := a.IsRevoked(ctx, b.first+2); err != nil || !revoked {
		t.Errorf("revocation lost: %v, %v", revoked, err)
	}
	if err := VerifyProof(ctx, e.Client(), proof); err != nil {
		t.Errorf("bundle made before the restart: %v", err)
	}
	// The reopened chain keeps growing: the nonce resumes from the chain.
	b2 := anchorBatch(t, a, "persist-2", 3)
	if b2.first != b.first+16 {
		t.Errorf("batch after reopen starts at %d", b2.first)
	}
	if again, err := OpenEmbedded(dir, EmbeddedOptions{}); err == nil {
		again.Close()
		t.Error("opened a chain another Embedded has open")
	}
}

func TestEmbeddedRefusesAnotherChainID(t *testing.T) {
	dir := t.TempDir()
	e, err := OpenEmbedded(dir, EmbeddedOptions{ChainID: 31337})
	if err != nil {
		t.Fatal(err)
	}
	if e.ChainID().Uint64() != 31337 {
		t.Errorf("chain id %s", e.ChainID())
	}
	e.Close()
	if _, err := OpenEmbedded(dir, EmbeddedOptions{ChainID: 1337}); err == nil || !strings.Contains(err.Error(), "31337") {
		t.Errorf("reopen under another chain id: %v", err)
	}
	e, err = OpenEmbedded(dir, EmbeddedOptions{}) // 0 takes whatever the chain is
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.ChainID().Uint64() != 31337 {
		t.Errorf("reopened chain id %s", e.ChainID())
	}
}

// TestEmbeddedServesRPC checks the chain over its HTTP JSON-RPC, as `seald proof verify --rpc` sees it.
func TestEmbeddedServesRPC(t *testing.T) {
	e := openChain(t, EmbeddedOptions{RPCAddr: "127.0.0.1:0"})
	url := e.RPCURL()
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("RPC URL %q", url)
	}
	a := newAnchorer(t, e)
	b := anchorBatch(t, a, "rpc", 2)
	_, svcKey, _ := ed25519.GenerateKey(nil)
	remote, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	if err := VerifyProof(context.Background(), remote, bundle(t, a, b, 1, svcKey)); err != nil {
		t.Fatalf("VerifyProof over HTTP: %v", err)
	}
	logs, err := remote.FilterLogs(context.Background(), ethereum.FilterQuery{Addresses: []common.Address{e.Contract()}})
	if err != nil || len(logs) < 2 {
		t.Errorf("contract logs over HTTP: %d, %v", len(logs), err)
	}
	// The RPC is read-and-send only: the dev namespace that seals blocks is not exposed.
	var out any
	if err := remote.Client().Call(&out, "dev_setFeeRecipient", common.Address{}); err == nil {
		t.Error("dev namespace served over HTTP")
	}
	if off := openChain(t, EmbeddedOptions{}); off.RPCURL() != "" {
		t.Errorf("RPC served with no address: %s", off.RPCURL())
	}
}

// TestResendAfterRewind drops the block holding a batch, as a kill -9 may, and re-sends the saved signed
// transaction: the chain takes it again and the same tokens come back.
func TestResendAfterRewind(t *testing.T) {
	e := openChain(t, EmbeddedOptions{})
	a := newAnchorer(t, e)
	ctx := context.Background()
	b := anchorBatch(t, a, "rewind", 8)
	if err := e.eth.BlockChain().SetHead(b.receipt.BlockNumber - 1); err != nil {
		t.Fatal(err)
	}
	if r, err := a.Receipt(ctx, b.tx.TxHash); r != nil || err != nil {
		t.Fatalf("receipt after the rewind: %+v, %v", r, err)
	}
	if next, _ := a.NextTokenID(ctx); next != b.first {
		t.Fatalf("rewind kept the batch: next token id %d", next)
	}
	if err := a.Send(ctx, b.tx.RawTx); err != nil {
		t.Fatalf("re-send after rewind: %v", err)
	}
	b.receipt = waitReceipt(t, a, b.tx.TxHash)
	checkBatch(t, e, b)
}

// TestKillNine kills a process running the embedded chain with SIGKILL right after it anchored a batch,
// reopens the chain, and re-sends the saved transaction as the anchor leader does at start. Whether or not
// the block survived, the batch ends up on chain exactly once.
func TestKillNine(t *testing.T) {
	if dir := os.Getenv("SEALD_EVM_KILL_CHILD"); dir != "" {
		killChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillNine$")
	cmd.Env = append(os.Environ(), "SEALD_EVM_KILL_CHILD="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "RAWTX "); ok {
			raw, err = hex.DecodeString(line)
			if err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred Close runs
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if raw == nil {
		t.Fatal("the child never anchored")
	}

	e, err := OpenEmbedded(dir, EmbeddedOptions{})
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer e.Close()
	a := newAnchorer(t, e)
	ctx := context.Background()
	if err := a.Send(ctx, raw); err != nil {
		t.Fatalf("re-send after kill -9: %v", err)
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	r := waitReceipt(t, a, tx.Hash().Hex())
	if next, err := a.NextTokenID(ctx); err != nil || next != FirstTokenID+32 {
		t.Fatalf("next token id %d, %v; want one batch of 32", next, err)
	}
	got := mustView(t, e.Client(), e.Contract(), sealRegistry.PackBatchCount(), sealRegistry.UnpackBatchCount)
	if got.Uint64() != 1 {
		t.Fatalf("%s batches on chain, want 1", got)
	}
	t.Logf("batch in block %d after kill -9 and re-send", r.BlockNumber)
}

// killChild is the child side of TestKillNine: anchor one batch, print its signed transaction, and wait to
// be killed.
func killChild(dir string) {
	e, err := OpenEmbedded(dir, EmbeddedOptions{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	a, err := e.Anchorer(ctx, seald.NetworkPolygon)
	if err != nil {
		panic(err)
	}
	b, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: FirstTokenID, Hashes: contentHashes("kill", 32)})
	if err != nil {
		panic(err)
	}
	if err := a.Send(ctx, b.RawTx); err != nil {
		panic(err)
	}
	for {
		if r, err := a.Receipt(ctx, b.TxHash); err != nil {
			panic(err)
		} else if r != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	os.Stdout.WriteString("RAWTX " + hex.EncodeToString(b.RawTx) + "\n")
	select {}
}

// TestTwoChains runs two embedded chains in one process, as seald does for POLYGON and EOS: each keeps its
// own chain id, contract and tokens, and a bundle of one is refused by the other.
func TestTwoChains(t *testing.T) {
	ctx := context.Background()
	poly := openChain(t, EmbeddedOptions{})
	eos := openChain(t, EmbeddedOptions{ChainID: 17777})
	ap := newAnchorer(t, poly)
	ae, err := eos.Anchorer(ctx, seald.NetworkEOS)
	if err != nil {
		t.Fatal(err)
	}
	bp := anchorBatch(t, ap, "two-poly", 3)
	be := anchorBatch(t, ae, "two-eos", 5)
	if bp.first != FirstTokenID || be.first != FirstTokenID {
		t.Fatalf("first tokens %d and %d", bp.first, be.first)
	}
	_, svcKey, _ := ed25519.GenerateKey(nil)
	pe := bundle(t, ae, be, 1, svcKey)
	if pe.Network != seald.NetworkEOS || pe.ChainID != "17777" {
		t.Fatalf("EOS bundle %+v", pe)
	}
	if err := VerifyProof(ctx, eos.Client(), pe); err != nil {
		t.Fatal(err)
	}
	err = VerifyProof(ctx, poly.Client(), pe)
	if err == nil || !strings.Contains(err.Error(), "chain id 17777 does not match the node's 1337") {
		t.Fatalf("EOS bundle against the POLYGON chain: %v", err)
	}
	if err := VerifyProof(ctx, poly.Client(), bundle(t, ap, bp, 2, svcKey)); err != nil {
		t.Fatal(err)
	}
}

// TestCloseWaitsForTheBlockBeingSealed sends a transaction and closes the chain at once: Close must let the
// block that includes it finish before the database closes. The node seals in the background as soon as a
// transaction reaches the pool; a database closed under that block failed its state reads on several
// goroutines at once, where go-ethereum records the error without a lock (a data race `-race` caught in an
// e2e run), and the transaction was gone at the next start.
func TestCloseWaitsForTheBlockBeingSealed(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for i := range 5 {
		e, err := OpenEmbedded(dir, EmbeddedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tx := sendTransfer(t, e, 0, common.Address{0x5e, byte(i)})
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		e, err = OpenEmbedded(dir, EmbeddedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Client().TransactionReceipt(ctx, tx.Hash())
		e.Close()
		if err != nil || r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("round %d: the transaction sent just before Close: receipt %v, %v", i, r, err)
		}
	}
}

// TestCloseDoesNotWaitForeverOnThePool: a transaction the node will never seal (its nonce leaves a gap) stays
// in the pool; Close waits for it no longer than its bound, and the chain opens again without it.
func TestCloseDoesNotWaitForeverOnThePool(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	e, err := OpenEmbedded(dir, EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tx := sendTransfer(t, e, 5, common.Address{0x5e})
	if pending, queued := e.eth.TxPool().Stats(); pending+queued != 1 {
		t.Fatalf("pool holds %d pending and %d queued, want the gapped transaction", pending, queued)
	}
	e.closeWait = 50 * time.Millisecond // the test's own bound; a Close that ignored it would hang the test
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = OpenEmbedded(dir, EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, _, err := e.Client().TransactionByHash(ctx, tx.Hash()); !errors.Is(err, ethereum.NotFound) {
		t.Errorf("the gapped transaction after a restart: %v, want not found", err)
	}
}

// sendTransfer sends a transfer of 1 wei from the chain's key to to, gap nonces past the next one (0: none),
// and returns it without waiting for it.
func sendTransfer(t *testing.T, e *Embedded, gap uint64, to common.Address) *types.Transaction {
	t.Helper()
	ctx := context.Background()
	nonce, err := e.Client().PendingNonceAt(ctx, crypto.PubkeyToAddress(e.Key().PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(e.Key(), types.LatestSignerForChainID(e.ChainID()), &types.DynamicFeeTx{
		ChainID: e.ChainID(), Nonce: nonce + gap, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e10),
		Gas: 21000, To: &to, Value: big.NewInt(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Client().SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	return tx
}

// With 0 confirmations a receipt is final only once the node's head has reached its block: go-ethereum can
// answer the receipt (and the block by number) a moment before "latest" moves, and a next token id read in
// that moment is the one before the batch, so the next batch reverted with UnexpectedFirstTokenId. The
// moment is modelled by the receipt of a block one above the head.
func TestReceiptFinalOnlyOnceTheHeadHasItsBlock(t *testing.T) {
	e := openChain(t, EmbeddedOptions{})
	a := newAnchorer(t, e)
	b := anchorBatch(t, a, "head", 2)
	ctx := context.Background()
	r, err := e.Client().TransactionReceipt(ctx, common.HexToHash(b.tx.TxHash))
	if err != nil {
		t.Fatal(err)
	}
	if final, err := a.final(ctx, r); err != nil || !final {
		t.Fatalf("receipt of a block the head includes: final %v, %v", final, err)
	}
	head, err := e.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ahead := *r
	ahead.BlockNumber = new(big.Int).SetUint64(head + 1)
	if final, err := a.final(ctx, &ahead); err != nil || final {
		t.Fatalf("receipt of block %d with the head at %d: final %v, %v", head+1, head, final, err)
	}
}
