package evm

import (
	"context"
	"crypto/ecdsa"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald/evm/registry"
)

// Deploy deploys a SealRegistry owned by key's address, waits for it to be mined and returns its address.
// Operators run it once per network (the address then goes into seald's configuration); the embedded
// chain runs it at first start; tests run it on every fresh chain.
func Deploy(ctx context.Context, client *ethclient.Client, key *ecdsa.PrivateKey) (common.Address, error) {
	return DeployWithBaseURI(ctx, client, key, "")
}

// DeployWithBaseURI is Deploy with the contract's tokenURI prefix set at deployment (seald serves the
// metadata at {public URL}/tokens/{network}/; see Service.TokenURIBase). The owner can change it later with
// the contract's setBaseURI.
func DeployWithBaseURI(ctx context.Context, client *ethclient.Client, key *ecdsa.PrivateKey, baseURI string) (common.Address, error) {
	s, err := newSigner(ctx, client, key, nil, nil)
	if err != nil {
		return common.Address{}, err
	}
	bin, err := hexutil.Decode(registry.SealRegistryMetaData.Bin)
	if err != nil {
		return common.Address{}, fmt.Errorf("evm: committed bytecode: %w", err)
	}
	data := append(bin, registry.NewSealRegistry().PackConstructor(s.from, baseURI)...)

	r, err := s.transact(ctx, nil, data)
	if err != nil {
		return common.Address{}, fmt.Errorf("evm: deploy: %w", err)
	}
	return r.ContractAddress, nil
}
