package devchain

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/evm/uniswap"
)

// TestUniswapIsTheAuditedBuildAndTrades: the factory and router on the chain run the bytecode their npm
// packages ship; the pair the factory made is at the address the router computes from its init-code
// hash (so the router's quotes and swaps reach it); it holds the seed liquidity; and a swap of ETH for
// USDC through the router from a fresh key pays what getAmountsOut quoted.
func TestUniswapIsTheAuditedBuildAndTrades(t *testing.T) {
	t.Parallel()
	e := newLaunchEnv(t)
	ctx := context.Background()
	client := e.client

	for addr, artifact := range map[common.Address]string{UniswapFactoryAddress: "UniswapV2Factory", UniswapRouterAddress: "UniswapV2Router02"} {
		code, err := client.CodeAt(ctx, addr, nil)
		require.NoError(t, err)
		requireSameCode(t, artifact, deployedCode(t, artifact), code)
	}
	r := uniswap.NewRouter()
	out, err := client.CallContract(ctx, ethereum.CallMsg{To: &UniswapRouterAddress, Data: r.PackFactory()}, nil)
	require.NoError(t, err)
	factory, err := r.UnpackFactory(out)
	require.NoError(t, err)
	require.Equal(t, UniswapFactoryAddress, factory, "the router's immutable factory")

	pair, err := USDCWETHPair(ctx, client)
	require.NoError(t, err)
	require.NotEqual(t, common.Address{}, pair)
	token0, token1 := USDCAddress, WETHAddress
	if token1.Cmp(token0) < 0 {
		token0, token1 = token1, token0
	}
	salt := crypto.Keccak256(token0.Bytes(), token1.Bytes())
	initCodeHash := crypto.Keccak256(common.FromHex(uniswap.PairMetaData.Bin))
	require.Equal(t, crypto.CreateAddress2(UniswapFactoryAddress, [32]byte(salt), initCodeHash), pair, "the router's pairFor finds the factory's pair")

	p := uniswap.NewPair()
	out, err = client.CallContract(ctx, ethereum.CallMsg{To: &pair, Data: p.PackGetReserves()}, nil)
	require.NoError(t, err)
	reserves, err := p.UnpackGetReserves(out)
	require.NoError(t, err)
	usdcReserve, wethReserve := reserves.Reserve0, reserves.Reserve1
	if token0 != USDCAddress {
		usdcReserve, wethReserve = reserves.Reserve1, reserves.Reserve0
	}
	require.Equal(t, new(big.Int).Mul(big.NewInt(SeedUSDC), big.NewInt(1_000_000)), usdcReserve)
	require.Equal(t, etherToWei(SeedETH), wethReserve)

	trader := e.accounts(1)[0]
	in := etherToWei(1)
	path := []common.Address{WETHAddress, USDCAddress}
	out, err = client.CallContract(ctx, ethereum.CallMsg{To: &UniswapRouterAddress, Data: r.PackGetAmountsOut(in, path)}, nil)
	require.NoError(t, err)
	amounts, err := r.UnpackGetAmountsOut(out)
	require.NoError(t, err)
	require.Greater(t, amounts[1].Int64(), int64(2_900_000_000), "about 2,990 USDC for 1 ETH after the 0.3 % fee and the impact")
	to := crypto.PubkeyToAddress(trader.PublicKey)
	h, err := sendTx(ctx, client, trader, txCall{to: &UniswapRouterAddress, value: in,
		data: r.PackSwapExactETHForTokens(amounts[1], path, to, big.NewInt(1<<40))})
	require.NoError(t, err)
	_, err = waitReceipt(ctx, client, h)
	require.NoError(t, err)
	require.Equal(t, amounts[1], usdcBalance(t, client, to))
}

// requireSameCode requires the runtime code on the chain to be the artifact's, byte for byte except
// where the artifact holds zeros: Solidity leaves its immutables (the router's factory and WETH) as
// zero words in the shipped runtime code and the constructor fills them in.
func requireSameCode(t *testing.T, artifact string, want, got []byte) {
	t.Helper()
	require.Len(t, got, len(want), "%s: the code on the chain has the length of the npm build's", artifact)
	for i := range want {
		if want[i] != 0 && want[i] != got[i] {
			t.Fatalf("%s: the code on the chain differs from the npm build's at byte %d", artifact, i)
		}
	}
}

// deployedCode is the runtime bytecode of a committed artifact (contracts/build).
func deployedCode(t *testing.T, artifact string) []byte {
	t.Helper()
	raw, err := os.ReadFile("../../contracts/build/" + artifact + ".json")
	require.NoError(t, err)
	var a struct {
		DeployedBytecode string `json:"deployedBytecode"`
	}
	require.NoError(t, json.Unmarshal(raw, &a))
	return common.FromHex(a.DeployedBytecode)
}
