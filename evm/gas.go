package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"seald.dev/seald"
	"seald.dev/seald/evm/registry"
)

// gasRounds is how many batches of each size MeasureGas averages over: the contract packs four batch starts
// per storage slot, so one batch in four pays for a fresh slot and four consecutive batches see every case.
const gasRounds = 4

// MeasureGas measures, on a fresh embedded chain under Polygon's fork rules (PragueConfig), the gas an
// anchor costs per record for each batch size, and the gas of minting one token with a stock OpenZeppelin
// ERC-721 (PlainERC721's _mint, to an address that already holds one, the steady state of one token per
// record). The figures are whole-transaction gas from receipts, intrinsic 21,000 and calldata included, as
// a payer sees them. `sealbench` prints them; BenchmarkAnchorGas reports the same.
func MeasureGas(ctx context.Context, sizes []int) (perRecord map[int]float64, plainMint uint64, err error) {
	for _, n := range sizes {
		if n < 1 || n > MaxBatchSize {
			return nil, 0, fmt.Errorf("evm: batch size %d outside 1..%d", n, MaxBatchSize)
		}
	}
	dir, err := os.MkdirTemp("", "seald-gas-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	e, err := OpenEmbedded(dir, EmbeddedOptions{})
	if err != nil {
		return nil, 0, err
	}
	defer e.Close()

	if plainMint, err = measurePlainMint(ctx, e); err != nil {
		return nil, 0, err
	}
	a, err := e.Anchorer(ctx, seald.NetworkPolygon)
	if err != nil {
		return nil, 0, err
	}
	// The very first batch also creates the batch list; no later batch pays for that.
	if _, err := anchorForGas(ctx, a, 1); err != nil {
		return nil, 0, err
	}
	perRecord = make(map[int]float64, len(sizes))
	for _, n := range sizes {
		var total uint64
		for range gasRounds {
			gas, err := anchorForGas(ctx, a, n)
			if err != nil {
				return nil, 0, err
			}
			total += gas
		}
		perRecord[n] = float64(total) / float64(gasRounds*n)
	}
	return perRecord, plainMint, nil
}

// MeasureGasPerToken measures, as MeasureGas does, the gas per record of anchors on a SealRegistry deployed
// with DeployOptions.PerTokenTransfers (one ERC-721 Transfer event per token instead of one ERC-2309 event
// per batch).
func MeasureGasPerToken(ctx context.Context, sizes []int) (map[int]float64, error) {
	dir, err := os.MkdirTemp("", "seald-gas-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	e, err := OpenEmbedded(dir, EmbeddedOptions{Deploy: DeployOptions{PerTokenTransfers: true}})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	a, err := e.Anchorer(ctx, seald.NetworkPolygon)
	if err != nil {
		return nil, err
	}
	if _, err := anchorForGas(ctx, a, 1); err != nil {
		return nil, err
	}
	perRecord := make(map[int]float64, len(sizes))
	for _, n := range sizes {
		if n < 1 || n > MaxBatchSize {
			return nil, fmt.Errorf("evm: batch size %d outside 1..%d", n, MaxBatchSize)
		}
		var total uint64
		for range gasRounds {
			gas, err := anchorForGas(ctx, a, n)
			if err != nil {
				return nil, err
			}
			total += gas
		}
		perRecord[n] = float64(total) / float64(gasRounds*n)
	}
	return perRecord, nil
}

// measurePlainMint deploys PlainERC721, mints a first token to warm the holder's balance, and returns the
// gas of the second mint.
func measurePlainMint(ctx context.Context, e *Embedded) (uint64, error) {
	s, err := newSigner(ctx, e.Client(), e.Key(), TxAuto, nil, nil)
	if err != nil {
		return 0, err
	}
	bin, err := hexutil.Decode(registry.PlainERC721MetaData.Bin)
	if err != nil {
		return 0, err
	}
	r, err := s.transact(ctx, nil, bin)
	if err != nil {
		return 0, fmt.Errorf("evm: deploy PlainERC721: %w", err)
	}
	plain := registry.NewPlainERC721()
	to := r.ContractAddress
	holder := crypto.PubkeyToAddress(e.Key().PublicKey)
	var gas uint64
	for id := int64(1); id <= 2; id++ {
		r, err := s.transact(ctx, &to, plain.PackMint(holder, big.NewInt(id)))
		if err != nil {
			return 0, fmt.Errorf("evm: PlainERC721 mint: %w", err)
		}
		gas = r.GasUsed
	}
	return gas, nil
}

// anchorForGas anchors a batch of n records at the next token id and returns the gas its transaction used.
func anchorForGas(ctx context.Context, a *Anchorer, n int) (uint64, error) {
	first, err := a.NextTokenID(ctx)
	if err != nil {
		return 0, err
	}
	hashes := make([][32]byte, n)
	for i := range hashes {
		hashes[i] = crypto.Keccak256Hash(fmt.Appendf(nil, "gas/%d/%d", first, i))
	}
	b, err := a.BuildBatch(ctx, seald.BatchRequest{FirstTokenID: first, Hashes: hashes})
	if err != nil {
		return 0, err
	}
	if err := a.Send(ctx, b.RawTx); err != nil {
		return 0, err
	}
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		rc, err := a.Receipt(ctx, b.TxHash)
		if err != nil {
			return 0, err
		}
		if rc != nil {
			r, err := a.client.TransactionReceipt(ctx, common.HexToHash(b.TxHash))
			if err != nil {
				return 0, err
			}
			return r.GasUsed, nil
		}
		select {
		case <-ctx.Done():
			return 0, errors.Join(errors.New("evm: anchor not mined"), ctx.Err())
		case <-t.C:
		}
	}
}
