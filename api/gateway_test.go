package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/ledger"
)

const upstreamSecret = "up-secret-0123456789abcdef"

// generationUpstream is a real HTTP service following the generation-service contract: it requires the
// credential, charges 1 credit per image and counts the calls that reached it.
func generationUpstream(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"ok":true}`)) })
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"data":[{"id":"tiny-diffusion"}]}`))
	})
	mux.HandleFunc("POST /v1/images", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != upstreamSecret {
			http.Error(w, `{"error":"bad key"}`, http.StatusUnauthorized)
			return
		}
		n := calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Svc-Credits-Charged", "1")
		w.Header().Set("X-Svc-Upstream-Request-Id", fmt.Sprintf("up-%d", n))
		_, _ = w.Write([]byte(`{"image":"data:...","n":` + fmt.Sprint(n) + `}`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &calls
}

func gatewayEnv(t *testing.T, upstreamURL string) *apptest.Env {
	t.Helper()
	return gatewayEnvLogging(t, upstreamURL, nil)
}

func gatewayEnvLogging(t *testing.T, upstreamURL string, logTo *apptest.Buffer) *apptest.Env {
	t.Helper()
	opts := apptest.Options{Gateway: imagegenCatalog(t, upstreamURL)}
	if logTo != nil {
		opts.Log = logTo
	}
	return apptest.NewWith(t, opts)
}

// imagegenCatalog registers the upstream as the generation service "imagegen" (1 credit a call).
func imagegenCatalog(t *testing.T, upstreamURL string) *gateway.Catalog {
	t.Helper()
	cat, err := gateway.Parse([]byte(fmt.Sprintf(`
services:
  - id: imagegen
    name: Image generation
    baseUrl: %s
    contract: generation
    connection: imagegen-key
    timeout: 5s
    operations:
      - id: generate
        method: POST
        path: /v1/images
        credits: 1
`, upstreamURL)))
	require.NoError(t, err)
	return cat
}

// TestInvokeChargesExactlyWhatIsAffordable: 50 concurrent invocations against a balance that covers 10:
// exactly 10 succeed and reach the service, the other 40 answer 402 without reaching it, and the balance
// ends at exactly 0.
func TestInvokeChargesExactlyWhatIsAffordable(t *testing.T) {
	t.Parallel()
	up, calls := generationUpstream(t)
	logs := &apptest.Buffer{}
	env := gatewayEnvLogging(t, up.URL, logs)
	key := fundedKey(t, env, 10)

	missing := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/services/imagegen/invoke", Key: key,
		Body: map[string]any{"operationId": "generate"}, Headers: map[string]string{"Idempotency-Key": "early"}})
	require.Equal(t, http.StatusConflict, missing.Status, "no connection yet: %s", missing.Raw)
	require.Equal(t, "connection", errorOf(missing)["param"])

	createConnection(t, env, key)

	answers := invokeConcurrently(t, env, key, 50)
	ok, refused := countPaid(t, answers)
	for _, r := range answers {
		if r.Status == http.StatusOK {
			require.Equal(t, "1", r.Header.Get("X-Svc-Credits-Charged"))
			require.True(t, strings.HasPrefix(r.Header.Get("X-Svc-Upstream-Request-Id"), "up-"))
			require.EqualValues(t, 200, r.Body["status"])
			require.EqualValues(t, 1, r.Body["chargedCredits"])
			require.NotContains(t, string(r.Raw), upstreamSecret)
		}
	}
	require.Equal(t, 10, ok)
	require.Equal(t, 40, refused)
	require.EqualValues(t, 10, calls.Load(), "refused calls never reached the service")
	bal := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: key})
	require.EqualValues(t, 0, bal.Body["balance"].(map[string]any)["credits"])
	require.EqualValues(t, 0, bal.Body["balance"].(map[string]any)["heldCredits"])

	// The charge shows in usage, and the secret is in no answer, audit row or stored idempotent answer.
	require.Eventually(t, func() bool {
		u := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/usage?operation=services.invoke", Key: key})
		entries, _ := u.Body["usage"].([]any)
		return len(entries) == 1 && entries[0].(map[string]any)["chargedCredits"] == float64(10) &&
			entries[0].(map[string]any)["requests"] == float64(51)
	}, 5*time.Second, 20*time.Millisecond)
	var dump string
	require.NoError(t, env.DB.NewRaw(`SELECT coalesce(string_agg(t, ''), '') FROM (
		SELECT row_to_json(a)::text AS t FROM audit_events a UNION ALL SELECT row_to_json(c)::text FROM connections c
		UNION ALL SELECT encode(coalesce(response_body, ''), 'escape') FROM idempotency_keys) s`).Scan(context.Background(), &dump))
	require.NotContains(t, dump, upstreamSecret)
	require.NotEmpty(t, logs.String(), "the API logged something worth searching")
	require.NotContains(t, logs.String(), upstreamSecret, "the secret is in no log line")

	// A retried invocation (same key) replays: no second call, no second charge.
	before := calls.Load()
	again := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/services/imagegen/invoke", Key: key,
		Body:    map[string]any{"operationId": "generate", "input": map[string]any{"prompt": "a cat"}},
		Headers: map[string]string{"Idempotency-Key": "inv-0"}})
	if again.Status == http.StatusOK {
		require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	}
	require.Equal(t, before, calls.Load())

	caps := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/capabilities/imagegen", Key: key})
	require.Equal(t, http.StatusOK, caps.Status, "%s", caps.Raw)
	require.Equal(t, "generate", caps.Body["service"].(map[string]any)["operations"].([]any)[0].(map[string]any)["id"])
	pre := caps.Body["preflight"].(map[string]any)
	require.Equal(t, true, pre["ok"], "%s", caps.Raw)
	require.Equal(t, []any{"tiny-diffusion"}, pre["modelIds"])
}

// TestInvokeBadInputAndUpstreamFailures: unknown service and operation, a service that is down.
func TestInvokeBadInputAndUpstreamFailures(t *testing.T) {
	t.Parallel()
	up, _ := generationUpstream(t)
	env := gatewayEnv(t, up.URL)
	key := fundedKey(t, env, 5)
	invoke := func(path, idem string, body map[string]any) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: path, Key: key, Body: body, Headers: map[string]string{"Idempotency-Key": idem}})
	}
	require.Equal(t, http.StatusNotFound, invoke("/v1/services/nope/invoke", "a", map[string]any{"operationId": "x"}).Status)
	builtin := invoke("/v1/services/managed-workflows/invoke", "b", map[string]any{"operationId": "echo"})
	require.Equal(t, http.StatusNotFound, builtin.Status, "%s", builtin.Raw)
	badOp := invoke("/v1/services/imagegen/invoke", "c", map[string]any{"operationId": "paint"})
	require.Equal(t, http.StatusBadRequest, badOp.Status)
	require.Equal(t, "operationId", errorOf(badOp)["param"])

	createConnection(t, env, key)
	up.Close()
	down := invoke("/v1/services/imagegen/invoke", "d", map[string]any{"operationId": "generate"})
	require.Equal(t, http.StatusBadGateway, down.Status, "%s", down.Raw)
	require.Equal(t, "upstream_unreachable", down.ErrorCode())
	bal := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: key})
	require.EqualValues(t, 5, bal.Body["balance"].(map[string]any)["credits"], "a failed call's hold is released")
}

// createConnection stores the upstream's credential under the name the test services.yaml asks for.
func createConnection(t *testing.T, env *apptest.Env, key string) {
	t.Helper()
	conn := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/connections", Key: key,
		Body:    map[string]any{"name": "imagegen-key", "authType": "header", "headerName": "X-Api-Key", "secret": upstreamSecret},
		Headers: map[string]string{"Idempotency-Key": "conn"}})
	require.Equal(t, http.StatusCreated, conn.Status, "%s", conn.Raw)
	require.NotContains(t, string(conn.Raw), upstreamSecret, "the secret is never answered")
}

// TestInvokeFromLeasesChargesExactlyWhatIsAffordable: with a balance large enough for the API to pay
// calls from a credit lease (see ledger.Leases), 200 concurrent invocations against credits for 100:
// exactly 100 succeed and reach the service, the rest answer 402 without reaching it, and the balance
// ends at exactly 0.
func TestInvokeFromLeasesChargesExactlyWhatIsAffordable(t *testing.T) {
	t.Parallel()
	up, calls := generationUpstream(t)
	env := gatewayEnv(t, up.URL)
	key := fundedKey(t, env, 100)
	createConnection(t, env, key)

	ok, refused := countPaid(t, invokeConcurrently(t, env, key, 200))
	require.Equal(t, 100, ok)
	require.Equal(t, 100, refused)
	require.EqualValues(t, 100, calls.Load(), "refused calls never reached the service")
	var leases int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM credit_holds WHERE lease").Scan(context.Background(), &leases))
	require.Positive(t, leases, "no call was paid from a lease")
	bal := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: key})
	require.EqualValues(t, 0, bal.Body["balance"].(map[string]any)["credits"], "%s", bal.Raw)
	require.EqualValues(t, 0, bal.Body["balance"].(map[string]any)["heldCredits"], "%s", bal.Raw)
}

// TestInvokeBalanceIsExactWhileLeased: right after one call paid from a lease, the balance shows that
// call's charge and nothing held, although the lease has set more aside.
func TestInvokeBalanceIsExactWhileLeased(t *testing.T) {
	t.Parallel()
	up, _ := generationUpstream(t)
	env := apptest.NewWith(t, apptest.Options{Gateway: imagegenCatalog(t, up.URL), CreditLeases: ledger.LeaseOptions{MaxAge: time.Hour}})
	key := fundedKey(t, env, 1000)
	createConnection(t, env, key)
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/services/imagegen/invoke", Key: key,
		Body: map[string]any{"operationId": "generate"}, Headers: map[string]string{"Idempotency-Key": "one"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	var open int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM credit_holds WHERE lease AND status = 'held'").Scan(context.Background(), &open))
	require.Equal(t, 1, open, "the call was not paid from a lease still open")
	bal := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: key})
	require.EqualValues(t, 999, bal.Body["balance"].(map[string]any)["credits"], "%s", bal.Raw)
	require.EqualValues(t, 0, bal.Body["balance"].(map[string]any)["heldCredits"], "%s", bal.Raw)
}

// invokeConcurrently sends n invocations of imagegen's generate at once, each with an Idempotency-Key of
// its own, and returns their answers.
func invokeConcurrently(t *testing.T, env *apptest.Env, key string, n int) []*apptest.Response {
	t.Helper()
	answers := make([]*apptest.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/services/imagegen/invoke", Key: key,
				Body:    map[string]any{"operationId": "generate", "input": map[string]any{"prompt": "a cat"}},
				Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("inv-%d", i)}})
		}()
	}
	wg.Wait()
	return answers
}

// countPaid counts the answers that succeeded and those refused with 402 insufficient_credits; any other
// answer fails the test.
func countPaid(t *testing.T, answers []*apptest.Response) (ok, refused int) {
	t.Helper()
	for _, r := range answers {
		switch r.Status {
		case http.StatusOK:
			ok++
		case http.StatusPaymentRequired:
			require.Equal(t, "insufficient_credits", r.ErrorCode(), "%s", r.Raw)
			refused++
		default:
			t.Errorf("unexpected %d: %s", r.Status, r.Raw)
		}
	}
	return ok, refused
}

// fundedKey is the first key of a new account holding the given credits.
func fundedKey(t *testing.T, env *apptest.Env, credits int64) string {
	t.Helper()
	created, err := env.Accounts.Create(context.Background(), "payer", credits, time.Hour)
	require.NoError(t, err)
	first := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": created.CreditToken, "Idempotency-Key": "k"}})
	require.Equal(t, http.StatusCreated, first.Status, "%s", first.Raw)
	return first.Body["apiKey"].(map[string]any)["secret"].(string)
}

// TestSDKInvoke drives connections and an invocation through the SDK.
func TestSDKInvoke(t *testing.T) {
	t.Parallel()
	up, calls := generationUpstream(t)
	env := gatewayEnv(t, up.URL)
	ctx := context.Background()
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(fundedKey(t, env, 3)))
	conn := c.CreateConnection(ctx, client.CreateConnectionRequest{Name: "imagegen-key", AuthType: client.AuthHeader,
		HeaderName: "X-Api-Key", Secret: upstreamSecret})
	require.True(t, conn.OK, "%+v", conn.Error)
	res := c.Invoke(ctx, "imagegen", client.InvokeRequest{OperationID: "generate", Input: map[string]any{"prompt": "x"}})
	require.True(t, res.OK, "%+v", res.Error)
	require.Equal(t, 200, res.Body.Status)
	require.EqualValues(t, 1, res.Body.ChargedCredits)
	require.Equal(t, "1", res.Header.Get("X-Svc-Credits-Charged"))
	require.EqualValues(t, 1, calls.Load())
	require.Len(t, c.ListConnections(ctx, client.ListParams{}).Body.Connections, 1)
	off := true
	require.True(t, c.UpdateConnection(ctx, conn.Body.Connection.ID, client.UpdateConnectionRequest{Disabled: &off}).OK)
	disabled := c.Invoke(ctx, "imagegen", client.InvokeRequest{OperationID: "generate"})
	require.False(t, disabled.OK)
	require.Equal(t, client.CodeConflict, disabled.Error.Code)
	require.True(t, c.DeleteConnection(ctx, conn.Body.Connection.ID).OK)
	require.EqualValues(t, 2, c.Balance(ctx).Body.Balance.Credits)
}

// TestInvokeAnswerWaitsForItsCharge: when the charge cannot be recorded, the client gets no success
// (which it could never see replayed) and nothing is charged; a retry with the same key then succeeds
// and is charged once.
func TestInvokeAnswerWaitsForItsCharge(t *testing.T) {
	t.Parallel()
	var env *apptest.Env
	var calls atomic.Int64
	var breakLedger atomic.Bool
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if breakLedger.Load() { // the ledger refuses revenue postings until the constraint goes
			_, err := env.DB.ExecContext(r.Context(),
				"ALTER TABLE ledger_postings ADD CONSTRAINT test_no_revenue CHECK (book <> 'platform:revenue') NOT VALID")
			if err != nil {
				t.Errorf("add constraint: %v", err)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Svc-Credits-Charged", "1")
		_, _ = w.Write([]byte(`{"image":"ok"}`))
	}))
	t.Cleanup(up.Close)
	env = gatewayEnv(t, up.URL)
	key := fundedKey(t, env, 5)
	createConnection(t, env, key)
	invoke := func() *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/services/imagegen/invoke", Key: key,
			Body: map[string]any{"operationId": "generate"}, Headers: map[string]string{"Idempotency-Key": "once"}})
	}
	balance := func() map[string]any {
		return env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: key}).Body["balance"].(map[string]any)
	}

	breakLedger.Store(true)
	failed := invoke()
	require.Equal(t, http.StatusInternalServerError, failed.Status, "%s", failed.Raw)
	require.Empty(t, failed.Header.Get("X-Svc-Credits-Charged"), "the failed answer reports no charge")
	require.NotContains(t, string(failed.Raw), `"image"`)
	require.EqualValues(t, 5, balance()["credits"], "nothing charged; the attempt's hold is released")
	require.EqualValues(t, 0, balance()["heldCredits"])

	breakLedger.Store(false)
	_, err := env.DB.ExecContext(context.Background(), "ALTER TABLE ledger_postings DROP CONSTRAINT test_no_revenue")
	require.NoError(t, err)
	ok := invoke()
	require.Equal(t, http.StatusOK, ok.Status, "%s", ok.Raw)
	require.Empty(t, ok.Header.Get("Idempotent-Replayed"), "the failed attempt stored no answer")
	require.Equal(t, "1", ok.Header.Get("X-Svc-Credits-Charged"))
	require.EqualValues(t, 4, balance()["credits"], "charged once")
	require.EqualValues(t, 0, balance()["heldCredits"])
	replayed := invoke()
	require.Equal(t, "true", replayed.Header.Get("Idempotent-Replayed"))
	require.EqualValues(t, 2, calls.Load())
}

// TestInvokeRetryAfterAFailedAttemptHoldsAgain: an attempt whose call fails releases its hold; the retry
// with the same Idempotency-Key holds afresh and is charged, once, what the service reported.
func TestInvokeRetryAfterAFailedAttemptHoldsAgain(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 { // the first call dies mid-way
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Svc-Credits-Charged", "1")
		_, _ = w.Write([]byte(`{"image":"ok"}`))
	}))
	t.Cleanup(up.Close)
	env := gatewayEnv(t, up.URL)
	key := fundedKey(t, env, 5)
	createConnection(t, env, key)
	invoke := func() *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/services/imagegen/invoke", Key: key,
			Body: map[string]any{"operationId": "generate"}, Headers: map[string]string{"Idempotency-Key": "same"}})
	}
	failed := invoke()
	require.Equal(t, http.StatusBadGateway, failed.Status, "%s", failed.Raw)
	ok := invoke()
	require.Equal(t, http.StatusOK, ok.Status, "%s", ok.Raw)
	require.Equal(t, "1", ok.Header.Get("X-Svc-Credits-Charged"))
	bal := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: key}).Body["balance"].(map[string]any)
	require.EqualValues(t, 4, bal["credits"], "the retry was charged")
	require.EqualValues(t, 0, bal["heldCredits"])
	require.EqualValues(t, 2, calls.Load())
}
