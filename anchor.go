package seald

import (
	"context"
	"errors"
	"fmt"
)

// ErrNonceUsed is wrapped, in a Permanent error, by Anchorer.Send when the transaction's nonce was taken by
// another transaction of the same key that got mined: this one can never be included. The other may be a
// replacement of the same batch or revocation (look for its receipt) or a transaction that is not seald's
// (one the operator sent with the anchoring key): then the batch is failed and its records anchored anew.
// Because of that, Send reports it only once the chain has been past the nonce for a few seconds and the
// transaction itself is nowhere on it, never from a node's "nonce too low" alone: a node's pool, state and
// transaction index move a moment apart, and a transaction the chain did include must not be anchored twice.
var ErrNonceUsed = errors.New("nonce already used by another transaction")

// Networks a record can be anchored on. EOS is served through EOS EVM, so both are EVM chains to seald: a
// network is a name, an RPC endpoint, a key and a deployed SealRegistry contract.
const (
	NetworkPolygon = "POLYGON"
	NetworkEOS     = "EOS"
)

// Chain describes where a network's anchors live, for proof bundles and explorer links.
type Chain struct {
	Network  string // POLYGON or EOS
	ChainID  string // decimal EIP-155 chain id
	Contract string // 0x-prefixed checksummed address of the SealRegistry contract
	// Explorer is the base URL of the network's block explorer in the style of polygonscan
	// ({Explorer}/tx/{hash}, {Explorer}/token/{contract}?a={id}); empty when there is none (the embedded chain).
	Explorer string
	// Anchorer is the 0x address that signs the network's anchoring transactions.
	Anchorer string
	// Development marks seald's embedded development chain: a chain of this machine, not the network it
	// stands in for. Everything that shows a chain says so (ChainName).
	Development bool
	// PublicRPC is the JSON-RPC URL of a public node of the chain that the verification page offers visitors
	// for the proof check in their browser (serve --public-rpc); they may replace it. Empty: none suggested.
	PublicRPC string
}

// Name says which chain this is in words, for people, by its chain id alone (PublicChain): "Polygon PoS
// (chain 137)", "Polygon Amoy testnet (chain 80002)", "EOS EVM mainnet (17777)", "EOS EVM testnet (15557)";
// a development chain (the embedded one, and any chain id not a public network's, which evm.NewAnchorer marks
// Development however it was reached) is "seald development chain (chain 1337), not Polygon"; any other
// chain is named by its id and not called Polygon or EOS EVM.
// blockchain_network stays POLYGON or EOS as the original API says; this is what a reader is shown beside it.
func (c Chain) Name() string {
	if c.Development {
		return fmt.Sprintf("%s (chain %s), not %s", DevelopmentChain, c.ChainID, networkWord(c.Network))
	}
	switch n, ok := PublicChain(c.ChainID); {
	case ok && (c.ChainID == EOSEVMMainnet || c.ChainID == EOSEVMTestnet):
		return n + " (" + c.ChainID + ")"
	case ok:
		return fmt.Sprintf("%s (chain %s)", n, c.ChainID)
	}
	return fmt.Sprintf("chain %s, a development or private chain: not a public Polygon or EOS EVM network", c.ChainID)
}

// DevelopmentChain starts the Name of every development chain, so that a client of the API (the CLI's verify)
// can tell from chain_name alone what the page tells from the record: an anchor there proves nothing to others.
const DevelopmentChain = "seald development chain"

// publicChains are the public networks seald anchors on, by chain id. It is the one rule by which the page,
// the API's answers, the trust root and the CLI name a chain and decide whether an anchor on it is evidence
// for anyone but the issuer: any other chain id is a development (or private) chain, whatever the flag that
// reached it, and a record on it is never shown as proven.
var publicChains = map[string]string{"137": "Polygon PoS", "80002": "Polygon Amoy testnet",
	EOSEVMMainnet: "EOS EVM mainnet", EOSEVMTestnet: "EOS EVM testnet"}

// PublicChain returns the name of the public network with that decimal chain id, and false for any other.
func PublicChain(chainID string) (name string, ok bool) {
	name, ok = publicChains[chainID]
	return name, ok
}

// The chain ids of EOS EVM's public networks (decimal, as in Chain.ChainID).
const (
	EOSEVMMainnet = "17777"
	EOSEVMTestnet = "15557"
)

func networkWord(network string) string {
	if network == NetworkEOS {
		return "EOS EVM"
	}
	return "Polygon"
}

// BatchRequest asks an Anchorer for the signed transaction that anchors one batch.
type BatchRequest struct {
	// FirstTokenID is the id the contract gives the batch's first token; leaf i gets FirstTokenID+i.
	FirstTokenID uint64
	// Hashes are the records' content hashes (SHA-256 of the canonical data), in leaf order.
	Hashes [][32]byte
	// Disclosures[i], when not nil, is record i's disclosure commitment and Blinds[i] its blinding node
	// (Record.Disclosure, Record.DisclosureBlind): the tree then also holds the disclosure leaf
	// keccak256(0x02 || uint256(token id) || commitment). Nil slices: no record has one, and the tree is the
	// one seald built before selective disclosure.
	Disclosures []*[32]byte
	Blinds      []*[32]byte
	// Nonce, when not nil, reuses that nonce: the new transaction replaces an earlier one that is stuck.
	Nonce *uint64
	// Attempt counts replacements; each raises the fees over the previous transaction's.
	Attempt int
}

// BatchTx is a signed, not yet sent, anchoring transaction with the Merkle tree it commits to.
type BatchTx struct {
	Root   string     // 0x-prefixed Merkle root
	Leaves []string   // Leaves[i] is the 0x-prefixed leaf of Hashes[i] (binding FirstTokenID+i and the hash)
	Proofs [][]string // Proofs[i] is the Merkle path of leaf i, each node 0x-prefixed hex, leaf to root
	// DisclosureProofs[i] is the Merkle path of record i's disclosure leaf; nil for a record without one.
	DisclosureProofs [][]string
	Nonce            uint64
	TxHash           string // 0x-prefixed
	RawTx            []byte // the signed transaction as sent on the wire
}

// RevokeRequest asks an Anchorer for the signed transaction that revokes one token.
type RevokeRequest struct {
	TokenID uint64
	// Nonce, when not nil, reuses that nonce: the new transaction replaces an earlier one that is stuck.
	Nonce *uint64
	// Attempt counts replacements; each raises the fees over the previous transaction's.
	Attempt int
}

// SignedTx is a signed transaction, not yet sent.
type SignedTx struct {
	Nonce  uint64
	TxHash string // 0x-prefixed
	RawTx  []byte // as sent on the wire
}

// Receipt tells where a transaction was included.
type Receipt struct {
	TxHash      string
	BlockNumber uint64
	BlockHash   string
	GasUsed     uint64 // 0 when the Anchorer does not know
}

// Anchorer writes and reads anchors on one EVM network. The embedded default is an in-process go-ethereum
// chain persisted in the data dir; the production adapter speaks JSON-RPC to any EVM node (package evm).
//
// seald's anchor leader is the only caller that signs for a network, so an Anchorer may keep its nonce in
// memory, starting from the chain's pending nonce.
type Anchorer interface {
	// Chain describes the network, chain id and contract.
	Chain() Chain
	// NextTokenID returns the token id the contract will give the next minted token.
	NextTokenID(ctx context.Context) (uint64, error)
	// BuildBatch computes the batch's Merkle tree and signs the transaction that anchors its root and mints
	// len(Hashes) consecutive tokens from FirstTokenID. Nothing is sent. The contract refuses the transaction
	// if FirstTokenID is not its next token id, so a batch can never be minted twice.
	BuildBatch(ctx context.Context, req BatchRequest) (*BatchTx, error)
	// Send broadcasts a signed transaction. Sending one the node already knows, or one already mined, is not
	// an error. A nonce another transaction took is a Permanent error wrapping ErrNonceUsed.
	Send(ctx context.Context, rawTx []byte) error
	// Receipt returns where the transaction was included once its block is final by the network's
	// finality rule (the node's finalized block, or confirmations), nil and no error while it is unknown,
	// pending or not yet final, and a Permanent error if it reverted.
	Receipt(ctx context.Context, txHash string) (*Receipt, error)
	// Included returns where the transaction is included in the node's canonical chain now, final or not,
	// reverted or not; nil and no error when it is not. It tells a nonce taken by one of a batch's own
	// transactions from one taken by a stranger.
	Included(ctx context.Context, txHash string) (*Receipt, error)
	// BuildRevoke signs the transaction that marks a minted token revoked; nothing is sent. The caller
	// saves it, sends it with Send and follows it with Receipt, as for a batch. Revoking a token that is
	// already revoked succeeds on chain; a token that is not minted is a Permanent ENOTFOUND.
	BuildRevoke(ctx context.Context, req RevokeRequest) (*SignedTx, error)
	// IsRevoked reads a token's revocation from the chain.
	IsRevoked(ctx context.Context, tokenID uint64) (bool, error)
}
