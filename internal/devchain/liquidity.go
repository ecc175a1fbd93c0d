package devchain

import (
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/svcplatform/svc/internal/evm/uniswap"
	"github.com/svcplatform/svc/internal/evm/usdc"
)

// The dev USDC/WETH pair's seed: SeedUSDC dev USDC against SeedETH ether, a price of 3,000 USDC per ETH
// (the dev native price wallets value ETH at).
const (
	SeedUSDC = 300_000
	SeedETH  = 100
)

// seedNonce is the deployer's nonce of the first liquidity transaction: the one after the last
// deployment.
const seedNonce = 5

// Gas of the seeding transactions, fixed because each depends on the one before (an estimate would see
// the state before it): generous bounds, the unused part is refunded.
const (
	mintGas         = 1_000_000
	approveGas      = 1_000_000
	addLiquidityGas = 16_000_000
)

// seedMissing sends the dev USDC/WETH pair's seed liquidity on Uniswap V2 unless the pair exists (a
// restart on an existing data dir), holding deployerMu: the deployer mints SeedUSDC to itself, approves
// the router and adds the liquidity with addLiquidityETH, three transactions at fixed nonces right after
// the deployments (sent just before, maybe still pending), with fixed gas since each depends on the one
// before. next is the deployer's next nonce as deployMissing left it (read before it sent, since the
// node's pending nonce can lag right after its own block). It answers their hashes.
func seedMissing(ctx context.Context, client *ethclient.Client, next uint64) ([]common.Hash, error) {
	if pair, err := USDCWETHPair(ctx, client); err != nil || pair != (common.Address{}) {
		return nil, err
	}
	if next != seedNonce {
		return nil, fmt.Errorf("no USDC/WETH pair on Uniswap but the deployer's next nonce is %d, not %d (a data dir from "+
			"before the pair existed, where the faucet has used the deployer since?); delete the data dir to start a fresh dev chain", next, seedNonce)
	}
	amount := new(big.Int).Mul(big.NewInt(SeedUSDC), big.NewInt(int64(math.Pow10(usdc.Decimals))))
	token, router := usdc.NewUSDC(), uniswap.NewRouter()
	calls := []txCall{
		{to: &USDCAddress, data: token.PackMint(DeployerAddress, amount), gas: mintGas},
		{to: &USDCAddress, data: token.PackApprove(UniswapRouterAddress, amount), gas: approveGas},
		{to: &UniswapRouterAddress, value: etherToWei(SeedETH), gas: addLiquidityGas,
			data: router.PackAddLiquidityETH(USDCAddress, amount, amount, etherToWei(SeedETH), DeployerAddress, big.NewInt(math.MaxInt64))},
	}
	hashes := make([]common.Hash, len(calls))
	for i, call := range calls {
		var err error
		if hashes[i], err = sendTxAt(ctx, client, DeployerKey(), seedNonce+uint64(i), call); err != nil {
			return nil, fmt.Errorf("seed the USDC/WETH pair: %w", err)
		}
	}
	return hashes, nil
}

// USDCWETHPair answers the address of the dev USDC/WETH pair on Uniswap V2, or the zero address when it
// does not exist yet.
func USDCWETHPair(ctx context.Context, client *ethclient.Client) (common.Address, error) {
	return PairOf(ctx, client, USDCAddress, WETHAddress)
}
