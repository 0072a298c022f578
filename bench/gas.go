package bench

import (
	"context"
	"fmt"
	"slices"

	"seald.dev/seald/evm"
)

// GasRun is the gas section: whole-transaction gas per record of an anchoring batch of each size, on a
// fresh embedded chain under Polygon's fork rules, beside minting one token with a stock OpenZeppelin
// ERC-721 (evm.MeasureGas).
type GasRun struct {
	PlainMint uint64    `json:"plain_erc721_mint_gas"`
	Sizes     []GasSize `json:"batches"`
}

// GasSize is one batch size: gas per record with the default contract (one ERC-2309 event per batch) and
// with one deployed for per-token Transfer events (--contract-transfer-events per-token).
type GasSize struct {
	Batch             int     `json:"batch_size"`
	PerRecord         float64 `json:"gas_per_record"`
	PerRecordPerToken float64 `json:"gas_per_record_per_token_transfers"`
}

func runGas(ctx context.Context, cfg Config) (*GasRun, error) {
	per, plain, err := evm.MeasureGas(ctx, cfg.GasSizes)
	if err != nil {
		return nil, err
	}
	perToken, err := evm.MeasureGasPerToken(ctx, cfg.GasSizes)
	if err != nil {
		return nil, err
	}
	run := &GasRun{PlainMint: plain}
	sizes := slices.Clone(cfg.GasSizes)
	slices.Sort(sizes)
	for _, n := range sizes {
		run.Sizes = append(run.Sizes, GasSize{Batch: n, PerRecord: per[n], PerRecordPerToken: perToken[n]})
		fmt.Fprintf(cfg.Log, "bench: gas batch %d: %.0f per record, %.0f with per-token Transfer events (plain mint %d)\n",
			n, per[n], perToken[n], plain)
	}
	return run, nil
}
