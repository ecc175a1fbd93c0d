package devchain

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"

	"github.com/svcplatform/svc/internal/evm"
)

// defaultTip is the priority fee the dev accounts pay (the node accepts 1 wei).
var defaultTip = big.NewInt(params.GWei)

// txCall is one transaction to sign: to nil creates a contract; gas 0 means
// estimate it.
type txCall struct {
	to    *common.Address
	value *big.Int
	data  []byte
	gas   uint64
}

// sendTx signs call with key as an EIP-1559 transaction at the sender's pending nonce and submits it.
// Callers sending from the same account in parallel must serialise (see deployerMu). Right after a block
// the pool can report a nonce its transactions already used: a nonce the node reports taken is skipped.
func sendTx(ctx context.Context, client *ethclient.Client, key *ecdsa.PrivateKey, call txCall) (common.Hash, error) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	pending, err := client.PendingNonceAt(ctx, from)
	if err != nil {
		return common.Hash{}, fmt.Errorf("nonce of %s: %w", from, err)
	}
	return sendTxAt(ctx, client, key, pending, call)
}

// sendTxAt is sendTx at a nonce the caller chose (the next one is tried if the node reports it taken).
func sendTxAt(ctx context.Context, client *ethclient.Client, key *ecdsa.PrivateKey, nonce uint64, call txCall) (common.Hash, error) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	gas, err := gasFor(ctx, client, from, call)
	if err != nil {
		return common.Hash{}, err
	}
	feeCap, err := feeCap(ctx, client)
	if err != nil {
		return common.Hash{}, err
	}
	tx, err := evm.Send(ctx, client, key, big.NewInt(ChainID), nonce, types.DynamicFeeTx{
		GasTipCap: defaultTip, GasFeeCap: feeCap, Gas: gas, To: call.to, Value: orZero(call.value), Data: call.data,
	})
	if err != nil {
		return common.Hash{}, err
	}
	return tx.Hash(), nil
}

// gasFor is call's gas limit: its own, or the node's estimate (which fails
// with the revert reason when the call would revert).
func gasFor(ctx context.Context, client *ethclient.Client, from common.Address, call txCall) (uint64, error) {
	if call.gas != 0 {
		return call.gas, nil
	}
	gas, err := client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: call.to, Value: call.value, Data: call.data})
	if err != nil {
		return 0, fmt.Errorf("estimate gas: %w", err)
	}
	return gas, nil
}

// feeCap allows twice the latest base fee plus the tip, enough to stay
// includable while the base fee moves.
func feeCap(ctx context.Context, client *ethclient.Client) (*big.Int, error) {
	head, err := client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("latest header: %w", err)
	}
	baseFee := orZero(head.BaseFee)
	return new(big.Int).Add(new(big.Int).Mul(baseFee, big.NewInt(2)), defaultTip), nil
}

// waitReceipt waits for the receipt of hash (and for the head to reach its block) until ctx ends, and
// fails when the transaction reverted.
func waitReceipt(ctx context.Context, client *ethclient.Client, hash common.Hash) (*types.Receipt, error) {
	receipt, err := evm.WaitReceipt(ctx, client, hash, nil)
	if err == nil && receipt.Status != types.ReceiptStatusSuccessful {
		return receipt, fmt.Errorf("transaction %s failed (status 0) in block %s", hash, receipt.BlockNumber)
	}
	return receipt, err
}

// orZero returns v, or zero when v is nil.
func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}
