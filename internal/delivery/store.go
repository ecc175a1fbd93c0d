// Package delivery delivers events of the outbox to webhook endpoints. The Dispatcher turns undispatched
// events into deliveries (one per subscribed, enabled endpoint of the event's scope), due at once, and
// wakes each endpoint's delivery loop (workflows.WebhookLoopWorkflow), whose batches claim the due
// deliveries (Claim), send them (Sender) and record them (RecordBatch). The Sender signs the event
// envelope with client.SignWebhook and POSTs it through the outbound guard; the Store keeps deliveries
// and their attempts, lists them, replays them, and applies what attempts teach about endpoints (410
// Gone, or failing continuously for FailingLimit, disables one and records webhook.disabled).
package delivery

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/webhook"
	"github.com/svcplatform/svc/schema"
	svctemporal "github.com/svcplatform/svc/temporal"
	"github.com/svcplatform/svc/workflows"
)

// IDPrefix is the prefix of delivery ids (dlv_...).
const IDPrefix = "dlv"

// Delivery statuses.
const (
	StatusPending   = workflows.DeliveryPending
	StatusSucceeded = workflows.DeliverySucceeded
	StatusFailed    = workflows.DeliveryFailed
)

// Reasons an endpoint is disabled by its deliveries.
const (
	DisabledGone    = "410 Gone"
	DisabledFailing = "failing continuously for 5 days"
)

// FailingLimit is how long an endpoint may fail continuously (no successful attempt) before it is
// disabled.
const FailingLimit = 5 * 24 * time.Hour

// ErrMissing is the error of a delivery id that has no row.
var ErrMissing = errors.New("no such delivery")

// EventID returns the id of the delivery of an event to an endpoint: the same pair always gives the
// same id, so a dispatch that is repeated after a crash inserts nothing new.
func EventID(eventID, webhookID string) string { return ids.Derive(IDPrefix, eventID, webhookID) }

// Engine is the part of the Temporal client that wakes (starting when needed) endpoints' delivery loops.
type Engine interface {
	SignalWithStartWorkflow(ctx context.Context, workflowID, signalName string, signalArg any,
		opts sdkclient.StartWorkflowOptions, workflow any, workflowArgs ...any) (sdkclient.WorkflowRun, error)
}

// Delivery is a delivery with its attempts, oldest first.
type Delivery struct {
	schema.WebhookDelivery
	Attempts []schema.WebhookAttempt
}

// ToWire converts a delivery and its attempts to the API's shape.
func ToWire(d Delivery) client.WebhookDelivery {
	out := client.WebhookDelivery{ID: d.ID, WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType, Status: d.Status,
		ReplayOf: d.ReplayOf, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(), Attempts: make([]client.WebhookAttempt, len(d.Attempts))}
	if d.CompletedAt != nil {
		t := d.CompletedAt.UTC()
		out.CompletedAt = &t
	}
	for i, a := range d.Attempts {
		out.Attempts[i] = client.WebhookAttempt{Number: a.Number, StartedAt: a.StartedAt.UTC(), HTTPStatus: a.HTTPStatus,
			LatencyMs: a.LatencyMs, Error: a.Error}
	}
	return out
}

// Store keeps deliveries and their attempts.
type Store struct {
	db     bun.IDB
	engine Engine
	// retryScale shortens the retry schedule of the workflows it starts (see workflows.DeliveryParams).
	retryScale float64
}

// NewStore returns a Store on db that starts workflows with engine (nil where none start, as in the
// activities).
func NewStore(db bun.IDB, engine Engine) *Store { return &Store{db: db, engine: engine} }

// WithRetryScale makes the deliveries it starts wait scale times the schedule's steps (0 < scale < 1:
// tests that cannot wait minutes). It returns s.
func (s *Store) WithRetryScale(scale float64) *Store {
	s.retryScale = scale
	return s
}

// Insert records deliveries in db (the dispatcher's transaction) in one statement whatever their number
// (their columns as arrays, unnested: a dispatch of 200 events to 20 endpoints is 4,000 rows, which as
// a VALUES list took seconds to send and parse); one recorded before is left as it was.
func Insert(ctx context.Context, db bun.IDB, ds []schema.WebhookDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	n := len(ds)
	ids, accounts, projects, hooks := make([]string, n), make([]string, n), make([]*string, n), make([]string, n)
	events, types, statuses, replays := make([]string, n), make([]string, n), make([]string, n), make([]*string, n)
	started, nexts := make([]bool, n), make([]*time.Time, n)
	for i, d := range ds {
		ids[i], accounts[i], projects[i], hooks[i] = d.ID, d.AccountID, d.ProjectID, d.WebhookID
		events[i], types[i], statuses[i], replays[i] = d.EventID, d.EventType, cmp.Or(d.Status, StatusPending), d.ReplayOf
		started[i], nexts[i] = d.WorkflowStarted, d.NextAttemptAt
	}
	_, err := db.NewRaw(`INSERT INTO webhook_deliveries (id, account_id, project_id, webhook_id, event_id, event_type, status,
			replay_of, workflow_started, next_attempt_at)
		SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
			?::boolean[], ?::timestamptz[])
		ON CONFLICT (id) DO NOTHING`,
		pgdialect.Array(ids), pgdialect.Array(accounts), pgdialect.Array(projects), pgdialect.Array(hooks),
		pgdialect.Array(events), pgdialect.Array(types), pgdialect.Array(statuses), pgdialect.Array(replays),
		pgdialect.Array(started), pgdialect.Array(nexts)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record %d deliveries: %w", n, err)
	}
	return nil
}

// startConcurrency bounds how many endpoints' loops one Start wakes at once: a signal-with-start is a
// round trip to Temporal (~25 ms here).
const startConcurrency = 16

// Start wakes the delivery loop of each endpoint the deliveries are for (signal-with-start of
// webhook/<webhookId>: started when not running) and marks those of its deliveries not marked yet
// started (the dispatcher leaves one a pass per endpoint unmarked, see Dispatcher). Waking a loop again
// is harmless: its next batch finds what is due. It returns the first error; deliveries of an endpoint
// it could not wake stay unstarted for the next Sweep.
func (s *Store) Start(ctx context.Context, ds ...schema.WebhookDelivery) error {
	byHook := map[string][]string{}
	var firsts []*schema.WebhookDelivery
	for i := range ds {
		if _, ok := byHook[ds[i].WebhookID]; !ok {
			firsts = append(firsts, &ds[i])
			byHook[ds[i].WebhookID] = nil
		}
		if !ds[i].WorkflowStarted {
			byHook[ds[i].WebhookID] = append(byHook[ds[i].WebhookID], ds[i].ID)
		}
	}
	errs := make([]error, len(firsts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, startConcurrency)
	for i := range firsts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = s.wake(ctx, firsts[i])
		}()
	}
	wg.Wait()
	var firstErr error
	started := make([]string, 0, len(ds))
	for i, err := range errs {
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		started = append(started, byHook[firsts[i].WebhookID]...)
	}
	if len(started) > 0 {
		_, err := s.db.NewUpdate().Table("webhook_deliveries").Set("workflow_started = true").
			Where("id IN (?)", bun.List(started)).Exec(ctx)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("mark deliveries started: %w", err)
		}
	}
	return firstErr
}

// wake signals the loop of d's endpoint, starting it when it is not running.
func (s *Store) wake(ctx context.Context, d *schema.WebhookDelivery) error {
	attrs := []sdktemporal.SearchAttributeUpdate{svctemporal.KeyAccountID.ValueSet(d.AccountID)}
	if d.ProjectID != nil {
		attrs = append(attrs, svctemporal.KeyProjectID.ValueSet(*d.ProjectID))
	}
	opts := sdkclient.StartWorkflowOptions{
		ID:                    workflows.WebhookLoopWorkflowID(d.WebhookID),
		TaskQueue:             workflows.TaskQueue,
		WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		TypedSearchAttributes: sdktemporal.NewSearchAttributes(attrs...),
		Memo:                  map[string]any{"webhookId": d.WebhookID},
		StaticSummary:         "webhook deliveries to " + d.WebhookID,
	}
	_, err := s.engine.SignalWithStartWorkflow(ctx, opts.ID, workflows.SignalDeliveriesDue, nil, opts,
		workflows.WebhookLoopWorkflowName, workflows.WebhookLoopParams{WebhookID: d.WebhookID, RetryScale: s.retryScale})
	if err != nil {
		return fmt.Errorf("wake the delivery loop of webhook %s: %w", d.WebhookID, err)
	}
	return nil
}

// Sweep wakes the loops of pending deliveries created before olderThan ago that were never marked
// started (a crash between recording and starting them, or a start Temporal refused), up to limit.
func (s *Store) Sweep(ctx context.Context, olderThan time.Duration, limit int) (int, error) {
	var ds []schema.WebhookDelivery
	err := s.db.NewSelect().Model(&ds).
		Where("NOT workflow_started AND status = ?", StatusPending).
		Where("created_at < now() - ?::interval", fmt.Sprintf("%d milliseconds", olderThan.Milliseconds())).
		Order("created_at").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return 0, fmt.Errorf("find unstarted deliveries: %w", err)
	}
	return len(ds), s.Start(ctx, ds...)
}

// ByID returns the delivery with the id, whatever its scope (for the workflow's activities).
func (s *Store) ByID(ctx context.Context, id string) (*schema.WebhookDelivery, error) {
	d := new(schema.WebhookDelivery)
	err := s.db.NewSelect().Model(d).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("delivery %s: %w", id, ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("load delivery %s: %w", id, err)
	}
	return d, nil
}

// Finish records a pending delivery's final status; a finished delivery keeps the status it has.
func (s *Store) Finish(ctx context.Context, id, status string) error {
	if status != StatusSucceeded && status != StatusFailed {
		return fmt.Errorf("finish delivery %s: bad status %q", id, status)
	}
	res, err := s.db.NewUpdate().Table("webhook_deliveries").
		Set("status = ?", status).Set("completed_at = now()").Set("updated_at = now()").
		Where("id = ? AND status = ?", id, StatusPending).Exec(ctx)
	if err != nil {
		return fmt.Errorf("finish delivery %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		_, err := s.ByID(ctx, id)
		return err
	}
	return nil
}

// Attempt is the outcome of one HTTP call of a delivery.
type Attempt struct {
	Number    int
	StartedAt time.Time
	Latency   time.Duration
	// HTTPStatus is the endpoint's answer; 0 when none came.
	HTTPStatus int
	// Error says why the attempt failed; "" on success.
	Error string
}

// Succeeded reports whether the attempt was answered with a 2xx.
func (a Attempt) Succeeded() bool { return a.Error == "" && a.HTTPStatus >= 200 && a.HTTPStatus < 300 }

// RecordAttempt records an attempt of the delivery and what it teaches about the endpoint, in one
// transaction: a success ends the endpoint's failing streak; a failure starts one (failing_since) or
// continues it; 410 Gone, or a streak of FailingLimit, disables the endpoint and records a
// webhook.disabled event. It reports whether the endpoint is now disabled. Recording an attempt again
// (a retried activity) overwrites it.
func (s *Store) RecordAttempt(ctx context.Context, d *schema.WebhookDelivery, a Attempt) (disabled bool, err error) {
	row := &schema.WebhookAttempt{DeliveryID: d.ID, Number: a.Number, StartedAt: a.StartedAt.UTC(), LatencyMs: a.Latency.Milliseconds()}
	if a.HTTPStatus != 0 {
		row.HTTPStatus = &a.HTTPStatus
	}
	if a.Error != "" {
		row.Error = &a.Error
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewInsert().Model(row).
			On("CONFLICT (delivery_id, number) DO UPDATE").
			Set("started_at = EXCLUDED.started_at, http_status = EXCLUDED.http_status, latency_ms = EXCLUDED.latency_ms, error = EXCLUDED.error").
			Exec(ctx)
		if err != nil {
			return fmt.Errorf("record attempt %d of delivery %s: %w", a.Number, d.ID, err)
		}
		if _, err := tx.NewUpdate().Table("webhook_deliveries").Set("updated_at = now()").Where("id = ?", d.ID).Exec(ctx); err != nil {
			return fmt.Errorf("touch delivery %s: %w", d.ID, err)
		}
		if a.Succeeded() {
			// No lock is taken while the endpoint is healthy: the WHERE matches no row.
			_, err := tx.NewUpdate().Table("webhooks").Set("failing_since = NULL").
				Where("id = ? AND failing_since IS NOT NULL", d.WebhookID).Exec(ctx)
			if err != nil {
				return fmt.Errorf("reset webhook %s failing streak: %w", d.WebhookID, err)
			}
			return nil
		}
		disabled, err = failed(ctx, tx, d, a)
		return err
	})
	return disabled, err
}

// failed applies a failed attempt to the endpoint in tx and reports whether it is disabled.
func failed(ctx context.Context, tx bun.Tx, d *schema.WebhookDelivery, a Attempt) (bool, error) {
	w := new(schema.Webhook)
	err := tx.NewUpdate().Model(w).Set("failing_since = COALESCE(failing_since, ?)", a.StartedAt.UTC()).
		Where("id = ?", d.WebhookID).Returning("*").Scan(ctx)
	if err != nil {
		return false, fmt.Errorf("note webhook %s failing: %w", d.WebhookID, err)
	}
	if !w.Enabled {
		return true, nil
	}
	reason := ""
	switch {
	case a.HTTPStatus == 410:
		reason = DisabledGone
	case w.FailingSince != nil && a.StartedAt.Sub(*w.FailingSince) >= FailingLimit:
		reason = DisabledFailing
	default:
		return false, nil
	}
	err = tx.NewUpdate().Model(w).
		Set("enabled = false").Set("disabled_reason = ?", reason).Set("failing_since = NULL").Set("updated_at = now()").
		Where("id = ?", w.ID).Returning("*").Scan(ctx)
	if err != nil {
		return false, fmt.Errorf("disable webhook %s: %w", w.ID, err)
	}
	ev := outbox.Event{AccountID: w.AccountID, ProjectID: w.ProjectID, Type: outbox.WebhookDisabled,
		Subject: fmt.Sprintf("%s#%d", d.ID, a.Number), Data: WebhookData(w)}
	if err := outbox.Emit(ctx, tx, ev); err != nil {
		return false, err
	}
	return true, nil
}

// WebhookData is the data of webhook.disabled: the endpoint as the API shows it (webhook.ToWire), without
// secrets and, as this event has always been, without previousSecretExpiresAt.
func WebhookData(w *schema.Webhook) client.Webhook {
	out := webhook.ToWire(webhook.FromRow(w))
	out.PreviousSecretExpiresAt = nil
	return out
}

// Replay records a fresh delivery with the id of the same event to the same endpoint as the delivery
// with the id in the scope (not_found otherwise), due at once, and wakes the endpoint's loop. The
// endpoint must be enabled (conflict otherwise). Replaying with the same id again (a retried request)
// answers the first replay.
// Should the wake-up fail, the delivery stays recorded and the dispatcher's sweep wakes the loop.
func (s *Store) Replay(ctx context.Context, scope tenant.Scope, deliveryID, id string) (Delivery, error) {
	var d schema.WebhookDelivery
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var orig schema.WebhookDelivery
		err := scope.Where(tx.NewSelect().Model(&orig)).Where("id = ?", deliveryID).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return svcerr.NotFoundf("no webhook delivery %q", deliveryID)
		}
		if err != nil {
			return fmt.Errorf("load delivery %s: %w", deliveryID, err)
		}
		if err := tx.NewSelect().Model(&d).Where("id = ?", id).Scan(ctx); err == nil {
			return nil // a retried replay
		} else if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("load delivery %s: %w", id, err)
		}
		var enabled bool
		err = tx.NewSelect().Table("webhooks").Column("enabled").Where("id = ?", orig.WebhookID).For("SHARE").Scan(ctx, &enabled)
		if err != nil {
			return fmt.Errorf("load webhook %s: %w", orig.WebhookID, err)
		}
		if !enabled {
			return svcerr.New(svcerr.Conflict, "webhook %s is disabled; enable it before replaying its deliveries", orig.WebhookID)
		}
		now := time.Now().UTC()
		d = schema.WebhookDelivery{ID: id, AccountID: orig.AccountID, ProjectID: orig.ProjectID, WebhookID: orig.WebhookID,
			EventID: orig.EventID, EventType: orig.EventType, Status: StatusPending, ReplayOf: &orig.ID, NextAttemptAt: &now}
		_, err = tx.NewInsert().Model(&d).Returning("created_at, updated_at").Exec(ctx)
		if err != nil {
			return fmt.Errorf("record replay of %s: %w", deliveryID, err)
		}
		return nil
	})
	if err != nil {
		return Delivery{}, err
	}
	if !d.WorkflowStarted && d.Status == StatusPending {
		if err := s.Start(ctx, d); err == nil {
			d.WorkflowStarted = true
		}
	}
	return Delivery{WebhookDelivery: d, Attempts: []schema.WebhookAttempt{}}, nil
}

// Filter selects the deliveries List returns. Empty fields match every delivery.
type Filter struct {
	// Scope is the caller's account and project; deliveries of other scopes are never listed.
	Scope     tenant.Scope
	WebhookID string
	EventType string
	Status    string
	// From (inclusive) and To (exclusive) bound the creation time.
	From, To *time.Time
}

// List returns the deliveries matching f, newest first, each with its attempts, one page at a time,
// and the cursor of the next page (nil on the last page).
func (s *Store) List(ctx context.Context, f Filter, p page.Params) ([]Delivery, *string, error) {
	rows := []schema.WebhookDelivery{}
	q := f.Scope.Where(s.db.NewSelect().Model(&rows))
	for _, eq := range []struct{ col, val string }{
		{"webhook_id", f.WebhookID}, {"event_type", f.EventType}, {"status", f.Status},
	} {
		if eq.val != "" {
			q = q.Where("? = ?", bun.Ident(eq.col), eq.val)
		}
	}
	if f.From != nil {
		q = q.Where("created_at >= ?", *f.From)
	}
	if f.To != nil {
		q = q.Where("created_at < ?", *f.To)
	}
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1)).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list deliveries: %w", err)
	}
	rows, next := page.Next(p, rows, func(r schema.WebhookDelivery) page.Cursor { return page.Cursor{CreatedAt: r.CreatedAt, ID: r.ID} })
	out := make([]Delivery, len(rows))
	if len(rows) == 0 {
		return out, next, nil
	}
	byID := make(map[string]int, len(rows))
	dids := make([]string, len(rows))
	for i := range rows {
		out[i] = Delivery{WebhookDelivery: rows[i], Attempts: []schema.WebhookAttempt{}}
		byID[rows[i].ID], dids[i] = i, rows[i].ID
	}
	var attempts []schema.WebhookAttempt
	err := s.db.NewSelect().Model(&attempts).Where("delivery_id IN (?)", bun.List(dids)).Order("delivery_id", "number").Scan(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("list delivery attempts: %w", err)
	}
	for _, a := range attempts {
		i := byID[a.DeliveryID]
		out[i].Attempts = append(out[i].Attempts, a)
	}
	return out, next, nil
}
