package bench

import (
	"context"
	"fmt"
	"slices"

	"seald/evm"
)

// GasRun is the gas section: whole-transaction gas per record of an anchoring batch of each size, on a
// fresh embedded chain under Polygon's fork rules, beside minting one token with a stock OpenZeppelin
// ERC-721 (evm.MeasureGas).
type GasRun struct {
	PlainMint uint64    `json:"plain_erc721_mint_gas"`
	Sizes     []GasSize `json:"batches"`
}

// GasSize is one batch size.
type GasSize struct {
	Batch     int     `json:"batch_size"`
	PerRecord float64 `json:"gas_per_record"`
}

func runGas(ctx context.Context, cfg Config) (*GasRun, error) {
	per, plain, err := evm.MeasureGas(ctx, cfg.GasSizes)
	if err != nil {
		return nil, err
	}
	run := &GasRun{PlainMint: plain}
	sizes := slices.Clone(cfg.GasSizes)
	slices.Sort(sizes)
	for _, n := range sizes {
		run.Sizes = append(run.Sizes, GasSize{Batch: n, PerRecord: per[n]})
		fmt.Fprintf(cfg.Log, "bench: gas batch %d: %.0f per record (plain mint %d)\n", n, per[n], plain)
	}
	return run, nil
}
