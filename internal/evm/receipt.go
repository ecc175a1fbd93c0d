package evm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
)

// txIndexingMsg is go-ethereum's answer to a receipt query while it is still indexing transactions: not
// known yet, like NotFound.
const txIndexingMsg = "transaction indexing is in progress"

// Receipt returns a transaction's receipt, or nil when the node has none (yet).
func Receipt(ctx context.Context, client *ethclient.Client, tx common.Hash) (*types.Receipt, error) {
	r, err := client.TransactionReceipt(ctx, tx)
	if errors.Is(err, ethereum.NotFound) || (err != nil && strings.Contains(err.Error(), txIndexingMsg)) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("receipt of %s: %w", tx, err)
	}
	return r, nil
}

// Receipt polling: from receiptPollFirst, doubling up to receiptPollFast while the wait is younger than
// receiptFastFor (the dev chain seals a block a second, fast chains every few), then up to
// receiptPollSlow (a slow chain's RPC provider is not asked ten times a second for minutes).
const (
	receiptPollFirst = 5 * time.Millisecond
	receiptPollFast  = 100 * time.Millisecond
	receiptFastFor   = 10 * time.Second
	receiptPollSlow  = time.Second
)

// receiptPoll is the wait before the next receipt poll after one of prev, waitedSoFar into the wait.
func receiptPoll(prev, waitedSoFar time.Duration) time.Duration {
	limit := receiptPollSlow
	if waitedSoFar < receiptFastFor {
		limit = receiptPollFast
	}
	return min(prev*2, limit)
}

// WaitReceipt polls for tx's receipt (see receiptPoll: every 100 ms at most for the first 10 s, then
// backing off to 1 s) until it appears, whatever its status, and then until the node's head has reached
// its block: a node can serve a receipt a moment before its head moves, and a read right after (a
// balance, say) must see the transaction. beat, when not nil, is called between polls (an activity
// heartbeat). It ends with ctx's error.
func WaitReceipt(ctx context.Context, client *ethclient.Client, tx common.Hash, beat func()) (*types.Receipt, error) {
	var r *types.Receipt
	start := time.Now()
	for delay := receiptPollFirst; ; delay = receiptPoll(delay, time.Since(start)) {
		if r == nil {
			var err error
			if r, err = Receipt(ctx, client, tx); err != nil {
				return nil, err
			}
		}
		if r != nil {
			head, err := client.BlockNumber(ctx)
			if err == nil && head >= r.BlockNumber.Uint64() {
				return r, nil
			}
		}
		if beat != nil {
			beat()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for the receipt of %s: %w", tx, ctx.Err())
		case <-time.After(delay):
		}
	}
}
