package ledger

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svcplatform/svc/internal/ids"
)

// maxBatch bounds how many holds of one account share a statement.
const maxBatch = 64

// batcher combines concurrent holds of one account into one statement, so the account's balance row
// is locked and committed once for many calls instead of once per call. The first hold of an account
// runs at once; holds that arrive while it runs go together in the next statement.
type batcher struct {
	mu       sync.Mutex
	accounts map[string]*holdQueue
	// batches counts statements that posted more than one hold (for tests and diagnostics).
	batches atomic.Int64
}

type holdQueue struct {
	waiting []*holdRequest
}

type holdRequest struct {
	hold      Hold
	reference string
	done      chan error
}

// hold queues one hold and returns its outcome; run executes a batch, single one hold.
func (b *batcher) hold(h Hold, reference string, run func([]*holdRequest) error, single func(*holdRequest) error) error {
	req := &holdRequest{hold: h, reference: reference, done: make(chan error, 1)}
	b.mu.Lock()
	if b.accounts == nil {
		b.accounts = map[string]*holdQueue{}
	}
	q, busy := b.accounts[h.AccountID]
	if !busy {
		q = &holdQueue{}
		b.accounts[h.AccountID] = q
	}
	q.waiting = append(q.waiting, req)
	b.mu.Unlock()
	if !busy {
		b.drain(h.AccountID, q, run, single)
	}
	return <-req.done
}

// drain runs one batch of the account's waiting holds; holds that arrived meanwhile are run by a new
// goroutine, so no caller waits for holds that came after its own.
func (b *batcher) drain(accountID string, q *holdQueue, run func([]*holdRequest) error, single func(*holdRequest) error) {
	b.mu.Lock()
	batch := q.waiting[:min(len(q.waiting), maxBatch)]
	q.waiting = q.waiting[len(batch):]
	b.mu.Unlock()
	b.settle(batch, run, single)
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(q.waiting) == 0 {
		delete(b.accounts, accountID)
		return
	}
	go b.drain(accountID, q, run, single)
}

// settle runs a batch; when the batch as a whole cannot be afforded (or fails), each hold runs alone,
// so every caller gets exactly the answer it would have got by itself.
func (b *batcher) settle(batch []*holdRequest, run func([]*holdRequest) error, single func(*holdRequest) error) {
	if len(batch) > 1 {
		if err := run(batch); err == nil {
			b.batches.Add(1)
			for _, r := range batch {
				r.done <- nil
			}
			return
		}
	}
	for _, r := range batch {
		r.done <- single(r)
	}
}

// holdBatch posts several holds of one account in one statement; a CHECK violation means the sum does
// not fit (some may, alone).
func (l *Ledger) holdBatch(batch []*holdRequest) error {
	accountID := batch[0].hold.AccountID
	var values strings.Builder
	args := []any{accountID, BookAvailable, BookHeld}
	for i, r := range batch {
		if i > 0 {
			values.WriteString(", ")
		}
		n := 3 + 4*i
		fmt.Fprintf(&values, "(?%d::text, ?%d::text, ?%d::text, ?%d::bigint)", n, n+1, n+2, n+3)
		args = append(args, ids.Derive("ltx", accountID, KindHold, r.reference), r.reference, r.hold.ID, r.hold.Millicredits)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := l.db.NewRaw(`WITH v (tx_id, reference, hold_id, amount) AS (VALUES `+values.String()+`),
		t AS (INSERT INTO ledger_transactions (id, account_id, kind, reference)
			SELECT v.tx_id, ?0, 'hold', v.reference FROM v ON CONFLICT (account_id, kind, reference) DO NOTHING RETURNING id),
		n AS (SELECT v.* FROM v JOIN t ON t.id = v.tx_id),
		p AS (INSERT INTO ledger_postings (transaction_id, book, millicredits)
			SELECT n.tx_id, ?1, -n.amount FROM n UNION ALL SELECT n.tx_id, ?2, n.amount FROM n),
		h AS (INSERT INTO credit_holds (id, account_id, millicredits, reference) SELECT n.hold_id, ?0, n.amount, n.reference FROM n)
		UPDATE credit_balances SET available = available - (SELECT sum(amount) FROM n), updated_at = now()
		WHERE account_id = ?0 AND EXISTS (SELECT 1 FROM n)`, args...).Exec(ctx)
	if err != nil {
		return fmt.Errorf("hold batch: %w", err)
	}
	return nil
}
