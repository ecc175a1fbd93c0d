package devchain

import (
	"math/big"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// genesisGasLimit is the block gas limit, geth's default gas ceiling.
const genesisGasLimit = 60_000_000

// genesisETH is how much ether each funded dev account starts with.
const genesisETH = 1_000_000

// genesis builds the dev chain's genesis block. It must come out identical on
// every call (it has no clock, randomness or environment input): geth refuses
// to open a data directory whose stored genesis hash differs.
//
// The fork schedule is go-ethereum's own dev-mode one (every fork active at
// block 0), plus the system contracts those forks call into; the deployer and
// the facilitator are funded.
func genesis() *core.Genesis {
	config := *params.AllDevChainProtocolChanges
	alloc := core.SystemContractAllocs()
	alloc[DeployerAddress] = types.Account{Balance: etherToWei(genesisETH)}
	alloc[FacilitatorAddress] = types.Account{Balance: etherToWei(genesisETH)}
	return &core.Genesis{
		Config:     &config,
		GasLimit:   genesisGasLimit,
		BaseFee:    big.NewInt(params.InitialBaseFee),
		Difficulty: big.NewInt(0),
		Alloc:      alloc,
	}
}

// etherToWei converts whole ether to wei.
func etherToWei(ether int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(ether), big.NewInt(params.Ether))
}
