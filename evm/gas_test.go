package evm

import (
	"context"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"seald.dev/seald/evm/registry"
)

// TestGasTargets holds the contract to the budget: at most 1,000 gas per record in batches of 256
// and 200 in batches of 1,024, under Polygon's fork rules. Gas is deterministic, so this is an exact check,
// not a timing.
func TestGasTargets(t *testing.T) {
	perRecord, plain, err := MeasureGas(context.Background(), []int{1, 256, 1024})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		size int
		max  float64
	}{{256, 1000}, {1024, 200}} {
		if got := perRecord[tt.size]; got <= 0 || got > tt.max {
			t.Errorf("batch of %d: %.1f gas per record, budget %.0f", tt.size, got, tt.max)
		}
	}
	// A batch of one is an anchor with a single token: it must not cost more than two plain mints.
	if plain < 21_000 || perRecord[1] > 2*float64(plain) {
		t.Errorf("batch of one %.0f gas against a plain mint of %d", perRecord[1], plain)
	}
	t.Logf("gas per record: 1: %.0f, 256: %.1f, 1024: %.1f; plain ERC-721 mint: %d", perRecord[1], perRecord[256], perRecord[1024], plain)
}

// BenchmarkAnchorGas reports, for batches of 1, 64, 256 and 1,024 records on the embedded chain with
// Polygon's fork rules, the gas per record of an anchor transaction, next to the gas of one plain
// OpenZeppelin ERC-721 mint measured in the same run (plain-mint, gas/record).
func BenchmarkAnchorGas(b *testing.B) {
	e := openChain(b, EmbeddedOptions{})
	ctx := context.Background()
	plain, err := measurePlainMint(ctx, e)
	if err != nil {
		b.Fatal(err)
	}
	a := newAnchorer(b, e)
	if _, err := anchorForGas(ctx, a, 1); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 64, 256, 1024} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			var gas uint64
			var batches int
			for b.Loop() {
				g, err := anchorForGas(ctx, a, n)
				if err != nil {
					b.Fatal(err)
				}
				gas += g
				batches++
			}
			b.ReportMetric(float64(gas)/float64(batches*n), "gas/record")
			b.ReportMetric(float64(gas)/float64(batches), "gas/batch")
			b.ReportMetric(float64(plain), "plain-mint-gas/record")
		})
	}
	b.Run("plain-mint", func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(float64(plain), "gas/record")
	})
}

// A registry deployed with PerTokenTransfers announces each minted token with its own ERC-721 Transfer event
// (and no ERC-2309 event); the default announces a batch with one ConsecutiveTransfer. Gas per record at 256
// and 1,024 is printed for both.
func TestPerTokenTransfers(t *testing.T) {
	ctx := context.Background()
	for _, perToken := range []bool{false, true} {
		e := openChain(t, EmbeddedOptions{Deploy: DeployOptions{PerTokenTransfers: perToken}})
		a, err := e.Anchorer(ctx, "POLYGON")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := anchorForGas(ctx, a, 3); err != nil {
			t.Fatal(err)
		}
		logs, err := e.Client().FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{e.Contract()}})
		if err != nil {
			t.Fatal(err)
		}
		transfers, consecutive := 0, 0
		reg := registry.NewSealRegistry()
		for _, l := range logs {
			if _, err := reg.UnpackTransferEvent(&l); err == nil {
				transfers++
			}
			if _, err := reg.UnpackConsecutiveTransferEvent(&l); err == nil {
				consecutive++
			}
		}
		if perToken && (transfers != 3 || consecutive != 0) || !perToken && (transfers != 0 || consecutive != 1) {
			t.Errorf("per-token %v: %d Transfer and %d ConsecutiveTransfer events for 3 tokens", perToken, transfers, consecutive)
		}
	}
	consec, _, err := MeasureGas(ctx, []int{256, 1024})
	if err != nil {
		t.Fatal(err)
	}
	per, err := MeasureGasPerToken(ctx, []int{256, 1024})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{256, 1024} {
		if per[n] <= consec[n] {
			t.Errorf("batch of %d: per-token events %.0f gas per record, not above the default's %.0f", n, per[n], consec[n])
		}
		t.Logf("batch of %d: %.0f gas per record with one ERC-2309 event, %.0f with a Transfer per token", n, consec[n], per[n])
	}
}
