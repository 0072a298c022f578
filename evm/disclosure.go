package evm

import (
	"context"
	"strconv"

	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald/proof"
)

// CheckPresentation checks a selective-disclosure presentation against the chain client talks to, with no
// call to seald: its disclosures are in its payload (proof.Presentation.Reveal), the disclosure leaf
// keccak256(0x02 || uint256(token) || commitment) leads by the Merkle path to the root, the contract holds
// that root for the token, and the transaction is the anchor that stored it. It returns what was disclosed
// and, as CheckProof does, the revocation, the anchoring address and the block time. An invalid presentation
// is EINVALID naming what failed; a node that cannot answer is EUNAVAILABLE.
func CheckPresentation(ctx context.Context, client *ethclient.Client, p *proof.Presentation) (*proof.Revealed, *ProofCheck, error) {
	rv, err := p.Reveal()
	if err != nil {
		return nil, nil, err
	}
	tokenID, err := strconv.ParseUint(p.TokenID, 10, 64)
	if err != nil {
		return nil, nil, rejected("token id %q is not a decimal token id", p.TokenID)
	}
	path, err := decodeNodes(p.MerklePath)
	if err != nil {
		return nil, nil, rejected("merkle path: %v", err)
	}
	root, err := decodeNode(p.Root)
	if err != nil {
		return nil, nil, rejected("root: %v", err)
	}
	if !VerifyMerkle(DisclosureLeaf(tokenID, rv.Commitment), path, root) {
		return nil, nil, rejected("the payload's commitment is not the one anchored for token %d: its Merkle path does not lead to root %s", tokenID, p.Root)
	}
	oc, err := rootOnChain(ctx, client, p.ChainID, p.Contract, tokenID, root, p.Root)
	if err != nil {
		return nil, nil, err
	}
	anchor := &proof.Bundle{TxHash: p.TxHash, BlockNumber: p.BlockNumber, Root: p.Root}
	check, err := checkAnchorTx(ctx, client, anchor, oc.contract, tokenID, root, oc.id)
	if err != nil {
		return nil, nil, err
	}
	if check.Revoked, err = oc.revoked(); err != nil {
		return nil, nil, err
	}
	return rv, check, nil
}
