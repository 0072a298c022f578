package evm

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/evm/registry"
	"seald.dev/seald/proof"
)

// FillProof sets the chain members of a record's proof bundle (network, chain id, contract, token id,
// leaf, Merkle path, root, transaction and block) from the batch that anchored it. p.Hash must already be
// set: the leaf is recomputed from it and the token id, and the path is checked against the root, so a
// bundle that would not verify is refused here instead of being handed out. Sign the bundle afterwards.
func FillProof(p *proof.Bundle, chain seald.Chain, tokenID uint64, path []string, root string, r seald.Receipt) error {
	hash, err := decodeHash(p.Hash)
	if err != nil {
		return fmt.Errorf("evm: proof hash: %w", err)
	}
	leaf := LeafHash(tokenID, hash)
	nodes, err := decodeNodes(path)
	if err != nil {
		return fmt.Errorf("evm: merkle path: %w", err)
	}
	rootHash, err := decodeNode(root)
	if err != nil {
		return fmt.Errorf("evm: merkle root: %w", err)
	}
	if !VerifyMerkle(leaf, nodes, rootHash) {
		return fmt.Errorf("evm: the Merkle path of token %d does not lead to root %s", tokenID, root)
	}
	p.Network, p.ChainID, p.Contract = chain.Network, chain.ChainID, chain.Contract
	p.TokenID = strconv.FormatUint(tokenID, 10)
	p.Leaf = hexutil.Encode(leaf[:])
	p.MerklePath = make([]string, len(nodes))
	for i, n := range nodes {
		p.MerklePath[i] = hexutil.Encode(n[:])
	}
	p.Root = hexutil.Encode(rootHash[:])
	p.TxHash = r.TxHash
	p.BlockNumber = r.BlockNumber
	return nil
}

// VerifyProof checks a proof bundle against the chain client talks to, with no call to seald: the leaf
// recomputes from the token id and hash, the Merkle path leads to the root, the node is on the bundle's
// chain, the contract holds that root for the token and its own verify accepts the path, the transaction
// is in the bundle's block and anchored that root on that contract, the token is not revoked, and the
// service's Ed25519 signature covers the record. The first check that fails is returned as an EINVALID
// *seald.Error naming it; a node that cannot answer is EUNAVAILABLE.
func VerifyProof(ctx context.Context, client *ethclient.Client, p *proof.Bundle) error {
	c, err := CheckProof(ctx, client, p)
	if err != nil {
		return err
	}
	if c.Revoked {
		return rejected("token %s is revoked", p.TokenID)
	}
	return nil
}

// ProofCheck is what CheckProof found on the chain beyond the bundle's validity.
type ProofCheck struct {
	// Revoked: the contract says the token is revoked.
	Revoked bool
	// Sender is the 0x address that signed the anchoring transaction: a trust root names the issuer's.
	Sender string
	// Anchored is the time of the block that holds the anchoring transaction.
	Anchored time.Time
}

// CheckProof does the checks of VerifyProof, except that a revoked token is reported in the result rather
// than as an error, and also returns who sent the anchoring transaction and when its block was made.
func CheckProof(ctx context.Context, client *ethclient.Client, p *proof.Bundle) (*ProofCheck, error) {
	check, err := CheckAnchor(ctx, client, p)
	if err != nil {
		return nil, err
	}
	if err := p.VerifySignature(); err != nil {
		return nil, rejected("signature: %v", err)
	}
	return check, nil
}

// CheckAnchor is CheckProof without the bundle's signature: the chain facts alone (leaf, Merkle path, the
// root the contract holds, the anchoring transaction, revocation). A credential's evidence carries those
// facts but no bundle signature; its own proof is checked instead.
func CheckAnchor(ctx context.Context, client *ethclient.Client, p *proof.Bundle) (*ProofCheck, error) {
	if p == nil {
		return nil, rejected("no proof bundle")
	}
	tokenID, err := strconv.ParseUint(p.TokenID, 10, 64)
	if err != nil {
		return nil, rejected("token id %q is not a decimal token id", p.TokenID)
	}
	hash, err := decodeHash(p.Hash)
	if err != nil {
		return nil, rejected("hash %q is not a SHA-256 hex digest", p.Hash)
	}
	leaf, err := decodeNode(p.Leaf)
	if err != nil {
		return nil, rejected("leaf: %v", err)
	}
	if LeafHash(tokenID, hash) != leaf {
		return nil, rejected("hash does not match the anchored leaf of token %d", tokenID)
	}
	path, err := decodeNodes(p.MerklePath)
	if err != nil {
		return nil, rejected("merkle path: %v", err)
	}
	root, err := decodeNode(p.Root)
	if err != nil {
		return nil, rejected("root: %v", err)
	}
	if !VerifyMerkle(leaf, path, root) {
		return nil, rejected("Merkle path does not lead from the leaf to root %s", p.Root)
	}

	oc, err := rootOnChain(ctx, client, p.ChainID, p.Contract, tokenID, root, p.Root)
	if err != nil {
		return nil, err
	}
	contract, id, reg, tok, call := oc.contract, oc.id, oc.reg, oc.tok, oc.call
	out, err := call(reg.PackVerify(tok, hash, path))
	if err != nil {
		return nil, unavailable("verify", err)
	}
	if ok, err := reg.UnpackVerify(out); err != nil || !ok {
		return nil, rejected("contract %s does not verify the proof of token %d", contract.Hex(), tokenID)
	}

	// The transaction that anchored the root.
	check, err := checkAnchorTx(ctx, client, p, contract, tokenID, root, id)
	if err != nil {
		return nil, err
	}
	if check.Revoked, err = oc.revoked(); err != nil {
		return nil, err
	}
	return check, nil
}

// onChain is a bundle's contract on the node's chain, once the root it holds for the token is the bundle's.
type onChain struct {
	contract common.Address
	id       *big.Int
	reg      *registry.SealRegistry
	tok      *big.Int
	call     func([]byte) ([]byte, error)
}

// rootOnChain checks that the node is on chainID, that contract is a SealRegistry there, and that it holds
// root for the token.
func rootOnChain(ctx context.Context, client *ethclient.Client, chainID, contractHex string, tokenID uint64, root [32]byte, rootHex string) (*onChain, error) {
	id, err := client.ChainID(ctx)
	if err != nil {
		return nil, unavailable("chain id", err)
	}
	if chainID != id.String() {
		return nil, rejected("chain id %s does not match the node's %s", chainID, id)
	}
	if !common.IsHexAddress(contractHex) {
		return nil, rejected("contract %q is not an address", contractHex)
	}
	contract := common.HexToAddress(contractHex)
	code, err := client.CodeAt(ctx, contract, nil)
	if err != nil {
		return nil, unavailable("contract code", err)
	}
	if len(code) == 0 {
		return nil, rejected("no contract at %s on chain %s", contract.Hex(), id)
	}
	oc := &onChain{contract: contract, id: id, reg: registry.NewSealRegistry(), tok: new(big.Int).SetUint64(tokenID)}
	oc.call = func(data []byte) ([]byte, error) {
		return client.CallContract(ctx, ethereum.CallMsg{To: &contract, Data: data}, nil)
	}
	out, err := oc.call(oc.reg.PackRootOf(oc.tok))
	if err != nil {
		if isRevert(err) {
			return nil, rejected("contract %s has no token %d", contract.Hex(), tokenID)
		}
		return nil, unavailable("rootOf", err)
	}
	held, err := oc.reg.UnpackRootOf(out)
	if err != nil {
		return nil, rejected("contract %s is not a SealRegistry: %v", contract.Hex(), err)
	}
	if held != root {
		return nil, rejected("root %s is not the root contract %s holds for token %d (%s)", rootHex, contract.Hex(), tokenID, hexutil.Encode(held[:]))
	}
	return oc, nil
}

// revoked reads the token's revocation.
func (oc *onChain) revoked() (bool, error) {
	out, err := oc.call(oc.reg.PackIsRevoked(oc.tok))
	if err != nil {
		return false, unavailable("isRevoked", err)
	}
	r, err := oc.reg.UnpackIsRevoked(out)
	if err != nil {
		return false, rejected("isRevoked: %v", err)
	}
	return r, nil
}

// checkAnchorTx checks that the bundle's transaction is a successful anchor call on the contract, in the
// bundle's block, that stored the bundle's root for a range holding the token.
func checkAnchorTx(ctx context.Context, client *ethclient.Client, p *proof.Bundle, contract common.Address, tokenID uint64, root [32]byte, chainID *big.Int) (*ProofCheck, error) {
	if !isTxHash(p.TxHash) {
		return nil, rejected("tx_hash %q is not a transaction hash", p.TxHash)
	}
	hash := common.HexToHash(p.TxHash)
	tx, pending, err := client.TransactionByHash(ctx, hash)
	if notFound(err) {
		return nil, rejected("transaction %s is not on the chain", p.TxHash)
	}
	if err != nil {
		return nil, unavailable("transaction", err)
	}
	if pending {
		return nil, rejected("transaction %s is still pending", p.TxHash)
	}
	r, err := client.TransactionReceipt(ctx, hash)
	if err != nil {
		return nil, unavailable("receipt", err)
	}
	if r.BlockNumber.Uint64() != p.BlockNumber {
		return nil, rejected("transaction %s is in block %s, not block %d", p.TxHash, r.BlockNumber, p.BlockNumber)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return nil, rejected("transaction %s reverted", p.TxHash)
	}
	if tx.To() == nil || *tx.To() != contract {
		return nil, rejected("transaction %s was not sent to contract %s", p.TxHash, contract.Hex())
	}
	method, ok := contractABI().Methods["anchor"]
	data := tx.Data()
	if !ok || len(data) < 4 || !bytes.Equal(data[:4], method.ID) {
		return nil, rejected("transaction %s did not call anchor", p.TxHash)
	}
	args, err := method.Inputs.Unpack(data[4:])
	if err != nil || len(args) != 3 {
		return nil, rejected("transaction %s has malformed anchor arguments", p.TxHash)
	}
	txRoot, _ := args[0].([32]byte)
	first, _ := args[1].(*big.Int)
	count, _ := args[2].(*big.Int)
	if txRoot != root {
		return nil, rejected("transaction %s anchored root %s, not %s", p.TxHash, hexutil.Encode(txRoot[:]), p.Root)
	}
	tok := new(big.Int).SetUint64(tokenID)
	if first == nil || count == nil || tok.Cmp(first) < 0 || tok.Cmp(new(big.Int).Add(first, count)) >= 0 {
		return nil, rejected("transaction %s did not mint token %d", p.TxHash, tokenID)
	}
	from, err := types.Sender(types.LatestSignerForChainID(chainID), tx)
	if err != nil {
		return nil, rejected("transaction %s: its signer cannot be recovered: %v", p.TxHash, err)
	}
	check := &ProofCheck{Sender: from.Hex()}
	if h, err := client.HeaderByNumber(ctx, r.BlockNumber); err == nil {
		check.Anchored = time.Unix(int64(h.Time), 0).UTC()
	} else {
		return nil, unavailable("block header", err)
	}
	return check, nil
}

func rejected(format string, args ...any) error {
	return &seald.Error{Code: seald.EINVALID, Op: "proof", Message: fmt.Sprintf(format, args...)}
}

func unavailable(what string, err error) error {
	return &seald.Error{Code: seald.EUNAVAILABLE, Op: "proof", Message: "the chain node did not answer (" + what + ")", Err: err}
}

// decodeHash parses a record's content hash: 64 hex digits, as in the bundle's hash member.
func decodeHash(s string) ([32]byte, error) {
	var h [32]byte
	s = strings.TrimPrefix(s, "0x")
	if len(s) != 64 {
		return h, errors.New("want 64 hex digits")
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, err
	}
	return h, nil
}

// decodeNode parses a 0x-prefixed 32-byte Merkle node.
func decodeNode(s string) ([32]byte, error) {
	var h [32]byte
	b, err := hexutil.Decode(s)
	if err != nil {
		return h, fmt.Errorf("%q: %v", s, err)
	}
	if len(b) != 32 {
		return h, fmt.Errorf("%q is not 32 bytes", s)
	}
	copy(h[:], b)
	return h, nil
}

func decodeNodes(ss []string) ([][32]byte, error) {
	out := make([][32]byte, len(ss))
	for i, s := range ss {
		n, err := decodeNode(s)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}
