package delivery

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/webhook"
	"github.com/svcplatform/svc/schema"
)

// Defaults of DispatcherOptions.
const (
	DefaultPollInterval  = 200 * time.Millisecond
	DefaultBatch         = 200
	DefaultSweepInterval = 10 * time.Second
	// sweepAge leaves a just-recorded delivery to the dispatcher that is starting it.
	sweepAge = 5 * time.Second
)

// DispatcherOptions tune a Dispatcher.
type DispatcherOptions struct {
	// PollInterval is how often undispatched events are looked for while there are none.
	PollInterval time.Duration
	// Batch is how many events one transaction takes.
	Batch int
	// SweepInterval is how often unstarted deliveries are looked for (also once at start).
	SweepInterval time.Duration
	// RetryScale shortens the retry schedule of the deliveries it starts (tests); 0 keeps it.
	RetryScale float64
	Log        *slog.Logger
}

// Dispatcher turns events of the outbox into deliveries. Each pass, in one transaction, takes the
// oldest undispatched events (FOR UPDATE SKIP LOCKED, so dispatchers of several workers share the work
// without taking the same event), records a delivery for every enabled endpoint of the event's account
// and project subscribed to its type and registered before it happened, and marks the events
// dispatched; after the commit it wakes the endpoints' delivery loops. A crash after the commit leaves
// deliveries pending and unstarted, whose loops the sweep wakes; a crash before it dispatches the events
// again, and the delivery ids (derived from event and endpoint) make that insert nothing twice.
//
// Of a pass's deliveries to one endpoint, only the first is recorded unstarted (its wake-up marker) and
// marked started once the loop is woken: one unstarted row is enough for the sweep to wake the loop,
// whose batches take every due delivery of the endpoint, marked or not. Marking every delivery (4,000
// rows a pass for 20 endpoints) rewrote rows the loops were claiming and held the next pass back.
type Dispatcher struct {
	db    *bun.DB
	store *Store
	opts  DispatcherOptions
}

// NewDispatcher returns a Dispatcher on db starting workflows with engine.
func NewDispatcher(db *bun.DB, engine Engine, opts DispatcherOptions) *Dispatcher {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.Batch <= 0 {
		opts.Batch = DefaultBatch
	}
	if opts.SweepInterval <= 0 {
		opts.SweepInterval = DefaultSweepInterval
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Dispatcher{db: db, store: NewStore(db, engine).WithRetryScale(opts.RetryScale), opts: opts}
}

// Run dispatches until ctx ends: at once again while events keep coming, else every PollInterval; it
// sweeps unstarted deliveries at start and every SweepInterval. Errors are logged and retried.
func (d *Dispatcher) Run(ctx context.Context) {
	nextSweep := time.Time{}
	for ctx.Err() == nil {
		if time.Now().After(nextSweep) {
			if _, err := d.store.Sweep(ctx, sweepAge, d.opts.Batch); err != nil && ctx.Err() == nil {
				d.opts.Log.Warn("webhook dispatcher: sweep", "err", err)
			}
			nextSweep = time.Now().Add(d.opts.SweepInterval)
		}
		n, err := d.Dispatch(ctx)
		if err != nil && ctx.Err() == nil {
			d.opts.Log.Warn("webhook dispatcher", "err", err)
		}
		if n < d.opts.Batch || err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(d.opts.PollInterval):
			}
		}
	}
}

// Dispatch makes one pass and reports how many events it took. The loops of the endpoints of the
// deliveries it recorded are woken after the commit; one that cannot be woken is left to the sweep.
func (d *Dispatcher) Dispatch(ctx context.Context) (int, error) {
	var events []schema.Event
	var deliveries []schema.WebhookDelivery
	err := d.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		events, deliveries = nil, nil
		err := tx.NewSelect().Model(&events).Column("seq", "id", "account_id", "project_id", "type", "created_at").
			Where("dispatched_at IS NULL").Order("seq").Limit(int64(d.opts.Batch)).For("UPDATE SKIP LOCKED").Scan(ctx)
		if err != nil {
			return fmt.Errorf("take events: %w", err)
		}
		if len(events) == 0 {
			return nil
		}
		accounts := make([]string, 0, len(events))
		eventIDs := make([]string, len(events))
		for i, ev := range events {
			accounts = append(accounts, ev.AccountID)
			eventIDs[i] = ev.ID
		}
		var hooks []schema.Webhook
		err = tx.NewSelect().Model(&hooks).Column("id", "account_id", "project_id", "events", "created_at").
			Where("enabled AND account_id IN (?)", bun.List(accounts)).Order("created_at", "id").Scan(ctx)
		if err != nil {
			return fmt.Errorf("find webhooks: %w", err)
		}
		deliveries = match(events, hooks)
		if err := Insert(ctx, tx, deliveries); err != nil {
			return err
		}
		_, err = tx.NewUpdate().Table("events").Set("dispatched_at = now()").Where("id IN (?)", bun.List(eventIDs)).Exec(ctx)
		if err != nil {
			return fmt.Errorf("mark events dispatched: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if err := d.store.Start(ctx, deliveries...); err != nil {
		return len(events), err
	}
	return len(events), nil
}

// match returns a pending delivery for each pair of event and endpoint of its scope that is subscribed
// to its type and was registered before the event happened, in event order. The first delivery of each
// endpoint is its wake-up marker (WorkflowStarted false); the others are marked started already.
func match(events []schema.Event, hooks []schema.Webhook) []schema.WebhookDelivery {
	var out []schema.WebhookDelivery
	now := time.Now().UTC()
	marked := make(map[string]bool, len(hooks))
	for _, ev := range events {
		for _, w := range hooks {
			if w.AccountID != ev.AccountID || !sameProject(w.ProjectID, ev.ProjectID) ||
				w.CreatedAt.After(ev.CreatedAt) || !webhook.Subscribed(w.Events, ev.Type) {
				continue
			}
			out = append(out, schema.WebhookDelivery{ID: EventID(ev.ID, w.ID), AccountID: ev.AccountID, ProjectID: ev.ProjectID,
				WebhookID: w.ID, EventID: ev.ID, EventType: ev.Type, Status: StatusPending, NextAttemptAt: &now,
				WorkflowStarted: marked[w.ID]})
			marked[w.ID] = true
		}
	}
	return out
}

func sameProject(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
