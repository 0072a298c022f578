package evm

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// bundle builds and signs the proof bundle of record i of an anchored batch, as the service does.
func bundle(t testing.TB, a *Anchorer, b anchored, i int, key ed25519.PrivateKey) *proof.Bundle {
	t.Helper()
	p := &proof.Bundle{Version: proof.Version, Reference: "ref-" + hex.EncodeToString(b.hashes[i][:4]),
		Hash: hex.EncodeToString(b.hashes[i][:]), CID: "bafkreitest"}
	if err := FillProof(p, a.Chain(), b.first+uint64(i), b.tx.Proofs[i], b.tx.Root, *b.receipt); err != nil {
		t.Fatal(err)
	}
	p.Sign(EdSigner(key))
	return p
}

// EdSigner signs with a bare Ed25519 key, as package secret does with the service's.
type EdSigner ed25519.PrivateKey

func (k EdSigner) Sign(digest []byte) []byte { return ed25519.Sign(ed25519.PrivateKey(k), digest) }
func (k EdSigner) PublicKey() ed25519.PublicKey {
	return ed25519.PrivateKey(k).Public().(ed25519.PublicKey)
}

func TestFillProofRefusesAWrongPath(t *testing.T) {
	e := openChain(t, EmbeddedOptions{})
	a := newAnchorer(t, e)
	b := anchorBatch(t, a, "fill", 4)
	p := &proof.Bundle{Hash: hex.EncodeToString(b.hashes[0][:])}
	if err := FillProof(p, a.Chain(), b.first+1, b.tx.Proofs[0], b.tx.Root, *b.receipt); err == nil {
		t.Error("FillProof accepted the path of token 1 for token 2")
	}
	if err := FillProof(p, a.Chain(), b.first, b.tx.Proofs[0], b.tx.Root, *b.receipt); err != nil {
		t.Errorf("FillProof: %v", err)
	}
	if p.TokenID != "1" || p.Root != b.tx.Root || p.TxHash != b.tx.TxHash || p.BlockNumber != b.receipt.BlockNumber || p.ChainID != "1337" {
		t.Errorf("filled proof %+v", p)
	}
}

// TestAnchorerEndToEnd takes a batch from BuildBatch through Send and Receipt to proof bundles that
// VerifyProof accepts against the chain, and checks that each kind of tampering is rejected with a message
// naming it.
func TestAnchorerEndToEnd(t *testing.T) {
	e := openChain(t, EmbeddedOptions{})
	a := newAnchorer(t, e)
	ctx := context.Background()
	_, svcKey, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	b1 := anchorBatch(t, a, "e2e-1", 5)
	b2 := anchorBatch(t, a, "e2e-2", 3)
	if b2.first != b1.first+5 {
		t.Fatalf("second batch starts at %d", b2.first)
	}
	if got := a.Chain(); got.Network != seald.NetworkPolygon || got.ChainID != "1337" || got.Contract != e.Contract().Hex() {
		t.Errorf("Chain() = %+v", got)
	}

	for i := range b1.hashes {
		if err := VerifyProof(ctx, e.Client(), bundle(t, a, b1, i, svcKey)); err != nil {
			t.Fatalf("good bundle of record %d: %v", i, err)
		}
	}

	// A second registry on the same chain, owned by the same key, that has minted nothing.
	other, err := Deploy(ctx, e.Client(), e.Key())
	if err != nil {
		t.Fatal(err)
	}
	a.ResetNonce() // Deploy used the key

	tests := []struct {
		name   string
		tamper func(p *proof.Bundle)
		want   string
	}{
		{"changed hash", func(p *proof.Bundle) { p.Hash = flipHex(p.Hash) }, "hash does not match the anchored leaf"},
		{"changed token id", func(p *proof.Bundle) { p.TokenID = "2" }, "hash does not match the anchored leaf"},
		{"changed path", func(p *proof.Bundle) { p.MerklePath[0] = flipHex(p.MerklePath[0]) }, "Merkle path does not lead"},
		{"changed leaf and hash", func(p *proof.Bundle) {
			p.Hash = flipHex(p.Hash)
			h, _ := decodeHash(p.Hash)
			l := LeafHash(3, h)
			p.Leaf = "0x" + hex.EncodeToString(l[:])
		}, "Merkle path does not lead"},
		{"another chain", func(p *proof.Bundle) { p.ChainID = "137" }, "chain id 137 does not match the node's 1337"},
		{"no contract", func(p *proof.Bundle) { p.Contract = "0x000000000000000000000000000000000000dEaD" }, "no contract at"},
		{"another contract", func(p *proof.Bundle) { p.Contract = other.Hex() }, "has no token 3"},
		{"another batch's transaction", func(p *proof.Bundle) {
			p.TxHash, p.BlockNumber = b2.tx.TxHash, b2.receipt.BlockNumber
		}, "anchored root"},
		{"wrong block", func(p *proof.Bundle) { p.BlockNumber++ }, "not block"},
		{"unknown transaction", func(p *proof.Bundle) { p.TxHash = "0x" + strings.Repeat("ab", 32) }, "is not on the chain"},
		{"changed reference", func(p *proof.Bundle) { p.Reference += "x" }, "signature does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := bundle(t, a, b1, 2, svcKey) // token 3
			tt.tamper(p)
			err := VerifyProof(ctx, e.Client(), p)
			if err == nil {
				t.Fatal("tampered bundle accepted")
			}
			if seald.ErrorCode(err) != seald.EINVALID || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v (code %s), want EINVALID naming %q", err, seald.ErrorCode(err), tt.want)
			}
		})
	}

	t.Run("revoked", func(t *testing.T) {
		p := bundle(t, a, b1, 4, svcKey)
		if _, err := a.Revoke(ctx, b1.first+4); err != nil {
			t.Fatal(err)
		}
		err := VerifyProof(ctx, e.Client(), p)
		if err == nil || !strings.Contains(err.Error(), "token 5 is revoked") {
			t.Fatalf("bundle of a revoked token: %v", err)
		}
		if err := VerifyProof(ctx, e.Client(), bundle(t, a, b1, 3, svcKey)); err != nil {
			t.Fatalf("its neighbour: %v", err)
		}
	})

	t.Run("node down", func(t *testing.T) {
		dead, err := ethclient.Dial("http://127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		defer dead.Close()
		if err := VerifyProof(ctx, dead, bundle(t, a, b1, 0, svcKey)); seald.ErrorCode(err) != seald.EUNAVAILABLE {
			t.Fatalf("against a dead node: %v", err)
		}
	})
}

// flipHex changes the last hex digit of s.
func flipHex(s string) string {
	last := s[len(s)-1]
	r := byte('0')
	if last == '0' {
		r = '1'
	}
	return s[:len(s)-1] + string(r)
}
