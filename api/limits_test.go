package api_test

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// TestTwoAPIProcessesShareALimit: a key with requestsPerMinute 25 on services.list, loaded through two
// API processes at once, gets exactly 25 answers in total; refusals carry the contract's headers.
func TestTwoAPIProcessesShareALimit(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root := env.FirstKey(t)
	child := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: root,
		Body:    map[string]any{"limits": []map[string]any{{"operation": "services.list", "requestsPerMinute": 25}}},
		Headers: map[string]string{"Idempotency-Key": "limited"}})
	require.Equal(t, http.StatusCreated, child.Status, "%s", child.Raw)
	key := child.Body["apiKey"].(map[string]any)["secret"].(string)
	second := env.SecondAPI(t)

	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	for i := range 80 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := env.URL
			if i%2 == 1 {
				base = second
			}
			r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/services", Key: key, BaseURL: base})
			switch r.Status {
			case http.StatusOK:
				ok.Add(1)
				require.Contains(t, r.Header.Get("RateLimit-Policy"), `"services.list";q=25;w=60`)
				require.NotEmpty(t, r.Header.Get("RateLimit"))
			case http.StatusTooManyRequests:
				limited.Add(1)
				require.Equal(t, "limit_exceeded", r.ErrorCode())
				require.Equal(t, "services.list", r.Header.Get("X-Svc-Limit-Operation"))
				secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
				require.NoError(t, err, "Retry-After is whole seconds")
				require.True(t, secs >= 1 && secs <= 60, "Retry-After %d", secs)
				require.NotEmpty(t, r.Header.Get("RateLimit-Policy"))
			default:
				t.Errorf("unexpected %d: %s", r.Status, r.Raw)
			}
		}()
	}
	wg.Wait()
	require.EqualValues(t, 25, ok.Load())
	require.EqualValues(t, 55, limited.Load())

	// Other operations are not limited, and the parent is not limited by its child's limit.
	require.Equal(t, http.StatusOK, env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/actions", Key: root}).Status)
	require.Equal(t, http.StatusOK, env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/services", Key: root}).Status)

}

// TestRunLimitsMatchQualifiedSelectors: a limit on runs.create.managed-workflows.sleep refuses sleep runs
// beyond it but not echo runs.
func TestRunLimitsMatchQualifiedSelectors(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root := env.FirstKey(t)
	child := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: root,
		Body:    map[string]any{"limits": []map[string]any{{"operation": "runs.create.managed-workflows.sleep", "requestsPerMinute": 2}}},
		Headers: map[string]string{"Idempotency-Key": "q"}})
	require.Equal(t, http.StatusCreated, child.Status, "%s", child.Raw)
	key := child.Body["apiKey"].(map[string]any)["secret"].(string)
	run := func(op, idem string) *apptest.Response {
		input := map[string]any{}
		if op == "sleep" {
			input["seconds"] = 0
		}
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
			Body: map[string]any{"serviceId": "managed-workflows", "operationId": op, "input": input}, Headers: map[string]string{"Idempotency-Key": idem}})
	}
	require.Equal(t, http.StatusCreated, run("sleep", "s1").Status)
	require.Equal(t, http.StatusCreated, run("sleep", "s2").Status)
	third := run("sleep", "s3")
	require.Equal(t, http.StatusTooManyRequests, third.Status, "%s", third.Raw)
	require.Equal(t, "runs.create.managed-workflows.sleep", third.Header.Get("X-Svc-Limit-Operation"))
	require.Equal(t, http.StatusCreated, run("echo", "e1").Status)
	replay := run("sleep", "s1")
	require.Equal(t, http.StatusCreated, replay.Status, "a replay is not limited")
	require.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))
}
