package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"

	"github.com/svcplatform/svc/internal/evm"
)

// receiptPoll is how often waitReceipt asks for a receipt; blocks are sealed
// within milliseconds of a transaction arriving.
const receiptPoll = 10 * time.Millisecond

// txIndexingMsg is geth's answer to a receipt query while it is still
// indexing transactions after start-up; it means "ask again".
const txIndexingMsg = "transaction indexing is in progress"

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
	gas, err := gasFor(ctx, client, from, call)
	if err != nil {
		return common.Hash{}, err
	}
	feeCap, err := feeCap(ctx, client)
	if err != nil {
		return common.Hash{}, err
	}
	tx, err := evm.Send(ctx, client, key, big.NewInt(ChainID), pending, types.DynamicFeeTx{
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

// waitReceipt polls for the receipt of hash until ctx ends, and fails when
// the transaction reverted.
func waitReceipt(ctx context.Context, client *ethclient.Client, hash common.Hash) (*types.Receipt, error) {
	tick := time.NewTicker(receiptPoll)
	defer tick.Stop()
	for {
		receipt, err := client.TransactionReceipt(ctx, hash)
		switch {
		case err == nil && receipt.Status != types.ReceiptStatusSuccessful:
			return receipt, fmt.Errorf("transaction %s failed (status 0) in block %s", hash, receipt.BlockNumber)
		case err == nil:
			// The receipt can be served a moment before the head moves to its block: wait for the head, so a
			// read right after (a balance, say) sees the transaction.
			return receipt, waitHead(ctx, client, receipt.BlockNumber.Uint64())
		case !errors.Is(err, ethereum.NotFound) && !strings.Contains(err.Error(), txIndexingMsg):
			return nil, fmt.Errorf("receipt of %s: %w", hash, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for receipt of %s: %w", hash, ctx.Err())
		case <-tick.C:
		}
	}
}

// orZero returns v, or zero when v is nil.
func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

// waitHead polls until the chain's head is at least block.
func waitHead(ctx context.Context, client *ethclient.Client, block uint64) error {
	for {
		head, err := client.BlockNumber(ctx)
		if err == nil && head >= block {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for block %d: %w", block, ctx.Err())
		case <-time.After(receiptPoll):
		}
	}
}
