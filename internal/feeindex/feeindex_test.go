package feeindex_test

import (
	"context"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/testdb"
)

// newIndexer is an indexer of the dev chain's FeesManager reading rangeSize blocks per step.
func newIndexer(db *bun.DB, e *feetest.Env, rangeSize uint64) *feeindex.Indexer {
	return feeindex.New(db, e.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID,
		Range: rangeSize, Interval: 20 * time.Millisecond})
}

// kinds counts the indexed events by kind, and fails on an event stored twice.
func kinds(t *testing.T, db *bun.DB) map[string]int {
	t.Helper()
	var rows []struct {
		Kind string `bun:"kind"`
		N    int    `bun:"n"`
	}
	require.NoError(t, db.NewRaw("SELECT kind, count(*) AS n FROM fee_events GROUP BY kind").Scan(context.Background(), &rows))
	out := map[string]int{}
	for _, r := range rows {
		out[r.Kind] = r.N
	}
	var dup int
	require.NoError(t, db.NewRaw("SELECT count(*) FROM (SELECT tx_hash, log_index FROM fee_events GROUP BY 1, 2 HAVING count(*) > 1) d").
		Scan(context.Background(), &dup))
	require.Zero(t, dup, "no event is stored twice")
	return out
}

// swapFees sums the indexed swap fees of the pool as (token0, token1).
func swapFees(t *testing.T, db *bun.DB, l feetest.Launched) [2]string {
	t.Helper()
	var out struct {
		A0 string `bun:"a0"`
		A1 string `bun:"a1"`
	}
	require.NoError(t, db.NewRaw("SELECT sum(amount0)::text AS a0, sum(amount1)::text AS a1 FROM fee_events WHERE kind = 'swap' AND pool_id = ?",
		common.Hash(l.PoolID).Hex()).Scan(context.Background(), &out))
	return [2]string{out.A0, out.A1}
}

// swapAmounts sums the indexed swaps' traded amounts of the pool as (token0, token1).
func swapAmounts(t *testing.T, db *bun.DB, l feetest.Launched) [2]string {
	t.Helper()
	var out struct {
		A0 string `bun:"a0"`
		A1 string `bun:"a1"`
	}
	require.NoError(t, db.NewRaw("SELECT sum(swap_amount0)::text AS a0, sum(swap_amount1)::text AS a1 FROM fee_events WHERE kind = 'swap' AND pool_id = ?",
		common.Hash(l.PoolID).Hex()).Scan(context.Background(), &out))
	return [2]string{out.A0, out.A1}
}

// TestRestartResumesExactlyOnce: an indexer stopped part way and a new one started from its cursor index
// every event exactly once, with the pool, its name and symbol, and the swap fees to the wei.
func TestRestartResumesExactlyOnce(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	e := feetest.Start(t)
	keys := e.Keys(2)
	creatorKey, traderKey := keys[0], keys[1]
	l := e.Launch(creatorKey, crypto.PubkeyToAddress(creatorKey.PublicKey), "Fee Token", "FEE")
	fees, traded := e.TradeVolume(traderKey, l)
	e.Collect(creatorKey, l)

	ctx := context.Background()
	first := newIndexer(db, e, 2)
	_, err := first.Step(ctx)
	require.NoError(t, err)
	_, err = first.Step(ctx)
	require.NoError(t, err)
	mid, err := first.Cursor(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(3), mid, "two steps of two blocks from block 0")

	second := newIndexer(db, e, 2) // the restart
	require.NoError(t, second.CatchUp(ctx))
	require.Equal(t, map[string]int{"launch": 1, "swap": 2, "collect": 1, "release": 1}, kinds(t, db))
	require.Equal(t, [2]string{fees[0].String(), fees[1].String()}, swapFees(t, db, l))
	require.Equal(t, [2]string{traded[0].String(), traded[1].String()}, swapAmounts(t, db, l), "each swap's traded amounts")
	var pool struct {
		Name   string `bun:"name"`
		Symbol string `bun:"symbol"`
		Token  string `bun:"token"`
	}
	require.NoError(t, db.NewRaw("SELECT name, symbol, token FROM fee_pools").Scan(ctx, &pool))
	require.Equal(t, "Fee Token", pool.Name)
	require.Equal(t, "FEE", pool.Symbol)
	require.Equal(t, strings.ToLower(l.Token.Hex()), pool.Token)

	// More activity after the restart; a third indexer (and a replay of an old range) adds only it.
	more := e.Trade(traderKey, l)
	e.Collect(creatorKey, l)
	require.NoError(t, newIndexer(db, e, 500).CatchUp(ctx))
	require.Equal(t, map[string]int{"launch": 1, "swap": 4, "collect": 2, "release": 2}, kinds(t, db))
	total := [2]string{new(big.Int).Add(fees[0], more[0]).String(), new(big.Int).Add(fees[1], more[1]).String()}
	require.Equal(t, total, swapFees(t, db, l))
	head, err := e.Client.BlockNumber(ctx)
	require.NoError(t, err)
	cursor, err := second.Cursor(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(head), cursor)
}

// TestTwoIndexersIndexOnce: two indexers stepping the same index at once, and two Run loops (one holds
// the advisory lock), still store each event once.
func TestTwoIndexersIndexOnce(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	e := feetest.Start(t)
	keys := e.Keys(2)
	l := e.Launch(keys[0], crypto.PubkeyToAddress(keys[0].PublicKey), "Twin", "TWN")
	e.Trade(keys[1], l)
	e.Collect(keys[0], l)

	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() { errs[i] = newIndexer(db, e, 1).CatchUp(ctx) })
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	require.Equal(t, map[string]int{"launch": 1, "swap": 2, "collect": 1, "release": 1}, kinds(t, db))

	// Two Run loops follow new blocks; each event still lands once.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	for range 2 {
		ix := newIndexer(db, e, 3)
		wg.Go(func() { ix.Run(runCtx) })
	}
	e.Trade(keys[1], l)
	head, err := e.Client.BlockNumber(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		c, err := newIndexer(db, e, 3).Cursor(ctx)
		return err == nil && c >= int64(head)
	}, 20*time.Second, 20*time.Millisecond)
	stop()
	wg.Wait()
	require.Equal(t, map[string]int{"launch": 1, "swap": 4, "collect": 1, "release": 1}, kinds(t, db))
}
