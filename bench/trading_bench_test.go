package bench

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/evm/uniswap"
)

// tradingOrders is how many market orders each of walletClients clients places; tradingQuotes how many
// quotes (and bare eth_calls) the latency bench times.
const (
	tradingOrders = 5
	tradingQuotes = 200
)

// rawSwapGas is the raw swaps' gas limit. A swapExactETHForTokens paying dev USDC to an address that
// never held it estimates at about 273,000 gas (eth_estimateGas): with the 200,000 this bench once used,
// the pair's call to the token's transfer ran out of gas at about 197,000 used and the pair reverted
// (UniswapV2: TRANSFER_FAILED, receipt status 0); the failed require then ended each raw client after
// its first swap, which is why the raw side once looked ten times faster. Unused gas is refunded.
const rawSwapGas = 400_000

// tradingSellWei is what each swap sells: 0.001 ETH for USDC (about 3 USD, under every approval threshold).
var tradingSellWei = big.NewInt(1_000_000_000_000_000)

// tradingBench is a real API on the dev chain with an account holding credits (each order holds its fee)
// and its SDK.
func tradingBench(b *testing.B) (*apptest.Env, *client.Client) {
	b.Helper()
	env := apptest.NewWith(b, apptest.Options{Chain: true, NoDatabases: true})
	created, err := env.Accounts.Create(context.Background(), "bench-trader", 10_000, 0)
	require.NoError(b, err)
	r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": created.CreditToken, "Idempotency-Key": "first-key"}})
	require.Equal(b, http.StatusCreated, r.Status, "%s", r.Raw)
	key := r.Body["apiKey"].(map[string]any)["secret"].(string)
	return env, client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
}

// faucet funds addr with ETH from the dev faucet.
func faucet(b *testing.B, env *apptest.Env, addr string, eth float64) {
	b.Helper()
	r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": addr, "usdc": 0, "eth": eth}})
	require.Equal(b, http.StatusOK, r.Status, "%s", r.Raw)
}

// BenchmarkTradingOrdersVersusRawSwaps compares market orders per second through the API (POST
// /v1/trading/orders from 8 funded wallets, each client waiting for its order to fill before the next:
// pricing, policy, reservation, fee hold, the order and wallet workflows, signing, broadcast, receipt and
// fills) with the same swaps (swapExactETHForTokens of 0.001 ETH for USDC on the same router, the bound
// from getAmountsOut less 0.5 %) signed and sent from one Go program with 8 funded keys, at the same
// concurrency, in the same run; it reports the ratio (wanted ≥ 0.8).
func BenchmarkTradingOrdersVersusRawSwaps(b *testing.B) {
	env, c := tradingBench(b)
	ctx := context.Background()
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(b, err)
	b.Cleanup(rpc.Close)
	wallets := make([]string, walletClients)
	keys := make([]*ecdsa.PrivateKey, walletClients)
	for i := range walletClients {
		w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: fmt.Sprintf("bench-%d", i)})
		require.True(b, w.OK, "%v", w.Error)
		require.True(b, c.UpdateWalletPolicy(ctx, w.Body.Wallet.ID, client.UpdateWalletPolicyRequest{DailyLimitUSD: client.DisableUSD()}).OK)
		wallets[i] = w.Body.Wallet.ID
		faucet(b, env, w.Body.Wallet.Address, 1)
		keys[i], err = crypto.GenerateKey()
		require.NoError(b, err)
		faucet(b, env, crypto.PubkeyToAddress(keys[i].PublicKey).Hex(), 1)
	}
	for b.Loop() {
		var mu sync.Mutex
		var orders []orderTimes
		first := head(b, rpc)
		api := perClient(func(i int) {
			for range tradingOrders {
				o := placeAndFill(b, c, wallets[i])
				mu.Lock()
				orders = append(orders, o)
				mu.Unlock()
			}
		})
		apiBlocks := head(b, rpc) - first
		first = head(b, rpc)
		raw := perClient(func(i int) { rawSwaps(b, rpc, keys[i], tradingOrders) })
		b.Logf("blocks sealed: %d for the API's orders, %d for the raw swaps", apiBlocks, head(b, rpc)-first)
		n := float64(walletClients * tradingOrders)
		aps, rps := n/api.Seconds(), n/raw.Seconds()
		b.ReportMetric(aps, "api-orders/s")
		b.ReportMetric(rps, "raw-swaps/s")
		b.ReportMetric(aps/rps, "ratio")
		b.Logf("%d swaps from %d clients: API %.2f orders/s, raw %.2f swaps/s, ratio %.2f", int(n), walletClients, aps, rps, aps/rps)
		breakdown(b, env.Temporal, orders)
	}
}

// placeAndFill places a market order selling 0.001 ETH for USDC from the wallet and waits until it fills;
// it answers when it asked, was answered and saw the order filled.
func placeAndFill(b *testing.B, c *client.Client, walletID string) orderTimes {
	ctx := context.Background()
	request := time.Now()
	r := c.PlaceOrder(ctx, client.CreateOrderRequest{WalletID: walletID, Side: client.SideSell, Base: "ETH", Quote: "USDC", Amount: "0.001",
		AmountKind: client.AmountExactIn})
	require.True(b, r.OK, "%v", r.Error)
	answer := time.Now()
	var last client.TradingOrder
	require.Eventually(b, func() bool {
		g := c.Order(ctx, r.Body.Order.ID)
		last = g.Body.Order
		return g.OK && (last.Status == client.OrderFilled || last.Status == client.OrderFailed)
	}, time.Minute, 5*time.Millisecond)
	require.Equal(b, client.OrderFilled, last.Status, "%+v", last.Error)
	return orderTimes{ID: r.Body.Order.ID, Request: request, Answer: answer, Saw: time.Now()}
}

// rawSwaps signs and sends n swaps of 0.001 ETH for USDC from key, each priced by getAmountsOut and
// waited for until its receipt.
func rawSwaps(b *testing.B, rpc *ethclient.Client, key *ecdsa.PrivateKey, n int) {
	ctx := context.Background()
	router, signer, chainID := devchain.UniswapRouterAddress, types.LatestSignerForChainID(big.NewInt(devchain.ChainID)), big.NewInt(devchain.ChainID)
	from := crypto.PubkeyToAddress(key.PublicKey)
	path := []common.Address{devchain.WETHAddress, devchain.USDCAddress}
	r := uniswap.NewRouter()
	nonce, err := rpc.PendingNonceAt(ctx, from)
	require.NoError(b, err)
	for range n {
		out := getAmountsOut(b, rpc, path)
		minOut := new(big.Int).Div(new(big.Int).Mul(out, big.NewInt(9_950)), big.NewInt(10_000))
		head, err := rpc.HeaderByNumber(ctx, nil)
		require.NoError(b, err)
		deadline := new(big.Int).SetUint64(head.Time + 600)
		tip, feeCap, err := evm.Fees(ctx, rpc)
		require.NoError(b, err)
		tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, To: &router, Gas: rawSwapGas, Value: tradingSellWei,
			GasTipCap: tip, GasFeeCap: feeCap, Data: r.PackSwapExactETHForTokens(minOut, path, from, deadline)}), signer, key)
		require.NoError(b, err)
		require.NoError(b, rpc.SendTransaction(ctx, tx))
		var rc *types.Receipt
		require.Eventually(b, func() bool {
			rc, err = rpc.TransactionReceipt(ctx, tx.Hash())
			return err == nil
		}, time.Minute, 5*time.Millisecond)
		require.EqualValues(b, 1, rc.Status)
		nonce++
	}
}

// head is the chain's head block number.
func head(b *testing.B, rpc *ethclient.Client) uint64 {
	n, err := rpc.BlockNumber(context.Background())
	require.NoError(b, err)
	return n
}

// getAmountsOut is the router's bare getAmountsOut of 0.001 ETH along path: the USDC out.
func getAmountsOut(b *testing.B, rpc *ethclient.Client, path []common.Address) *big.Int {
	r := uniswap.NewRouter()
	router := devchain.UniswapRouterAddress
	raw, err := rpc.CallContract(context.Background(), ethereum.CallMsg{To: &router, Data: r.PackGetAmountsOut(tradingSellWei, path)}, nil)
	require.NoError(b, err)
	amounts, err := r.UnpackGetAmountsOut(raw)
	require.NoError(b, err)
	return amounts[len(amounts)-1]
}

// BenchmarkTradingQuoteVersusGetAmountsOut times 200 quotes through the API one after the other (POST
// /v1/trading/quotes of 0.001 ETH for USDC: auth, the wallet and its policy, getAmountsOut, the pair's
// reserves for the impact, the quote recorded) against 200 bare getAmountsOut eth_calls of the same swap
// on the same router, and reports p50 and p99 of each.
func BenchmarkTradingQuoteVersusGetAmountsOut(b *testing.B) {
	env, c := tradingBench(b)
	ctx := context.Background()
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(b, err)
	b.Cleanup(rpc.Close)
	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "quoter"})
	require.True(b, w.OK, "%v", w.Error)
	path := []common.Address{devchain.WETHAddress, devchain.USDCAddress}
	for b.Loop() {
		api := timeEach(tradingQuotes, func() {
			q := c.QuoteTrade(ctx, client.TradingQuoteRequest{WalletID: w.Body.Wallet.ID, Side: client.SideSell, Base: "ETH", Quote: "USDC",
				Amount: "0.001", AmountKind: client.AmountExactIn})
			require.True(b, q.OK, "%v", q.Error)
		})
		bare := timeEach(tradingQuotes, func() { getAmountsOut(b, rpc, path) })
		b.ReportMetric(ms(percentile(api, 50)), "quote-p50-ms")
		b.ReportMetric(ms(percentile(api, 99)), "quote-p99-ms")
		b.ReportMetric(ms(percentile(bare, 50)), "call-p50-ms")
		b.ReportMetric(ms(percentile(bare, 99)), "call-p99-ms")
		b.Logf("%d quotes: API p50 %s p99 %s; bare getAmountsOut p50 %s p99 %s", tradingQuotes, percentile(api, 50), percentile(api, 99),
			percentile(bare, 50), percentile(bare, 99))
	}
}

// timeEach runs f n times one after the other and answers each run's duration.
func timeEach(n int, f func()) []time.Duration {
	out := make([]time.Duration, n)
	for i := range n {
		start := time.Now()
		f()
		out[i] = time.Since(start)
	}
	return out
}

// percentile is the p-th percentile (nearest rank) of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	i := (len(sorted)*p+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
