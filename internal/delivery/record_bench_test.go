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
)

// BenchmarkRecordBatch records a failed batch of LoopBatch fresh deliveries (attempt rows, outcomes, the
// endpoint's streak) per iteration, its attempts by COPY and by the multi-row upsert, as sub-benchmarks
// run one after the other in the same process. Run:
// go test -run '^$' -bench RecordBatch -count 1 ./internal/delivery/ (repeat it to alternate rounds).
func BenchmarkRecordBatch(b *testing.B) {
	db, ctx := setup(b)
	hook(b, db, "whk_r", "acct_a", nil, true, "*")
	w, err := NewStore(db, nil).Webhook(ctx, "whk_r")
	require.NoError(b, err)
	tag := 0
	batch := func(b *testing.B) []Outcome {
		b.StopTimer()
		defer b.StartTimer()
		tag++
		return failedBatch(b, db, fmt.Sprintf("%s_%d", b.Name(), tag))
	}
	b.Run("copy", func(b *testing.B) {
		for b.Loop() {
			outs := batch(b)
			_, err := recordBatchByCopy(ctx, db, w, outs, 0, time.Now())
			require.NoError(b, err)
		}
	})
	b.Run("insert", func(b *testing.B) {
		for b.Loop() {
			outs := batch(b)
			require.NoError(b, db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				_, err := recordBatch(ctx, tx, w, outs, 0, time.Now(), upsertAttempts)
				return err
			}))
		}
	})
}

// failedBatch records LoopBatch due deliveries of new events to whk_r and returns a failed attempt of
// each.
func failedBatch(b *testing.B, db *bun.DB, tag string) []Outcome {
	ctx := context.Background()
	now := time.Now().UTC()
	evs := make([]outbox.Event, LoopBatch)
	for i := range evs {
		evs[i] = outbox.Event{AccountID: "acct_a", Type: outbox.RunCreated, Subject: fmt.Sprintf("run_%s_%d", tag, i), Data: map[string]any{}}
	}
	require.NoError(b, outbox.Emit(ctx, db, evs...))
	ds := make([]schema.WebhookDelivery, len(evs))
	outs := make([]Outcome, len(evs))
	for i, ev := range evs {
		ds[i] = schema.WebhookDelivery{ID: EventID(ev.ID(), "whk_r"), AccountID: "acct_a", WebhookID: "whk_r", EventID: ev.ID(),
			EventType: ev.Type, Status: StatusPending, NextAttemptAt: &now}
	}
	require.NoError(b, Insert(ctx, db, ds))
	for i := range ds {
		outs[i] = outcome(&ds[i], 1, 500, now)
	}
	return outs
}
