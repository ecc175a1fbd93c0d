package devchain

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/evm/devtoken"
	"github.com/svcplatform/svc/internal/evm/uniswap"
)

// TestDevTokenPairIsSeeded: DEV is the DevToken "Dev Token" (18 decimals) at its fixed address, the
// deployer holds its supply less the seed, and the Uniswap V2 DEV/WETH pair holds the seed
// liquidity, so the router quotes 0.001 ETH per DEV.
func TestDevTokenPairIsSeeded(t *testing.T) {
	t.Parallel()
	client := newLaunchEnv(t).client
	ctx := t.Context()
	tok := devtoken.NewDevToken()
	call := func(to common.Address, data []byte) []byte {
		out, err := client.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
		require.NoError(t, err)
		return out
	}
	symbol, err := tok.UnpackSymbol(call(DevTokenAddress, tok.PackSymbol()))
	require.NoError(t, err)
	require.Equal(t, DevTokenSymbol, symbol)
	decimals, err := tok.UnpackDecimals(call(DevTokenAddress, tok.PackDecimals()))
	require.NoError(t, err)
	require.EqualValues(t, 18, decimals)
	held, err := tok.UnpackBalanceOf(call(DevTokenAddress, tok.PackBalanceOf(DeployerAddress)))
	require.NoError(t, err)
	require.Equal(t, tokens(DevSupplyTokens-DevSeedTokens, 18), held)

	pair, err := PairOf(ctx, client, DevTokenAddress, WETHAddress)
	require.NoError(t, err)
	require.NotEqual(t, common.Address{}, pair)
	p := uniswap.NewPair()
	reserves, err := p.UnpackGetReserves(call(pair, p.PackGetReserves()))
	require.NoError(t, err)
	devReserve, wethReserve := reserves.Reserve0, reserves.Reserve1
	if DevTokenAddress.Cmp(WETHAddress) > 0 {
		devReserve, wethReserve = wethReserve, devReserve
	}
	require.Equal(t, tokens(DevSeedTokens, 18), devReserve)
	require.Equal(t, etherToWei(DevSeedETH), wethReserve)

	r := uniswap.NewRouter()
	amounts, err := r.UnpackGetAmountsOut(call(UniswapRouterAddress, r.PackGetAmountsOut(tokens(1, 18), []common.Address{DevTokenAddress, WETHAddress})))
	require.NoError(t, err)
	require.InDelta(t, 0.000997, weiToEther(amounts[1]), 0.000001)
}

// TestDataDirWithoutTheDevPairGetsIt: a data dir from before DEV (contracts and the USDC/WETH pair only)
// gets DEV and its pair on its next start.
func TestDataDirWithoutTheDevPairGetsIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	chain, err := startNode(Config{Addr: "127.0.0.1:0", DataDir: dir}, genesis())
	require.NoError(t, err)
	client := chain.Client()
	deployerMu.Lock()
	_, next, err := deployMissing(t.Context(), client, deployments())
	require.NoError(t, err)
	hashes, err := seedMissing(t.Context(), client, next)
	deployerMu.Unlock()
	require.NoError(t, err)
	_, err = waitReceipt(t.Context(), client, hashes[len(hashes)-1])
	require.NoError(t, err)
	client.Close()
	require.NoError(t, chain.Close())

	restarted := dial(t, startChain(t, dir))
	pair, err := PairOf(t.Context(), restarted, DevTokenAddress, WETHAddress)
	require.NoError(t, err)
	require.NotEqual(t, common.Address{}, pair)
}

func weiToEther(v *big.Int) float64 {
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(v), big.NewFloat(1e18)).Float64()
	return f
}
