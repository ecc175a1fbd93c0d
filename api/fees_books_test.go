package api_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
)

// weiOf reads a decimal string of whole ether (18 decimals at most) back into wei, exactly.
func weiOf(t *testing.T, s string) *big.Int {
	t.Helper()
	whole, frac, _ := strings.Cut(s, ".")
	require.LessOrEqual(t, len(frac), 18, "%q has more than 18 decimals", s)
	out, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", 18-len(frac)), 10)
	require.True(t, ok, "%q is not a decimal amount", s)
	return out
}

// viewOf calls a view of to on the dev chain and unpacks its answer.
func viewOf[T any](t *testing.T, ch *feetest.Env, to common.Address, data []byte, unpack func([]byte) (T, error)) T {
	t.Helper()
	out, err := unpack(ethCall(t, ch.Client, to, data))
	require.NoError(t, err)
	return out
}

// TestTokenLaunchesThroughHandles: launches whose fee recipient is a Farcaster username and an ENS name
// resolve through the resolver file end to end: the token is deployed with the resolved address holding
// the creator's 57 %, the public fee routes show that address's fees (the snapshot's claimable is
// pendingFees to the wei, and its beneficiary view lists the token); an unknown Farcaster name is 400
// naming the field and the name.
func TestTokenLaunchesThroughHandles(t *testing.T) {
	t.Parallel()
	bob, carol := common.HexToAddress("0x00000000000000000000000000000000000b0b00"), common.HexToAddress("0x00000000000000000000000000000000ca201000")
	file := filepath.Join(t.TempDir(), "handles.yaml")
	require.NoError(t, os.WriteFile(file, []byte("farcaster:\n  bob: \""+bob.Hex()+"\"\nens:\n  carol.eth: \""+carol.Hex()+"\"\n"), 0o600))
	env := apptest.NewWith(t, apptest.Options{Chain: true, HandleFile: file, FeeCacheTTL: -1})
	c := sdkFor(env, newDatabaseAccount(t, env))
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "launcher"}).Body.Wallet
	trader := ch.Keys(1)[0]
	public := client.New(client.WithBaseURL(env.URL))

	for _, tc := range []struct {
		recipient client.FeeRecipient
		symbol    string
		resolved  common.Address
	}{
		{client.FeeRecipient{Type: "farcaster", Value: "@Bob"}, "BOB", bob},
		{client.FeeRecipient{Type: "ens", Value: "Carol.ETH"}, "CRL", carol},
	} {
		fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 0, "eth": 0.01}})
		require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
		dep := c.DeployToken(ctx, client.TokenLaunchRequest{TokenName: tc.symbol + " Coin", TokenSymbol: tc.symbol, FeeRecipient: tc.recipient})
		require.True(t, dep.OK, "%s: %v", tc.recipient.Type, dep.Error)
		require.Equal(t, tc.resolved.Hex(), dep.Body.Launch.FeeAddress, "%s resolved", tc.recipient.Type)
		l := waitLaunch(t, c, dep.Body.Launch.ID)
		checkLaunchedToken(t, ch.Client, l, tc.symbol+" Coin", tc.symbol, tc.resolved)

		launched := ch.LaunchedAt(common.HexToAddress(l.TokenAddress), common.HexToAddress(l.PoolAddress), common.HexToHash(l.PoolID))
		ch.Trade(trader, launched)
		require.NoError(t, feeindex.New(env.DB, ch.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID}).CatchUp(ctx))
		snap := public.TokenFees(ctx, l.TokenAddress, 30)
		require.True(t, snap.OK, "%v", snap.Error)
		require.Equal(t, tc.resolved.Hex(), snap.Body.Address, "the token's fees are the resolved address's")
		require.Len(t, snap.Body.Tokens, 1)
		require.Equal(t, "57", snap.Body.Tokens[0].Share)
		requireClaimable(t, ch.Pending(launched, tc.resolved), snap.Body.Tokens[0].Claimable)
		var mine client.FeeSnapshot
		r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/public/amm/beneficiary-fees/" + tc.resolved.Hex()})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		require.NoError(t, json.Unmarshal(r.Raw, &mine))
		require.Len(t, mine.Tokens, 1)
		require.Equal(t, l.TokenAddress, mine.Tokens[0].TokenAddress)
	}

	unknown := c.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "Nobody Coin", TokenSymbol: "NOB",
		FeeRecipient: client.FeeRecipient{Type: "farcaster", Value: "nobody-here"}})
	require.Equal(t, http.StatusBadRequest, unknown.StatusCode, "%s", unknown.Raw)
	require.Equal(t, "feeRecipient.value", unknown.Error.Param)
	require.Contains(t, unknown.Error.Message, "nobody-here")
}

// poolBooks are a launched pool's fee books as the chain and the API show them, per token (index 0 is
// the pool's token0).
type poolBooks struct {
	taken, released, claimable, dust, cumulated, uncollected [2]*big.Int
	releases, beneficiaries                                  int
}

// readBooks reads l's books: taken from the pool's Swap events, released from the FeesManager's Release
// events, claimable from GET /public/amm/claimable-fees for every address that held shares, dust from
// getDust, and the counters the contracts keep.
func readBooks(t *testing.T, env *apptest.Env, ch *feetest.Env, l feetest.Launched) poolBooks {
	t.Helper()
	ctx := context.Background()
	fm, pool := launch.NewFeesManager(), launch.NewLaunchPool()
	b := poolBooks{}
	for i := range 2 {
		b.taken[i], b.released[i], b.claimable[i] = new(big.Int), new(big.Int), new(big.Int)
	}
	swaps, err := ch.Client.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{l.Pool}, FromBlock: big.NewInt(0)})
	require.NoError(t, err)
	for _, lg := range swaps {
		if ev, err := pool.UnpackSwapEvent(&lg); err == nil {
			side := 1
			if ev.TokenIn == l.Token0 {
				side = 0
			}
			b.taken[side].Add(b.taken[side], ev.Fee)
		}
	}
	events, err := ch.Client.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{devchain.FeesManagerAddress},
		Topics: [][]common.Hash{nil, {common.Hash(l.PoolID)}}, FromBlock: big.NewInt(0)})
	require.NoError(t, err)
	for _, lg := range events {
		if ev, err := fm.UnpackReleaseEvent(&lg); err == nil {
			b.released[0].Add(b.released[0], ev.Amount0)
			b.released[1].Add(b.released[1], ev.Amount1)
			b.releases++
		}
	}
	who := viewOf(t, ch, devchain.FeesManagerAddress, fm.PackGetBeneficiaries(l.PoolID), fm.UnpackGetBeneficiaries)
	b.beneficiaries = len(who)
	for _, a := range who {
		var got client.ClaimableFees
		r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/public/amm/claimable-fees/" + l.Token.Hex() + "?beneficiary=" + a.Hex()})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		require.NoError(t, json.Unmarshal(r.Raw, &got))
		require.True(t, got.Eligible, "%s holds shares", a.Hex())
		b.claimable[0].Add(b.claimable[0], weiOf(t, got.ClaimableFees.Token0))
		b.claimable[1].Add(b.claimable[1], weiOf(t, got.ClaimableFees.Token1))
	}
	dust := viewOf(t, ch, devchain.FeesManagerAddress, fm.PackGetDust(l.PoolID), fm.UnpackGetDust)
	b.dust = [2]*big.Int{dust.Dust0, dust.Dust1}
	b.cumulated = [2]*big.Int{viewOf(t, ch, devchain.FeesManagerAddress, fm.PackGetCumulatedFees0(l.PoolID), fm.UnpackGetCumulatedFees0),
		viewOf(t, ch, devchain.FeesManagerAddress, fm.PackGetCumulatedFees1(l.PoolID), fm.UnpackGetCumulatedFees1)}
	un := viewOf(t, ch, l.Pool, pool.PackGetUncollectedFees(), pool.UnpackGetUncollectedFees)
	b.uncollected = [2]*big.Int{un.Fees0, un.Fees1}
	return b
}

// withPoolTokens is l with its pool's token0 and token1 as the pool orders them (launchAndTrade assumes
// WETH is token0).
func withPoolTokens(t *testing.T, ch *feetest.Env, l feetest.Launched) feetest.Launched {
	t.Helper()
	pool := launch.NewLaunchPool()
	l.Token0 = viewOf(t, ch, l.Pool, pool.PackToken0(), pool.UnpackToken0)
	l.Token1 = viewOf(t, ch, l.Pool, pool.PackToken1(), pool.UnpackToken1)
	return l
}

// swapFeesBefore sums the fee of l's Swap events in blocks before block, per token.
func swapFeesBefore(t *testing.T, ch *feetest.Env, l feetest.Launched, block int64) [2]*big.Int {
	t.Helper()
	pool := launch.NewLaunchPool()
	logs, err := ch.Client.FilterLogs(context.Background(), ethereum.FilterQuery{Addresses: []common.Address{l.Pool},
		FromBlock: big.NewInt(0), ToBlock: big.NewInt(block - 1)})
	require.NoError(t, err)
	out := [2]*big.Int{new(big.Int), new(big.Int)}
	for _, lg := range logs {
		if ev, err := pool.UnpackSwapEvent(&lg); err == nil {
			side := 1
			if ev.TokenIn == l.Token0 {
				side = 0
			}
			out[side].Add(out[side], ev.Fee)
		}
	}
	return out
}

// TestFeeBooksBalance: after a launch through the API, swaps both ways by two traders, a collectFees by
// an address without shares (it moves the pool's fees into the counters and releases nothing), a claim
// by the creator's managed wallet through the API and more swaps, the books balance to the wei for
// token0 and token1:
//
//	released (sum of the pool's Release events) + claimable (sum over every beneficiary of GET
//	/public/amm/claimable-fees) + dust (FeesManager.getDust) = fees taken (sum of the pool's Swap fees)
//
// and, independently of getDust, dust is what the FeesManager holds of the launch token (the only pool
// using it) plus what the pool still holds uncollected, minus what is claimable: held + uncollected -
// claimable = dust. The pool's own accounting agrees (cumulated + uncollected = taken; getReleasedFees =
// the Release events), the claim paid the creator exactly 57 % (rounded down) of the fees taken before
// its block, and the dust is below one wei per rounding (one per Release and one per beneficiary's
// pending amount).
func TestFeeBooksBalance(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1})
	c := sdkFor(env, newDatabaseAccount(t, env))
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	w, l, launched := launchAndTrade(t, env, c, ch)
	launched = withPoolTokens(t, ch, launched)
	keys := ch.Keys(2)
	ch.Trade(keys[0], launched)
	require.Zero(t, releasesIn(ch.Collect(keys[1], launched)), "an address without shares is released nothing")

	claim := c.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{WalletID: w.ID})
	require.Equal(t, http.StatusAccepted, claim.StatusCode, "%s", claim.Raw)
	done := waitClaim(t, c, claim.Body.Claim.ID)
	require.Equal(t, client.FeeClaimClaimed, done.Status, "%+v", done.Error)
	ch.Trade(keys[0], launched)

	b := readBooks(t, env, ch, launched)
	require.Equal(t, 4, b.beneficiaries, "creator, platform, ecosystem and protocol")
	require.Equal(t, 1, b.releases, "only the creator's claim released fees")
	beforeClaim := swapFeesBefore(t, ch, launched, *done.BlockNumber)
	fm := launch.NewFeesManager()
	releasedView := viewOf(t, ch, devchain.FeesManagerAddress, fm.PackGetReleasedFees(launched.PoolID), fm.UnpackGetReleasedFees)
	tok := launch.NewLaunchToken()
	held := viewOf(t, ch, launched.Token, tok.PackBalanceOf(devchain.FeesManagerAddress), tok.UnpackBalanceOf)
	tokenSide := 1
	if launched.Token == launched.Token0 {
		tokenSide = 0
	}
	for i, amount := range []string{done.Amount0, done.Amount1} {
		require.Positive(t, b.taken[i].Sign(), "token%d: swaps both ways take fees of both tokens", i)
		require.Positive(t, b.uncollected[i].Sign(), "token%d: the last swaps are still uncollected", i)
		require.Equal(t, b.taken[i].String(), new(big.Int).Add(b.cumulated[i], b.uncollected[i]).String(), "token%d: the pool's accounting", i)
		require.Equal(t, []string{b.released[i].String(), b.released[i].String()},
			[]string{[2]*big.Int{releasedView.Amount0, releasedView.Amount1}[i].String(), amount}, "token%d: released is the claim's Release", i)
		fiftySeven := new(big.Int).Div(new(big.Int).Mul(beforeClaim[i], big.NewInt(57)), big.NewInt(100))
		require.Equal(t, fiftySeven.String(), amount, "token%d: the claim paid the creator 57 %% of the fees before it", i)
		sum := new(big.Int).Add(new(big.Int).Add(b.released[i], b.claimable[i]), b.dust[i])
		require.Equal(t, b.taken[i].String(), sum.String(), "token%d: released + claimable + dust = taken", i)
		require.Less(t, b.dust[i].Int64(), int64(b.releases+b.beneficiaries), "token%d: dust is rounding only", i)
	}
	owed := new(big.Int).Sub(new(big.Int).Add(held, b.uncollected[tokenSide]), b.claimable[tokenSide])
	require.Equal(t, b.dust[tokenSide].String(), owed.String(), "the launch token: held + uncollected - claimable = dust")
}

// releasesIn counts the Release events of a receipt.
func releasesIn(r *types.Receipt) int {
	fm, n := launch.NewFeesManager(), 0
	for _, lg := range r.Logs {
		if _, err := fm.UnpackReleaseEvent(lg); err == nil {
			n++
		}
	}
	return n
}
