// Package feetest drives token launches on a private dev chain for tests of the fee index and the fee
// routes: it launches through the FeesManager from Go, swaps both ways and collects fees.
package feetest

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/devchain"
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

// Env is a private dev chain with a client.
type Env struct {
	T      testing.TB
	Chain  *devchain.Chain
	Client *ethclient.Client
	mu     sync.Mutex // serialises the deployer's transactions
}

// Start starts a private dev chain (in memory) for the test.
func Start(t testing.TB) *Env {
	t.Helper()
	chain, err := devchain.Start(t.Context(), devchain.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, chain.Close()) })
	return Attach(t, chain)
}

// Attach drives a dev chain the test already has.
func Attach(t testing.TB, chain *devchain.Chain) *Env {
	t.Helper()
	client, err := ethclient.Dial(chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(client.Close)
	return &Env{T: t, Chain: chain, Client: client}
}

// Keys returns n new keys, funded with 1,000 ether each by the deployer.
func (e *Env) Keys(n int) []*ecdsa.PrivateKey {
	e.T.Helper()
	keys := make([]*ecdsa.PrivateKey, n)
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range keys {
		key, err := crypto.GenerateKey()
		require.NoError(e.T, err)
		keys[i] = key
		e.Send(devchain.DeployerKey(), crypto.PubkeyToAddress(key.PublicKey), nil, new(big.Int).Mul(big.NewInt(1000), big.NewInt(params.Ether)))
	}
	return keys
}

// Send has key call to with data and value (gas estimated) and returns the successful receipt.
func (e *Env) Send(key *ecdsa.PrivateKey, to common.Address, data []byte, value *big.Int) *types.Receipt {
	e.T.Helper()
	receipt, err := e.TrySend(key, to, data, value)
	require.NoError(e.T, err)
	return receipt
}

// TrySend is Send returning the error (a revert fails gas estimation).
func (e *Env) TrySend(key *ecdsa.PrivateKey, to common.Address, data []byte, value *big.Int) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	from := crypto.PubkeyToAddress(key.PublicKey)
	if value == nil {
		value = new(big.Int)
	}
	gas, err := e.Client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data})
	if err != nil {
		return nil, err
	}
	nonce, err := e.Client.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, err
	}
	head, err := e.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	tip := big.NewInt(params.GWei)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx, err := evm.Send(ctx, e.Client, key, big.NewInt(devchain.ChainID), nonce,
		types.DynamicFeeTx{GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: value, Data: data})
	if err != nil {
		return nil, err
	}
	receipt, err := evm.WaitReceipt(ctx, e.Client, tx.Hash(), nil)
	if err != nil {
		return nil, err
	}
	require.Equal(e.T, types.ReceiptStatusSuccessful, receipt.Status, "transaction %s", tx.Hash())
	return receipt, nil
}

// Launched is a launched token.
type Launched struct {
	Token, Pool, Token0, Token1, Creator common.Address
	PoolID                               [32]byte
	Receipt                              *types.Receipt
}

// Launch launches a token named name with launcher paying 10 ether of pool WETH, creator as the creator
// beneficiary.
func (e *Env) Launch(launcher *ecdsa.PrivateKey, creator common.Address, name, symbol string) Launched {
	e.T.Helper()
	var salt [32]byte
	_, err := rand.Read(salt[:])
	require.NoError(e.T, err)
	vault := crypto.PubkeyToAddress(launcher.PublicKey)
	vaultAmount := new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(params.Ether))
	receipt := e.Send(launcher, devchain.FeesManagerAddress,
		feesABI.PackLaunch(salt, name, symbol, vault, creator, vaultAmount), new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether)))
	for _, log := range receipt.Logs {
		ev, err := feesABI.UnpackLaunchEvent(log)
		if err != nil {
			continue
		}
		pool := poolABI.Instance(e.Client, ev.Pool)
		return Launched{Token: ev.Token, Pool: ev.Pool, PoolID: ev.PoolId, Creator: creator, Receipt: receipt,
			Token0: Call(e, pool, poolABI.PackToken0(), poolABI.UnpackToken0),
			Token1: Call(e, pool, poolABI.PackToken1(), poolABI.UnpackToken1)}
	}
	require.FailNow(e.T, "no Launch event")
	return Launched{}
}

// LaunchedAt is a token launched by other means (through the API, say): its pool's token0 and token1
// read from the pool.
func (e *Env) LaunchedAt(token, pool common.Address, poolID [32]byte) Launched {
	e.T.Helper()
	p := poolABI.Instance(e.Client, pool)
	return Launched{Token: token, Pool: pool, PoolID: poolID,
		Token0: Call(e, p, poolABI.PackToken0(), poolABI.UnpackToken0),
		Token1: Call(e, p, poolABI.PackToken1(), poolABI.UnpackToken1)}
}

// Call reads a view.
func Call[T any](e *Env, c *bind.BoundContract, data []byte, unpack func([]byte) (T, error)) T {
	e.T.Helper()
	out, err := bind.Call(c, &bind.CallOpts{Context: context.Background()}, data, unpack)
	require.NoError(e.T, err)
	return out
}

// Fees binds the FeesManager.
func (e *Env) Fees() *bind.BoundContract {
	return feesABI.Instance(e.Client, devchain.FeesManagerAddress)
}

// Pending is pendingFees(poolId, beneficiary) as (token0, token1).
func (e *Env) Pending(l Launched, who common.Address) [2]*big.Int {
	e.T.Helper()
	out := Call(e, e.Fees(), feesABI.PackPendingFees(l.PoolID, who), feesABI.UnpackPendingFees)
	return [2]*big.Int{out.Amount0, out.Amount1}
}

// Trade has key wrap WETH, approve the pool, buy with WETH and sell half the tokens bought: swaps both
// ways. It returns the fees taken as (token0, token1).
func (e *Env) Trade(key *ecdsa.PrivateKey, l Launched) [2]*big.Int {
	e.T.Helper()
	fees, _ := e.TradeVolume(key, l)
	return fees
}

// TradeVolume is Trade also returning what the two swaps traded of token0 and token1 (each swap's
// amountIn on its input side, amountOut on the other), as the Swap events say.
func (e *Env) TradeVolume(key *ecdsa.PrivateKey, l Launched) (fees, traded [2]*big.Int) {
	e.T.Helper()
	weth := devchain.WETHAddress
	who := crypto.PubkeyToAddress(key.PublicKey)
	e.Send(key, weth, wethABI.PackDeposit(), new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether)))
	e.Send(key, weth, wethABI.PackApprove(l.Pool, evm.MaxUint256), nil)
	e.Send(key, l.Token, tokenABI.PackApprove(l.Pool, evm.MaxUint256), nil)
	fees = [2]*big.Int{new(big.Int), new(big.Int)}
	traded = [2]*big.Int{new(big.Int), new(big.Int)}
	e.swap(key, l, weth, big.NewInt(1_234_567_890_123_456_789), fees, traded)
	held := Call(e, tokenABI.Instance(e.Client, l.Token), tokenABI.PackBalanceOf(who), tokenABI.UnpackBalanceOf)
	e.swap(key, l, l.Token, new(big.Int).Div(held, big.NewInt(2)), fees, traded)
	return fees, traded
}

// swap swaps amountIn of tokenIn and adds its fee to fees and its amounts to traded.
func (e *Env) swap(key *ecdsa.PrivateKey, l Launched, tokenIn common.Address, amountIn *big.Int, fees, traded [2]*big.Int) {
	receipt := e.Send(key, l.Pool, poolABI.PackSwapExactIn(tokenIn, amountIn, big.NewInt(1), crypto.PubkeyToAddress(key.PublicKey)), nil)
	for _, log := range receipt.Logs {
		if ev, err := poolABI.UnpackSwapEvent(log); err == nil {
			side := 1
			if tokenIn == l.Token0 {
				side = 0
			}
			fees[side].Add(fees[side], ev.Fee)
			traded[side].Add(traded[side], ev.AmountIn)
			traded[1-side].Add(traded[1-side], ev.AmountOut)
		}
	}
}

// Collect has key call collectFees on l's pool.
func (e *Env) Collect(key *ecdsa.PrivateKey, l Launched) *types.Receipt {
	e.T.Helper()
	return e.Send(key, devchain.FeesManagerAddress, feesABI.PackCollectFees(l.PoolID), nil)
}
