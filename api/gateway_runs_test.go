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
	"go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/workflows"
)

// speech is a binary answer (not UTF-8), as a speech service gives.
var speech = []byte{0xff, 0xfb, 0x90, 0x00, 0x00, 0x80, 0xfe, 0x01, 'I', 'D', '3'}

// flakyUpstream answers 503 with Retry-After: 1 to the first `failures` calls, then 200 charging 2
// credits; paths under /reject answer 422. It records the Idempotency-Key of every call.
func flakyUpstream(t *testing.T, failures int64) (*httptest.Server, *atomic.Int64, func() []string) {
	t.Helper()
	var calls atomic.Int64
	var mu sync.Mutex
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		if r.Header.Get("X-Api-Key") != upstreamSecret {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/speech":
			w.Header().Set("Content-Type", "audio/mpeg")
			w.Header().Set("X-Svc-Credits-Charged", "1")
			_, _ = w.Write(speech)
		case r.URL.Path == "/reject":
			w.Header().Set("X-Svc-Credits-Charged", "0.5") // it charged for looking at the request
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"error":"bad prompt"}`))
		case n <= failures:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Header().Set("X-Svc-Credits-Charged", "2")
			_, _ = w.Write([]byte(fmt.Sprintf(`{"image":"ok","call":%d}`, n)))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), keys...) }
}

func gatewayRunEnv(t *testing.T, url string) *apptest.Env {
	t.Helper()
	cat, err := gateway.Parse([]byte(fmt.Sprintf(`
services:
  - id: imagegen
    baseUrl: %s
    connection: imagegen-key
    operations:
      - id: generate
        method: POST
        path: /make
        credits: 3
      - id: refuse
        method: POST
        path: /reject
        credits: 3
      - id: speak
        method: POST
        path: /speech
        credits: 3
      - id: guarded
        method: POST
        path: /make
        credits: 3
        requiresApproval: true
`, url)))
	require.NoError(t, err)
	return apptest.NewWith(t, apptest.Options{Gateway: cat})
}

func startRun(t *testing.T, env *apptest.Env, key, op, idem string) string {
	t.Helper()
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
		Body: map[string]any{"serviceId": "imagegen", "operationId": op, "input": map[string]any{"prompt": "a cat"}}, Headers: map[string]string{"Idempotency-Key": idem}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	return r.Body["run"].(map[string]any)["id"].(string)
}

func credits(t *testing.T, env *apptest.Env, key string) (available, held float64) {
	t.Helper()
	b := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: key}).Body["balance"].(map[string]any)
	return b["credits"].(float64), b["heldCredits"].(float64)
}

// TestGatewayRunRetriesAndChargesOnce: a run of an external service retries 503s (honouring
// Retry-After) with one hold and one idempotency key, then charges exactly what the service reported.
func TestGatewayRunRetriesAndChargesOnce(t *testing.T) {
	t.Parallel()
	up, calls, keys := flakyUpstream(t, 2)
	env := gatewayRunEnv(t, up.URL)
	key := fundedKey(t, env, 10)
	createConnection(t, env, key)

	runID := startRun(t, env, key, "generate", "r1")
	run := waitRun(t, env, key, runID, "succeeded")
	require.Equal(t, map[string]any{"image": "ok", "call": float64(3)}, run["output"])
	require.EqualValues(t, 2, run["chargedCredits"])
	require.EqualValues(t, 3, calls.Load(), "two 503s, then the answer")
	require.Equal(t, []string{runID, runID, runID}, keys(), "every attempt carries the run id as its Idempotency-Key")
	require.NotContains(t, historyText(t, env, "run/"+runID), upstreamSecret, "no credential in the workflow history")
	available, held := credits(t, env, key)
	require.EqualValues(t, 8, available, "charged once, what the service reported")
	require.EqualValues(t, 0, held)

	// A 4xx is final: no retry; what the service reported is charged, and the run shows it.
	before := calls.Load()
	refused := waitRun(t, env, key, startRun(t, env, key, "refuse", "r2"), "failed")
	require.Equal(t, "upstream_rejected", refused["error"].(map[string]any)["code"])
	require.EqualValues(t, 0.5, refused["chargedCredits"])
	require.Equal(t, before+1, calls.Load())
	available, held = credits(t, env, key)
	require.EqualValues(t, 7.5, available)
	require.EqualValues(t, 0, held)
}

// TestGatewayRunWithoutCreditsOrConnection: a run that cannot be paid, or lacks its connection, fails
// with the reason and never reaches the service.
func TestGatewayRunWithoutCreditsOrConnection(t *testing.T) {
	t.Parallel()
	up, calls, _ := flakyUpstream(t, 0)
	env := gatewayRunEnv(t, up.URL)
	key := fundedKey(t, env, 1)
	noConn := waitRun(t, env, key, startRun(t, env, key, "generate", "r1"), "failed")
	require.Equal(t, "connection_missing", noConn["error"].(map[string]any)["code"])
	createConnection(t, env, key)
	poor := waitRun(t, env, key, startRun(t, env, key, "generate", "r2"), "failed")
	require.Equal(t, "insufficient_credits", poor["error"].(map[string]any)["code"])
	require.Zero(t, calls.Load())
	available, held := credits(t, env, key)
	require.EqualValues(t, 1, available)
	require.EqualValues(t, 0, held)
}

// historyText is the workflow's whole history as JSON.
func historyText(t *testing.T, env *apptest.Env, workflowID string) string {
	t.Helper()
	iter := env.Temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var b strings.Builder
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		raw, err := protojson.Marshal(ev)
		require.NoError(t, err)
		b.Write(raw)
	}
	require.Contains(t, b.String(), "InvokeService", "the history holds the call")
	return b.String()
}

// TestOperationNeedingApprovalOnlyRunsAsARun: an operation services.yaml marks requiresApproval cannot
// be invoked directly; as a run it waits for an approval.
func TestOperationNeedingApprovalOnlyRunsAsARun(t *testing.T) {
	t.Parallel()
	up, calls, _ := flakyUpstream(t, 0)
	env := gatewayRunEnv(t, up.URL)
	key := fundedKey(t, env, 10)
	direct := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/services/imagegen/invoke", Key: key,
		Body: map[string]any{"operationId": "guarded"}, Headers: map[string]string{"Idempotency-Key": "direct"}})
	require.Equal(t, http.StatusForbidden, direct.Status, "%s", direct.Raw)
	require.Equal(t, "forbidden", direct.ErrorCode())
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
		Body: map[string]any{"serviceId": "imagegen", "operationId": "guarded"}, Headers: map[string]string{"Idempotency-Key": "run"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	require.Equal(t, "awaiting_approval", r.Body["run"].(map[string]any)["status"])
	require.Zero(t, calls.Load())
}

// TestGatewayRunKeepsAFileAnswerAsAnArtifact: a service answering with a file (audio) gets it kept as the
// run's artifact, byte for byte; the run's output names it.
func TestGatewayRunKeepsAFileAnswerAsAnArtifact(t *testing.T) {
	t.Parallel()
	up, _, _ := flakyUpstream(t, 0)
	env := gatewayRunEnv(t, up.URL)
	key := fundedKey(t, env, 10)
	createConnection(t, env, key)
	runID := startRun(t, env, key, "speak", "r")
	run := waitRun(t, env, key, runID, "succeeded")
	art := run["output"].(map[string]any)["artifact"].(map[string]any)
	require.Equal(t, "result.mp3", art["name"])
	require.Equal(t, "audio/mpeg", art["contentType"])
	require.EqualValues(t, len(speech), art["sizeBytes"])
	content := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/artifacts/" + art["id"].(string) + "/content", Key: key})
	require.Equal(t, http.StatusOK, content.Status)
	require.Equal(t, speech, content.Raw)
	require.Equal(t, "audio/mpeg", content.Header.Get("Content-Type"))
	list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/artifacts?runId=" + runID, Key: key})
	require.Len(t, list.Body["artifacts"].([]any), 2, "the file and output.json")
}

// TestRunsCreditsPerDay: a creditsPerDay limit on runs.create.<serviceId> counts each priced run's price
// when it is created; the run that would pass the limit is refused with 429 naming the selector.
func TestRunsCreditsPerDay(t *testing.T) {
	t.Parallel()
	up, _, _ := flakyUpstream(t, 0)
	env := gatewayRunEnv(t, up.URL)
	root := fundedKey(t, env, 100)
	createConnection(t, env, root)
	child := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: root,
		Body:    map[string]any{"limits": []map[string]any{{"operation": "runs.create.imagegen", "creditsPerDay": 5}}},
		Headers: map[string]string{"Idempotency-Key": "limited"}})
	require.Equal(t, http.StatusCreated, child.Status, "%s", child.Raw)
	key := child.Body["apiKey"].(map[string]any)["secret"].(string)

	waitRun(t, env, key, startRun(t, env, key, "generate", "r1"), "succeeded") // 3 of 5
	refused := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
		Body: map[string]any{"serviceId": "imagegen", "operationId": "generate"}, Headers: map[string]string{"Idempotency-Key": "r2"}})
	require.Equal(t, http.StatusTooManyRequests, refused.Status, "%s", refused.Raw)
	require.Equal(t, "limit_exceeded", refused.ErrorCode())
	require.Equal(t, "runs.create.imagegen", refused.Header.Get("X-Svc-Limit-Operation"))
	require.NotEmpty(t, refused.Header.Get("Retry-After"))
	free := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, Headers: map[string]string{"Idempotency-Key": "r3"}})
	require.Equal(t, http.StatusCreated, free.Status, "a free run of another service is not limited: %s", free.Raw)
}

// TestACancelledRunNeverCalls: a run cancelled while no workflow of it existed (cancelOrphan), whose
// workflow a sweep then starts anyway, ends cancelled without calling the service or charging.
func TestACancelledRunNeverCalls(t *testing.T) {
	t.Parallel()
	up, calls, _ := flakyUpstream(t, 0)
	env := gatewayRunEnv(t, up.URL)
	key := fundedKey(t, env, 10)
	createConnection(t, env, key)
	first := startRun(t, env, key, "generate", "r1")
	waitRun(t, env, key, first, "succeeded")
	ctx := context.Background()
	_, err := env.DB.NewRaw(`INSERT INTO runs (id, account_id, project_id, key_id, service_id, operation_id, status, input,
		workflow_id, error_code, error_message, completed_at)
		SELECT 'run_cancelled', account_id, project_id, key_id, service_id, operation_id, 'cancelled', input,
		'run/run_cancelled', 'cancelled', 'the run was cancelled', now() FROM runs WHERE id = ?`, first).Exec(ctx)
	require.NoError(t, err)
	before := calls.Load()
	availableBefore, _ := credits(t, env, key)

	_, err = env.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: "run/run_cancelled", TaskQueue: workflows.TaskQueue},
		workflows.RunWorkflowName, workflows.RunParams{RunID: "run_cancelled", ServiceID: "imagegen", OperationID: "generate", External: true})
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var out workflows.RunOutcome
	err = env.Temporal.GetWorkflow(wctx, "run/run_cancelled", "").Get(wctx, &out)
	var canceled *temporal.CanceledError
	require.ErrorAs(t, err, &canceled, "the workflow ends with the stored outcome")
	require.Equal(t, before, calls.Load(), "the service is never called")
	got := waitRun(t, env, key, "run_cancelled", client.RunCancelled)
	require.Nil(t, got["output"])
	require.EqualValues(t, 0, got["chargedCredits"])
	available, held := credits(t, env, key)
	require.Equal(t, availableBefore, available)
	require.EqualValues(t, 0, held)
}
