package evm

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
)

// maxNonceSkips bounds how many taken nonces Send skips before giving up.
const maxNonceSkips = 8

// Send signs the dynamic-fee transaction tx with key for chainID at nonce and sends it through client.
// Right after a block a node's pool can report a pending nonce that its transactions already use, so a
// nonce the node reports taken ("nonce too low", "already known", "replacement transaction
// underpriced") is skipped for the next one. It returns the transaction sent. Callers sending from one
// key concurrently must serialise their calls.
func Send(ctx context.Context, client *ethclient.Client, key *ecdsa.PrivateKey, chainID *big.Int, nonce uint64, tx types.DynamicFeeTx) (*types.Transaction, error) {
	tx.ChainID = chainID
	for attempt := 0; ; attempt++ {
		tx.Nonce = nonce
		signed, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &tx)
		if err != nil {
			return nil, fmt.Errorf("sign transaction: %w", err)
		}
		err = client.SendTransaction(ctx, signed)
		if err == nil {
			return signed, nil
		}
		if attempt >= maxNonceSkips || !nonceTaken(err) {
			return nil, fmt.Errorf("send transaction: %w", err)
		}
		nonce++
	}
}

// nonceTaken reports whether the node refused a transaction because its nonce is used or pooled.
func nonceTaken(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "nonce too low") || strings.Contains(msg, "already known") ||
		strings.Contains(msg, "replacement transaction underpriced")
}
