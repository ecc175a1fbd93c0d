package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/outbox"
)

// received is one request a test receiver got.
type received struct {
	header http.Header
	body   []byte
	at     time.Time
}

// receiver is an endpoint on loopback answering each request with status(n) (n counts from 1), after
// block returns when set. Every request is passed on through got.
type receiver struct {
	*httptest.Server
	got   chan received
	calls atomic.Int64
}

func newReceiver(t *testing.T, status func(n int64) int, block func(r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{got: make(chan received, 64)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := rc.calls.Add(1)
		rc.got <- received{header: r.Header.Clone(), body: body, at: time.Now()}
		if block != nil {
			block(r)
		}
		w.WriteHeader(status(n))
	}))
	t.Cleanup(rc.Close)
	return rc
}

func always(code int) func(int64) int { return func(int64) int { return code } }

// next waits for the receiver's next request.
func (rc *receiver) next(t *testing.T, within time.Duration) received {
	t.Helper()
	select {
	case r := <-rc.got:
		return r
	case <-time.After(within):
		t.Fatalf("no delivery within %s", within)
		return received{}
	}
}

// createHook registers an endpoint and returns its id and secret.
func createHook(t *testing.T, env *apptest.Env, key, url, idem string, events ...string) (string, string) {
	t.Helper()
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/webhooks", Key: key,
		Body: map[string]any{"url": url, "events": events}, Headers: map[string]string{"Idempotency-Key": idem}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	h := r.Body["webhook"].(map[string]any)
	return h["id"].(string), h["secret"].(string)
}

func startEcho(t *testing.T, env *apptest.Env, key, idem string) string {
	t.Helper()
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key, Headers: map[string]string{"Idempotency-Key": idem},
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"hello": "hooks"}}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	return r.Body["run"].(map[string]any)["id"].(string)
}

// listDeliveries answers GET /v1/webhook-deliveries?query.
func listDeliveries(t *testing.T, env *apptest.Env, key, query string) []client.WebhookDelivery {
	t.Helper()
	var out client.WebhookDeliveryList
	r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/webhook-deliveries?" + query, Key: key})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.NoError(t, json.Unmarshal(r.Raw, &out), "%s", r.Raw)
	return out.Deliveries
}

// waitDeliveries waits until the query lists n deliveries, all finished, and answers them.
func waitDeliveries(t *testing.T, env *apptest.Env, key, query string, n int) []client.WebhookDelivery {
	t.Helper()
	var ds []client.WebhookDelivery
	require.Eventually(t, func() bool {
		ds = listDeliveries(t, env, key, query)
		if len(ds) != n {
			return false
		}
		for _, d := range ds {
			if d.Status == client.DeliveryPending {
				return false
			}
		}
		return true
	}, 20*time.Second, 20*time.Millisecond, "deliveries of %q: %+v", query, ds)
	return ds
}

func replay(t *testing.T, env *apptest.Env, key, deliveryID, idem string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/webhook-deliveries/" + deliveryID + "/replay", Key: key,
		Headers: map[string]string{"Idempotency-Key": idem}})
}

// TestWebhookDeliveriesEndToEnd: an endpoint subscribed to run.created and run.succeeded receives both
// events of an echo run, signed with its secret, webhook-id being the event id; the delivery list shows
// them with their attempts and filters; a replay delivers the same event again (same webhook-id, a new
// timestamp, a valid signature); another account cannot replay it.
func TestWebhookDeliveriesEndToEnd(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	key := env.FirstKey(t)
	rc := newReceiver(t, always(http.StatusNoContent), nil)
	hookID, secret := createHook(t, env, key, rc.URL+"/hook", "hook", outbox.RunCreated, outbox.RunSucceeded)
	runID := startEcho(t, env, key, "run")

	byType := map[string]received{}
	for range 2 {
		got := rc.next(t, 10*time.Second)
		ev, err := client.ParseWebhook(secret, got.header, got.body, client.VerifyOptions{})
		require.NoError(t, err)
		require.Equal(t, ev.ID, got.header.Get(client.HeaderWebhookID))
		require.Equal(t, ev.Type, got.header.Get(client.HeaderSvcEvent))
		require.Equal(t, "application/json", got.header.Get("Content-Type"))
		require.Contains(t, string(ev.Data), runID)
		byType[ev.Type] = got
	}
	require.Contains(t, byType, outbox.RunCreated)
	require.Contains(t, byType, outbox.RunSucceeded)

	ds := waitDeliveries(t, env, key, "webhookId="+hookID, 2)
	for _, d := range ds {
		require.Equal(t, client.DeliverySucceeded, d.Status)
		require.NotNil(t, d.CompletedAt)
		require.Len(t, d.Attempts, 1)
		require.Equal(t, http.StatusNoContent, *d.Attempts[0].HTTPStatus)
		require.Nil(t, d.Attempts[0].Error)
		require.Equal(t, d.EventID, byType[d.EventType].header.Get(client.HeaderWebhookID))
	}
	created := listDeliveries(t, env, key, "type=run.created&status=succeeded")
	require.Len(t, created, 1)
	require.Empty(t, listDeliveries(t, env, key, "status=failed"))
	require.Empty(t, listDeliveries(t, env, key, "to=2000-01-01T00:00:00Z"))
	first := listDeliveries(t, env, key, "limit=1")
	require.Len(t, first, 1)

	// A replay: same event id, a timestamp of its own (wait for the clock to pass the first one).
	orig := byType[outbox.RunCreated]
	origTS, err := strconv.ParseInt(orig.header.Get(client.HeaderWebhookTimestamp), 10, 64)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return time.Now().Unix() > origTS }, 2*time.Second, 10*time.Millisecond)
	rep := replay(t, env, key, created[0].ID, "replay")
	require.Equal(t, http.StatusOK, rep.Status, "%s", rep.Raw)
	repD := rep.Body["delivery"].(map[string]any)
	require.Equal(t, created[0].ID, repD["replayOf"])
	require.NotEqual(t, created[0].ID, repD["id"])
	again := rc.next(t, 10*time.Second)
	require.NoError(t, client.VerifyWebhook(secret, again.header, again.body, client.VerifyOptions{}))
	require.Equal(t, orig.header.Get(client.HeaderWebhookID), again.header.Get(client.HeaderWebhookID))
	require.Equal(t, orig.body, again.body)
	require.NotEqual(t, orig.header.Get(client.HeaderWebhookTimestamp), again.header.Get(client.HeaderWebhookTimestamp))
	require.NotEqual(t, orig.header.Get(client.HeaderWebhookSignature), again.header.Get(client.HeaderWebhookSignature))
	require.Len(t, waitDeliveries(t, env, key, "type=run.created", 2), 2)

	other := env.FirstKey(t)
	require.Equal(t, http.StatusNotFound, replay(t, env, other, created[0].ID, "foreign").Status)
	require.Equal(t, http.StatusNotFound, replay(t, env, key, "dlv_unknown", "unknown").Status)
	require.Empty(t, listDeliveries(t, env, other, ""))
}

// TestWebhookRetryAndGone: one endpoint fails once and then succeeds on the schedule's 5 s retry;
// another answers 410 Gone and is disabled after its first attempt, with a webhook.disabled event, and
// its delivery cannot be replayed (409).
func TestWebhookRetryAndGone(t *testing.T) {
	t.Parallel()
	// The schedule's steps at 1/100 (5 s → 50 ms, 5 min → 3 s), so the flaky receiver can fail twice.
	env := apptest.NewWith(t, apptest.Options{WebhookRetryScale: 0.01})
	accountID, token := env.NewAccount(t, "hooks")
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "k"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	key := r.Body["apiKey"].(map[string]any)["secret"].(string)
	flaky := newReceiver(t, func(n int64) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}, nil)
	gone := newReceiver(t, always(http.StatusGone), nil)
	flakyID, flakySecret := createHook(t, env, key, flaky.URL, "flaky", outbox.RunCreated)
	goneID, _ := createHook(t, env, key, gone.URL, "gone", outbox.RunCreated)
	startEcho(t, env, key, "run")

	first := flaky.next(t, 10*time.Second)
	gone.next(t, 10*time.Second)
	goneDs := waitDeliveries(t, env, key, "webhookId="+goneID, 1)
	require.Equal(t, client.DeliveryFailed, goneDs[0].Status)
	require.Len(t, goneDs[0].Attempts, 1)
	require.Equal(t, http.StatusGone, *goneDs[0].Attempts[0].HTTPStatus)
	hooks := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/webhooks", Key: key})
	for _, h := range hooks.Body["webhooks"].([]any) {
		h := h.(map[string]any)
		if h["id"] == goneID {
			require.Equal(t, false, h["enabled"])
			require.Equal(t, "410 Gone", h["disabledReason"])
		} else {
			require.Equal(t, true, h["enabled"])
		}
	}
	require.Contains(t, eventTypes(t, env, accountID), outbox.WebhookDisabled)
	conflict := replay(t, env, key, goneDs[0].ID, "replay-gone")
	require.Equal(t, http.StatusConflict, conflict.Status, "%s", conflict.Raw)
	require.Equal(t, "conflict", conflict.ErrorCode())

	second := flaky.next(t, 15*time.Second)
	third := flaky.next(t, 15*time.Second)
	require.GreaterOrEqual(t, second.at.Sub(first.at), 50*time.Millisecond, "the first retry waits its (scaled) 5 s")
	require.GreaterOrEqual(t, third.at.Sub(second.at), 3*time.Second, "the second waits its (scaled) 5 min")
	for _, d := range []received{second, third} {
		require.NoError(t, client.VerifyWebhook(flakySecret, d.header, d.body, client.VerifyOptions{}))
		require.Equal(t, first.header.Get(client.HeaderWebhookID), d.header.Get(client.HeaderWebhookID), "one webhook-id across retries")
	}
	ds := waitDeliveries(t, env, key, "webhookId="+flakyID, 1)
	require.Equal(t, client.DeliverySucceeded, ds[0].Status)
	require.Len(t, ds[0].Attempts, 3)
	for i, want := range []int{http.StatusInternalServerError, http.StatusInternalServerError, http.StatusOK} {
		require.Equal(t, want, *ds[0].Attempts[i].HTTPStatus)
		require.Equal(t, i+1, ds[0].Attempts[i].Number)
	}
	require.Contains(t, *ds[0].Attempts[0].Error, "500")
}

// TestSlowEndpointDoesNotHoldUpAHealthyOne: while one endpoint takes its time (15 s and more) over a
// delivery, another endpoint gets the same event at once.
func TestSlowEndpointDoesNotHoldUpAHealthyOne(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	key := env.FirstKey(t)
	release := make(chan struct{})
	slow := newReceiver(t, always(http.StatusOK), func(r *http.Request) {
		select { // the receiver's own work: 20 s unless the call or the test ends first
		case <-time.After(20 * time.Second):
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // runs before the receiver closes
	healthy := newReceiver(t, always(http.StatusOK), nil)
	createHook(t, env, key, slow.URL, "slow", outbox.RunCreated)
	createHook(t, env, key, healthy.URL, "healthy", outbox.RunCreated)
	start := time.Now()
	startEcho(t, env, key, "run")
	slowGot := slow.next(t, 10*time.Second)
	got := healthy.next(t, 10*time.Second)
	require.Less(t, got.at.Sub(start), 5*time.Second, "the healthy endpoint waited for the slow one")
	require.Equal(t, slowGot.header.Get(client.HeaderWebhookID), got.header.Get(client.HeaderWebhookID))
}
