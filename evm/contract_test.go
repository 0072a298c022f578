package evm

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"seald.dev/seald"
)

// TestContract runs the SealRegistry through the real EVM of the embedded chain.
func TestContract(t *testing.T) {
	e := openChain(t, EmbeddedOptions{})
	stranger := fundedKey(t, e)
	strangerAddr := crypto.PubkeyToAddress(stranger.PublicKey)
	a := newAnchorer(t, e)
	ctx := context.Background()
	c, reg, owner := e.Client(), e.Contract(), a.Address()

	var batches []anchored
	t.Run("anchor batches of 1, 64 and 1024", func(t *testing.T) {
		for _, n := range []int{1, 64, 1024} {
			b := anchorBatch(t, a, "contract", n)
			batches = append(batches, b)
			next, err := a.NextTokenID(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if next != b.first+uint64(n) {
				t.Fatalf("after a batch of %d from %d, next token id %d", n, b.first, next)
			}
			checkBatch(t, e, b)
		}
		if batches[0].first != FirstTokenID {
			t.Errorf("first token id %d, want %d", batches[0].first, FirstTokenID)
		}
	})
	if len(batches) != 3 {
		t.FailNow()
	}
	total := uint64(1 + 64 + 1024)

	t.Run("anchor events", func(t *testing.T) {
		b := batches[1]
		r, err := c.TransactionReceipt(ctx, common.HexToHash(b.tx.TxHash))
		if err != nil {
			t.Fatal(err)
		}
		var sawRange, sawBatch bool
		for _, l := range r.Logs {
			if ev, err := sealRegistry.UnpackConsecutiveTransferEvent(l); err == nil {
				sawRange = true
				if ev.FromTokenId.Uint64() != b.first || ev.ToTokenId.Uint64() != b.first+63 ||
					ev.FromAddress != (common.Address{}) || ev.ToAddress != owner {
					t.Errorf("ConsecutiveTransfer %+v", ev)
				}
			}
			if ev, err := sealRegistry.UnpackBatchAnchoredEvent(l); err == nil {
				sawBatch = true
				if hexutil.Encode(ev.Root[:]) != b.tx.Root || ev.FirstTokenId.Uint64() != b.first || ev.Count.Uint64() != 64 || ev.BatchIndex.Uint64() != 1 {
					t.Errorf("BatchAnchored %+v", ev)
				}
			}
		}
		if !sawRange || !sawBatch {
			t.Errorf("ConsecutiveTransfer seen %v, BatchAnchored seen %v", sawRange, sawBatch)
		}
	})

	t.Run("ownership and metadata", func(t *testing.T) {
		for _, id := range []uint64{1, 2, 65, 66, total} {
			if got := mustView(t, c, reg, sealRegistry.PackOwnerOf(big64(id)), sealRegistry.UnpackOwnerOf); got != owner {
				t.Errorf("ownerOf(%d) = %s, want %s", id, got, owner)
			}
			if !mustView(t, c, reg, sealRegistry.PackLocked(big64(id)), sealRegistry.UnpackLocked) {
				t.Errorf("locked(%d) is false", id)
			}
		}
		for _, id := range []uint64{0, total + 1, 1 << 40} {
			wantRevert(t, c, owner, reg, sealRegistry.PackOwnerOf(big64(id)), "ERC721NonexistentToken")
			wantRevert(t, c, owner, reg, sealRegistry.PackLocked(big64(id)), "ERC721NonexistentToken")
			wantRevert(t, c, owner, reg, sealRegistry.PackTokenURI(big64(id)), "ERC721NonexistentToken")
			wantRevert(t, c, owner, reg, sealRegistry.PackRootOf(big64(id)), "ERC721NonexistentToken")
		}
		if got := mustView(t, c, reg, sealRegistry.PackBalanceOf(owner), sealRegistry.UnpackBalanceOf); got.Uint64() != total {
			t.Errorf("balanceOf(owner) = %s, want %d", got, total)
		}
		if got := mustView(t, c, reg, sealRegistry.PackBalanceOf(strangerAddr), sealRegistry.UnpackBalanceOf); got.Sign() != 0 {
			t.Errorf("balanceOf(stranger) = %s", got)
		}
		wantRevert(t, c, owner, reg, sealRegistry.PackBalanceOf(common.Address{}), "ERC721InvalidOwner")
		if got := mustView(t, c, reg, sealRegistry.PackTokenURI(big64(7)), sealRegistry.UnpackTokenURI); got != "" {
			t.Errorf("tokenURI without a base = %q", got)
		}
		sendTx(t, e, e.Key(), sealRegistry.PackSetBaseURI("https://seald.example/token/"), true)
		a.ResetNonce() // sendTx used the anchorer's key behind its back
		if got := mustView(t, c, reg, sealRegistry.PackTokenURI(big64(70)), sealRegistry.UnpackTokenURI); got != "https://seald.example/token/70" {
			t.Errorf("tokenURI(70) = %q", got)
		}
		if got := mustView(t, c, reg, sealRegistry.PackName(), sealRegistry.UnpackName); got != "seald" {
			t.Errorf("name = %q", got)
		}
		if got := mustView(t, c, reg, sealRegistry.PackGetApproved(big64(1)), sealRegistry.UnpackGetApproved); got != (common.Address{}) {
			t.Errorf("getApproved = %s", got)
		}
	})

	t.Run("supportsInterface", func(t *testing.T) {
		for _, tt := range []struct {
			id   string
			want bool
		}{
			{"01ffc9a7", true},  // ERC-165
			{"80ac58cd", true},  // ERC-721
			{"5b5e139f", true},  // ERC-721 Metadata
			{"b45a3c0e", true},  // ERC-5192
			{"780e9d63", false}, // ERC-721 Enumerable
			{"ffffffff", false}, // never, by ERC-165
		} {
			var id [4]byte
			copy(id[:], common.FromHex(tt.id))
			if got := mustView(t, c, reg, sealRegistry.PackSupportsInterface(id), sealRegistry.UnpackSupportsInterface); got != tt.want {
				t.Errorf("supportsInterface(0x%s) = %v, want %v", tt.id, got, tt.want)
			}
		}
	})

	t.Run("soulbound", func(t *testing.T) {
		for name, data := range map[string][]byte{
			"transferFrom":      sealRegistry.PackTransferFrom(owner, strangerAddr, big64(1)),
			"safeTransferFrom":  sealRegistry.PackSafeTransferFrom(owner, strangerAddr, big64(1)),
			"safeTransferFrom4": sealRegistry.PackSafeTransferFrom0(owner, strangerAddr, big64(1), nil),
			"approve":           sealRegistry.PackApprove(strangerAddr, big64(1)),
			"setApprovalForAll": sealRegistry.PackSetApprovalForAll(strangerAddr, true),
		} {
			t.Run(name, func(t *testing.T) { wantRevert(t, c, owner, reg, data, "Soulbound") })
		}
	})

	t.Run("non-owner refused", func(t *testing.T) {
		next := big64(total + 1)
		var root [32]byte
		root[0] = 1
		for name, data := range map[string][]byte{
			"anchor":     sealRegistry.PackAnchor(root, next, big.NewInt(1)),
			"revoke":     sealRegistry.PackRevoke(big64(1)),
			"setBaseURI": sealRegistry.PackSetBaseURI("https://evil.example/"),
		} {
			t.Run(name, func(t *testing.T) {
				wantRevert(t, c, strangerAddr, reg, data, "OwnableUnauthorizedAccount")
				sendTx(t, e, stranger, data, false)
			})
		}
		if got, _ := a.NextTokenID(ctx); got != total+1 {
			t.Errorf("a refused anchor moved the next token id to %d", got)
		}
		if _, err := NewAnchorer(ctx, c, reg, stranger, seald.NetworkPolygon, Options{}); err == nil || !strings.Contains(err.Error(), "does not own") {
			t.Errorf("NewAnchorer with a stranger's key: %v", err)
		}
	})

	t.Run("duplicate anchor refused", func(t *testing.T) {
		// Re-anchoring the 64-record batch at the same first token id: the contract refuses it, and
		// Receipt reports the revert as permanent with the contract's reason.
		b := batches[1]
		dup, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: b.first, Hashes: contentHashes("dup", 64)})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Send(ctx, dup.RawTx); err != nil {
			t.Fatal(err)
		}
		var rerr error
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			var r *seald.Receipt
			if r, rerr = a.Receipt(ctx, dup.TxHash); r != nil || rerr != nil {
				break
			}
		}
		if rerr == nil || !seald.IsPermanent(rerr) || !strings.Contains(rerr.Error(), "UnexpectedFirstTokenId") {
			t.Fatalf("receipt of a duplicate anchor: %v", rerr)
		}
		wantRevert(t, c, owner, reg, sealRegistry.PackAnchor([32]byte{1}, big64(b.first), big.NewInt(64)), "UnexpectedFirstTokenId")
		if got, _ := a.NextTokenID(ctx); got != total+1 {
			t.Errorf("a duplicate anchor moved the next token id to %d", got)
		}
		checkBatch(t, e, b) // the first anchoring still stands
	})

	t.Run("bad batches refused", func(t *testing.T) {
		next := big64(total + 1)
		wantRevert(t, c, owner, reg, sealRegistry.PackAnchor([32]byte{}, next, big.NewInt(1)), "EmptyRoot")
		wantRevert(t, c, owner, reg, sealRegistry.PackAnchor([32]byte{1}, next, big.NewInt(0)), "InvalidBatchSize")
		wantRevert(t, c, owner, reg, sealRegistry.PackAnchor([32]byte{1}, next, big.NewInt(MaxBatchSize+1)), "InvalidBatchSize")
		if _, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: total + 1}); seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("BuildBatch of no records: %v", err)
		}
		if _, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: total + 1, Hashes: make([][32]byte, MaxBatchSize+1)}); seald.ErrorCode(err) != seald.EINVALID {
			t.Errorf("BuildBatch over the maximum: %v", err)
		}
	})

	t.Run("revoke", func(t *testing.T) {
		id := batches[1].first + 3
		if revoked, err := a.IsRevoked(ctx, id); err != nil || revoked {
			t.Fatalf("IsRevoked before: %v, %v", revoked, err)
		}
		for range 2 { // the second revocation is a no-op, not an error
			if _, err := a.Revoke(ctx, id); err != nil {
				t.Fatal(err)
			}
			if revoked, err := a.IsRevoked(ctx, id); err != nil || !revoked {
				t.Fatalf("IsRevoked after: %v, %v", revoked, err)
			}
		}
		if revoked, err := a.IsRevoked(ctx, id+1); err != nil || revoked {
			t.Errorf("a neighbour is revoked too: %v, %v", revoked, err)
		}
		if _, err := a.IsRevoked(ctx, total+5); seald.ErrorCode(err) != seald.ENOTFOUND {
			t.Errorf("IsRevoked of a token never minted: %v", err)
		}
		if _, err := a.Revoke(ctx, total+5); seald.ErrorCode(err) != seald.ENOTFOUND || !seald.IsPermanent(err) {
			t.Errorf("Revoke of a token never minted: %v", err)
		}
		// Revocation does not undo the anchor: verify still holds.
		b := batches[1]
		proof := decodeProof(t, b.tx.Proofs[3])
		if !mustView(t, c, reg, sealRegistry.PackVerify(big64(id), b.hashes[3], proof), sealRegistry.UnpackVerify) {
			t.Error("verify fails for a revoked token")
		}
	})

	t.Run("resending a mined batch succeeds", func(t *testing.T) {
		if err := a.Send(ctx, batches[0].tx.RawTx); err != nil {
			t.Errorf("re-send of a mined transaction: %v", err)
		}
	})
}

// checkBatch checks a batch against the contract: every token's root, the contract's verify for good
// proofs (every token up to 64, a sample of larger batches) and for tampered ones, and that Go's
// VerifyMerkle agrees on each.
func checkBatch(t *testing.T, e *Embedded, b anchored) {
	t.Helper()
	c, reg := e.Client(), e.Contract()
	n := len(b.hashes)
	root := common.HexToHash(b.tx.Root)
	step := 1
	if n > 64 {
		step = 37
	}
	verify := func(id uint64, h [32]byte, proof [][32]byte) bool {
		return mustView(t, c, reg, sealRegistry.PackVerify(big64(id), h, proof), sealRegistry.UnpackVerify)
	}
	for i := 0; i < n; i += step {
		id := b.first + uint64(i)
		if got := mustView(t, c, reg, sealRegistry.PackRootOf(big64(id)), sealRegistry.UnpackRootOf); got != root {
			t.Fatalf("rootOf(%d) = %x, want %s", id, got, b.tx.Root)
		}
		leaf := LeafHash(id, b.hashes[i])
		if b.tx.Leaves[i] != hexutil.Encode(leaf[:]) {
			t.Fatalf("BatchTx.Leaves[%d] = %s, want the leaf of token %d", i, b.tx.Leaves[i], id)
		}
		if got := mustView(t, c, reg, sealRegistry.PackLeafHash(big64(id), b.hashes[i]), sealRegistry.UnpackLeafHash); got != leaf {
			t.Fatalf("contract leafHash(%d) differs from Go's", id)
		}
		proof := decodeProof(t, b.tx.Proofs[i])
		if !verify(id, b.hashes[i], proof) || !VerifyMerkle(leaf, proof, root) {
			t.Fatalf("token %d: good proof rejected", id)
		}
		other := b.hashes[i]
		other[31] ^= 1
		if verify(id, other, proof) || VerifyMerkle(LeafHash(id, other), proof, root) {
			t.Fatalf("token %d: proof accepted for a changed hash", id)
		}
		if verify(id+1, b.hashes[i], proof) {
			t.Fatalf("token %d: proof accepted for token %d", id, id+1)
		}
		if len(proof) > 0 {
			bad := append([][32]byte(nil), proof...)
			bad[len(bad)-1][5] ^= 0x40
			if verify(id, b.hashes[i], bad) || VerifyMerkle(leaf, bad, root) {
				t.Fatalf("token %d: tampered path accepted", id)
			}
		}
	}
	var none [32]byte
	if verify(b.first+uint64(n)+1000, none, nil) {
		t.Fatal("verify accepted a token never minted")
	}
	out := mustView(t, c, reg, sealRegistry.PackBatchOf(big64(b.first+uint64(n-1))), sealRegistry.UnpackBatchOf)
	if out.Root != root || out.FirstTokenId.Uint64() != b.first || out.Count.Uint64() != uint64(n) {
		t.Fatalf("batchOf(last) = %+v", out)
	}
}

func decodeProof(t testing.TB, path []string) [][32]byte {
	t.Helper()
	p, err := decodeNodes(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sendTx sends a contract call from key with a fixed gas limit (estimation would refuse a reverting call)
// and checks whether it succeeded.
func sendTx(t *testing.T, e *Embedded, key *ecdsa.PrivateKey, data []byte, wantOK bool) {
	t.Helper()
	ctx := context.Background()
	s, err := newSigner(ctx, e.Client(), key, TxAuto, nil, nil)
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
	reg := e.Contract()
	tx, err := s.sign(nonce, &reg, data, 200_000, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Client().SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	r, err := waitMined(ctx, e.Client(), tx.Hash(), 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Status == types.ReceiptStatusSuccessful; got != wantOK {
		t.Fatalf("transaction succeeded = %v, want %v", got, wantOK)
	}
}
