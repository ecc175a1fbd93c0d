package devchain

import (
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/log"
)

// maxDrift is how far (in seconds) block timestamps may run ahead of the wall clock. Every block is at
// least a second after its parent, so a burst of one block per transaction would push chain time ahead
// of real time and expire authorizations early (x402 validBefore); past this drift the producer waits
// for the clock and seals every transaction pending by then into one block.
const maxDrift = 2

// maxSealRounds bounds the blocks sealed for one wake-up while transactions
// stay pending (e.g. a fee cap below the base fee, which falls with every
// block), so an unminable transaction cannot make the producer spin.
const maxSealRounds = 64

// producer mines on demand: it seals blocks through the simulated beacon as
// soon as the pool holds executable transactions. geth's own on-demand loop
// (registered with the beacon's dev API) can still seal while the node shuts
// down and then crashes on the closed chain; this one is stopped, and waited
// for, before the node closes.
type producer struct {
	beacon *catalyst.SimulatedBeacon
	pool   *txpool.TxPool
	db     ethdb.KeyValueSyncer
	chain  *core.BlockChain
	kick   chan struct{} // one pending wake-up at most
	stop   chan struct{}
	wg     sync.WaitGroup
}

// startProducer subscribes to new pool transactions and starts sealing; it
// also seals anything already pending.
func startProducer(beacon *catalyst.SimulatedBeacon, pool *txpool.TxPool, db ethdb.KeyValueSyncer, chain *core.BlockChain) *producer {
	p := &producer{beacon: beacon, pool: pool, db: db, chain: chain, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	txs := make(chan core.NewTxsEvent)
	sub := pool.SubscribeTransactions(txs, false)
	p.wake()
	p.wg.Add(2)
	go p.listen(txs, sub.Err(), sub.Unsubscribe)
	go p.seal()
	return p
}

// listen turns pool events into wake-ups. It never blocks on sealing, so
// the pool's event feed is never held up.
func (p *producer) listen(txs <-chan core.NewTxsEvent, subErr <-chan error, unsubscribe func()) {
	defer p.wg.Done()
	defer unsubscribe()
	for {
		select {
		case <-p.stop:
			return
		case <-subErr:
			return
		case <-txs:
			p.wake()
		}
	}
}

// wake asks the sealer for a round unless one is already queued.
func (p *producer) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// seal runs sealing rounds on wake-ups until stopped.
func (p *producer) seal() {
	defer p.wg.Done()
	for {
		select {
		case <-p.stop:
			return
		case <-p.kick:
			p.sealPending()
		}
	}
}

// sealPending seals blocks while the pool has executable transactions, then
// syncs the database so the new blocks survive even a killed process.
func (p *producer) sealPending() {
	sealed := false
	defer func() {
		if sealed {
			p.sync()
		}
	}()
	for range maxSealRounds {
		if err := p.pool.Sync(); err != nil { // wait for the pool to catch up with the head
			return
		}
		if executable, _ := p.pool.Stats(); executable == 0 {
			return
		}
		select {
		case <-p.stop:
			return
		case <-time.After(p.clockWait()):
			p.beacon.Commit()
			sealed = true
		}
	}
}

// clockWait is how long to wait before sealing so the next block's timestamp (at least its parent's
// plus one second) stays within maxDrift of the wall clock; zero when it already does.
func (p *producer) clockWait() time.Duration {
	next := int64(p.chain.CurrentBlock().Time) + 1
	return max(0, time.Until(time.Unix(next-maxDrift, 0)))
}

// sync flushes the database's write-ahead log to disk. geth writes without
// fsync; state is written through on every block (archive mode), so this
// is all that stands between a kill -9 and losing the last blocks.
func (p *producer) sync() {
	if err := p.db.SyncKeyValue(); err != nil {
		log.Warn("Dev chain could not sync its database", "err", err)
	}
}

// close stops the producer and waits until no block is being sealed.
func (p *producer) close() {
	close(p.stop)
	p.wg.Wait()
}
