package devchain

import (
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/svcplatform/svc/internal/evm/devtoken"
	"github.com/svcplatform/svc/internal/evm/uniswap"
)

// The dev chain's second tradeable token, DEV ("Dev Token", 18 decimals): the DevToken contract the
// deployer creates (which mints it DevSupplyTokens), then pairs with WETH on Uniswap V2: DevSeedTokens DEV
// against DevSeedETH ether, a price of 0.001 ETH (3 USD at the dev native price) per DEV.
const (
	DevTokenSymbol  = "DEV"
	DevSupplyTokens = 1_000_000
	DevSeedTokens   = 100_000
	DevSeedETH      = 100
	devTokenDecimal = 18
)

// devSeedNonce is the deployer's nonce of DEV's deployment: the one after the USDC/WETH pair's seed.
const devSeedNonce = seedNonce + 3

// devDeployGas bounds DEV's deployment: generous, the unused part is refunded.
const devDeployGas = 3_000_000

// DevTokenAddress is where DEV lives: the contract created by the deployer's nonce devSeedNonce (8), the
// same on every fresh chain.
var DevTokenAddress = crypto.CreateAddress(DeployerAddress, devSeedNonce)

// devSeedMissing deploys DEV and seeds its Uniswap V2 DEV/WETH liquidity unless the pair exists (a
// restart), holding deployerMu: three transactions at the fixed nonces after the USDC/WETH seed (the
// deployment, DEV.approve(router), router.addLiquidityETH), with fixed gas since each depends on the one
// before. next is the deployer's next nonce; a data dir where it is not devSeedNonce and the pair is
// missing is refused. It answers their hashes.
func devSeedMissing(ctx context.Context, client *ethclient.Client, next uint64) ([]common.Hash, error) {
	if pair, err := PairOf(ctx, client, DevTokenAddress, WETHAddress); err != nil || pair != (common.Address{}) {
		return nil, err
	}
	if next != devSeedNonce {
		return nil, fmt.Errorf("no DEV/WETH pair on Uniswap but the deployer's next nonce is %d, not %d (a data dir from "+
			"before the pair existed, where the faucet has used the deployer since?); delete the data dir to start a fresh dev chain", next, devSeedNonce)
	}
	amount := tokens(DevSeedTokens, devTokenDecimal)
	calls := []txCall{
		{data: common.FromHex(devtoken.DevTokenMetaData.Bin), gas: devDeployGas},
		{to: &DevTokenAddress, data: devtoken.NewDevToken().PackApprove(UniswapRouterAddress, amount), gas: approveGas},
		{to: &UniswapRouterAddress, value: etherToWei(DevSeedETH), gas: addLiquidityGas,
			data: uniswap.NewRouter().PackAddLiquidityETH(DevTokenAddress, amount, amount, etherToWei(DevSeedETH), DeployerAddress, big.NewInt(math.MaxInt64))},
	}
	hashes := make([]common.Hash, len(calls))
	for i, call := range calls {
		var err error
		if hashes[i], err = sendTxAt(ctx, client, DeployerKey(), devSeedNonce+uint64(i), call); err != nil {
			return nil, fmt.Errorf("seed the DEV/WETH pair: %w", err)
		}
	}
	return hashes, nil
}

// PairOf answers the address of the Uniswap V2 pair of tokens a and b on the dev factory, or the zero
// address when it does not exist (nor the factory yet).
func PairOf(ctx context.Context, client *ethclient.Client, a, b common.Address) (common.Address, error) {
	if code, err := client.CodeAt(ctx, UniswapFactoryAddress, nil); err != nil {
		return common.Address{}, fmt.Errorf("read code at %s: %w", UniswapFactoryAddress, err)
	} else if len(code) == 0 {
		return common.Address{}, nil
	}
	f := uniswap.NewFactory()
	out, err := client.CallContract(ctx, ethereum.CallMsg{To: &UniswapFactoryAddress, Data: f.PackGetPair(a, b)}, nil)
	if err != nil {
		return common.Address{}, fmt.Errorf("read the pair of %s and %s: %w", a, b, err)
	}
	pair, err := f.UnpackGetPair(out)
	if err != nil {
		return common.Address{}, fmt.Errorf("read the pair of %s and %s: %w", a, b, err)
	}
	return pair, nil
}

// tokens is n whole tokens of decimals.
func tokens(n int64, decimals int) *big.Int {
	return new(big.Int).Mul(big.NewInt(n), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
}
