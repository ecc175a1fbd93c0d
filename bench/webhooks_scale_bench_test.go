package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
)

const (
	// spreadEndpoints is how many healthy endpoints BenchmarkWebhookDeliveriesToTwentyEndpoints delivers to.
	spreadEndpoints = 20
	// spreadEvents is how many events it emits (each goes to every endpoint): 20 × 500 = 10,000
	// deliveries; SVC_BENCH_WEBHOOK_SPREAD_EVENTS overrides it.
	spreadEvents = 500
	// burstEvents is how many events BenchmarkWebhookBurstBesideFailingEndpoint emits per phase;
	// SVC_BENCH_WEBHOOK_BURST_EVENTS overrides it (the burst is 10,000).
	burstEvents = 5_000
)

// envInt is the environment variable name as a positive integer, or def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// addHook registers one more endpoint (for "*") of the key's account on url.
func addHook(b *testing.B, env *apptest.Env, key, url, tag string) {
	r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/webhooks", Key: key,
		Body: map[string]any{"url": url, "events": []string{"*"}}, Headers: map[string]string{"Idempotency-Key": "hook-" + tag}})
	require.Equal(b, http.StatusCreated, r.Status, "%s", r.Raw)
}

// waitAll waits until every receiver has had its wanted deliveries, failing after within.
func waitAll(b *testing.B, rcs []*receiver, within time.Duration) {
	deadline := time.After(within)
	for i, rc := range rcs {
		select {
		case <-rc.done:
		case <-deadline:
			b.Fatalf("endpoint %d had only %d of %d deliveries after %v", i, rc.hooks.Load(), rc.want, within)
		}
	}
}

// BenchmarkWebhookDeliveriesToTwentyEndpoints registers 20 endpoints (for "*") of one account, each on
// its own local receiver answering 204 at once, emits 500 events (10,000 deliveries) into the outbox
// and measures the time from the first insert until every receiver has had every delivery. The
// baseline is as many plain POSTs of the same size to one receiver from 64 keep-alive connections.
func BenchmarkWebhookDeliveriesToTwentyEndpoints(b *testing.B) {
	n := envInt("SVC_BENCH_WEBHOOK_SPREAD_EVENTS", spreadEvents)
	app.TuneGC(os.Getenv) // as svcd does
	env := apptest.New(b)
	key := env.FirstKey(b)
	iter := 0
	for b.Loop() {
		if iter++; iter > 1 {
			b.Fatal("run with -benchtime 1x")
		}
		rcs := make([]*receiver, spreadEndpoints)
		var account string
		var project *string
		for i := range rcs {
			rcs[i] = newReceiver(http.StatusNoContent, int64(n))
			defer rcs[i].Close()
			if i == 0 {
				account, project = registerHook(b, env, key, rcs[i].URL+"/hook")
				continue
			}
			addHook(b, env, key, rcs[i].URL+"/hook", strconv.Itoa(i))
		}
		before := sampleProc(env)
		start := time.Now()
		emit(b, env, account, project, "spread", n)
		waitAll(b, rcs, 8*time.Minute)
		delivered := time.Since(start)
		during := sampleProc(env).since(before)
		total := n * spreadEndpoints
		posted := plainPosts(b, rcs[0].URL+"/plain", total, plainPostClients, int(rcs[0].bodyLen.Load()))

		dps, pps := float64(total)/delivered.Seconds(), float64(total)/posted.Seconds()
		b.ReportMetric(dps, "deliveries/s")
		b.ReportMetric(pps, "posts/s")
		b.ReportMetric(dps/pps, "ratio")
		logDispatch(b, env)
		b.Logf("%d events to %d endpoints: %d deliveries in %v (%.0f/s); plain posts %.0f/s; ratio %.4f",
			n, spreadEndpoints, total, delivered.Round(time.Millisecond), dps, pps, dps/pps)
		b.Logf("while delivering: %s", during)
	}
}

// BenchmarkWebhookBurstBesideFailingEndpoint measures a healthy endpoint's delivery rate for a burst of
// events twice in one run: first alone (an account with only that endpoint), then beside an endpoint
// of the same account that answers 500 to everything (so every event also makes a failing delivery
// that is retried). Reports both rates and their ratio (the issue asks ≥ 0.8).
func BenchmarkWebhookBurstBesideFailingEndpoint(b *testing.B) {
	n := envInt("SVC_BENCH_WEBHOOK_BURST_EVENTS", burstEvents)
	env := apptest.New(b)
	iter := 0
	for b.Loop() {
		if iter++; iter > 1 {
			b.Fatal("run with -benchtime 1x")
		}
		alone := burstRate(b, env, n, false)
		beside := burstRate(b, env, n, true)
		b.ReportMetric(alone, "alone-deliveries/s")
		b.ReportMetric(beside, "beside-failing-deliveries/s")
		b.ReportMetric(beside/alone, "ratio")
		b.Logf("%d events: healthy endpoint alone %.0f/s, beside a failing endpoint %.0f/s (ratio %.2f)", n, alone, beside, beside/alone)
	}
}

// burstRate emits n events for a new account with one healthy endpoint (and, when failing, a second
// endpoint answering 500) and returns the healthy endpoint's deliveries per second.
func burstRate(b *testing.B, env *apptest.Env, n int, failing bool) float64 {
	key := env.FirstKey(b)
	healthy := newReceiver(http.StatusNoContent, int64(n))
	defer healthy.Close()
	account, project := registerHook(b, env, key, healthy.URL+"/hook")
	if failing {
		bad := newReceiver(http.StatusInternalServerError, -1)
		defer bad.Close()
		addHook(b, env, key, bad.URL+"/hook", "failing")
	}
	start := time.Now()
	emit(b, env, account, project, fmt.Sprintf("burst-%t", failing), n)
	waitAll(b, []*receiver{healthy}, 8*time.Minute)
	elapsed := time.Since(start)
	if failing {
		b.Logf("the failing endpoint had %d attempts while the healthy one had its %d", failingAttempts(b, env, account), n)
	}
	return float64(n) / elapsed.Seconds()
}

// failingAttempts counts the attempts made to the account's endpoints that failed.
func failingAttempts(b *testing.B, env *apptest.Env, account string) int {
	var n int
	require.NoError(b, env.DB.NewRaw(`SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
		WHERE d.account_id = ? AND a.http_status = 500`, account).Scan(context.Background(), &n))
	return n
}
