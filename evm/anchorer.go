// Package evm anchors seald's records on EVM chains: the SealRegistry contract's Go side (Merkle trees that
// match its verify, its bindings in evm/registry), the Anchorer that speaks JSON-RPC to any EVM node, the
// embedded in-process chain that is seald's default, and the offline verifier of proof bundles.
package evm

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"seald.dev/seald"
	"seald.dev/seald/evm/registry"
)

// FirstTokenID is the id of the first token a SealRegistry mints; 0 is never a token.
const FirstTokenID = 1

// MaxBatchSize is the largest batch the contract accepts in one anchor (its MAX_BATCH_SIZE).
const MaxBatchSize = 5000

// fallbackAnchorGas is the gas limit of an anchor whose gas cannot be estimated because the contract would
// refuse it in the latest state, as when the batch before it is still pending. anchor writes nothing per
// token, so its cost (about 70,000 gas on Prague rules) does not grow with the batch; this leaves room
// for chains that price storage higher.
const fallbackAnchorGas = 300_000

// ErrNonceUsed is wrapped (as a seald.Permanent error) by Send when the transaction's nonce was taken by
// another transaction of the same key that got mined, such as a replacement: this one can never be mined,
// and the caller should look for the receipt of the transaction that took its place (seald.ErrNonceUsed).
// Send says so only after the chain has been past the nonce for a few seconds (nonceSettle) with the
// transaction itself nowhere to be found.
var ErrNonceUsed = seald.ErrNonceUsed

// Options tune an Anchorer. The zero value suits the embedded chain; on a real network set Confirmations,
// and TipCap where the chain demands a minimum priority fee.
type Options struct {
	// Finality is the rule by which Receipt calls a transaction's block final; "" is FinalityConfirmations.
	Finality Finality
	// Confirmations is how many blocks must follow a transaction's block before Receipt reports it under
	// FinalityConfirmations, and under FinalityFinalized when the node answers no finalized block. 0
	// reports as soon as the node's head includes it: right for the embedded chain, which makes blocks only
	// on demand.
	Confirmations uint64
	// TxType is the kind of transaction sent; "" is TxAuto (EIP-1559 where the chain has a base fee,
	// legacy at eth_gasPrice where it has none, as on EOS EVM).
	TxType TxType
	// FeeCeiling caps the max fee per gas, or the gas price of a legacy transaction (wei), of every
	// transaction, replacements included; nil means DefaultFeeCeiling.
	FeeCeiling *big.Int
	// TipCap fixes the priority fee per gas (wei) instead of asking the node (eth_maxPriorityFeePerGas).
	// Polygon PoS refuses tips under its minimum (25 gwei at the time of writing); set it there.
	TipCap *big.Int
	// PollInterval is how often Revoke checks whether its transaction was mined, and how often Send looks
	// again while the node's answers disagree about a transaction's nonce; 0 means 500 ms.
	PollInterval time.Duration
	// AnchorGasLimit, when not 0, is the gas limit of every anchor transaction instead of an estimate.
	AnchorGasLimit uint64
	// Development marks the chain as seald's embedded development chain (seald.Chain.Development).
	Development bool
}

// Finality is a rule that says when a block is final: a batch counts as anchored, and a revocation as
// recorded, only once the block of its transaction is.
type Finality string

// The finality rules.
const (
	// FinalityConfirmations: Options.Confirmations blocks follow the transaction's block, which is still
	// the canonical one at its height. 0 confirmations is "included", right only for the embedded chain.
	FinalityConfirmations Finality = "confirmations"
	// FinalityFinalized: the transaction's block is at or below the node's "finalized" block (Polygon PoS
	// serves it from its milestones) and is the canonical block at its height. A node that answers no
	// finalized block falls back to Options.Confirmations when it is above 0; with 0, Receipt reports the
	// node's answer as an error and nothing counts as final.
	FinalityFinalized Finality = "finalized"
)

// ParseFinality reads a --finality value.
func ParseFinality(s string) (Finality, error) {
	switch f := Finality(strings.ToLower(strings.TrimSpace(s))); f {
	case FinalityConfirmations, FinalityFinalized:
		return f, nil
	}
	return "", fmt.Errorf("finality %q: want finalized or confirmations", s)
}

// Anchorer implements seald.Anchorer over JSON-RPC, so the same code anchors on the embedded chain
// (through its in-process client) and on Polygon, Amoy or EOS EVM (over HTTP).
//
// It owns its key's nonce in memory, starting from the node's pending nonce: seald's anchor leader is the
// only signer of the key. A transaction built with BuildBatch and then abandoned leaves a gap at its nonce;
// rebuild it with BatchRequest.Nonce, or call ResetNonce.
type Anchorer struct {
	client   *ethclient.Client
	owned    bool // the client was dialed here and is closed by Close
	s        *signer
	contract common.Address
	network  string
	opts     Options
	abi      *registry.SealRegistry
	chain    seald.Chain // what Chain answers, fixed at construction: every signed proof asks for it

	mu         sync.Mutex
	nonceKnown bool
	nonce      uint64
	sent       map[uint64]fees // the highest fees signed per nonce, so a replacement always outbids
}

var _ seald.Anchorer = (*Anchorer)(nil)

// NewAnchorer returns an Anchorer for the contract at address on the chain client talks to, signing with
// key, under the network name (seald.NetworkPolygon or seald.NetworkEOS). It checks that the contract
// exists and that key owns it, so a wrong address or key fails at start rather than at the first batch.
func NewAnchorer(ctx context.Context, client *ethclient.Client, contract common.Address, key *ecdsa.PrivateKey, network string, opts Options) (*Anchorer, error) {
	if network == "" {
		return nil, errors.New("evm: network name is empty")
	}
	s, err := newSigner(ctx, client, key, opts.TxType, opts.TipCap, opts.FeeCeiling)
	if err != nil {
		return nil, err
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 500 * time.Millisecond
	}
	a := &Anchorer{client: client, s: s, contract: contract, network: network, opts: opts,
		abi: registry.NewSealRegistry(), sent: make(map[uint64]fees)}
	// A chain is a development one by its id (seald.PublicChain), not by how it was reached: geth --dev
	// behind --chain proves no more than the embedded chain.
	_, public := seald.PublicChain(s.chainID.String())
	a.chain = seald.Chain{Network: network, ChainID: s.chainID.String(), Contract: contract.Hex(), Anchorer: s.from.Hex(),
		Development: opts.Development || !public}
	code, err := client.CodeAt(ctx, contract, nil)
	if err != nil {
		return nil, fmt.Errorf("evm: contract code: %w", err)
	}
	if len(code) == 0 {
		return nil, fmt.Errorf("evm: no contract at %s on chain %s", contract.Hex(), s.chainID)
	}
	out, err := a.call(ctx, a.abi.PackOwner())
	if err != nil {
		return nil, fmt.Errorf("evm: contract owner: %w", err)
	}
	owner, err := a.abi.UnpackOwner(out)
	if err != nil {
		return nil, fmt.Errorf("evm: contract at %s is not a SealRegistry: %w", contract.Hex(), err)
	}
	if owner != s.from {
		return nil, fmt.Errorf("evm: key %s does not own the SealRegistry at %s (owner %s)", s.from.Hex(), contract.Hex(), owner.Hex())
	}
	return a, nil
}

// DialAnchorer connects to a node's JSON-RPC URL (--chain URL) and returns its Anchorer; Close closes the
// connection.
func DialAnchorer(ctx context.Context, url string, contract common.Address, key *ecdsa.PrivateKey, network string, opts Options) (*Anchorer, error) {
	client, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("evm: dial %s: %w", url, err)
	}
	a, err := NewAnchorer(ctx, client, contract, key, network, opts)
	if err != nil {
		client.Close()
		return nil, err
	}
	a.owned = true
	return a, nil
}

// Close closes the RPC connection if DialAnchorer opened it.
func (a *Anchorer) Close() {
	if a.owned {
		a.client.Close()
	}
}

// Finality is the rule by which Receipt calls a block final.
func (a *Anchorer) Finality() Finality {
	if a.opts.Finality == "" {
		return FinalityConfirmations
	}
	return a.opts.Finality
}

// Confirmations is the blocks after inclusion that the confirmations rule waits for (and the finalized rule
// when the node answers no finalized block).
func (a *Anchorer) Confirmations() uint64 { return a.opts.Confirmations }

// Address is the account that signs anchors and owns the contract.
func (a *Anchorer) Address() common.Address { return a.s.from }

// Chain describes the network, chain id and contract.
func (a *Anchorer) Chain() seald.Chain { return a.chain }

// NextTokenID reads the id the contract gives the next minted token.
func (a *Anchorer) NextTokenID(ctx context.Context) (uint64, error) {
	out, err := a.call(ctx, a.abi.PackNextTokenId())
	if err != nil {
		return 0, err
	}
	n, err := a.abi.UnpackNextTokenId(out)
	if err != nil {
		return 0, err
	}
	if !n.IsUint64() {
		return 0, fmt.Errorf("evm: next token id %s does not fit 64 bits", n)
	}
	return n.Uint64(), nil
}

// IsRevoked reads a token's revocation from the chain. A token the contract never minted is ENOTFOUND.
func (a *Anchorer) IsRevoked(ctx context.Context, tokenID uint64) (bool, error) {
	out, err := a.call(ctx, a.abi.PackIsRevoked(new(big.Int).SetUint64(tokenID)))
	if err != nil {
		return false, a.tokenError(tokenID, err)
	}
	return a.abi.UnpackIsRevoked(out)
}

// BuildBatch computes the batch's Merkle tree and signs the anchor transaction. With req.Nonce set it
// builds a replacement at that nonce whose fees beat, by more than the 10% nodes require, both the fees of
// attempt req.Attempt and any transaction this Anchorer signed before at that nonce.
func (a *Anchorer) BuildBatch(ctx context.Context, req seald.BatchRequest) (*seald.BatchTx, error) {
	n := len(req.Hashes)
	if n == 0 || n > MaxBatchSize {
		return nil, seald.Permanent(seald.Errorf(seald.EINVALID, "a batch holds 1 to %d records, not %d", MaxBatchSize, n))
	}
	if req.FirstTokenID < FirstTokenID {
		return nil, seald.Permanent(seald.Errorf(seald.EINVALID, "token ids start at %d", FirstTokenID))
	}
	root, proofs, dproofs, err := BatchTree(req.FirstTokenID, req.Hashes, req.Disclosures, req.Blinds)
	if err != nil {
		return nil, seald.Permanent(seald.Errorf(seald.EINVALID, "%v", err))
	}
	data := a.abi.PackAnchor(root, new(big.Int).SetUint64(req.FirstTokenID), big.NewInt(int64(n)))
	gas, err := a.anchorGas(ctx, data)
	if err != nil {
		return nil, err
	}
	tx, err := a.signTx(ctx, req.Nonce, req.Attempt, data, gas)
	if err != nil {
		return nil, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	b := &seald.BatchTx{Root: hexutil.Encode(root[:]), Leaves: make([]string, n), Proofs: make([][]string, n),
		DisclosureProofs: make([][]string, n), Nonce: tx.Nonce(), TxHash: tx.Hash().Hex(), RawTx: raw}
	for i, h := range req.Hashes {
		l := LeafHash(req.FirstTokenID+uint64(i), h)
		b.Leaves[i] = hexutil.Encode(l[:])
	}
	for i, p := range proofs {
		b.Proofs[i] = encodeNodes(p)
		if dproofs[i] != nil {
			b.DisclosureProofs[i] = encodeNodes(dproofs[i])
		}
	}
	return b, nil
}

// anchorGas estimates an anchor's gas in the latest state, with a margin. When the contract would refuse
// the batch there only because another batch must land first, the fixed fallback is used; any other
// refusal (not the owner, a bad batch) is permanent.
func (a *Anchorer) anchorGas(ctx context.Context, data []byte) (uint64, error) {
	if a.opts.AnchorGasLimit != 0 {
		return a.opts.AnchorGasLimit, nil
	}
	gas, err := estimate(ctx, a.client, a.s.from, &a.contract, data)
	if err == nil {
		return gas, nil
	}
	if !isRevert(err) {
		return 0, fmt.Errorf("evm: estimate anchor gas: %w", err)
	}
	if d, ok := revertData(err); ok && revertName(d) == "UnexpectedFirstTokenId" {
		return fallbackAnchorGas, nil
	}
	return 0, seald.Permanent(fmt.Errorf("evm: the contract refuses the batch: %s", revertError(err)))
}

// estimate asks the node for a transaction's gas in the latest state and adds a fifth: the state may move
// between estimate and inclusion.
func estimate(ctx context.Context, client *ethclient.Client, from common.Address, to *common.Address, data []byte) (uint64, error) {
	gas, err := client.EstimateGasAtBlock(ctx, ethereum.CallMsg{From: from, To: to, Data: data}, nil)
	if err != nil {
		return 0, err
	}
	return gas + gas/5, nil
}

// signTx takes the nonce (the next one, or the given one for a replacement), prices and signs.
func (a *Anchorer) signTx(ctx context.Context, nonce *uint64, attempt int, data []byte, gas uint64) (*types.Transaction, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.nonceKnown {
		pending, err := a.client.PendingNonceAt(ctx, a.s.from)
		if err != nil {
			return nil, fmt.Errorf("evm: pending nonce: %w", err)
		}
		a.nonce, a.nonceKnown = pending, true
	}
	n := a.nonce
	if nonce != nil {
		n = *nonce
	}
	var prev *fees
	if p, ok := a.sent[n]; ok {
		prev = &p
	}
	f, err := a.s.price(ctx, attempt, prev)
	if err != nil {
		return nil, fmt.Errorf("evm: fees: %w", err)
	}
	tx, err := a.s.sign(n, &a.contract, data, gas, f)
	if err != nil {
		return nil, err
	}
	a.sent[n] = f
	// The nonce after this transaction's is free, whether it is new or replaces one the node may have
	// lost (after a restart the pending nonce can lag behind a saved transaction).
	if n >= a.nonce {
		a.nonce = n + 1
	}
	for old := range a.sent {
		if old+256 < n {
			delete(a.sent, old)
		}
	}
	return tx, nil
}

// ResetNonce makes the next transaction take the node's pending nonce again, closing any gap left by a
// transaction that was built but never sent.
func (a *Anchorer) ResetNonce() {
	a.mu.Lock()
	a.nonceKnown = false
	a.mu.Unlock()
}

// Receipt reports where a transaction was included once its block is final by the Finality rule, nil
// while it is unknown, pending or not yet final, and a Permanent error naming the contract's reason if it
// reverted. A receipt whose block is no longer canonical counts as not included, so a reorganised batch
// shows up as missing and gets re-sent.
func (a *Anchorer) Receipt(ctx context.Context, txHash string) (*seald.Receipt, error) {
	r, err := a.included(ctx, txHash)
	if r == nil || err != nil {
		return nil, err
	}
	final, err := a.final(ctx, r)
	if err != nil || !final {
		return nil, err
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return nil, seald.Permanent(fmt.Errorf("evm: transaction %s reverted in block %s: %s", txHash, r.BlockNumber, a.reason(ctx, r.TxHash, r)))
	}
	return &seald.Receipt{TxHash: r.TxHash.Hex(), BlockNumber: r.BlockNumber.Uint64(), BlockHash: r.BlockHash.Hex(), GasUsed: r.GasUsed}, nil
}

// BlockTime is the time of a block of the chain, as its header says: what the verification page shows as
// the time of an anchor.
func (a *Anchorer) BlockTime(ctx context.Context, block uint64) (time.Time, error) {
	h, err := a.client.HeaderByNumber(ctx, new(big.Int).SetUint64(block))
	if err != nil {
		return time.Time{}, fmt.Errorf("evm: header of block %d: %w", block, err)
	}
	return time.Unix(int64(h.Time), 0).UTC(), nil
}

// Included reports where a transaction is included in the node's canonical chain now, final or not,
// reverted or not; nil when it is not.
func (a *Anchorer) Included(ctx context.Context, txHash string) (*seald.Receipt, error) {
	r, err := a.included(ctx, txHash)
	if r == nil || err != nil {
		return nil, err
	}
	return &seald.Receipt{TxHash: r.TxHash.Hex(), BlockNumber: r.BlockNumber.Uint64(), BlockHash: r.BlockHash.Hex(), GasUsed: r.GasUsed}, nil
}

// included returns the transaction's receipt when the node has one in a block of its canonical chain.
func (a *Anchorer) included(ctx context.Context, txHash string) (*types.Receipt, error) {
	if !isTxHash(txHash) {
		return nil, seald.Permanent(seald.Errorf(seald.EINVALID, "%q is not a transaction hash", txHash))
	}
	r, err := a.client.TransactionReceipt(ctx, common.HexToHash(txHash))
	if notFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("evm: receipt %s: %w", txHash, err)
	}
	// A node may keep the receipt of a block a reorganisation or a rewind replaced (geth's debug_setHead
	// leaves its transaction index): only the canonical block counts.
	canonical, err := blockHash(ctx, a.client, r.BlockNumber)
	if notFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("evm: block %s: %w", r.BlockNumber, err)
	}
	if canonical != r.BlockHash {
		return nil, nil
	}
	return r, nil
}

// final tells whether a canonical receipt's block is final by the Finality rule.
func (a *Anchorer) final(ctx context.Context, r *types.Receipt) (bool, error) {
	if a.opts.Finality == FinalityFinalized {
		h, err := a.client.HeaderByNumber(ctx, big.NewInt(int64(rpc.FinalizedBlockNumber)))
		if err == nil && h != nil {
			return r.BlockNumber.Cmp(h.Number) <= 0, nil
		}
		if a.opts.Confirmations == 0 {
			if err == nil {
				err = ethereum.NotFound
			}
			return false, fmt.Errorf("evm: the node answers no finalized block (%v): set confirmations, or wait for the chain to finalize one", err)
		}
	}
	// With 0 confirmations the head is still read: go-ethereum writes a block's receipts and its number's
	// canonical hash before it moves the head that "latest" reads, so a receipt can be readable while a call
	// at "latest" (the next token id, a batch's root) still sees the state before its block. Final means the
	// head has reached the block.
	head, err := a.client.BlockNumber(ctx)
	if err != nil {
		return false, fmt.Errorf("evm: block number: %w", err)
	}
	return head >= r.BlockNumber.Uint64()+a.opts.Confirmations, nil
}

// blockHash returns the hash the node gives its canonical block at number. It is read, not computed from
// the decoded header: a chain whose headers differ from Ethereum's (EOS EVM answers no base fee) would hash
// differently here than on the node, and a transaction would never count as confirmed.
func blockHash(ctx context.Context, client *ethclient.Client, number *big.Int) (common.Hash, error) {
	var b *struct {
		Hash common.Hash `json:"hash"`
	}
	if err := client.Client().CallContext(ctx, &b, "eth_getBlockByNumber", hexutil.EncodeBig(number), false); err != nil {
		return common.Hash{}, err
	}
	if b == nil {
		return common.Hash{}, ethereum.NotFound
	}
	return b.Hash, nil
}

// reason replays a reverted transaction's call on the state before its block to recover the revert
// reason, which receipts do not carry. It is a best effort: earlier transactions of the same block are not
// replayed.
func (a *Anchorer) reason(ctx context.Context, hash common.Hash, r *types.Receipt) string {
	tx, _, err := a.client.TransactionByHash(ctx, hash)
	if err != nil || r.BlockNumber.Sign() == 0 {
		return "reason unknown"
	}
	parent := new(big.Int).Sub(r.BlockNumber, common.Big1)
	_, err = a.client.CallContract(ctx, ethereum.CallMsg{From: a.s.from, To: tx.To(), Data: tx.Data(), Gas: tx.Gas()}, parent)
	if err == nil {
		return "reason unknown"
	}
	return revertError(err)
}

// BuildRevoke signs the revocation of a token. With req.Nonce set it builds a replacement at that nonce whose
// fees beat the earlier transaction's, as BuildBatch does. A token the contract has not minted is a
// Permanent ENOTFOUND, found by the gas estimate before anything is signed.
func (a *Anchorer) BuildRevoke(ctx context.Context, req seald.RevokeRequest) (*seald.SignedTx, error) {
	data := a.abi.PackRevoke(new(big.Int).SetUint64(req.TokenID))
	gas, err := estimate(ctx, a.client, a.s.from, &a.contract, data)
	if err != nil {
		if isRevert(err) {
			return nil, seald.Permanent(a.tokenError(req.TokenID, err))
		}
		return nil, fmt.Errorf("evm: estimate revoke gas: %w", err)
	}
	tx, err := a.signTx(ctx, req.Nonce, req.Attempt, data, gas)
	if err != nil {
		return nil, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return &seald.SignedTx{Nonce: tx.Nonce(), TxHash: tx.Hash().Hex(), RawTx: raw}, nil
}

// Revoke signs and sends the revocation of a token and waits until the transaction has its confirmations:
// the blocking form of BuildRevoke, Send and Receipt, for tools and tests (the pipeline saves the signed
// transaction before it sends it). The contract makes a second revocation a no-op, so retrying is safe.
func (a *Anchorer) Revoke(ctx context.Context, tokenID uint64) (string, error) {
	stx, err := a.BuildRevoke(ctx, seald.RevokeRequest{TokenID: tokenID})
	if err != nil {
		return "", err
	}
	return stx.TxHash, a.sendAndWait(ctx, stx.RawTx, stx.TxHash, "revocation")
}

// sendAndWait sends a signed transaction and waits until Receipt reports it.
func (a *Anchorer) sendAndWait(ctx context.Context, raw []byte, hash, what string) error {
	if err := a.Send(ctx, raw); err != nil {
		return err
	}
	t := time.NewTicker(a.opts.PollInterval)
	defer t.Stop()
	for {
		r, err := a.Receipt(ctx, hash)
		if err != nil {
			return err
		}
		if r != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("evm: waiting for %s %s: %w", what, hash, ctx.Err())
		case <-t.C:
		}
	}
}

// call runs a read-only call against the contract in the latest state.
func (a *Anchorer) call(ctx context.Context, data []byte) ([]byte, error) {
	return a.client.CallContract(ctx, ethereum.CallMsg{To: &a.contract, Data: data}, nil)
}

// tokenError maps a refused call about a token to seald's errors: a token the contract never minted is
// ENOTFOUND; any other revert is reported with its reason.
func (a *Anchorer) tokenError(tokenID uint64, err error) error {
	if d, ok := revertData(err); ok {
		if revertName(d) == "ERC721NonexistentToken" {
			return &seald.Error{Code: seald.ENOTFOUND, Op: "evm", Message: fmt.Sprintf("token %d does not exist on chain", tokenID), Err: err}
		}
		return fmt.Errorf("evm: token %d: %s", tokenID, describeRevert(d))
	}
	return fmt.Errorf("evm: token %d: %w", tokenID, err)
}

func isTxHash(s string) bool {
	if len(s) != 66 || !strings.HasPrefix(s, "0x") {
		return false
	}
	_, err := hex.DecodeString(s[2:])
	return err == nil
}

func encodeNodes(p [][32]byte) []string {
	out := make([]string, len(p))
	for j, node := range p {
		out[j] = hexutil.Encode(node[:])
	}
	return out
}
