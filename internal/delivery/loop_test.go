package delivery

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// loopDeliveries records n deliveries of distinct events to the endpoint, due at due (nil: a
// per-delivery workflow's), and returns them.
func loopDeliveries(t *testing.T, db *bun.DB, webhookID, tag string, n int, due *time.Time) []schema.WebhookDelivery {
	t.Helper()
	ctx := context.Background()
	ds := make([]schema.WebhookDelivery, n)
	for i := range ds {
		ev := outbox.Event{AccountID: "acct_a", Type: outbox.RunCreated, Subject: fmt.Sprintf("run_%s_%d", tag, i), Data: map[string]any{}}
		require.NoError(t, outbox.Emit(ctx, db, ev))
		ds[i] = schema.WebhookDelivery{ID: EventID(ev.ID(), webhookID), AccountID: "acct_a", WebhookID: webhookID, EventID: ev.ID(),
			EventType: ev.Type, Status: StatusPending, NextAttemptAt: due}
	}
	require.NoError(t, Insert(ctx, db, ds))
	return ds
}

func outcome(d *schema.WebhookDelivery, n, status int, at time.Time) Outcome {
	r := Result{Attempt: Attempt{Number: n, StartedAt: at, HTTPStatus: status, Latency: time.Millisecond}}
	if status/100 != 2 {
		r.Error = fmt.Sprintf("the endpoint answered %d", status)
	}
	return Outcome{Delivery: d, Result: r}
}

func statusOf(t *testing.T, db *bun.DB, id string) schema.WebhookDelivery {
	t.Helper()
	var d schema.WebhookDelivery
	require.NoError(t, db.NewSelect().Model(&d).Where("id = ?", id).Scan(context.Background()))
	return d
}

// TestLoopClaimsLeasesAndRecordsOnce: a claim takes due deliveries only (not later ones, nor a
// per-delivery workflow's), leased to its owner: another owner cannot take them until the lease ends,
// the same owner (a retried batch) takes them back. Recording a batch sets each outcome once (a
// success recorded again by a crashed batch's retry stays one success with one attempt row), schedules
// a failure's next attempt by the schedule, and ends the tenth failure failed.
func TestLoopClaimsLeasesAndRecordsOnce(t *testing.T) {
	t.Parallel()
	db, ctx := setup(t)
	hook(t, db, "whk_a", "acct_a", nil, true, "*")
	s := NewStore(db, nil)
	now := time.Now().UTC()
	loopDeliveries(t, db, "whk_a", "due", 3, &now)
	later := now.Add(time.Hour)
	loopDeliveries(t, db, "whk_a", "later", 1, &later)
	loopDeliveries(t, db, "whk_a", "legacy", 1, nil)

	mine, err := s.Claim(ctx, "whk_a", "run/1", now, now.Add(time.Minute), 2)
	require.NoError(t, err)
	require.Len(t, mine, 2)
	theirs, err := s.Claim(ctx, "whk_a", "run/2", now, now.Add(time.Minute), 10)
	require.NoError(t, err)
	require.Len(t, theirs, 1, "only the third due delivery is free")
	none, err := s.Claim(ctx, "whk_a", "run/3", now, now.Add(time.Minute), 10)
	require.NoError(t, err)
	require.Empty(t, none)
	again, err := s.Claim(ctx, "whk_a", "run/1", now, now.Add(time.Minute), 10)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{mine[0].ID, mine[1].ID}, []string{again[0].ID, again[1].ID}, "a retried batch takes its own back")
	expired, err := s.Claim(ctx, "whk_a", "run/3", now.Add(2*time.Minute), now.Add(3*time.Minute), 10)
	require.NoError(t, err)
	require.Len(t, expired, 3, "every lease ended; the later delivery is not due yet")

	w, err := s.Webhook(ctx, "whk_a")
	require.NoError(t, err)
	outs := []Outcome{outcome(&mine[0], 1, 200, now), outcome(&mine[1], 1, 500, now)}
	disabled, err := s.RecordBatch(ctx, w, outs, 0, now)
	require.NoError(t, err)
	require.False(t, disabled)
	disabled, err = s.RecordBatch(ctx, w, outs[:1], 0, now.Add(time.Second))
	require.NoError(t, err)
	require.False(t, disabled)
	ok := statusOf(t, db, mine[0].ID)
	require.Equal(t, StatusSucceeded, ok.Status)
	require.NotNil(t, ok.CompletedAt)
	require.Nil(t, ok.LeaseOwner)
	var attempts int
	require.NoError(t, db.NewSelect().Table("webhook_attempts").ColumnExpr("count(*)").Where("delivery_id = ?", mine[0].ID).Scan(ctx, &attempts))
	require.Equal(t, 1, attempts)

	retry := statusOf(t, db, mine[1].ID)
	require.Equal(t, StatusPending, retry.Status)
	require.Equal(t, 1, retry.AttemptCount)
	require.WithinDuration(t, now.Add(workflows.RetryDelay(mine[1].ID, 1, 0)), *retry.NextAttemptAt, time.Millisecond)
	require.Nil(t, retry.LeaseUntil)

	waiting, next, err := s.Waiting(ctx, "whk_a", now)
	require.NoError(t, err)
	require.Equal(t, 3, waiting, "the retried one, the unrecorded one, the later one")
	require.Greater(t, next, time.Duration(0))

	disabled, err = s.RecordBatch(ctx, w, []Outcome{outcome(&mine[1], len(workflows.DeliverySchedule)+1, 503, now)}, 0, now)
	require.NoError(t, err)
	require.False(t, disabled)
	require.Equal(t, StatusFailed, statusOf(t, db, mine[1].ID).Status, "the schedule is exhausted")
}

// TestLoopGoneDisablesAndFailsTheRest: a 410 in a batch disables the endpoint with one webhook.disabled
// event and ends its other pending deliveries failed; a healthy endpoint's deliveries are untouched.
func TestLoopGoneDisablesAndFailsTheRest(t *testing.T) {
	t.Parallel()
	db, ctx := setup(t)
	hook(t, db, "whk_gone", "acct_a", nil, true, "*")
	hook(t, db, "whk_ok", "acct_a", nil, true, "*")
	s := NewStore(db, nil)
	now := time.Now().UTC()
	gone := loopDeliveries(t, db, "whk_gone", "g", 3, &now)
	healthy := loopDeliveries(t, db, "whk_ok", "h", 1, &now)
	w, err := s.Webhook(ctx, "whk_gone")
	require.NoError(t, err)
	disabled, err := s.RecordBatch(ctx, w, []Outcome{outcome(&gone[0], 1, 500, now), outcome(&gone[1], 1, 410, now.Add(time.Millisecond))}, 0, now)
	require.NoError(t, err)
	require.True(t, disabled)
	for _, d := range gone {
		require.Equal(t, StatusFailed, statusOf(t, db, d.ID).Status)
	}
	require.Equal(t, StatusPending, statusOf(t, db, healthy[0].ID).Status)
	w, err = s.Webhook(ctx, "whk_gone")
	require.NoError(t, err)
	require.False(t, w.Enabled)
	require.Equal(t, DisabledGone, *w.DisabledReason)
	evs, err := outbox.List(ctx, db, "acct_a")
	require.NoError(t, err)
	n := 0
	for _, e := range evs {
		if e.Type == outbox.WebhookDisabled {
			n++
		}
	}
	require.Equal(t, 1, n)
}

// TestLoopRetryTakesBackAllItsLeases: a retried batch takes back every delivery it had leased before
// any free one, even free ones due earlier, so none stays leased to a batch that has finished.
func TestLoopRetryTakesBackAllItsLeases(t *testing.T) {
	t.Parallel()
	db, ctx := setup(t)
	hook(t, db, "whk_b", "acct_b", nil, true, "*")
	s := NewStore(db, nil)
	now := time.Now().UTC()
	loopDeliveries(t, db, "whk_b", "own", 2, &now)
	mine, err := s.Claim(ctx, "whk_b", "run/1", now, now.Add(time.Minute), 2)
	require.NoError(t, err)
	require.Len(t, mine, 2)
	earlier := now.Add(-time.Minute)
	loopDeliveries(t, db, "whk_b", "early", 2, &earlier)

	again, err := s.Claim(ctx, "whk_b", "run/1", now, now.Add(time.Minute), 2)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{mine[0].ID, mine[1].ID}, []string{again[0].ID, again[1].ID}, "its own first")
}

// TestLoopRecordsAttemptsByCopy: a batch's attempts copied in keep every field (an error with a tab, a
// newline and a backslash; no HTTP status as NULL); an attempt recorded again (a second batch that held
// the same delivery) falls back to the upsert, which overwrites the row, and still records the outcome.
func TestLoopRecordsAttemptsByCopy(t *testing.T) {
	t.Parallel()
	db, ctx := setup(t)
	hook(t, db, "whk_c", "acct_a", nil, true, "*")
	s := NewStore(db, nil)
	now := time.Now().UTC().Truncate(time.Microsecond)
	ds := loopDeliveries(t, db, "whk_c", "copy", 2, &now)
	w, err := s.Webhook(ctx, "whk_c")
	require.NoError(t, err)
	odd := "dial tcp:\tlookup\nfailed \\ here"
	refused := Outcome{Delivery: &ds[0], Result: Result{Attempt: Attempt{Number: 1, StartedAt: now, Latency: 3 * time.Millisecond, Error: odd}}}
	_, err = s.RecordBatch(ctx, w, []Outcome{refused, outcome(&ds[1], 1, 204, now)}, 0, now)
	require.NoError(t, err)

	var rows []schema.WebhookAttempt
	require.NoError(t, db.NewSelect().Model(&rows).Where("delivery_id IN (?)", bun.List([]string{ds[0].ID, ds[1].ID})).Order("delivery_id").Scan(ctx))
	require.Len(t, rows, 2)
	byID := map[string]schema.WebhookAttempt{rows[0].DeliveryID: rows[0], rows[1].DeliveryID: rows[1]}
	got := byID[ds[0].ID]
	require.Nil(t, got.HTTPStatus)
	require.Equal(t, odd, *got.Error)
	require.Equal(t, int64(3), got.LatencyMs)
	require.True(t, now.Equal(got.StartedAt), "%v != %v", got.StartedAt, now)
	require.Equal(t, 204, *byID[ds[1].ID].HTTPStatus)
	require.Nil(t, byID[ds[1].ID].Error)

	again := outcome(&ds[0], 1, 503, now.Add(time.Second))
	_, err = s.RecordBatch(ctx, w, []Outcome{again}, 0, now.Add(time.Second))
	require.NoError(t, err, "an attempt recorded before is overwritten, not refused")
	require.NoError(t, db.NewSelect().Model(&got).Where("delivery_id = ? AND number = 1", ds[0].ID).Scan(ctx))
	require.Equal(t, 503, *got.HTTPStatus)
	require.Equal(t, "the endpoint answered 503", *got.Error)
	require.WithinDuration(t, now.Add(time.Second+workflows.RetryDelay(ds[0].ID, 1, 0)), *statusOf(t, db, ds[0].ID).NextAttemptAt, time.Millisecond)
}
