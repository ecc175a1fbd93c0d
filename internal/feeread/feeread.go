// Package feeread answers seed 002's public fee reads and builds unsigned fee transactions: token-fee
// snapshots (claimable amounts read live from the FeesManager's pendingFees, uncollected fees included;
// claims and daily earnings from the fee index that internal/feeindex keeps), claimable-fee lookups, and
// unsigned collectFees and updateBeneficiary transactions. Reads are cached in the process for CacheTTL
// per address and window.
package feeread

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/wallet"
)

// DefaultCacheTTL is how long a public read is served from the process's cache (seed 002: 2 minutes per
// address and window).
const DefaultCacheTTL = 2 * time.Minute

// Source is the snapshot tokens' source: the pool type whose fee manager answers.
const Source = "fees-manager"

// The FeesManager's binding.
var feesABI = launch.NewFeesManager()

// Options configure a Reader.
type Options struct {
	// Manager is the FeesManager; WETH the wrapped ether its pools trade against.
	Manager, WETH common.Address
	// ChainID is the chain's id; Chain its name in answers (eip155:<id> when empty).
	ChainID int64
	Chain   string
	// CacheTTL is how long answers are cached (DefaultCacheTTL when 0; negative turns the cache off).
	CacheTTL time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Reader answers fee reads from the chain and the fee index.
type Reader struct {
	db     *bun.DB
	client *ethclient.Client
	opts   Options
	cache  *cache
}

// New returns a Reader over db's fee index and the chain behind client.
func New(db *bun.DB, client *ethclient.Client, opts Options) *Reader {
	if opts.CacheTTL == 0 {
		opts.CacheTTL = DefaultCacheTTL
	}
	if opts.Chain == "" {
		opts.Chain = fmt.Sprintf("eip155:%d", opts.ChainID)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Reader{db: db, client: client, opts: opts, cache: newCache(opts.CacheTTL, opts.Now)}
}

// ParseAddress reads a 0x address, or answers 400 naming param.
func ParseAddress(param, s string) (common.Address, error) {
	if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") {
		return common.Address{}, svcerr.Invalid(param, "%s must be a 0x address of 40 hex digits", param)
	}
	return common.HexToAddress(s), nil
}

// ParseDays reads a fee window: empty is 30, else 1..90, or 400 naming days.
func ParseDays(s string) (int, error) {
	if s == "" {
		return client.FeeDaysDefault, nil
	}
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || fmt.Sprint(n) != s || n < 1 || n > client.FeeDaysMax {
		return 0, svcerr.Invalid("days", "days must be a whole number from 1 to %d", client.FeeDaysMax)
	}
	return n, nil
}

// pool is an indexed launch pool.
type pool struct {
	PoolID             string `bun:"pool_id"`
	Token              string `bun:"token"`
	Token0             string `bun:"token0"`
	Token1             string `bun:"token1"`
	Name               string `bun:"name"`
	Symbol             string `bun:"symbol"`
	CreatorBeneficiary string `bun:"creator_beneficiary"`
}

// poolID is the pool's id as bytes32.
func (p pool) poolID() [32]byte { return common.HexToHash(p.PoolID) }

// label is the symbol of one of the pool's tokens.
func (p pool) label(token string) string {
	if token == strings.ToLower(p.Token) {
		return p.Symbol
	}
	return "WETH"
}

// wethSide is 0 or 1: which of the pool's tokens is WETH.
func (p pool) wethSide(weth common.Address) int {
	if common.HexToAddress(p.Token0) == weth {
		return 0
	}
	return 1
}

// lower is an address as the index stores it.
func lower(a common.Address) string { return strings.ToLower(a.Hex()) }

// poolsWhere reads the indexed pools matching a condition of fee_pools (aliased p).
func (r *Reader) poolsWhere(ctx context.Context, where string, args ...any) ([]pool, error) {
	var out []pool
	err := r.db.NewSelect().TableExpr("fee_pools AS p").Column("p.pool_id", "p.token", "p.token0", "p.token1", "p.name", "p.symbol",
		"p.creator_beneficiary").Where("p.manager = ?", lower(r.opts.Manager)).Where(where, args...).OrderExpr("p.launch_block, p.pool_id").Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("read indexed pools: %w", err)
	}
	return out, nil
}

// poolOf is token's indexed pool, or 404.
func (r *Reader) poolOf(ctx context.Context, token common.Address) (pool, error) {
	pools, err := r.poolsWhere(ctx, "p.token = ?", lower(token))
	if err != nil {
		return pool{}, err
	}
	if len(pools) == 0 {
		return pool{}, svcerr.NotFoundf("token %s is not a launched token (or the fee index has not reached its launch yet)", token.Hex())
	}
	return pools[0], nil
}

// view calls a FeesManager view.
func view[T any](ctx context.Context, r *Reader, data []byte, unpack func([]byte) (T, error)) (T, error) {
	return bind.Call(feesABI.Instance(r.client, r.opts.Manager), &bind.CallOpts{Context: ctx}, data, unpack)
}

// shares is getShares(poolId, who).
func (r *Reader) shares(ctx context.Context, p pool, who common.Address) (*big.Int, error) {
	s, err := view(ctx, r, feesABI.PackGetShares(p.poolID(), who), feesABI.UnpackGetShares)
	if err != nil {
		return nil, fmt.Errorf("read the shares of %s in pool %s: %w", who.Hex(), p.PoolID, err)
	}
	return s, nil
}

// pending is pendingFees(poolId, who): claimable now, uncollected pool fees included.
func (r *Reader) pending(ctx context.Context, p pool, who common.Address) ([2]*big.Int, error) {
	out, err := view(ctx, r, feesABI.PackPendingFees(p.poolID(), who), feesABI.UnpackPendingFees)
	if err != nil {
		return [2]*big.Int{}, fmt.Errorf("read the pending fees of %s in pool %s: %w", who.Hex(), p.PoolID, err)
	}
	return [2]*big.Int{out.Amount0, out.Amount1}, nil
}

// Ether formats wei (or any 18-decimal amount) as an ether-decimal string without trailing zeros.
func Ether(wei *big.Int) string { return wallet.FormatUnits(wei, 18) }

// Percent formats WAD shares as a percent string (5.7e17 is "57", 3.61e17 "36.1").
func Percent(shares *big.Int) string {
	return wallet.FormatUnits(new(big.Int).Mul(shares, big.NewInt(100)), 18)
}
