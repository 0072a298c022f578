package evm

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald/evm/registry"
)

// Deploy deploys a SealRegistry owned by key's address, waits for it to be mined and returns its address.
// Operators run it once per network (the address then goes into seald's configuration); the embedded
// chain runs it at first start; tests run it on every fresh chain.
func Deploy(ctx context.Context, client *ethclient.Client, key *ecdsa.PrivateKey) (common.Address, error) {
	return DeployWith(ctx, client, key, DeployOptions{})
}

// DeployOptions are the SealRegistry's settings fixed at deployment.
type DeployOptions struct {
	// BaseURI is the tokenURI prefix (seald serves the metadata at {public URL}/tokens/{network}/; see
	// Service.TokenURIBase). The owner can change it later with the contract's setBaseURI.
	BaseURI string
	// PerTokenTransfers makes each anchor emit one ERC-721 Transfer per minted token instead of one ERC-2309
	// ConsecutiveTransfer for the batch: every indexer sees every token, at about 2,000 more gas per record
	// (measured: 2,297 against 276 in batches of 256, 2,097 against 69 in batches of 1,024; sealbench prints
	// both).
	PerTokenTransfers bool
	// TxType and FeeCeiling price the deployment transaction as Options price the Anchorer's; they are not
	// kept by the contract.
	TxType     TxType
	FeeCeiling *big.Int
}

// DeployWith is Deploy with options.
func DeployWith(ctx context.Context, client *ethclient.Client, key *ecdsa.PrivateKey, o DeployOptions) (common.Address, error) {
	s, err := newSigner(ctx, client, key, o.TxType, nil, o.FeeCeiling)
	if err != nil {
		return common.Address{}, err
	}
	bin, err := hexutil.Decode(registry.SealRegistryMetaData.Bin)
	if err != nil {
		return common.Address{}, fmt.Errorf("evm: committed bytecode: %w", err)
	}
	data := append(bin, registry.NewSealRegistry().PackConstructor(s.from, o.BaseURI, o.PerTokenTransfers)...)

	r, err := s.transact(ctx, nil, data)
	if err != nil {
		return common.Address{}, fmt.Errorf("evm: deploy: %w", err)
	}
	return r.ContractAddress, nil
}
