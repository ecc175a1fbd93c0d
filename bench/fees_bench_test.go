package bench

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
)

// Fee benchmark sizes: concurrent readers of the snapshot, and the swaps the indexer follows.
const (
	feeReaders     = 32
	feeRounds      = 3
	feeRound       = 2 * time.Second
	feeSwaps       = 1000
	feeSwapTraders = 10
)

// launchTraded launches a token from Go on env's chain, trades it both ways and indexes it.
func launchTraded(b *testing.B, env *apptest.Env) (*feetest.Env, feetest.Launched) {
	ch := feetest.Attach(b, env.Chain)
	keys := ch.Keys(2)
	l := ch.Launch(keys[0], crypto.PubkeyToAddress(keys[0].PublicKey), "Bench Coin", "BNCH")
	ch.Trade(keys[1], l)
	require.NoError(b, feeindex.New(env.DB, ch.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID}).CatchUp(context.Background()))
	return ch, l
}

// BenchmarkFeeSnapshotCacheVersusEthCall loads GET /public/amm/token-fees/{token} through the real API
// with its 2-minute cache (32 concurrent clients: every read after the first is served from the cache)
// and, alternately, a direct eth_call of FeesManager.pendingFees(poolId, creator) against the dev chain
// from as many clients, in three alternating 2-second rounds each; it reports both rates and their ratio.
func BenchmarkFeeSnapshotCacheVersusEthCall(b *testing.B) {
	env := apptest.NewWith(b, apptest.Options{Chain: true, NoWorker: true, NoDatabases: true})
	ch, l := launchTraded(b, env)
	ctx := context.Background()
	url := env.URL + "/public/amm/token-fees/" + l.Token.Hex()
	fm := launch.NewFeesManager()
	call := ethereum.CallMsg{To: &devchain.FeesManagerAddress, Data: fm.PackPendingFees(l.PoolID, l.Creator)}
	direct := func(ctx context.Context) error {
		out, err := ch.Client.CallContract(ctx, call, nil)
		if err != nil {
			return err
		}
		_, err = fm.UnpackPendingFees(out)
		return err
	}
	for b.Loop() {
		Load(ctx, feeReaders, time.Second, getReq(url, "")) // warm up both (the first read fills the cache)
		LoadFunc(ctx, feeReaders, time.Second, direct)
		var cached, rpc LoadResult
		for range feeRounds {
			cached = cached.Merge(Load(ctx, feeReaders, feeRound, getReq(url, "")))
			rpc = rpc.Merge(LoadFunc(ctx, feeReaders, feeRound, direct))
		}
		require.Zero(b, cached.Errors+rpc.Errors, "reads failed under load: %v %v", cached.FirstErr, rpc.FirstErr)
		report(b, "cached", cached)
		report(b, "ethcall", rpc)
		b.ReportMetric(cached.RPS()/rpc.RPS(), "ratio")
	}
}

// lagMeter samples the head and the fee indexer's cursor and records, for every block, when it was first
// seen at the head and when the cursor first covered it.
type lagMeter struct {
	mu       sync.Mutex
	seen     map[int64]time.Time
	indexed  map[int64]time.Time
	samples  []int64 // blocks between the head and the cursor, per sample
	lastHead int64
	cursor   int64
}

// sample reads the head and the cursor once.
func (m *lagMeter) sample(ctx context.Context, ch *feetest.Env, ix *feeindex.Indexer) error {
	head, err := ch.Client.BlockNumber(ctx)
	if err != nil {
		return err
	}
	cur, err := ix.Cursor(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	for n := m.lastHead + 1; n <= int64(head); n++ { //nolint:gosec // block numbers fit in int64
		m.seen[n] = now
	}
	m.lastHead = max(m.lastHead, int64(head)) //nolint:gosec // block numbers fit in int64
	for n := m.cursor + 1; n <= cur; n++ {
		m.indexed[n] = now
	}
	m.cursor = max(m.cursor, cur)
	m.samples = append(m.samples, m.lastHead-m.cursor)
	return nil
}

// worst is the largest lag in blocks over the samples and the longest any block waited to be indexed.
func (m *lagMeter) worst() (int64, time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var blocks int64
	var wait time.Duration
	for _, s := range m.samples {
		blocks = max(blocks, s)
	}
	for n, at := range m.indexed {
		if seen, ok := m.seen[n]; ok {
			wait = max(wait, at.Sub(seen))
		}
	}
	return blocks, wait
}

// swapper prepares key to swap on l both ways (WETH wrapped, both tokens approved, some tokens bought).
func swapper(b *testing.B, ch *feetest.Env, key *ecdsa.PrivateKey, l feetest.Launched) {
	weth, token := launch.NewWETH9(), launch.NewLaunchToken()
	ch.Send(key, devchain.WETHAddress, weth.PackDeposit(), new(big.Int).Mul(big.NewInt(100), big.NewInt(params.Ether)))
	ch.Send(key, devchain.WETHAddress, weth.PackApprove(l.Pool, evm.MaxUint256), nil)
	ch.Send(key, l.Token, token.PackApprove(l.Pool, evm.MaxUint256), nil)
}

// swapGas is the gas limit of one swap: a swap costs about 230,000 gas on the dev chain (EIP-8037 prices
// new storage dearly: a trader's first buy writes its balance), so this leaves room to spare.
const swapGas = 600_000

// swapsFrom has key send n swaps on l without waiting between them (consecutive nonces), alternating a
// buy of 0.01 WETH and a sale of a million tokens, then waits for the last one's receipt.
func swapsFrom(ctx context.Context, ch *feetest.Env, key *ecdsa.PrivateKey, l feetest.Launched, n int) error {
	pool := launch.NewLaunchPool()
	who := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := ch.Client.PendingNonceAt(ctx, who)
	if err != nil {
		return fmt.Errorf("read the nonce of %s: %w", who.Hex(), err)
	}
	head, err := ch.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("read the head: %w", err)
	}
	tip := big.NewInt(params.GWei)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(10)), tip) // room for a rising base fee
	buy, sell := big.NewInt(params.Ether/100), new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether))
	var last *types.Transaction
	for i := range n {
		in, amount := devchain.WETHAddress, buy
		if i%2 == 1 {
			in, amount = l.Token, sell
		}
		last, err = evm.Send(ctx, ch.Client, key, big.NewInt(devchain.ChainID), nonce, types.DynamicFeeTx{GasTipCap: tip, GasFeeCap: feeCap,
			Gas: swapGas, To: &l.Pool, Data: pool.PackSwapExactIn(in, amount, big.NewInt(1), who)})
		if err != nil {
			return fmt.Errorf("send swap %d of %s: %w", i, who.Hex(), err)
		}
		nonce = last.Nonce() + 1
	}
	r, err := evm.WaitReceipt(ctx, ch.Client, last.Hash(), nil)
	if err != nil {
		return fmt.Errorf("wait for the last swap of %s: %w", who.Hex(), err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return fmt.Errorf("the last swap of %s reverted", who.Hex())
	}
	return nil
}

// BenchmarkFeeIndexerLag runs the fee indexer as the worker does (feeindex.Indexer.Run, no confirmations
// on the dev chain, its default 1-second wait once caught up) while 10 traders send 1,000 swaps through a
// launch pool, each sending its 100 back to back (consecutive nonces) and then waiting for the last
// receipt, so the dev chain packs them into as few blocks as its gas limit allows; a sampler reads the
// head and the indexer's cursor every 5 ms. It reports the largest lag behind the head in blocks, the
// longest a block waited from reaching the head to being indexed (ms), the lag in blocks when the last
// swap was confirmed, and how long the indexer then took to reach the head (ms); it checks that every
// swap was indexed once.
func BenchmarkFeeIndexerLag(b *testing.B) {
	env := apptest.NewWith(b, apptest.Options{Chain: true, NoWorker: true, NoDatabases: true})
	ch, l := launchTraded(b, env)
	traders := ch.Keys(feeSwapTraders)
	for _, k := range traders {
		swapper(b, ch, k, l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ix := feeindex.New(env.DB, ch.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID})
	stopped := make(chan struct{})
	go func() { defer close(stopped); ix.Run(ctx) }()
	defer func() { cancel(); <-stopped }()
	countSwaps := func() int {
		n, err := env.DB.NewSelect().Table("fee_events").Where("kind = 'swap' AND pool_id = ?", common.Hash(l.PoolID).Hex()).Count(context.Background())
		require.NoError(b, err)
		return int(n)
	}
	before, rounds := countSwaps(), 0

	for b.Loop() {
		rounds++
		start, err := ix.Cursor(ctx)
		require.NoError(b, err)
		m := &lagMeter{seen: map[int64]time.Time{}, indexed: map[int64]time.Time{}, lastHead: start, cursor: start}
		sctx, stopSampling := context.WithCancel(ctx)
		sampled := make(chan error, 1)
		go func() {
			sampled <- sampleEvery(sctx, 5*time.Millisecond, func() error { return m.sample(sctx, ch, ix) })
		}()
		t0 := time.Now()
		require.NoError(b, swapAll(ctx, ch, traders, l))
		sent := time.Since(t0)
		head, err := ch.Client.BlockNumber(ctx)
		require.NoError(b, err)
		atEnd, err := ix.Cursor(ctx)
		require.NoError(b, err)
		endBlocks, doneAt := int64(head)-atEnd, time.Now()                                                                                    //nolint:gosec // block numbers fit in int64
		require.Eventually(b, func() bool { c, err := ix.Cursor(ctx); return err == nil && c >= int64(head) }, time.Minute, time.Millisecond) //nolint:gosec // block numbers fit in int64
		catchUp := time.Since(doneAt)
		stopSampling()
		require.NoError(b, <-sampled)
		maxBlocks, maxWait := m.worst()
		b.ReportMetric(float64(maxBlocks), "max-lag-blocks")
		b.ReportMetric(ms(maxWait), "max-lag-ms")
		b.ReportMetric(float64(endBlocks), "end-lag-blocks")
		b.ReportMetric(ms(catchUp), "end-catchup-ms")
		b.ReportMetric(float64(feeSwaps)/sent.Seconds(), "swaps/s")
		b.Logf("%d swaps in %v (%d blocks); lag max %d blocks / %v; at the end %d blocks, caught up %v later", feeSwaps, sent,
			int64(head)-start, maxBlocks, maxWait, endBlocks, catchUp) //nolint:gosec // block numbers fit in int64
	}
	require.Equal(b, feeSwaps*rounds, countSwaps()-before, "every swap indexed once")
}

// swapAll has every trader send its share of feeSwaps at once and answers the first error.
func swapAll(ctx context.Context, ch *feetest.Env, traders []*ecdsa.PrivateKey, l feetest.Launched) error {
	errs := make(chan error, len(traders))
	var wg sync.WaitGroup
	for _, k := range traders {
		wg.Go(func() { errs <- swapsFrom(ctx, ch, k, l, feeSwaps/len(traders)) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sampleEvery calls f every d until ctx ends (a measurement loop: it waits for nothing).
func sampleEvery(ctx context.Context, d time.Duration, f func() error) error {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		if err := f(); err != nil && ctx.Err() == nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}
