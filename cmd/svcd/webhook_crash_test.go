package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/outbox"
)

// burstReceiver answers 200 to every delivery and counts them per webhook-id; from its gate-th request
// on it holds each one (until its caller goes away, as a killed worker does) while held is set.
type burstReceiver struct {
	gate    int64
	held    atomic.Bool
	calls   atomic.Int64
	reached chan struct{}
	once    sync.Once
	stop    chan struct{}
	mu      sync.Mutex
	byID    map[string]int
}

func (rc *burstReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	rc.mu.Lock()
	rc.byID[r.Header.Get(client.HeaderWebhookID)]++
	rc.mu.Unlock()
	if rc.calls.Add(1) >= rc.gate && rc.held.Load() {
		rc.once.Do(func() { close(rc.reached) })
		select {
		case <-r.Context().Done():
			return
		case <-rc.stop:
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}

// counts returns how many webhook-ids arrived, and how many of them more than once.
func (rc *burstReceiver) counts() (ids, repeated int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, n := range rc.byID {
		ids++
		if n > 1 {
			repeated++
		}
	}
	return ids, repeated
}

// TestWorkerKilledMidBurstDeliversEachEventOnce emits a burst of events for one endpoint, kills the svcd
// worker (SIGKILL) while a batch of its delivery loop is half sent (the receiver holds the calls after
// the 100th), starts another, and checks that every delivery ends succeeded exactly once in the list,
// with one attempt each (the killed batch's attempts are repeated with the same number and
// webhook-id), and that the receiver got every event, some of them twice.
func TestWorkerKilledMidBurstDeliversEachEventOnce(t *testing.T) {
	t.Parallel()
	const events = 300
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true, NoDatabases: true})
	accountID, key := accountKey(t, env)
	rc := &burstReceiver{gate: 100, reached: make(chan struct{}), stop: make(chan struct{}), byID: map[string]int{}}
	rc.held.Store(true)
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(rc.stop) }) // runs before srv.Close
	hook := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/webhooks", Key: key,
		Body: map[string]any{"url": srv.URL + "/hook", "events": []string{"*"}}, Headers: map[string]string{"Idempotency-Key": "hook"}})
	require.Equal(t, http.StatusCreated, hook.Status, "%s", hook.Raw)
	hookID := hook.Body["webhook"].(map[string]any)["id"].(string)

	first := startWorker(t, svcd, env, "", t.TempDir(), "SVC_WEBHOOKS_ALLOW_LOOPBACK=1")
	evs := make([]outbox.Event, events)
	for i := range evs {
		subject := fmt.Sprintf("run_burst_%03d", i)
		evs[i] = outbox.Event{AccountID: accountID, Type: outbox.RunSucceeded, Subject: subject, Data: map[string]any{"id": subject}}
	}
	require.NoError(t, outbox.Emit(ctx, env.DB, evs...))
	select {
	case <-rc.reached:
	case <-time.After(60 * time.Second):
		t.Fatalf("the burst never reached the receiver's gate (%d calls); worker log:\n%s", rc.calls.Load(), first.log.String())
	}
	first.kill(t)
	var done int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM webhook_deliveries WHERE status <> 'pending'").Scan(ctx, &done))
	require.Less(t, done, events, "killed before the burst was delivered")
	rc.held.Store(false)
	second := startWorker(t, svcd, env, "", t.TempDir(), "SVC_WEBHOOKS_ALLOW_LOOPBACK=1")

	var statuses []struct {
		Status string `bun:"status"`
		N      int    `bun:"n"`
	}
	require.Eventually(t, func() bool {
		statuses = nil
		require.NoError(t, env.DB.NewRaw("SELECT status, count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? GROUP BY status", hookID).
			Scan(ctx, &statuses))
		return len(statuses) == 1 && statuses[0].Status == client.DeliverySucceeded && statuses[0].N == events
	}, 120*time.Second, 50*time.Millisecond, "deliveries %+v; second worker log:\n%s", &statuses, second.log.String())

	var rows []struct {
		EventID  string `bun:"event_id"`
		Attempts int    `bun:"attempts"`
		Number   int    `bun:"number"`
	}
	require.NoError(t, env.DB.NewRaw(`SELECT d.event_id, count(a.*) AS attempts, max(a.number) AS number
		FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id WHERE d.webhook_id = ? GROUP BY d.event_id`, hookID).
		Scan(ctx, &rows))
	require.Len(t, rows, events, "one delivery per event")
	for _, r := range rows {
		require.Equal(t, 1, r.Attempts, "event %s", r.EventID)
		require.Equal(t, 1, r.Number, "event %s", r.EventID)
	}
	ids, repeated := rc.counts()
	require.Equal(t, events, ids, "the receiver got every event")
	require.Positive(t, repeated, "the killed batch's calls were made again, with the same webhook-id")

	var listed client.WebhookDeliveryList
	r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/webhook-deliveries?status=pending", Key: key})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.NoError(t, json.Unmarshal(r.Raw, &listed))
	require.Empty(t, listed.Deliveries)
}
