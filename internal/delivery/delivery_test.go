package delivery

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// engine records workflow starts; while failing it refuses them.
type engine struct {
	mu      sync.Mutex
	started []string
	failing bool
}

func (e *engine) SignalWithStartWorkflow(_ context.Context, id, signal string, _ any, opts sdkclient.StartWorkflowOptions,
	_ any, _ ...any) (sdkclient.WorkflowRun, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failing {
		return nil, errors.New("temporal is away")
	}
	if signal != workflows.SignalDeliveriesDue || opts.ID != id {
		return nil, errors.New("not a delivery loop's wake-up")
	}
	e.started = append(e.started, opts.ID)
	return nil, nil
}

func (e *engine) starts() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.started...)
}

func setup(t testing.TB) (*bun.DB, context.Context) {
	t.Helper()
	ctx := context.Background()
	db := testdb.New(t)
	_, err := db.ExecContext(ctx, `INSERT INTO accounts (id, name) VALUES ('acct_a', 'a'), ('acct_b', 'b');
		INSERT INTO projects (id, account_id, name) VALUES ('proj_a1', 'acct_a', 'p1')`)
	require.NoError(t, err)
	return db, ctx
}

func hook(t testing.TB, db *bun.DB, id, account string, project *string, enabled bool, events ...string) {
	t.Helper()
	w := &schema.Webhook{ID: id, AccountID: account, ProjectID: project, URL: "https://hooks.example.com/" + id, Events: events,
		Enabled: enabled, SecretSealed: []byte("sealed")}
	_, err := db.NewInsert().Model(w).Exec(context.Background())
	require.NoError(t, err)
}

func ptr[T any](v T) *T { return &v }

// TestDispatchDeliversEachEventOnce: each event becomes a delivery for every enabled, subscribed
// endpoint of its scope registered before it; events are marked dispatched; a second pass does
// nothing; deliveries whose loops could not be woken are woken by the sweep (one wake-up per endpoint).
func TestDispatchDeliversEachEventOnce(t *testing.T) {
	t.Parallel()
	db, ctx := setup(t)
	hook(t, db, "whk_created", "acct_a", nil, true, outbox.RunCreated)
	hook(t, db, "whk_all", "acct_a", nil, true, "*")
	hook(t, db, "whk_off", "acct_a", nil, false, "*")
	hook(t, db, "whk_proj", "acct_a", ptr("proj_a1"), true, "*")
	hook(t, db, "whk_other", "acct_b", nil, true, "*")
	require.NoError(t, outbox.Emit(ctx, db,
		outbox.Event{AccountID: "acct_a", Type: outbox.RunCreated, Subject: "run_1", Data: map[string]any{"id": "run_1"}},
		outbox.Event{AccountID: "acct_a", Type: outbox.RunSucceeded, Subject: "run_1", Data: map[string]any{"id": "run_1"}}))
	hook(t, db, "whk_late", "acct_a", nil, true, "*")

	eng := &engine{failing: true}
	d := NewDispatcher(db, eng, DispatcherOptions{})
	n, err := d.Dispatch(ctx)
	require.Error(t, err, "the starts failed")
	require.Equal(t, 2, n)
	created := outbox.Event{Type: outbox.RunCreated, Subject: "run_1"}.ID()
	succeeded := outbox.Event{Type: outbox.RunSucceeded, Subject: "run_1"}.ID()
	want := []string{EventID(created, "whk_all"), EventID(created, "whk_created"), EventID(succeeded, "whk_all")}
	var ids []string
	require.NoError(t, db.NewSelect().Table("webhook_deliveries").Column("id").Where("status = 'pending'").Scan(ctx, &ids))
	require.ElementsMatch(t, want, ids)
	ids = nil // one unstarted delivery per endpoint: its wake-up marker
	require.NoError(t, db.NewSelect().Table("webhook_deliveries").Column("id").Where("NOT workflow_started").Scan(ctx, &ids))
	require.ElementsMatch(t, want[:2], ids)

	n, err = d.Dispatch(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "every event was dispatched")

	eng.failing = false
	swept, err := d.store.Sweep(ctx, 0, 100)
	require.NoError(t, err)
	require.Equal(t, 2, swept, "the markers")
	wfIDs := []string{workflows.WebhookLoopWorkflowID("whk_all"), workflows.WebhookLoopWorkflowID("whk_created")}
	require.ElementsMatch(t, wfIDs, eng.starts())
	swept, err = d.store.Sweep(ctx, 0, 100)
	require.NoError(t, err)
	require.Zero(t, swept)
}

// TestFailingEndpointIsDisabled: failures for less than 5 days keep an endpoint; a success ends the
// streak; 5 days of failures disable it with a webhook.disabled event, as 410 Gone does at once.
func TestFailingEndpointIsDisabled(t *testing.T) {
	t.Parallel()
	db, ctx := setup(t)
	hook(t, db, "whk_a", "acct_a", nil, true, "*")
	hook(t, db, "whk_b", "acct_a", nil, true, "*")
	require.NoError(t, outbox.Emit(ctx, db, outbox.Event{AccountID: "acct_a", Type: outbox.RunCreated, Subject: "run_1", Data: map[string]any{}}))
	evID := outbox.Event{Type: outbox.RunCreated, Subject: "run_1"}.ID()
	s := NewStore(db, nil)
	ds := []schema.WebhookDelivery{
		{ID: "dlv_a", AccountID: "acct_a", WebhookID: "whk_a", EventID: evID, EventType: outbox.RunCreated, Status: StatusPending},
		{ID: "dlv_b", AccountID: "acct_a", WebhookID: "whk_b", EventID: evID, EventType: outbox.RunCreated, Status: StatusPending},
	}
	require.NoError(t, Insert(ctx, db, ds))
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	attempt := func(d *schema.WebhookDelivery, n int, at time.Time, status int) bool {
		a := Attempt{Number: n, StartedAt: at, HTTPStatus: status, Latency: time.Millisecond}
		if status >= 300 {
			a.Error = "bad"
		}
		disabled, err := s.RecordAttempt(ctx, d, a)
		require.NoError(t, err)
		return disabled
	}
	require.False(t, attempt(&ds[0], 1, t0, 500))
	require.False(t, attempt(&ds[0], 2, t0.Add(4*24*time.Hour), 500))
	require.False(t, attempt(&ds[0], 3, t0.Add(4*24*time.Hour+time.Hour), 200), "a success ends the streak")
	require.False(t, attempt(&ds[0], 4, t0.Add(5*24*time.Hour), 500))
	require.False(t, attempt(&ds[0], 5, t0.Add(9*24*time.Hour), 503))
	require.True(t, attempt(&ds[0], 6, t0.Add(10*24*time.Hour), 500), "5 days of failures since attempt 4")
	w := new(schema.Webhook)
	require.NoError(t, db.NewSelect().Model(w).Where("id = 'whk_a'").Scan(ctx))
	require.False(t, w.Enabled)
	require.Equal(t, DisabledFailing, *w.DisabledReason)

	require.True(t, attempt(&ds[1], 1, t0, 410))
	require.NoError(t, db.NewSelect().Model(w).Where("id = 'whk_b'").Scan(ctx))
	require.Equal(t, DisabledGone, *w.DisabledReason)

	evs, err := outbox.List(ctx, db, "acct_a")
	require.NoError(t, err)
	var disabled int
	for _, e := range evs {
		if e.Type == outbox.WebhookDisabled {
			disabled++
		}
	}
	require.Equal(t, 2, disabled)

	var attempts []schema.WebhookAttempt
	require.NoError(t, db.NewSelect().Model(&attempts).Where("delivery_id = 'dlv_a'").Order("number").Scan(ctx))
	require.Len(t, attempts, 6)
	require.NoError(t, s.Finish(ctx, "dlv_a", StatusFailed))
	require.NoError(t, s.Finish(ctx, "dlv_a", StatusSucceeded), "a finished delivery keeps its status")
	got, err := s.ByID(ctx, "dlv_a")
	require.NoError(t, err)
	require.Equal(t, StatusFailed, got.Status)
	require.ErrorIs(t, s.Finish(ctx, "dlv_x", StatusFailed), ErrMissing)
}

// TestRetryAfter reads seconds and HTTP dates, capped at a day.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	require.Equal(t, 30*time.Second, RetryAfter("30", now))
	require.Equal(t, time.Hour, RetryAfter(now.Add(time.Hour).Format(http1123), now))
	require.Equal(t, workflows.MaxRetryAfter, RetryAfter("99999999", now))
	require.Zero(t, RetryAfter("soon", now))
	require.Zero(t, RetryAfter("", now))
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

// TestInsertKeepsEveryColumn: the one-statement insert keeps each column as given, nulls included, and
// leaves a delivery recorded before as it was.
func TestInsertKeepsEveryColumn(t *testing.T) {
	t.Parallel()
	db, ctx := setup(t)
	hook(t, db, "whk_a", "acct_a", ptr("proj_a1"), true, "*")
	require.NoError(t, outbox.Emit(ctx, db, outbox.Event{AccountID: "acct_a", ProjectID: ptr("proj_a1"), Type: outbox.RunCreated,
		Subject: "run_1", Data: map[string]any{}}))
	evID := outbox.Event{Type: outbox.RunCreated, Subject: "run_1"}.ID()
	due := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ds := []schema.WebhookDelivery{
		{ID: "dlv_1", AccountID: "acct_a", ProjectID: ptr("proj_a1"), WebhookID: "whk_a", EventID: evID, EventType: outbox.RunCreated,
			Status: StatusPending, NextAttemptAt: &due, WorkflowStarted: true},
		{ID: "dlv_2", AccountID: "acct_a", WebhookID: "whk_a", EventID: evID, EventType: outbox.RunCreated, ReplayOf: ptr("dlv_1")},
	}
	require.NoError(t, Insert(ctx, db, ds))
	changed := ds[0]
	changed.Status = StatusFailed
	require.NoError(t, Insert(ctx, db, []schema.WebhookDelivery{changed}))
	var got []schema.WebhookDelivery
	require.NoError(t, db.NewSelect().Model(&got).Order("id").Scan(ctx))
	require.Len(t, got, 2)
	require.Equal(t, "proj_a1", *got[0].ProjectID)
	require.Equal(t, StatusPending, got[0].Status, "recorded before: left as it was")
	require.True(t, got[0].WorkflowStarted)
	require.True(t, due.Equal(*got[0].NextAttemptAt))
	require.Nil(t, got[0].ReplayOf)
	require.Nil(t, got[1].ProjectID)
	require.Nil(t, got[1].NextAttemptAt)
	require.Equal(t, "dlv_1", *got[1].ReplayOf)
	require.Equal(t, StatusPending, got[1].Status, "no status given: pending")
	require.False(t, got[1].WorkflowStarted)
	require.False(t, got[1].CreatedAt.IsZero())
}
