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

// MaxUint256 is the largest amount a uint256 parameter or balance can hold.
var MaxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// ParseUnits converts a plain decimal string ("25", "0.5") with at most decimals fraction digits to
// integer base units (USDC: 6 decimals, ether: 18). Signs, exponents, separators and amounts above
// MaxUint256 are refused.
func ParseUnits(s string, decimals int) (*big.Int, error) {
	whole, frac, hasPoint := strings.Cut(s, ".")
	if !isDigits(whole) || (hasPoint && !isDigits(frac)) {
		return nil, fmt.Errorf("%q is not a plain decimal number", s)
	}
	if len(frac) > decimals {
		return nil, fmt.Errorf("%q has more than %d decimals", s, decimals)
	}
	v, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	if !ok || v.Cmp(MaxUint256) > 0 {
		return nil, fmt.Errorf("%q is too large", s)
	}
	return v, nil
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
