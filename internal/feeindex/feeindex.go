// Package feeindex follows the token-launch FeesManager and its launch pools on the chain into
// PostgreSQL (migrations 0031 and 0053): pools discovered from Launch events, and the Launch, Collect, Release,
// UpdateBeneficiary and pools' Swap events, each stored once. A step reads one block range with
// eth_getLogs (at most MaxRange blocks, up to head − Confirmations) and records its events together with
// the cursor in one transaction, so a restart resumes with no gap and no double, and two indexers racing
// on the same range record it once (the cursor only moves from where the step found it).
package feeindex

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/evm/launch"
)

// MaxRange is the most blocks one eth_getLogs call covers.
const MaxRange = 2000

// The launch contracts' bindings.
var (
	feesABI  = launch.NewFeesManager()
	poolABI  = launch.NewLaunchPool()
	tokenABI = launch.NewLaunchToken()
)

// Options configure an Indexer.
type Options struct {
	// Manager is the FeesManager's address.
	Manager common.Address
	// ChainID is the chain's id (recorded with the cursor).
	ChainID int64
	// Confirmations: blocks newer than head − Confirmations are not indexed yet (SVC_FEE_INDEX_CONFIRMATIONS;
	// 0 on the dev chain, which never reorganises).
	Confirmations uint64
	// StartBlock is the first block to read when there is no cursor yet (the manager's deployment block).
	StartBlock uint64
	// Range is the most blocks per eth_getLogs call (MaxRange when 0 or larger).
	Range uint64
	// Interval is how long Run waits once caught up (1 s when 0).
	Interval time.Duration
	Logger   *slog.Logger
}

// Indexer reads the fee events of one FeesManager into PostgreSQL.
type Indexer struct {
	db     *bun.DB
	client *ethclient.Client
	opts   Options
	key    string // the manager's address, lower-case hex
}

// New returns an indexer of opts.Manager's events read through client into db.
func New(db *bun.DB, client *ethclient.Client, opts Options) *Indexer {
	if opts.Range == 0 || opts.Range > MaxRange {
		opts.Range = MaxRange
	}
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Indexer{db: db, client: client, opts: opts, key: hexAddr(opts.Manager)}
}

// hexAddr is an address as the index stores it: lower-case 0x hex.
func hexAddr(a common.Address) string { return strings.ToLower(a.Hex()) }

// hexHash is a hash or pool id as the index stores it.
func hexHash(h common.Hash) string { return h.Hex() }

// Cursor is the last indexed block, or −1 when nothing is indexed yet (then StartBlock is next).
func (ix *Indexer) Cursor(ctx context.Context) (int64, error) {
	var last int64
	err := ix.db.NewSelect().Table("fee_index_cursors").Column("last_block").Where("manager = ?", ix.key).Scan(ctx, &last)
	if err != nil {
		if isNoRows(err) {
			return int64(ix.opts.StartBlock) - 1, nil
		}
		return 0, fmt.Errorf("read the fee index cursor: %w", err)
	}
	return last, nil
}

// ErrRaced reports that another indexer moved the cursor while this step read its range: the step
// recorded nothing and the next one starts from the new cursor.
var ErrRaced = errors.New("feeindex: another indexer advanced the cursor")

// Step indexes the next block range, if any block is due, and reports whether the index has caught up
// with head − Confirmations.
func (ix *Indexer) Step(ctx context.Context) (caughtUp bool, err error) {
	head, err := ix.client.BlockNumber(ctx)
	if err != nil {
		return false, fmt.Errorf("read the chain head: %w", err)
	}
	if head < ix.opts.Confirmations {
		return true, nil
	}
	target := int64(head - ix.opts.Confirmations)
	last, err := ix.Cursor(ctx)
	if err != nil {
		return false, err
	}
	if last >= target {
		return true, nil
	}
	from := uint64(last + 1)
	to := min(uint64(target), from+ix.opts.Range-1)
	b, err := ix.read(ctx, from, to)
	if err != nil {
		return false, err
	}
	if err := ix.record(ctx, last, int64(to), b); err != nil {
		return false, err
	}
	return int64(to) >= target, nil
}

// CatchUp steps until the index reaches head − Confirmations as it was when it is called (or later).
func (ix *Indexer) CatchUp(ctx context.Context) error {
	for {
		done, err := ix.Step(ctx)
		if errors.Is(err, ErrRaced) {
			continue
		}
		if err != nil || done {
			return err
		}
	}
}

// batch is what one block range holds: new pools and events, in log order.
type batch struct {
	pools  []poolRow
	events []eventRow
}

// poolRow is a pool discovered from a Launch event.
type poolRow struct {
	PoolID, Token, Pool, Token0, Token1, Creator, Name, Symbol string
	Block                                                      uint64
	Tx                                                         string
	At                                                         time.Time
	Beneficiaries                                              []string
}

// eventRow is one indexed event.
type eventRow struct {
	Block                       uint64
	BlockHash, TxHash           string
	LogIndex                    uint
	Kind, PoolID                string
	Beneficiary, OldBeneficiary *string
	Amount0, Amount1            string
	Shares                      *string
	// SwapAmount0 and SwapAmount1 are a Swap's traded amounts of token0 and token1 (nil on other kinds).
	SwapAmount0, SwapAmount1 *string
	At                       time.Time
}

// read fetches the range's manager logs, then the logs of every pool known or launched in it.
func (ix *Indexer) read(ctx context.Context, from, to uint64) (batch, error) {
	var b batch
	logs, err := ix.logs(ctx, from, to, []common.Address{ix.opts.Manager})
	if err != nil {
		return b, err
	}
	times := map[uint64]time.Time{}
	for i := range logs {
		if err := ix.managerLog(ctx, &logs[i], &b, times); err != nil {
			return b, err
		}
	}
	pools, err := ix.knownPools(ctx)
	if err != nil {
		return b, err
	}
	for _, p := range b.pools {
		pools[common.HexToAddress(p.Pool)] = p.PoolID
	}
	if len(pools) == 0 {
		return b, nil
	}
	addrs := make([]common.Address, 0, len(pools))
	for a := range pools {
		addrs = append(addrs, a)
	}
	if logs, err = ix.logs(ctx, from, to, addrs); err != nil {
		return b, err
	}
	for i := range logs {
		if err := ix.swapLog(ctx, &logs[i], pools, &b, times); err != nil {
			return b, err
		}
	}
	return b, nil
}

// logs is eth_getLogs over [from, to] for addrs.
func (ix *Indexer) logs(ctx context.Context, from, to uint64, addrs []common.Address) ([]types.Log, error) {
	logs, err := ix.client.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to), Addresses: addrs})
	if err != nil {
		return nil, fmt.Errorf("read logs of blocks %d..%d: %w", from, to, err)
	}
	return logs, nil
}

// knownPools maps the indexed pools' addresses to their pool ids.
func (ix *Indexer) knownPools(ctx context.Context) (map[common.Address]string, error) {
	var rows []struct {
		Pool   string `bun:"pool"`
		PoolID string `bun:"pool_id"`
	}
	if err := ix.db.NewSelect().Table("fee_pools").Column("pool", "pool_id").Where("manager = ?", ix.key).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("read the indexed pools: %w", err)
	}
	out := make(map[common.Address]string, len(rows))
	for _, r := range rows {
		out[common.HexToAddress(r.Pool)] = r.PoolID
	}
	return out, nil
}

// blockTime is the timestamp of block n (cached per range).
func (ix *Indexer) blockTime(ctx context.Context, n uint64, times map[uint64]time.Time) (time.Time, error) {
	if t, ok := times[n]; ok {
		return t, nil
	}
	h, err := ix.client.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err != nil {
		return time.Time{}, fmt.Errorf("read block %d: %w", n, err)
	}
	t := time.Unix(int64(h.Time), 0).UTC()
	times[n] = t
	return t, nil
}

// newEvent is the row of log with its position and time.
func (ix *Indexer) newEvent(ctx context.Context, log *types.Log, kind string, poolID common.Hash, times map[uint64]time.Time) (eventRow, error) {
	at, err := ix.blockTime(ctx, log.BlockNumber, times)
	if err != nil {
		return eventRow{}, err
	}
	return eventRow{Block: log.BlockNumber, BlockHash: hexHash(log.BlockHash), TxHash: hexHash(log.TxHash), LogIndex: log.Index,
		Kind: kind, PoolID: hexHash(poolID), Amount0: "0", Amount1: "0", At: at}, nil
}

// managerLog adds a FeesManager log's event (and pool, for a Launch) to b; other logs are skipped.
func (ix *Indexer) managerLog(ctx context.Context, log *types.Log, b *batch, times map[uint64]time.Time) error {
	if ev, err := feesABI.UnpackLaunchEvent(log); err == nil {
		row, err := ix.newEvent(ctx, log, "launch", ev.PoolId, times)
		if err != nil {
			return err
		}
		p, err := ix.pool(ctx, ev, row)
		if err != nil {
			return err
		}
		b.pools, b.events = append(b.pools, p), append(b.events, row)
		return nil
	}
	if ev, err := feesABI.UnpackCollectEvent(log); err == nil {
		row, err := ix.newEvent(ctx, log, "collect", ev.PoolId, times)
		row.Amount0, row.Amount1 = ev.Amount0.String(), ev.Amount1.String()
		b.events = append(b.events, row)
		return err
	}
	if ev, err := feesABI.UnpackReleaseEvent(log); err == nil {
		row, err := ix.newEvent(ctx, log, "release", ev.PoolId, times)
		row.Amount0, row.Amount1, row.Beneficiary = ev.Amount0.String(), ev.Amount1.String(), ptr(hexAddr(ev.Beneficiary))
		b.events = append(b.events, row)
		return err
	}
	if ev, err := feesABI.UnpackUpdateBeneficiaryEvent(log); err == nil {
		row, err := ix.newEvent(ctx, log, "update_beneficiary", ev.PoolId, times)
		row.Beneficiary, row.OldBeneficiary = ptr(hexAddr(ev.NewBeneficiary)), ptr(hexAddr(ev.OldBeneficiary))
		row.Shares = ptr(ev.Shares.String())
		b.events = append(b.events, row)
		return err
	}
	return nil
}

// swapLog adds a pool's Swap event to b, its fee on the side of its input token and its traded amounts
// (amountIn on the input side, amountOut on the other); other logs are skipped.
func (ix *Indexer) swapLog(ctx context.Context, log *types.Log, pools map[common.Address]string, b *batch, times map[uint64]time.Time) error {
	ev, err := poolABI.UnpackSwapEvent(log)
	if err != nil {
		return nil //nolint:nilerr // not a Swap: the pools' other events are not indexed
	}
	row, err := ix.newEvent(ctx, log, "swap", common.HexToHash(pools[log.Address]), times)
	if err != nil {
		return err
	}
	token0, err := ix.token0(ctx, log.Address, b)
	if err != nil {
		return err
	}
	in, out := ptr(ev.AmountIn.String()), ptr(ev.AmountOut.String())
	if ev.TokenIn == token0 {
		row.Amount0, row.SwapAmount0, row.SwapAmount1 = ev.Fee.String(), in, out
	} else {
		row.Amount1, row.SwapAmount0, row.SwapAmount1 = ev.Fee.String(), out, in
	}
	b.events = append(b.events, row)
	return nil
}

// token0 is pool's token0, from the range's new pools or the index.
func (ix *Indexer) token0(ctx context.Context, pool common.Address, b *batch) (common.Address, error) {
	for _, p := range b.pools {
		if common.HexToAddress(p.Pool) == pool {
			return common.HexToAddress(p.Token0), nil
		}
	}
	var t0 string
	if err := ix.db.NewSelect().Table("fee_pools").Column("token0").Where("pool = ?", hexAddr(pool)).Scan(ctx, &t0); err != nil {
		return common.Address{}, fmt.Errorf("read token0 of pool %s: %w", pool, err)
	}
	return common.HexToAddress(t0), nil
}

// pool reads a launched pool's tokens, the token's name and symbol, and the pool's beneficiaries.
func (ix *Indexer) pool(ctx context.Context, ev *launch.FeesManagerLaunch, row eventRow) (poolRow, error) {
	p := poolRow{PoolID: hexHash(ev.PoolId), Token: hexAddr(ev.Token), Pool: hexAddr(ev.Pool), Creator: hexAddr(ev.Creator),
		Block: row.Block, Tx: row.TxHash, At: row.At}
	pool := poolABI.Instance(ix.client, ev.Pool)
	token := tokenABI.Instance(ix.client, ev.Token)
	opts := &bind.CallOpts{Context: ctx}
	t0, err := bind.Call(pool, opts, poolABI.PackToken0(), poolABI.UnpackToken0)
	if err != nil {
		return p, fmt.Errorf("read token0 of pool %s: %w", ev.Pool, err)
	}
	t1, err := bind.Call(pool, opts, poolABI.PackToken1(), poolABI.UnpackToken1)
	if err != nil {
		return p, fmt.Errorf("read token1 of pool %s: %w", ev.Pool, err)
	}
	if p.Name, err = bind.Call(token, opts, tokenABI.PackName(), tokenABI.UnpackName); err != nil {
		return p, fmt.Errorf("read the name of token %s: %w", ev.Token, err)
	}
	if p.Symbol, err = bind.Call(token, opts, tokenABI.PackSymbol(), tokenABI.UnpackSymbol); err != nil {
		return p, fmt.Errorf("read the symbol of token %s: %w", ev.Token, err)
	}
	bens, err := bind.Call(feesABI.Instance(ix.client, ix.opts.Manager), opts, feesABI.PackGetBeneficiaries(ev.PoolId), feesABI.UnpackGetBeneficiaries)
	if err != nil {
		return p, fmt.Errorf("read the beneficiaries of pool %x: %w", ev.PoolId, err)
	}
	p.Token0, p.Token1 = hexAddr(t0), hexAddr(t1)
	p.Beneficiaries = []string{p.Creator}
	for _, a := range bens {
		p.Beneficiaries = append(p.Beneficiaries, hexAddr(a))
	}
	return p, nil
}

func ptr[T any](v T) *T { return &v }
