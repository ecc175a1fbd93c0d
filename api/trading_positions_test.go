package api_test

import (
	"context"
	"math/big"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm/uniswap"
	"github.com/svcplatform/svc/internal/wallet"
)

// fillOrder places a market order of the wallet and waits for it to fill.
func fillOrder(t *testing.T, c *client.Client, r client.CreateOrderRequest) client.TradingOrder {
	t.Helper()
	placed := c.PlaceOrder(context.Background(), r)
	require.True(t, placed.OK, "%v", placed.Error)
	o := waitOrder(t, c, placed.Body.Order.ID)
	require.Equal(t, client.OrderFilled, o.Status, "%+v", o.Error)
	return o
}

// ratOf parses a decimal string exactly.
func ratOf(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	require.True(t, ok, "not a decimal: %q", s)
	return r
}

// gasUSDOf is an order's gas in USD at the dev native price.
func gasUSDOf(t *testing.T, o client.TradingOrder) *big.Rat {
	t.Helper()
	wei := ratOf(t, o.GasWei)
	return wei.Mul(wei, big.NewRat(app.DevNativeUSDPrice, 1_000_000_000_000_000_000))
}

// TestTradingPositionsAverageCost: three buys of DEV with USDC (exactly 10, 20 and 30 DEV, routed
// USDC→WETH→DEV) and a sale of 15 DEV for USDC; the DEV position matches a hand computation by the
// average-cost method with gas counted (each buy's gas added to its cost, the sale's gas taken from its
// proceeds), exact to the cent-millionth, and its unrealised P&L is at the pools' mid price. The quantity
// is the chain's; USDC is the unit of account; ETH (no orders) has no traded quantity. Another account's
// wallet is 404, and a key without trading:read is refused.
func TestTradingPositionsAverageCost(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	c, other := tradingAccount(t, env, "positions"), tradingAccount(t, env, "other")
	ctx := context.Background()
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)
	w := tradingWallet(t, env, c, "trader", 1, 500)

	buy := func(dev string) client.TradingOrder {
		return fillOrder(t, c, client.CreateOrderRequest{WalletID: w.ID, Side: client.SideBuy, Base: "DEV", Quote: "USDC", Amount: dev,
			AmountKind: client.AmountExactOut})
	}
	buys := []client.TradingOrder{buy("10"), buy("20"), buy("30")}
	sale := fillOrder(t, c, client.CreateOrderRequest{WalletID: w.ID, Side: client.SideSell, Base: "DEV", Quote: "USDC", Amount: "15",
		AmountKind: client.AmountExactIn})
	require.NotNil(t, buys[0].ApproveTransactionID, "the first buy approves USDC: its gas counts")
	require.NotNil(t, sale.ApproveTransactionID, "the sale approves DEV: its gas counts")

	// The hand computation, from the orders' fills and gas.
	cost := new(big.Rat)
	for _, o := range buys {
		cost.Add(cost, ratOf(t, o.FilledIn)).Add(cost, gasUSDOf(t, o))
	}
	avg := new(big.Rat).Quo(cost, big.NewRat(60, 1))
	proceeds := new(big.Rat).Sub(ratOf(t, sale.FilledOut), gasUSDOf(t, sale))
	realized := new(big.Rat).Sub(proceeds, new(big.Rat).Mul(avg, big.NewRat(15, 1)))
	basis := new(big.Rat).Mul(avg, big.NewRat(45, 1))
	devPerWETH := midPrice(t, rpc, devchain.DevTokenAddress.Hex(), devchain.WETHAddress.Hex(), 18, 18)
	usdPerWETH := midPrice(t, rpc, devchain.WETHAddress.Hex(), devchain.USDCAddress.Hex(), 18, 6)
	price := new(big.Rat).Mul(devPerWETH, usdPerWETH)
	unrealized := new(big.Rat).Sub(new(big.Rat).Mul(price, big.NewRat(45, 1)), basis)

	r := c.Positions(ctx, w.ID)
	require.True(t, r.OK, "%v", r.Error)
	byToken := map[string]client.TradingPosition{}
	for _, p := range r.Body.Positions {
		require.Equal(t, w.ID, p.WalletID)
		byToken[p.Token] = p
	}
	dev := byToken["DEV"]
	t.Logf("DEV position: %+v; fills %s %s %s %s; gas %s %s %s %s", dev, buys[0].FilledIn, buys[1].FilledIn, buys[2].FilledIn, sale.FilledOut,
		buys[0].GasWei, buys[1].GasWei, buys[2].GasWei, sale.GasWei)
	require.Equal(t, wallet.FormatUnits(tokenBalance(t, rpc, devchain.DevTokenAddress, w.Address), 18), dev.Quantity)
	require.Equal(t, "45", dev.Quantity)
	require.Equal(t, "45", dev.TradedQuantity)
	require.Equal(t, 4, dev.Orders)
	require.Equal(t, avg.FloatString(6), dev.AverageCost)
	require.Equal(t, basis.FloatString(6), dev.CostBasis)
	require.Equal(t, realized.FloatString(6), dev.RealizedPnL)
	require.Equal(t, price.FloatString(6), dev.Price)
	require.Equal(t, unrealized.FloatString(6), dev.UnrealizedPnL)
	// The swaps' amounts and the price, written out (the dev chain's pools are deterministic; gas is not,
	// as the base fee follows block timing, so it enters from the orders above).
	require.Equal(t, expectedFills, [4]string{buys[0].FilledIn, buys[1].FilledIn, buys[2].FilledIn, sale.FilledOut})
	require.Equal(t, "3.005434", dev.Price)

	usdc := byToken["USDC"]
	require.Equal(t, wallet.FormatUnits(tokenBalance(t, rpc, devchain.USDCAddress, w.Address), 6), usdc.Quantity)
	require.Equal(t, "1.000000", usdc.AverageCost)
	require.Equal(t, "0.000000", usdc.RealizedPnL)
	eth := byToken["ETH"]
	require.Equal(t, wallet.FormatUnits(weiBalance(t, rpc, w.Address), 18), eth.Quantity)
	require.Equal(t, "0", eth.TradedQuantity)
	require.Zero(t, eth.Orders)

	all := c.Positions(ctx, "")
	require.True(t, all.OK, "%v", all.Error)
	require.Len(t, all.Body.Positions, len(r.Body.Positions), "one wallet: the same positions")
	require.Equal(t, http.StatusNotFound, other.Positions(ctx, w.ID).StatusCode)
	child := c.CreateAPIKey(ctx, client.CreateAPIKeyRequest{Name: "no-trading", Scopes: []string{string(client.ScopeWalletsRead)}})
	require.True(t, child.OK, "%v", child.Error)
	narrow := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(child.Body.APIKey.Secret))
	require.Equal(t, http.StatusForbidden, narrow.Positions(ctx, w.ID).StatusCode, "trading:read is required")
	require.Empty(t, other.Positions(ctx, "").Body.Positions)
}

// expectedFills are the USDC paid by the three buys of TestTradingPositionsAverageCost and received by
// its sale.
var expectedFills = [4]string{"30.18686", "60.410057", "90.706055", "44.824872"}

// midPrice is whole b per whole a in the dev pair of a and b, from its reserves.
func midPrice(t *testing.T, rpc *ethclient.Client, a, b string, aDecimals, bDecimals int) *big.Rat {
	t.Helper()
	rA, rB := pairReserves(t, rpc, a, b)
	num := new(big.Rat).SetFrac(rB, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(bDecimals)), nil))
	den := new(big.Rat).SetFrac(rA, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(aDecimals)), nil))
	return num.Quo(num, den)
}

// pairReserves reads the reserves of the dev pair of a and b, a's first.
func pairReserves(t *testing.T, rpc *ethclient.Client, a, b string) (*big.Int, *big.Int) {
	t.Helper()
	ta, tb := common.HexToAddress(a), common.HexToAddress(b)
	pair, err := devchain.PairOf(context.Background(), rpc, ta, tb)
	require.NoError(t, err)
	require.NotEqual(t, common.Address{}, pair, "no pair of %s and %s", a, b)
	p := uniswap.NewPair()
	r, err := p.UnpackGetReserves(ethCall(t, rpc, pair, p.PackGetReserves()))
	require.NoError(t, err)
	if ta.Cmp(tb) < 0 {
		return r.Reserve0, r.Reserve1
	}
	return r.Reserve1, r.Reserve0
}
