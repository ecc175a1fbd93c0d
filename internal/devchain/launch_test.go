package devchain

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/evm/launch"
)

// The launch contracts' bindings.
var (
	feesABI  = launch.NewFeesManager()
	poolABI  = launch.NewLaunchPool()
	tokenABI = launch.NewLaunchToken()
	wethABI  = launch.NewWETH9()
)

// wad is 1e18, the FeesManager's total shares.
var wad = big.NewInt(1e18)

// The split of every launch, in WAD.
var (
	creatorShares   = big.NewInt(570_000_000_000_000_000)
	platformShares  = big.NewInt(361_000_000_000_000_000)
	ecosystemShares = big.NewInt(19_000_000_000_000_000)
	protocolShares  = big.NewInt(50_000_000_000_000_000)
)

// tokenSupply is every LaunchToken's fixed supply: 100 billion tokens of 18 decimals.
var tokenSupply = new(big.Int).Mul(big.NewInt(100_000_000_000), wad)

// launchEnv is a dev chain with a client, for launch tests.
type launchEnv struct {
	t      *testing.T
	client *ethclient.Client
}

// newLaunchEnv starts a dev chain for a launch test.
func newLaunchEnv(t *testing.T) *launchEnv {
	t.Helper()
	return &launchEnv{t: t, client: dial(t, startChain(t, ""))}
}

// accounts returns n new keys, funded with 1,000 ether each by the deployer in one batch.
func (e *launchEnv) accounts(n int) []*ecdsa.PrivateKey {
	e.t.Helper()
	keys := make([]*ecdsa.PrivateKey, n)
	calls := make([]txCall, n)
	for i := range keys {
		key, err := crypto.GenerateKey()
		require.NoError(e.t, err)
		to := crypto.PubkeyToAddress(key.PublicKey)
		keys[i], calls[i] = key, txCall{to: &to, value: etherToWei(1000)}
	}
	deployerMu.Lock()
	defer deployerMu.Unlock()
	e.sendAll(DeployerKey(), calls...)
	return keys
}

// sendAll sends calls from key back to back (one block can take them all) and waits for their
// successful receipts. Each call must be valid on the state before the batch (gas is estimated there).
func (e *launchEnv) sendAll(key *ecdsa.PrivateKey, calls ...txCall) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.t.Context(), 20*time.Second)
	defer cancel()
	hashes := make([]common.Hash, len(calls))
	for i, c := range calls {
		hash, err := sendTx(ctx, e.client, key, c)
		require.NoError(e.t, err)
		hashes[i] = hash
	}
	for _, hash := range hashes {
		_, err := waitReceipt(ctx, e.client, hash)
		require.NoError(e.t, err)
	}
}

// send has key call to with data and value and returns the successful receipt.
func (e *launchEnv) send(key *ecdsa.PrivateKey, to common.Address, data []byte, value *big.Int) *types.Receipt {
	e.t.Helper()
	receipt, err := e.trySend(key, to, data, value)
	require.NoError(e.t, err)
	return receipt
}

// trySend is send returning the error (a revert fails gas estimation, with the revert data).
func (e *launchEnv) trySend(key *ecdsa.PrivateKey, to common.Address, data []byte, value *big.Int) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(e.t.Context(), 10*time.Second)
	defer cancel()
	hash, err := sendTx(ctx, e.client, key, txCall{to: &to, data: data, value: value})
	if err != nil {
		return nil, err
	}
	return waitReceipt(ctx, e.client, hash)
}

// call reads a view of the contract at addr.
func call[T any](e *launchEnv, c *bind.BoundContract, data []byte, unpack func([]byte) (T, error)) T {
	e.t.Helper()
	out, err := bind.Call(c, &bind.CallOpts{Context: e.t.Context()}, data, unpack)
	require.NoError(e.t, err)
	return out
}

// fees binds the FeesManager.
func (e *launchEnv) fees() *bind.BoundContract { return feesABI.Instance(e.client, FeesManagerAddress) }

// erc20 reads owner's balance of token (a LaunchToken or WETH9: same balanceOf).
func (e *launchEnv) balance(token, owner common.Address) *big.Int {
	e.t.Helper()
	return call(e, tokenABI.Instance(e.client, token), tokenABI.PackBalanceOf(owner), tokenABI.UnpackBalanceOf)
}

// launched is a token launched in a test.
type launched struct {
	token, pool, token0, token1 common.Address
	poolID                      [32]byte
}

// launchToken launches a token from launcher with salt and returns it, with the Launch event checked.
func (e *launchEnv) launchToken(launcher *ecdsa.PrivateKey, salt [32]byte, vault, creator common.Address, vaultAmount, wei *big.Int) launched {
	e.t.Helper()
	from := crypto.PubkeyToAddress(launcher.PublicKey)
	predicted := call(e, e.fees(), feesABI.PackPredictTokenAddress(from, salt), feesABI.UnpackPredictTokenAddress)
	receipt := e.send(launcher, FeesManagerAddress, feesABI.PackLaunch(salt, "Test Token", "TEST", vault, creator, vaultAmount), wei)
	events := unpackLogs(receipt, feesABI.UnpackLaunchEvent)
	require.Len(e.t, events, 1)
	ev := events[0]
	require.Equal(e.t, predicted, ev.Token, "the token lands at the predicted address")
	require.Equal(e.t, creator, ev.Creator)
	require.Equal(e.t, vault, ev.Vault)
	require.Equal(e.t, from, ev.Launcher)
	require.Equal(e.t, salt, ev.Salt)
	requireBig(e.t, wei, ev.PoolWeth)
	requireBig(e.t, vaultAmount, ev.VaultAmount)
	pool := poolABI.Instance(e.client, ev.Pool)
	l := launched{token: ev.Token, pool: ev.Pool, poolID: ev.PoolId,
		token0: call(e, pool, poolABI.PackToken0(), poolABI.UnpackToken0),
		token1: call(e, pool, poolABI.PackToken1(), poolABI.UnpackToken1)}
	require.Equal(e.t, ev.PoolId, call(e, pool, poolABI.PackPoolId(), poolABI.UnpackPoolId))
	require.Equal(e.t, FeesManagerAddress, call(e, pool, poolABI.PackInitializer(), poolABI.UnpackInitializer))
	require.Equal(e.t, ev.PoolId, call(e, e.fees(), feesABI.PackPoolIdOf(ev.Token), feesABI.UnpackPoolIdOf))
	return l
}

// unpackLogs returns the receipt's logs that unpack as one event type.
func unpackLogs[T any](receipt *types.Receipt, unpack func(*types.Log) (*T, error)) []*T {
	var out []*T
	for _, log := range receipt.Logs {
		if ev, err := unpack(log); err == nil {
			out = append(out, ev)
		}
	}
	return out
}

// fee is the pool's fee on amountIn: 1.2 %, rounded up.
func fee(amountIn *big.Int) *big.Int {
	f := new(big.Int).Mul(amountIn, big.NewInt(120))
	f.Add(f, big.NewInt(9_999))
	return f.Div(f, big.NewInt(10_000))
}

// share is amount × shares / 1e18, rounded down.
func share(amount, shares *big.Int) *big.Int {
	s := new(big.Int).Mul(amount, shares)
	return s.Div(s, wad)
}

// pair is an amount of token0 and of token1.
type pair [2]*big.Int

// newPair is a zero pair.
func newPair() pair { return pair{new(big.Int), new(big.Int)} }

// String renders the pair for comparisons and messages.
func (p pair) String() string { return p[0].String() + "/" + p[1].String() }

// requirePair requires got to equal want (compared as numbers).
func requirePair(t *testing.T, want, got pair, msgAndArgs ...any) {
	t.Helper()
	require.Equal(t, want.String(), got.String(), msgAndArgs...)
}

// requireBig requires got to equal want (compared as numbers).
func requireBig(t *testing.T, want, got *big.Int, msgAndArgs ...any) {
	t.Helper()
	require.Equal(t, want.String(), got.String(), msgAndArgs...)
}

// add adds o to p in place.
func (p pair) add(o pair) pair {
	p[0].Add(p[0], o[0])
	p[1].Add(p[1], o[1])
	return p
}

// trader swaps on a launched pool.
type trader struct {
	e   *launchEnv
	key *ecdsa.PrivateKey
	l   launched
}

// newTrader makes key a trader on the pool: it wraps 100 ether and approves the pool for both tokens.
func (e *launchEnv) newTrader(key *ecdsa.PrivateKey, l launched) *trader {
	e.t.Helper()
	weth, token := WETHAddress, l.token
	e.sendAll(key,
		txCall{to: &weth, data: wethABI.PackDeposit(), value: etherToWei(100)},
		txCall{to: &weth, data: wethABI.PackApprove(l.pool, evm.MaxUint256)},
		txCall{to: &token, data: tokenABI.PackApprove(l.pool, evm.MaxUint256)})
	return &trader{e: e, key: key, l: l}
}

// swap swaps amountIn of tokenIn, checks the quote, the Swap event and the fee, and returns the fee
// taken as a (token0, token1) pair.
func (tr *trader) swap(tokenIn common.Address, amountIn *big.Int) pair {
	e := tr.e
	e.t.Helper()
	pool := poolABI.Instance(e.client, tr.l.pool)
	quote := call(e, pool, poolABI.PackGetAmountOut(tokenIn, amountIn), poolABI.UnpackGetAmountOut)
	to := crypto.PubkeyToAddress(tr.key.PublicKey)
	receipt := e.send(tr.key, tr.l.pool, poolABI.PackSwapExactIn(tokenIn, amountIn, quote.AmountOut, to), nil)
	swaps := unpackLogs(receipt, poolABI.UnpackSwapEvent)
	require.Len(e.t, swaps, 1)
	ev := swaps[0]
	require.Equal(e.t, tokenIn, ev.TokenIn)
	requireBig(e.t, amountIn, ev.AmountIn)
	requireBig(e.t, quote.AmountOut, ev.AmountOut)
	require.Positive(e.t, ev.AmountOut.Sign())
	requireBig(e.t, fee(amountIn), ev.Fee)
	requireBig(e.t, quote.Fee, ev.Fee)
	taken := newPair()
	if tokenIn == tr.l.token0 {
		taken[0].Set(ev.Fee)
	} else {
		taken[1].Set(ev.Fee)
	}
	return taken
}

// swapBothWays buys with WETH and sells a third of the trader's tokens, returning the fees taken.
func (tr *trader) swapBothWays() pair {
	tr.e.t.Helper()
	taken := newPair()
	taken.add(tr.swap(WETHAddress, big.NewInt(1_234_567_890_123_456_789)))
	tokens := tr.e.balance(tr.l.token, crypto.PubkeyToAddress(tr.key.PublicKey))
	taken.add(tr.swap(tr.l.token, new(big.Int).Div(tokens, big.NewInt(3))))
	return taken
}

// swapBatch sends a buy (WETH in) and a sell (tokensIn of the token, which the trader must hold)
// back to back, so that one block takes both, and checks each Swap against the constant product
// computed here from the reserves before the batch. It returns the fees taken.
func (tr *trader) swapBatch(tokensIn *big.Int) pair {
	e := tr.e
	e.t.Helper()
	pool := poolABI.Instance(e.client, tr.l.pool)
	r := call(e, pool, poolABI.PackGetReserves(), poolABI.UnpackGetReserves)
	reserves := map[common.Address]*big.Int{tr.l.token0: r.Reserve0, tr.l.token1: r.Reserve1}
	to := crypto.PubkeyToAddress(tr.key.PublicKey)
	swaps := []struct {
		in, out common.Address
		amount  *big.Int
	}{{WETHAddress, tr.l.token, big.NewInt(987_654_321_987_654_321)}, {tr.l.token, WETHAddress, tokensIn}}
	calls := make([]txCall, len(swaps))
	taken := newPair()
	for i, s := range swaps {
		// A fixed gas limit (a swap uses about 230,000 on this fork schedule, where new storage is dear):
		// the second swap's estimate would be made on the state before the first.
		calls[i] = txCall{to: &tr.l.pool, data: poolABI.PackSwapExactIn(s.in, s.amount, big.NewInt(1), to), gas: 500_000}
		net := new(big.Int).Sub(s.amount, fee(s.amount))
		out := new(big.Int).Mul(reserves[s.out], net)
		out.Div(out, new(big.Int).Add(reserves[s.in], net))
		reserves[s.in] = new(big.Int).Add(reserves[s.in], net)
		reserves[s.out] = new(big.Int).Sub(reserves[s.out], out)
		if s.in == tr.l.token0 {
			taken[0].Add(taken[0], fee(s.amount))
		} else {
			taken[1].Add(taken[1], fee(s.amount))
		}
	}
	e.sendAll(tr.key, calls...)
	after := call(e, pool, poolABI.PackGetReserves(), poolABI.UnpackGetReserves)
	requirePair(e.t, pair{reserves[tr.l.token0], reserves[tr.l.token1]}, pair{after.Reserve0, after.Reserve1},
		"the reserves follow x*y=k with the fee kept out")
	return taken
}

// pending reads pendingFees(poolId, beneficiary).
func (e *launchEnv) pending(l launched, beneficiary common.Address) pair {
	e.t.Helper()
	out := call(e, e.fees(), feesABI.PackPendingFees(l.poolID, beneficiary), feesABI.UnpackPendingFees)
	return pair{out.Amount0, out.Amount1}
}

// holdings reads beneficiary's balances of the pool's two tokens.
func (e *launchEnv) holdings(l launched, beneficiary common.Address) pair {
	e.t.Helper()
	return pair{e.balance(l.token0, beneficiary), e.balance(l.token1, beneficiary)}
}

// collect has key call collectFees and returns its Release (zero if none) and the Collect amounts.
func (e *launchEnv) collect(key *ecdsa.PrivateKey, l launched) (release, collected pair) {
	e.t.Helper()
	receipt := e.send(key, FeesManagerAddress, feesABI.PackCollectFees(l.poolID), nil)
	collects := unpackLogs(receipt, feesABI.UnpackCollectEvent)
	require.Len(e.t, collects, 1)
	releases := unpackLogs(receipt, feesABI.UnpackReleaseEvent)
	if len(releases) == 0 {
		return newPair(), pair{collects[0].Amount0, collects[0].Amount1}
	}
	require.Len(e.t, releases, 1)
	require.Equal(e.t, crypto.PubkeyToAddress(key.PublicKey), releases[0].Beneficiary)
	return pair{releases[0].Amount0, releases[0].Amount1}, pair{collects[0].Amount0, collects[0].Amount1}
}

// requireRevert requires err to be a revert with the custom error T, decoded by unpack (a binding's UnpackError).
func requireRevert[T any](t *testing.T, err error, unpack func([]byte) (any, error)) *T {
	t.Helper()
	require.Error(t, err)
	var dataErr rpc.DataError
	require.True(t, errors.As(err, &dataErr), "not a revert with data: %v", err)
	hexData, ok := dataErr.ErrorData().(string)
	require.True(t, ok, "revert data %v", dataErr.ErrorData())
	decoded, err := unpack(common.FromHex(hexData))
	require.NoError(t, err)
	got, ok := decoded.(*T)
	require.True(t, ok, "reverted with %T %+v", decoded, decoded)
	return got
}

// newSalt is a random launch salt.
func newSalt(t *testing.T) [32]byte {
	t.Helper()
	var salt [32]byte
	_, err := rand.Read(salt[:])
	require.NoError(t, err)
	return salt
}

// TestLaunchSwapsAndFees: a launch seeds its pool and vault, swaps both ways take 1.2 % of their
// input, every beneficiary's pendingFees is exactly its share of that, collectFees pays the creator
// exactly its 57 %, and the books balance.
func TestLaunchSwapsAndFees(t *testing.T) {
	t.Parallel()
	e := newLaunchEnv(t)
	keys := e.accounts(3)
	launcher, creatorKey, vault := keys[0], keys[1], newAddress(t)
	creator := crypto.PubkeyToAddress(creatorKey.PublicKey)
	vaultAmount, seed := new(big.Int).Mul(big.NewInt(10_000_000_000), wad), etherToWei(10)
	l := e.launchToken(launcher, newSalt(t), vault, creator, vaultAmount, seed)

	// The launch: fixed supply, vault paid, the rest and the WETH in the pool, the split registered.
	token := tokenABI.Instance(e.client, l.token)
	requireBig(t, tokenSupply, call(e, token, tokenABI.PackTotalSupply(), tokenABI.UnpackTotalSupply))
	require.Equal(t, vault, call(e, token, tokenABI.PackVault(), tokenABI.UnpackVault))
	requireBig(t, vaultAmount, e.balance(l.token, vault))
	reserves := call(e, poolABI.Instance(e.client, l.pool), poolABI.PackGetReserves(), poolABI.UnpackGetReserves)
	wantReserves := pair{new(big.Int).Sub(tokenSupply, vaultAmount), seed}
	if l.token0 == WETHAddress {
		wantReserves[0], wantReserves[1] = wantReserves[1], wantReserves[0]
	}
	requirePair(t, wantReserves, pair{reserves.Reserve0, reserves.Reserve1})
	split := map[common.Address]*big.Int{creator: creatorShares, PlatformAddress: platformShares,
		EcosystemAddress: ecosystemShares, ProtocolAddress: protocolShares}
	total := new(big.Int)
	for who, want := range split {
		requireBig(t, want, call(e, e.fees(), feesABI.PackGetShares(l.poolID, who), feesABI.UnpackGetShares))
		total.Add(total, want)
	}
	requireBig(t, wad, total)

	// Swaps both ways: pendingFees is each share of the fees taken, to the wei.
	taken := e.newTrader(keys[2], l).swapBothWays()
	require.Positive(t, taken[0].Sign())
	require.Positive(t, taken[1].Sign())
	uncollected := call(e, poolABI.Instance(e.client, l.pool), poolABI.PackGetUncollectedFees(), poolABI.UnpackGetUncollectedFees)
	requirePair(t, taken, pair{uncollected.Fees0, uncollected.Fees1})
	for who, shares := range split {
		requirePair(t, pair{share(taken[0], shares), share(taken[1], shares)}, e.pending(l, who))
	}

	// Anyone may collect: a non-beneficiary's collectFees moves the fees into the cumulated counters
	// and releases nothing; pendingFees, now read from those counters, stays the same.
	released, collected := e.collect(keys[2], l)
	requirePair(t, taken, collected)
	requirePair(t, newPair(), released)
	requirePair(t, taken, pair{
		call(e, e.fees(), feesABI.PackGetCumulatedFees0(l.poolID), feesABI.UnpackGetCumulatedFees0),
		call(e, e.fees(), feesABI.PackGetCumulatedFees1(l.poolID), feesABI.UnpackGetCumulatedFees1),
	})
	for who, shares := range split {
		requirePair(t, pair{share(taken[0], shares), share(taken[1], shares)}, e.pending(l, who))
	}

	// The creator collects exactly its 57 %; the others' pending fees stay.
	before := e.holdings(l, creator)
	released, collected = e.collect(creatorKey, l)
	want := pair{share(taken[0], creatorShares), share(taken[1], creatorShares)}
	requirePair(t, newPair(), collected)
	requirePair(t, want, released)
	requirePair(t, pair{
		call(e, e.fees(), feesABI.PackGetLastCumulatedFees0(l.poolID, creator), feesABI.UnpackGetLastCumulatedFees0),
		call(e, e.fees(), feesABI.PackGetLastCumulatedFees1(l.poolID, creator), feesABI.UnpackGetLastCumulatedFees1),
	}, taken)
	requirePair(t, newPair().add(before).add(want), e.holdings(l, creator))
	requirePair(t, newPair(), e.pending(l, creator))
	requirePair(t, pair{share(taken[0], platformShares), share(taken[1], platformShares)}, e.pending(l, PlatformAddress))
	requireBooksBalance(t, e, l, taken, released, []common.Address{creator, PlatformAddress, EcosystemAddress, ProtocolAddress})
}

// TestUpdateBeneficiary: a transfer of the creator's share pays the creator what it was owed and
// moves only future fees; a transfer to an address that already holds shares adds to them (after
// paying that address too); the books balance throughout.
func TestUpdateBeneficiary(t *testing.T) {
	t.Parallel()
	e := newLaunchEnv(t)
	keys := e.accounts(4)
	creatorKey, heirKey := keys[1], keys[3]
	creator, heir := crypto.PubkeyToAddress(creatorKey.PublicKey), crypto.PubkeyToAddress(heirKey.PublicKey)
	// The trader is the vault, so it holds tokens to sell from the start and each round of swaps both
	// ways is one block.
	vaultAmount, sell := new(big.Int).Mul(big.NewInt(1_000_000_000), wad), new(big.Int).Mul(big.NewInt(3_000_000), wad)
	l := e.launchToken(keys[0], newSalt(t), crypto.PubkeyToAddress(keys[2].PublicKey), creator, vaultAmount, etherToWei(5))
	tr := e.newTrader(keys[2], l)

	taken := tr.swapBatch(sell)
	owed := pair{share(taken[0], creatorShares), share(taken[1], creatorShares)}
	requirePair(t, owed, e.pending(l, creator))
	before := e.holdings(l, creator)
	e.update(creatorKey, l, heir, creatorShares)
	requirePair(t, newPair().add(before).add(owed), e.holdings(l, creator), "the old beneficiary keeps what was owed")
	require.Zero(t, call(e, e.fees(), feesABI.PackGetShares(l.poolID, creator), feesABI.UnpackGetShares).Sign())
	requireBig(t, creatorShares, call(e, e.fees(), feesABI.PackGetShares(l.poolID, heir), feesABI.UnpackGetShares))

	more := tr.swapBatch(sell)
	requirePair(t, newPair(), e.pending(l, creator), "future fees are the heir's")
	heirOwed := pair{share(more[0], creatorShares), share(more[1], creatorShares)}
	requirePair(t, heirOwed, e.pending(l, heir))

	// The heir moves its share onto the platform's: both are paid first, the shares add up.
	takenTotal := newPair().add(taken).add(more)
	platformOwed := pair{share(takenTotal[0], platformShares), share(takenTotal[1], platformShares)}
	requirePair(t, platformOwed, e.pending(l, PlatformAddress))
	platformBefore := e.holdings(l, PlatformAddress)
	e.update(heirKey, l, PlatformAddress, creatorShares)
	requirePair(t, heirOwed, e.holdings(l, heir))
	requirePair(t, newPair().add(platformBefore).add(platformOwed), e.holdings(l, PlatformAddress))
	merged := new(big.Int).Add(platformShares, creatorShares)
	requireBig(t, merged, call(e, e.fees(), feesABI.PackGetShares(l.poolID, PlatformAddress), feesABI.UnpackGetShares))

	latest := tr.swapBatch(sell)
	requirePair(t, newPair(), e.pending(l, heir))
	requirePair(t, pair{share(latest[0], merged), share(latest[1], merged)}, e.pending(l, PlatformAddress))
	released := newPair().add(owed).add(heirOwed).add(platformOwed)
	requireBooksBalance(t, e, l, takenTotal.add(latest), released,
		[]common.Address{creator, heir, PlatformAddress, EcosystemAddress, ProtocolAddress})
}

// update has key move all its shares (want) of the pool to to and checks the UpdateBeneficiary event.
func (e *launchEnv) update(key *ecdsa.PrivateKey, l launched, to common.Address, want *big.Int) {
	e.t.Helper()
	receipt := e.send(key, FeesManagerAddress, feesABI.PackUpdateBeneficiary(l.poolID, to), nil)
	updates := unpackLogs(receipt, feesABI.UnpackUpdateBeneficiaryEvent)
	require.Len(e.t, updates, 1)
	require.Equal(e.t, crypto.PubkeyToAddress(key.PublicKey), updates[0].OldBeneficiary)
	require.Equal(e.t, to, updates[0].NewBeneficiary)
	requireBig(e.t, want, updates[0].Shares)
}

// requireBooksBalance checks released (as summed from Release events) + the pendingFees of
// beneficiaries + getDust = taken, that dust is a few wei of rounding, and that the FeesManager
// holds exactly cumulated - released.
func requireBooksBalance(t *testing.T, e *launchEnv, l launched, taken, released pair, beneficiaries []common.Address) {
	t.Helper()
	onChain := call(e, e.fees(), feesABI.PackGetReleasedFees(l.poolID), feesABI.UnpackGetReleasedFees)
	requirePair(t, released, pair{onChain.Amount0, onChain.Amount1})
	listed := call(e, e.fees(), feesABI.PackGetBeneficiaries(l.poolID), feesABI.UnpackGetBeneficiaries)
	require.ElementsMatch(t, beneficiaries, listed)
	sum := newPair().add(released)
	for _, b := range beneficiaries {
		sum.add(e.pending(l, b))
	}
	dust := call(e, e.fees(), feesABI.PackGetDust(l.poolID), feesABI.UnpackGetDust)
	sum.add(pair{dust.Dust0, dust.Dust1})
	requirePair(t, taken, sum)
	for _, d := range []*big.Int{dust.Dust0, dust.Dust1} {
		require.LessOrEqual(t, d.Int64(), int64(len(beneficiaries)+2), "dust is rounding only")
	}
	cumulated := pair{
		call(e, e.fees(), feesABI.PackGetCumulatedFees0(l.poolID), feesABI.UnpackGetCumulatedFees0),
		call(e, e.fees(), feesABI.PackGetCumulatedFees1(l.poolID), feesABI.UnpackGetCumulatedFees1),
	}
	held := e.holdings(l, FeesManagerAddress)
	requireBig(t, new(big.Int).Sub(cumulated[0], released[0]), held[0])
	requireBig(t, new(big.Int).Sub(cumulated[1], released[1]), held[1])
}

// TestLaunchRefusals: a second launch with the same salt reverts (the retry finds the first token at
// the predicted address), and only a beneficiary can update a beneficiary.
func TestLaunchRefusals(t *testing.T) {
	t.Parallel()
	e := newLaunchEnv(t)
	keys := e.accounts(3)
	launcher, creatorKey, outsider := keys[0], keys[1], keys[2]
	creator := crypto.PubkeyToAddress(creatorKey.PublicKey)
	salt := newSalt(t)
	l := e.launchToken(launcher, salt, newAddress(t), creator, big.NewInt(0), big.NewInt(1e15))

	_, err := e.trySend(launcher, FeesManagerAddress,
		feesABI.PackLaunch(salt, "Again", "AGAIN", newAddress(t), creator, big.NewInt(0)), big.NewInt(1e15))
	require.Equal(t, l.token, requireRevert[launch.FeesManagerAlreadyLaunched](t, err, feesABI.UnpackError).Token)

	// Another launcher's same salt is another token.
	other := e.launchToken(outsider, salt, newAddress(t), creator, big.NewInt(0), big.NewInt(1e15))
	require.NotEqual(t, l.token, other.token)

	_, err = e.trySend(outsider, FeesManagerAddress, feesABI.PackUpdateBeneficiary(l.poolID, newAddress(t)), nil)
	got := requireRevert[launch.FeesManagerNotBeneficiary](t, err, feesABI.UnpackError)
	require.Equal(t, crypto.PubkeyToAddress(outsider.PublicKey), got.Caller)
	_, err = e.trySend(creatorKey, FeesManagerAddress, feesABI.PackUpdateBeneficiary(l.poolID, creator), nil)
	requireRevert[launch.FeesManagerSameBeneficiary](t, err, feesABI.UnpackError)
	_, err = e.trySend(launcher, FeesManagerAddress,
		feesABI.PackLaunch(newSalt(t), "No ETH", "NOETH", newAddress(t), creator, big.NewInt(0)), nil)
	requireRevert[launch.FeesManagerNoLiquidity](t, err, feesABI.UnpackError)
	requireBig(t, creatorShares, call(e, e.fees(), feesABI.PackGetShares(l.poolID, creator), feesABI.UnpackGetShares))

	// Only the FeesManager may collect a pool's fees or initialize it.
	_, err = e.trySend(outsider, l.pool, poolABI.PackCollect(), nil)
	requireRevert[launch.LaunchPoolNotInitializer](t, err, poolABI.UnpackError)
	_, err = e.trySend(outsider, l.pool, poolABI.PackInitialize(), nil)
	requireRevert[launch.LaunchPoolNotInitializer](t, err, poolABI.UnpackError)
	params := call(e, e.fees(), feesABI.PackLaunchParameters(), feesABI.UnpackLaunchParameters)
	require.Empty(t, params.Name, "no launch parameters are left behind")
	require.Equal(t, common.Address{}, params.Vault)
}

// TestWETH9IsThePackagesCode: the dev WETH's runtime code is the deployedBytecode of WETH9 as the
// pinned @uniswap/v2-periphery ships it (contracts/build/WETH9.json, checked against the package by
// contracts.TestBuildMatchesSources), and the FeesManager trades against it.
func TestWETH9IsThePackagesCode(t *testing.T) {
	t.Parallel()
	e := newLaunchEnv(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "contracts", "build", "WETH9.json"))
	require.NoError(t, err)
	var artifact struct {
		Compiler         string `json:"compiler"`
		DeployedBytecode string `json:"deployedBytecode"`
	}
	require.NoError(t, json.Unmarshal(data, &artifact))
	require.Contains(t, artifact.Compiler, "@uniswap/v2-periphery")
	code, err := e.client.CodeAt(t.Context(), WETHAddress, nil)
	require.NoError(t, err)
	require.Equal(t, common.FromHex(artifact.DeployedBytecode), code)
	require.Equal(t, WETHAddress, call(e, e.fees(), feesABI.PackWeth(), feesABI.UnpackWeth))
	require.Equal(t, PlatformAddress, call(e, e.fees(), feesABI.PackPlatform(), feesABI.UnpackPlatform))
	require.Equal(t, EcosystemAddress, call(e, e.fees(), feesABI.PackEcosystem(), feesABI.UnpackEcosystem))
	require.Equal(t, ProtocolAddress, call(e, e.fees(), feesABI.PackProtocol(), feesABI.UnpackProtocol))
}
