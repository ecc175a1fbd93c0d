package handoff

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/api/serviceerror"

	"github.com/svcplatform/svc/internal/vault"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// DefaultWatchEvery is how often, by default, the vault watcher looks for new acks.
const DefaultWatchEvery = time.Second

// watchLimit bounds how many awaiting handoffs one poll looks at (the oldest first).
const watchLimit = 1000

// Signaler signals workflows (a Temporal client).
type Signaler interface {
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Watcher runs in a worker that has the vault: it polls the acks directories of the transfers of the
// handoffs awaiting their ack and, when one holds an ack, signals workflow handoff/<id> (SignalHandoffAck)
// so the handoff ends acknowledged at once instead of at its next timer. It reads nothing but the
// pending handoffs' ack files, and it signals each handoff once per process (a signal lost with a crash
// only costs the wait for the workflow's own timer). Any receiver's ack counts, however it was written:
// `svc transfers ack`, a collector's POST /transfers/ack or another machine's copy synced in.
type Watcher struct {
	// DB holds the handoffs.
	DB *bun.DB
	// Vault is the worker's copy of the synced vault, where the acks arrive.
	Vault *vault.Vault
	// Engine sends the signals.
	Engine Signaler
	// Every is the interval between two polls (default DefaultWatchEvery).
	Every time.Duration
	// Log receives the failures of polls (default slog.Default()).
	Log *slog.Logger

	mu sync.Mutex
	// signalled holds the handoffs this watcher has signalled while they still await their ack.
	signalled map[string]bool
}

// Run polls every w.Every until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	every := w.Every
	if every <= 0 {
		every = DefaultWatchEvery
	}
	log := w.Log
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := w.Poll(ctx); err != nil && ctx.Err() == nil {
				log.Warn("watch the vault for handoff acks", "err", err)
			}
		}
	}
}

// pendingHandoff is what a poll reads of a handoff awaiting its ack.
type pendingHandoff struct {
	ID         string `bun:"id"`
	TransferID string `bun:"transfer_id"`
}

// Poll looks once at the acks of every handoff awaiting one and signals the workflow of each that has
// an ack and was not signalled before; it answers how many it signalled.
func (w *Watcher) Poll(ctx context.Context) (int, error) {
	var pending []pendingHandoff
	err := w.DB.NewSelect().Model((*schema.Handoff)(nil)).Column("id", "transfer_id").
		Where("status = ? AND transfer_id IS NOT NULL", schema.HandoffAwaitingAck).
		OrderExpr("created_at").Limit(watchLimit).Scan(ctx, &pending)
	if err != nil {
		return 0, fmt.Errorf("list handoffs awaiting an ack: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.forgetEnded(pending)
	n := 0
	for _, h := range pending {
		if w.signalled[h.ID] || !w.acked(h.TransferID) {
			continue
		}
		if err := w.signal(ctx, h.ID); err != nil {
			return n, err
		}
		w.signalled[h.ID] = true
		n++
	}
	return n, nil
}

// forgetEnded drops from signalled the handoffs no longer pending (so the set stays small).
func (w *Watcher) forgetEnded(pending []pendingHandoff) {
	still := make(map[string]bool, len(pending))
	for _, h := range pending {
		if w.signalled[h.ID] {
			still[h.ID] = true
		}
	}
	w.signalled = still
}

// acked reports whether transfer id has an ack file that parses (as the workflow's check counts them).
func (w *Watcher) acked(transferID string) bool {
	acks, err := w.Vault.Acks(transferID)
	return err == nil && len(acks) > 0
}

// signal wakes workflow handoff/<id>. A workflow that is not running (it ended, or its start was lost
// and the sweep will start it, when its first check sees the ack) needs no signal.
func (w *Watcher) signal(ctx context.Context, id string) error {
	err := w.Engine.SignalWorkflow(ctx, workflows.HandoffWorkflowID(id), "", workflows.SignalHandoffAck, nil)
	var notFound *serviceerror.NotFound
	if err != nil && !errors.As(err, &notFound) {
		return fmt.Errorf("signal the ack of handoff %s: %w", id, err)
	}
	return nil
}
