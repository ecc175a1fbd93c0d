package feeread

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// PendingNative is what who can claim now of token's pool in the pool's other currency (WETH, the
// native asset's wrapper), read live from pendingFees and never cached.
func (r *Reader) PendingNative(ctx context.Context, token, who common.Address) (*big.Int, error) {
	p, err := r.poolOf(ctx, token)
	if err != nil {
		return nil, err
	}
	pending, err := r.pending(ctx, p, who)
	if err != nil {
		return nil, err
	}
	return pending[NativeSide(p.Token0, token)], nil
}

// NativeSide is which of a launch pool's amounts (0 or 1) is the native side: the currency that is not
// the launched token (token0 is the pool's first currency).
func NativeSide(token0 string, token common.Address) int {
	if common.HexToAddress(token0) == token {
		return 1
	}
	return 0
}
