package evm

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// DefaultChainID is the chain id of the embedded chain unless told otherwise: the conventional id of
// local development chains, so wallets and explorers pointed at it never mistake it for a public network.
const DefaultChainID = 1337

// PragueConfig returns the fork rules of Polygon PoS mainnet: every fork up to and including Prague
// (Polygon's Bhilai hard fork, July 2025) active from genesis, and none after it. The dev defaults of
// go-ethereum (params.AllDevChainProtocolChanges) also switch on Osaka and later forks, whose repricing
// would make the gas figures of seald's benchmark wrong for the chain it runs on; so the embedded chain,
// the geth integration tests and the benchmark all use this config instead.
//
// The chain is post-merge from genesis (terminal total difficulty 0): blocks come from go-ethereum's
// simulated beacon, as with `geth --dev`.
func PragueConfig(chainID *big.Int) *params.ChainConfig {
	zero := uint64(0)
	return &params.ChainConfig{
		ChainID:                 new(big.Int).Set(chainID),
		HomesteadBlock:          big.NewInt(0),
		EIP150Block:             big.NewInt(0),
		EIP155Block:             big.NewInt(0),
		EIP158Block:             big.NewInt(0),
		ByzantiumBlock:          big.NewInt(0),
		ConstantinopleBlock:     big.NewInt(0),
		PetersburgBlock:         big.NewInt(0),
		IstanbulBlock:           big.NewInt(0),
		MuirGlacierBlock:        big.NewInt(0),
		BerlinBlock:             big.NewInt(0),
		LondonBlock:             big.NewInt(0),
		ArrowGlacierBlock:       big.NewInt(0),
		GrayGlacierBlock:        big.NewInt(0),
		TerminalTotalDifficulty: big.NewInt(0),
		ShanghaiTime:            &zero,
		CancunTime:              &zero,
		PragueTime:              &zero,
		BlobScheduleConfig: &params.BlobScheduleConfig{
			Cancun: params.DefaultCancunBlobConfig,
			Prague: params.DefaultPragueBlobConfig,
		},
	}
}

// blockGasLimit is Polygon PoS's block gas limit since Bhilai; a batch of any size fits far below it.
const blockGasLimit = 45_000_000

// Genesis returns a post-merge genesis under PragueConfig that funds each of the given accounts, with the
// system contracts the Prague rules call into (beacon roots, block hash history, withdrawal and
// consolidation queues) predeployed, as block processing requires them.
func Genesis(chainID *big.Int, funded ...common.Address) *core.Genesis {
	alloc := core.SystemContractAllocs()
	// A balance no test or operator can exhaust, yet far from overflowing any sum of balances.
	balance := new(big.Int).Lsh(big.NewInt(1), 200)
	for _, a := range funded {
		alloc[a] = types.Account{Balance: balance}
	}
	return &core.Genesis{
		Config:     PragueConfig(chainID),
		GasLimit:   blockGasLimit,
		BaseFee:    big.NewInt(params.InitialBaseFee),
		Difficulty: big.NewInt(0),
		Alloc:      alloc,
	}
}
