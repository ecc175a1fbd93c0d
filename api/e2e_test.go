package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/idempotency"
)

func firstKey(t *testing.T, env *apptest.Env) (string, map[string]any) {
	t.Helper()
	_, token := env.NewAccount(t, "acme")
	resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{"name": "root"},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first-key"}})
	require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
	key := resp.Body["apiKey"].(map[string]any)
	return key["secret"].(string), key
}

func waitRun(t *testing.T, env *apptest.Env, key, runID string, want string) map[string]any {
	t.Helper()
	var run map[string]any
	require.Eventually(t, func() bool {
		resp := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + runID, Key: key})
		require.Equal(t, http.StatusOK, resp.Status, "%s", resp.Raw)
		run = resp.Body["run"].(map[string]any)
		return run["status"] == want
	}, 20*time.Second, 20*time.Millisecond, "run %s never reached %s (last %v)", runID, want, run)
	return run
}

// TestFoundationJourney walks the end-to-end path through every layer.
func TestFoundationJourney(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, rootKey := firstKey(t, env)
	require.Len(t, rootKey["scopes"], len(client.AllScopes))
	require.Equal(t, []any{"*"}, rootKey["services"])
	require.Nil(t, rootKey["parentId"])

	// A child narrower than its parent is created; it inherits nothing it did not ask for in scopes.
	child := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: root,
		Body:    map[string]any{"name": "runner", "scopes": []string{"runs:read", "runs:write"}, "services": []string{"managed-workflows"}},
		Headers: map[string]string{"Idempotency-Key": "child-1"}})
	require.Equal(t, http.StatusCreated, child.Status, "%s", child.Raw)
	childKey := child.Body["apiKey"].(map[string]any)
	childSecret := childKey["secret"].(string)
	require.Equal(t, rootKey["id"], childKey["parentId"])

	// A key without api_keys:manage cannot make keys at all.
	wider := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: root,
		Body: map[string]any{"scopes": []string{"runs:read"}}, Headers: map[string]string{"Idempotency-Key": "child-2"}})
	require.Equal(t, http.StatusCreated, wider.Status)
	narrow := wider.Body["apiKey"].(map[string]any)["secret"].(string)
	denied := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: narrow,
		Body: map[string]any{"scopes": []string{"runs:write"}}, Headers: map[string]string{"Idempotency-Key": "gc"}})
	require.Equal(t, http.StatusForbidden, denied.Status, "%s", denied.Raw)
	require.Equal(t, "scope_missing", denied.ErrorCode()) // narrow lacks api_keys:manage

	// Scope denial: the child holds runs:* only.
	scope := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/services", Key: childSecret})
	require.Equal(t, http.StatusForbidden, scope.Status)
	require.Equal(t, "scope_missing", scope.ErrorCode())
	require.Equal(t, "services:read", scope.Body["error"].(map[string]any)["details"].(map[string]any)["requiredScope"])
	require.NotEmpty(t, scope.Header.Get("X-Request-Id"))
	require.Equal(t, scope.Header.Get("X-Request-Id"), scope.Body["error"].(map[string]any)["requestId"])

	// Every authenticated request is audited, refusals included, and the audit never holds a secret.
	deniedID := scope.Header.Get("X-Request-Id")
	require.Eventually(t, func() bool {
		n, err := env.DB.NewSelect().Table("audit_events").
			Where("request_id = ? AND status = 403 AND operation = 'services.list' AND key_id = ?", deniedID, childKey["id"]).
			Count(context.Background())
		require.NoError(t, err)
		return n == 1
	}, 5*time.Second, 10*time.Millisecond, "the denied request was not audited")
	var auditDump string
	require.NoError(t, env.DB.NewRaw("SELECT coalesce(string_agg(row_to_json(a)::text, ''), '') FROM audit_events a").Scan(context.Background(), &auditDump))
	require.NotContains(t, auditDump, childSecret)
	require.NotContains(t, auditDump, root)

	// Echo run, idempotent replay, reuse with other input, in-flight duplicate.
	body := map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"hello": "world"}}
	created := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: childSecret, Body: body,
		Headers: map[string]string{"Idempotency-Key": "run-1"}})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	runID := created.Body["run"].(map[string]any)["id"].(string)
	replayed := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: childSecret, Body: body,
		Headers: map[string]string{"Idempotency-Key": "run-1"}})
	require.Equal(t, http.StatusCreated, replayed.Status)
	require.Equal(t, "true", replayed.Header.Get("Idempotent-Replayed"))
	require.Equal(t, string(created.Raw), string(replayed.Raw))
	reused := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: childSecret,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, Headers: map[string]string{"Idempotency-Key": "run-1"}})
	require.Equal(t, http.StatusUnprocessableEntity, reused.Status)
	require.Equal(t, "idempotency_key_reused", reused.ErrorCode())

	run := waitRun(t, env, childSecret, runID, client.RunSucceeded)
	require.Equal(t, map[string]any{"hello": "world"}, run["output"])
	require.NotNil(t, run["completedAt"])
	// Exactly one run and one workflow, whatever the replays did.
	desc, err := env.Temporal.DescribeWorkflowExecution(context.Background(), "run/"+runID, "")
	require.NoError(t, err)
	require.Equal(t, "RunWorkflow", desc.GetWorkflowExecutionInfo().GetType().GetName())
	require.Equal(t, 1, countRows(t, env, "runs"))

	inFlightBody, _ := json.Marshal(body)
	var acct string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM api_keys WHERE id = ?", rootKey["id"]).Scan(context.Background(), &acct))
	store := idempotency.NewStore(env.DB, env.Box, idempotency.Options{})
	_, err = store.Claim(context.Background(), idempotency.Request{AccountID: acct, Key: "run-2", Method: "POST", Path: "/v1/runs",
		Fingerprint: idempotency.Fingerprint("key:"+childKey["id"].(string), "POST", "/v1/runs", "", inFlightBody)})
	require.NoError(t, err)
	busy := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: childSecret, Body: body,
		Headers: map[string]string{"Idempotency-Key": "run-2"}})
	require.Equal(t, http.StatusConflict, busy.Status, "%s", busy.Raw)
	require.Equal(t, "idempotency_in_flight", busy.ErrorCode())
	require.Equal(t, "1", busy.Header.Get("Retry-After"), "a request in flight says when to retry")

	// A sleep run is running, then succeeded.
	sleep := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: childSecret,
		Body:    map[string]any{"serviceId": "managed-workflows", "operationId": "sleep", "input": map[string]any{"seconds": 1.5}},
		Headers: map[string]string{"Idempotency-Key": "sleep-1"}})
	require.Equal(t, http.StatusCreated, sleep.Status, "%s", sleep.Raw)
	sleepID := sleep.Body["run"].(map[string]any)["id"].(string)
	waitRun(t, env, childSecret, sleepID, client.RunRunning)
	waitRun(t, env, childSecret, sleepID, client.RunSucceeded)

	// The two runs are the account's only workflows, found by the search attribute operators use.
	var acctID string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM runs WHERE id = ?", runID).Scan(context.Background(), &acctID))
	require.Eventually(t, func() bool {
		resp, err := env.Temporal.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
			Query: fmt.Sprintf("SvcAccountId = %q AND SvcServiceId = 'managed-workflows'", acctID)})
		require.NoError(t, err)
		return resp.GetCount() == 2
	}, 10*time.Second, 20*time.Millisecond)

	// Revoking the parent kills the child's access at once.
	revoke := env.Do(t, apptest.Req{Method: http.MethodDelete, Path: "/v1/api-keys/" + rootKey["id"].(string), Key: root,
		Headers: map[string]string{"Idempotency-Key": "revoke-root"}})
	require.Equal(t, http.StatusOK, revoke.Status, "%s", revoke.Raw)
	for _, k := range []string{root, childSecret, narrow} {
		gone := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + runID, Key: k})
		require.Equal(t, http.StatusUnauthorized, gone.Status)
		require.Equal(t, "unauthenticated", gone.ErrorCode())
	}
}
