// Package evm talks to the EVM chain x402 top-ups settle on, over standard JSON-RPC: it reads a USDC-like
// token (balances, EIP-3009 authorization state, the transaction that used an authorization) and, as the
// built-in facilitator, submits transferWithAuthorization with its own key, which pays the gas.
package evm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/svcplatform/svc/internal/evm/usdc"
	"github.com/svcplatform/svc/internal/x402"
)

// LogWindow is how many recent blocks FindAuthorization searches for the transaction that used an
// authorization. Authorizations are valid for minutes, so their transactions are recent.
const LogWindow = 50_000

// Chain is a JSON-RPC connection to one chain and one token on it.
type Chain struct {
	rpc     *ethclient.Client
	chainID *big.Int
	token   common.Address
	abi     *usdc.USDC
	key     *ecdsa.PrivateKey
	mu      sync.Mutex // serialises the facilitator's transaction nonces
	next    uint64     // the nonce after the last one this process sent
}

// Dial connects to the JSON-RPC endpoint url and checks that it serves chainID. key, when not nil, is
// the built-in facilitator's: it signs (and pays the gas of) settlement transactions.
func Dial(ctx context.Context, url string, chainID *big.Int, token common.Address, key *ecdsa.PrivateKey) (*Chain, error) {
	rc, err := rpc.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("dial chain %s: %w", url, err)
	}
	c := &Chain{rpc: ethclient.NewClient(rc), chainID: chainID, token: token, abi: usdc.NewUSDC(), key: key}
	got, err := c.rpc.ChainID(ctx)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("read chain id from %s: %w", url, err)
	}
	if got.Cmp(chainID) != 0 {
		c.Close()
		return nil, fmt.Errorf("chain %s serves chain id %s, configured %s", url, got, chainID)
	}
	return c, nil
}

// Close closes the connection.
func (c *Chain) Close() { c.rpc.Close() }

// ChainID is the chain's id.
func (c *Chain) ChainID() *big.Int { return new(big.Int).Set(c.chainID) }

// Client is the underlying JSON-RPC client.
func (c *Chain) Client() *ethclient.Client { return c.rpc }

// Facilitator is the address that submits settlements, or the zero address without a key.
func (c *Chain) Facilitator() common.Address {
	if c.key == nil {
		return common.Address{}
	}
	return crypto.PubkeyToAddress(c.key.PublicKey)
}

// BalanceOf is owner's token balance in atomic units.
func (c *Chain) BalanceOf(ctx context.Context, owner common.Address) (*big.Int, error) {
	out, err := c.call(ctx, c.abi.PackBalanceOf(owner))
	if err != nil {
		return nil, fmt.Errorf("balanceOf %s: %w", owner, err)
	}
	return c.abi.UnpackBalanceOf(out)
}

// AuthorizationState reports whether the authorizer's nonce is used or cancelled on chain.
func (c *Chain) AuthorizationState(ctx context.Context, authorizer common.Address, nonce [32]byte) (bool, error) {
	out, err := c.call(ctx, c.abi.PackAuthorizationState(authorizer, nonce))
	if err != nil {
		return false, fmt.Errorf("authorizationState: %w", err)
	}
	return c.abi.UnpackAuthorizationState(out)
}

// FindAuthorization returns the transaction whose AuthorizationUsed event consumed the authorizer's
// nonce, searching the last LogWindow blocks; found is false when none did (a cancelled nonce, say).
func (c *Chain) FindAuthorization(ctx context.Context, authorizer common.Address, nonce [32]byte) (tx common.Hash, found bool, err error) {
	head, err := c.rpc.BlockNumber(ctx)
	if err != nil {
		return common.Hash{}, false, fmt.Errorf("read block number: %w", err)
	}
	from := uint64(0)
	if head > LogWindow {
		from = head - LogWindow
	}
	event := c.abi.GetABI().Events[usdc.USDCAuthorizationUsedEventName].ID
	logs, err := c.rpc.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(from), Addresses: []common.Address{c.token},
		Topics: [][]common.Hash{{event}, {common.BytesToHash(authorizer.Bytes())}, {common.Hash(nonce)}},
	})
	if err != nil {
		return common.Hash{}, false, fmt.Errorf("find AuthorizationUsed of %s: %w", authorizer, err)
	}
	for _, l := range logs {
		if !l.Removed {
			return l.TxHash, true, nil
		}
	}
	return common.Hash{}, false, nil
}

// Receipt returns a transaction's receipt, or nil when the chain has none (yet).
func (c *Chain) Receipt(ctx context.Context, tx common.Hash) (*types.Receipt, error) {
	return Receipt(ctx, c.rpc, tx)
}

// Known reports whether the node knows the transaction (pending or mined).
func (c *Chain) Known(ctx context.Context, tx common.Hash) (bool, error) {
	_, _, err := c.rpc.TransactionByHash(ctx, tx)
	if errors.Is(err, ethereum.NotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up %s: %w", tx, err)
	}
	return true, nil
}

// RevertError is a settlement the chain refuses to execute (the simulation reverts): the reason says
// why ("FiatTokenV2: authorization is expired", an ERC20InsufficientBalance error, ...).
type RevertError struct{ Reason string }

func (e *RevertError) Error() string { return "the token refuses the transfer: " + e.Reason }

// SubmitTransfer sends transferWithAuthorization for a, signed by the facilitator's key, and returns
// its hash without waiting for it to be mined. A transfer the token would refuse is not sent: the error
// is a *RevertError.
func (c *Chain) SubmitTransfer(ctx context.Context, a x402.Authorization) (common.Hash, error) {
	if c.key == nil {
		return common.Hash{}, errors.New("this process has no facilitator key to settle with (SVC_FACILITATOR_PRIVATE_KEY)")
	}
	v, r, s, err := x402.SplitSignature(a.Signature)
	if err != nil {
		return common.Hash{}, err
	}
	data, err := c.pack(transferWithVRS, a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, r, s)
	if err != nil {
		return common.Hash{}, err
	}
	gas, err := c.rpc.EstimateGas(ctx, ethereum.CallMsg{From: c.Facilitator(), To: &c.token, Data: data})
	if err != nil {
		return common.Hash{}, c.revert(err)
	}
	return c.send(ctx, data, gas+gas/5)
}

// send signs and sends a dynamic-fee transaction calling the token with data. Nonces are handed out
// under a lock and remembered, so concurrent settlements of one process never collide; a nonce the
// node says is taken (by a transaction this key sent, mined or pooled) is skipped.
func (c *Chain) send(ctx context.Context, data []byte, gas uint64) (common.Hash, error) {
	tip, feeCap, err := c.fees(ctx)
	if err != nil {
		return common.Hash{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	pending, err := c.rpc.PendingNonceAt(ctx, c.Facilitator())
	if err != nil {
		return common.Hash{}, fmt.Errorf("facilitator nonce: %w", err)
	}
	tx, err := Send(ctx, c.rpc, c.key, c.chainID, max(pending, c.next),
		types.DynamicFeeTx{GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &c.token, Data: data})
	if err != nil {
		return common.Hash{}, fmt.Errorf("transferWithAuthorization: %w", err)
	}
	c.next = tx.Nonce() + 1
	return tx.Hash(), nil
}

// fees are the tip and fee cap of a settlement (Fees).
func (c *Chain) fees(ctx context.Context) (tip, feeCap *big.Int, err error) { return Fees(ctx, c.rpc) }

// Fees are the tip and fee cap of a dynamic-fee transaction: the node's suggested tip, and the fee cap
// that tip over twice the current base fee (room for two full blocks of base-fee rise).
func Fees(ctx context.Context, client *ethclient.Client) (tip, feeCap *big.Int, err error) {
	if tip, err = client.SuggestGasTipCap(ctx); err != nil {
		return nil, nil, fmt.Errorf("suggest gas tip: %w", err)
	}
	head, err := client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("read head: %w", err)
	}
	base := head.BaseFee
	if base == nil {
		base = new(big.Int)
	}
	return tip, new(big.Int).Add(tip, new(big.Int).Mul(base, big.NewInt(2))), nil
}

// revert turns a failed gas estimate into a *RevertError when the call reverted, decoding the token's
// custom errors; other errors (the node away) are returned as they are.
func (c *Chain) revert(err error) error {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return fmt.Errorf("estimate settlement gas: %w", err)
	}
	reason := de.Error()
	if hexData, ok := de.ErrorData().(string); ok {
		if raw, derr := hexutil.Decode(hexData); derr == nil && len(raw) >= 4 {
			if custom, uerr := c.abi.UnpackError(raw); uerr == nil {
				reason = fmt.Sprintf("%T %+v", custom, custom)
			}
		}
	}
	return &RevertError{Reason: reason}
}

// WaitMined waits up to wait for tx's receipt (see WaitReceipt); a nil receipt and no error when wait
// passes first. beat is called between polls (an activity heartbeat).
func (c *Chain) WaitMined(ctx context.Context, tx common.Hash, wait time.Duration, beat func()) (*types.Receipt, error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	r, err := WaitReceipt(wctx, c.rpc, tx, beat)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		return nil, nil
	}
	return r, err
}

// transferWithVRS is the signature of the (v, r, s) overload of transferWithAuthorization.
const transferWithVRS = "transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)"

// pack encodes a call of the token method with the given signature (which picks among overloads).
func (c *Chain) pack(sig string, args ...any) ([]byte, error) {
	for _, m := range c.abi.GetABI().Methods {
		if m.Sig == sig {
			in, err := m.Inputs.Pack(args...)
			if err != nil {
				return nil, fmt.Errorf("pack %s: %w", sig, err)
			}
			return append(append([]byte{}, m.ID...), in...), nil
		}
	}
	return nil, fmt.Errorf("the token ABI has no method %s", sig)
}

// call runs a read-only call of the token at the latest block.
func (c *Chain) call(ctx context.Context, data []byte) ([]byte, error) {
	return c.rpc.CallContract(ctx, ethereum.CallMsg{To: &c.token, Data: data}, nil)
}
