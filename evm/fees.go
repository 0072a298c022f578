package evm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
)

// DefaultFeeCeiling is the highest max fee per gas (or gas price, for a legacy transaction) seald signs
// unless told otherwise: 1,000 gwei, several times Polygon PoS's usual base fee and EOS EVM's governed gas
// price, so a fee spike delays a batch instead of draining the key.
var DefaultFeeCeiling = big.NewInt(1000 * params.GWei)

// TxType is the kind of transaction a network's signer sends.
type TxType string

const (
	// TxAuto sends EIP-1559 (type 2) transactions when the chain's latest block has a base fee, and legacy
	// transactions priced by the node's eth_gasPrice when it has none, as on EOS EVM, whose gas price is set
	// by governance. It is decided again for each transaction, so a chain that gains a base fee is followed.
	TxAuto TxType = "auto"
	// TxLegacy always sends legacy (type 0, EIP-155) transactions at the node's eth_gasPrice.
	TxLegacy TxType = "legacy"
	// TxDynamic always sends EIP-1559 transactions; a chain without a base fee is an error.
	TxDynamic TxType = "dynamic"
)

// ParseTxType reads a transaction type as operators write it; "" is TxAuto.
func ParseTxType(s string) (TxType, error) {
	switch t := TxType(strings.ToLower(strings.TrimSpace(s))); t {
	case "", TxAuto:
		return TxAuto, nil
	case TxLegacy, TxDynamic:
		return t, nil
	}
	return "", fmt.Errorf("transaction type %q: want auto, legacy or dynamic", s)
}

// ErrFeeCeiling is returned when a stuck transaction cannot be replaced because its bumped fees would pass
// the ceiling: the caller keeps waiting for the old one, or an operator raises the ceiling.
var ErrFeeCeiling = errors.New("fee ceiling reached")

// fees are the fee caps of one transaction. A legacy transaction's gas price is both its tip and its fee
// cap, which is how nodes compare it with the transaction it replaces.
type fees struct {
	tip    *big.Int // max priority fee per gas
	feeCap *big.Int // max fee per gas
	legacy bool     // a legacy transaction at gas price feeCap (= tip)
}

// bump raises x by an eighth plus one wei: more than the 10% nodes demand of a replacement, also for the
// tiny values of test chains where 10% rounds to nothing.
func bump(x *big.Int) *big.Int {
	y := new(big.Int).Rsh(x, 3)
	y.Add(y, x)
	return y.Add(y, common.Big1)
}

// replaces reports whether next may replace prev in a node's pool: both caps at least 10% higher.
func replaces(next, prev fees) bool {
	atLeast := func(n, p *big.Int) bool {
		l := new(big.Int).Mul(n, big.NewInt(100))
		r := new(big.Int).Mul(p, big.NewInt(110))
		return l.Cmp(r) >= 0
	}
	return atLeast(next.tip, prev.tip) && atLeast(next.feeCap, prev.feeCap)
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

// signer signs and prices transactions from one key. It is shared by Anchorer and Deploy.
type signer struct {
	client  *ethclient.Client
	key     *ecdsa.PrivateKey
	from    common.Address
	chainID *big.Int
	signer  types.Signer
	txType  TxType
	tipCap  *big.Int // fixed priority fee, or nil to ask the node
	ceiling *big.Int // highest max fee per gas, or gas price
}

func newSigner(ctx context.Context, client *ethclient.Client, key *ecdsa.PrivateKey, txType TxType, tipCap, ceiling *big.Int) (*signer, error) {
	if key == nil {
		return nil, errors.New("evm: no private key")
	}
	id, err := client.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("evm: chain id: %w", err)
	}
	if ceiling == nil {
		ceiling = DefaultFeeCeiling
	}
	if txType == "" {
		txType = TxAuto
	}
	return &signer{
		client:  client,
		key:     key,
		from:    crypto.PubkeyToAddress(key.PublicKey),
		chainID: id,
		signer:  types.LatestSignerForChainID(id),
		txType:  txType,
		tipCap:  tipCap,
		ceiling: ceiling,
	}, nil
}

// price returns the fees for a transaction sent now, then raised once per attempt, and above prev when
// replacing, and capped by the ceiling. An EIP-1559 transaction takes the priority fee the node suggests (or
// the fixed one) plus twice the latest base fee, which keeps it includable through six full blocks of base
// fee rises; a legacy one takes the node's gas price (eth_gasPrice), which on EOS EVM is the governed price.
func (s *signer) price(ctx context.Context, attempt int, prev *fees) (fees, error) {
	var f fees
	legacy := s.txType == TxLegacy
	if !legacy {
		head, err := s.client.HeaderByNumber(ctx, nil)
		if err != nil {
			return fees{}, fmt.Errorf("latest header: %w", err)
		}
		switch {
		case head.BaseFee != nil:
			tip := s.tipCap
			if tip == nil {
				if tip, err = s.client.SuggestGasTipCap(ctx); err != nil {
					return fees{}, fmt.Errorf("suggested priority fee: %w", err)
				}
			}
			f = fees{tip: new(big.Int).Set(tip), feeCap: new(big.Int).Add(new(big.Int).Lsh(head.BaseFee, 1), tip)}
		case s.txType == TxDynamic:
			return fees{}, errors.New("the chain has no EIP-1559 base fee: use the transaction type auto or legacy")
		default:
			legacy = true
		}
	}
	if legacy {
		gp, err := s.client.SuggestGasPrice(ctx)
		if err != nil {
			return fees{}, fmt.Errorf("gas price: %w", err)
		}
		f = fees{tip: gp, feeCap: new(big.Int).Set(gp), legacy: true}
	}
	for range attempt {
		f.tip, f.feeCap = bump(f.tip), bump(f.feeCap)
	}
	if prev != nil {
		f.tip = maxBig(f.tip, bump(prev.tip))
		f.feeCap = maxBig(f.feeCap, bump(prev.feeCap))
	}
	if f.legacy {
		// One price, the higher of the two: a node compares it with both caps of the transaction it replaces.
		f.feeCap = maxBig(f.feeCap, f.tip)
	}
	if f.feeCap.Cmp(s.ceiling) > 0 {
		f.feeCap = new(big.Int).Set(s.ceiling)
	}
	if f.tip.Cmp(f.feeCap) > 0 || f.legacy {
		f.tip = new(big.Int).Set(f.feeCap)
	}
	if prev != nil && !replaces(f, *prev) {
		what := "max fee"
		if f.legacy {
			what = "gas price"
		}
		return fees{}, fmt.Errorf("%w: cannot raise %s %s wei by 10%% under the ceiling of %s wei",
			ErrFeeCeiling, what, prev.feeCap, s.ceiling)
	}
	return f, nil
}

// sign builds and signs an EIP-1559 transaction, or a legacy one (EIP-155, bound to the chain id) when f
// says so.
func (s *signer) sign(nonce uint64, to *common.Address, data []byte, gas uint64, f fees) (*types.Transaction, error) {
	if f.legacy {
		return types.SignNewTx(s.key, s.signer, &types.LegacyTx{Nonce: nonce, GasPrice: f.feeCap, Gas: gas, To: to, Data: data})
	}
	return types.SignNewTx(s.key, s.signer, &types.DynamicFeeTx{
		ChainID:   s.chainID,
		Nonce:     nonce,
		GasTipCap: f.tip,
		GasFeeCap: f.feeCap,
		Gas:       gas,
		To:        to,
		Data:      data,
	})
}

// waitMined polls for the receipt of hash until it appears or ctx ends. Polling instead of subscribing
// works over plain HTTP endpoints, which is what most hosted RPC providers offer.
func waitMined(ctx context.Context, client *ethclient.Client, hash common.Hash, poll time.Duration) (*types.Receipt, error) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		r, err := client.TransactionReceipt(ctx, hash)
		if err == nil {
			return r, nil
		}
		if !notFound(err) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for transaction %s: %w", hash, ctx.Err())
		case <-t.C:
		}
	}
}

// notFound reports whether a lookup failed only because the node does not know the transaction (yet). A
// node still indexing its transactions says so instead of answering null; that is the same "not yet".
func notFound(err error) bool {
	return errors.Is(err, ethereum.NotFound) ||
		err != nil && strings.Contains(err.Error(), "transaction indexing is in progress")
}

// transact sends one call (or a contract creation when to is nil) at the key's pending nonce, with
// estimated gas and current fees, and waits for it to be mined successfully. It serves one-off
// transactions (deploys, benchmarks), not the anchor leader, which must save its transaction before
// sending it.
func (s *signer) transact(ctx context.Context, to *common.Address, data []byte) (*types.Receipt, error) {
	nonce, err := s.client.PendingNonceAt(ctx, s.from)
	if err != nil {
		return nil, fmt.Errorf("nonce: %w", err)
	}
	gas, err := estimate(ctx, s.client, s.from, to, data)
	if err != nil {
		return nil, fmt.Errorf("estimate gas: %s", revertError(err))
	}
	f, err := s.price(ctx, 0, nil)
	if err != nil {
		return nil, err
	}
	tx, err := s.sign(nonce, to, data, gas, f)
	if err != nil {
		return nil, err
	}
	if err := s.client.SendTransaction(ctx, tx); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	r, err := waitMined(ctx, s.client, tx.Hash(), 50*time.Millisecond)
	if err != nil {
		return nil, err
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return nil, fmt.Errorf("transaction %s reverted", tx.Hash().Hex())
	}
	return r, nil
}
