package autotopup

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/internal/club"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/workflows"
)

// Engine starts and signals workflows (the Temporal client).
type Engine interface {
	SignalWithStartWorkflow(ctx context.Context, workflowID, signalName string, signalArg any,
		options sdkclient.StartWorkflowOptions, workflow any, workflowArgs ...any) (sdkclient.WorkflowRun, error)
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Start starts the account's workflow autotopup/<accountId> with a check now, or signals the running
// one to check now (after the setting was enabled or changed). A workflow that ended (disabled before)
// is started again.
func Start(ctx context.Context, e Engine, accountID string) error {
	opts := sdkclient.StartWorkflowOptions{ID: workflows.AutoTopUpWorkflowID(accountID), TaskQueue: workflows.TaskQueue,
		StaticSummary: "auto top-up of " + accountID + "'s credits from its launch fees"}
	_, err := e.SignalWithStartWorkflow(ctx, opts.ID, workflows.AutoTopUpCheckSignal, nil, opts, workflows.AutoTopUpWorkflowName,
		workflows.AutoTopUpParams{AccountID: accountID})
	if err != nil {
		return fmt.Errorf("start auto top-up of %s: %w", accountID, err)
	}
	return nil
}

// Notify asks the account's running workflow to check now (after the setting was disabled, it ends);
// a workflow that is not running has nothing to check.
func Notify(ctx context.Context, e Engine, accountID string) error {
	err := e.SignalWorkflow(ctx, workflows.AutoTopUpWorkflowID(accountID), "", workflows.AutoTopUpCheckSignal, nil)
	var missing *serviceerror.NotFound
	if err != nil && !errors.As(err, &missing) {
		return fmt.Errorf("notify auto top-up of %s: %w", accountID, err)
	}
	return nil
}

// Watcher signals an account's auto top-up after charges left its balance under the threshold, off the
// charging path: Charged only queues the account (dropped when the queue is full); a goroutine reads the
// setting and the balance at most once per account every Every and signals when they call for a round.
type Watcher struct {
	db     *bun.DB
	engine Engine
	log    *slog.Logger
	every  time.Duration
	queue  chan string

	mu   sync.Mutex
	seen map[string]time.Time
}

// NewWatcher returns a watcher checking each account at most once every every (a minute when 0); Run
// runs it.
func NewWatcher(db *bun.DB, e Engine, log *slog.Logger, every time.Duration) *Watcher {
	if every <= 0 {
		every = time.Minute
	}
	if log == nil {
		log = slog.Default()
	}
	return &Watcher{db: db, engine: e, log: log, every: every, queue: make(chan string, 1024), seen: map[string]time.Time{}}
}

// Charged notes that the account was charged; it never blocks.
func (w *Watcher) Charged(accountID string) {
	if w == nil {
		return
	}
	now := time.Now()
	w.mu.Lock()
	last, ok := w.seen[accountID]
	fresh := !ok || now.Sub(last) >= w.every
	if fresh {
		w.seen[accountID] = now
	}
	w.mu.Unlock()
	if !fresh {
		return
	}
	select {
	case w.queue <- accountID:
	default:
	}
}

// Run checks queued accounts until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	prune := time.NewTicker(10 * w.every)
	defer prune.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-prune.C:
			w.prune(time.Now())
		case id := <-w.queue:
			if err := w.check(ctx, id); err != nil && ctx.Err() == nil {
				w.log.Warn("auto top-up: check after a charge", slog.String("accountId", id), slog.Any("err", err))
			}
		}
	}
}

// check signals the account's workflow when its auto top-up is enabled and its balance under the threshold.
func (w *Watcher) check(ctx context.Context, accountID string) error {
	set, err := club.NewStore(w.db).GetAutoTopUp(ctx, accountID)
	if err != nil || !set.Enabled {
		return err
	}
	b, err := ledger.New(w.db).Balance(ctx, accountID)
	if err != nil || b.Available >= set.Below*1000 {
		return err
	}
	return Notify(ctx, w.engine, accountID)
}

// prune forgets accounts not charged for a while.
func (w *Watcher) prune(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, t := range w.seen {
		if now.Sub(t) >= w.every {
			delete(w.seen, id)
		}
	}
}
