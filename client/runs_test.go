package client_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// TestListRunsSendsFiltersAndDecodesThePage: every filter travels under its documented query name, the
// times in UTC to the nanosecond, and the page decodes with its cursor.
func TestListRunsSendsFiltersAndDecodesThePage(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "runs": []any{okRun("running")["run"]}, "nextCursor": "next+1"})
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	from := time.Date(2026, 1, 2, 4, 4, 5, 123456789, time.FixedZone("x", 3600))
	to := time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)
	resp := c.ListRuns(context.Background(), client.ListRunsParams{ListParams: client.ListParams{Limit: 7, Cursor: "c/1"},
		Status: client.RunRunning, ServiceID: client.ServiceManagedWorkflows, OperationID: client.OperationSleep, From: from, To: to})
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Len(t, resp.Body.Runs, 1)
	require.Equal(t, "run_1", resp.Body.Runs[0].ID)
	require.Equal(t, "next+1", *resp.Body.NextCursor)

	got := rec.last(t)
	require.Equal(t, http.MethodGet, got.Method)
	require.Equal(t, "/v1/runs", got.Path)
	require.Empty(t, got.Header.Get(client.HeaderIdempotencyKey), "a list is not idempotent-keyed")
	q, err := url.ParseQuery(got.Query)
	require.NoError(t, err)
	require.Equal(t, url.Values{
		"limit": {"7"}, "cursor": {"c/1"}, "status": {"running"}, "serviceId": {"managed-workflows"},
		"operationId": {"sleep"}, "from": {"2026-01-02T03:04:05.123456789Z"}, "to": {"2026-01-03T00:00:00Z"},
	}, q)

	_ = c.ListRuns(context.Background(), client.ListRunsParams{})
	require.Empty(t, rec.last(t).Query, "zero parameters send nothing")
}

// TestCancelRun posts to the run's cancel path with an Idempotency-Key, escapes the id and refuses an
// empty one locally.
func TestCancelRun(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.EscapedPath() != "/v1/runs/run_1/cancel" {
			writeJSON(w, http.StatusConflict, map[string]any{"ok": false, "error": map[string]any{
				"code": "conflict", "message": "already finished", "requestId": "req_c"}})
			return
		}
		writeJSON(w, http.StatusOK, okRun("running"))
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	ctx := context.Background()

	resp := c.CancelRun(ctx, "run_1", client.WithIdempotencyKey("cancel-1"))
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Equal(t, client.RunRunning, resp.Body.Run.Status)
	require.Equal(t, "cancel-1", resp.IdempotencyKey)
	got := rec.last(t)
	require.Equal(t, http.MethodPost, got.Method)
	require.Equal(t, "cancel-1", got.Header.Get(client.HeaderIdempotencyKey))
	require.Equal(t, "Bearer "+testKey, got.Header.Get(client.HeaderAuthorization))
	require.Empty(t, got.Body)

	generated := c.CancelRun(ctx, "run_1")
	require.Regexp(t, uuidRE, generated.IdempotencyKey)

	conflict := c.CancelRun(ctx, "run/2")
	require.False(t, conflict.OK)
	require.Equal(t, http.StatusConflict, conflict.StatusCode)
	require.Equal(t, "conflict", conflict.Error.Code)
	require.Equal(t, "/v1/runs/run%2F2/cancel", rec.last(t).RawPath)

	sent := func() int {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.reqs)
	}
	before := sent()
	empty := c.CancelRun(ctx, "")
	require.Equal(t, "invalid_request", empty.Error.Code)
	require.Equal(t, "runId", empty.Error.Param)
	require.Equal(t, before, sent(), "an empty id is never sent")
}
