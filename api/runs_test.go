package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// runsAccount is an account with its first key, as the runs tests use it.
type runsAccount struct {
	secret    string
	keyID     string
	accountID string
}

func newRunsAccount(t *testing.T, env *apptest.Env) runsAccount {
	t.Helper()
	secret, key := firstKey(t, env)
	a := runsAccount{secret: secret, keyID: key["id"].(string)}
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM api_keys WHERE id = ?", a.keyID).Scan(context.Background(), &a.accountID))
	return a
}

// childKey creates a key of a under parent with the given scopes and services and returns its secret.
func (a runsAccount) childKey(t *testing.T, env *apptest.Env, idem string, body map[string]any) string {
	t.Helper()
	resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: a.secret, Body: body,
		Headers: map[string]string{"Idempotency-Key": idem}})
	require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
	return resp.Body["apiKey"].(map[string]any)["secret"].(string)
}

// storedRun is a run row written straight into the database, to list runs of chosen times, statuses and
// services without running them.
type storedRun struct {
	id, service, operation, status string
	project                        *string
	created                        time.Time
}

func insertRuns(t *testing.T, env *apptest.Env, a runsAccount, runs ...storedRun) {
	t.Helper()
	insertRunsWaitingFor(t, env, a, nil, runs...)
}

// insertRunsWaitingFor inserts runs that wait for the approval with the id approval (none when nil), the
// id stored with each row: a sweep may look at a row as soon as it exists.
func insertRunsWaitingFor(t *testing.T, env *apptest.Env, a runsAccount, approval *string, runs ...storedRun) {
	t.Helper()
	for _, r := range runs {
		_, err := env.DB.NewRaw(`INSERT INTO runs (id, account_id, project_id, key_id, service_id, operation_id, status, input,
			workflow_id, approval_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, '{}', ?, ?, ?, ?)`,
			r.id, a.accountID, r.project, a.keyID, r.service, r.operation, r.status, "run/"+r.id, approval, r.created, r.created).
			Exec(context.Background())
		require.NoError(t, err)
	}
}

// listRunIDs lists runs with the query and returns their ids in order and the next cursor ("" on the
// last page).
func listRunIDs(t *testing.T, env *apptest.Env, key, query string, headers map[string]string) ([]string, string) {
	t.Helper()
	resp := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs?" + query, Key: key, Headers: headers})
	require.Equal(t, http.StatusOK, resp.Status, "%s", resp.Raw)
	require.Equal(t, true, resp.Body["ok"])
	ids := []string{}
	for _, r := range resp.Body["runs"].([]any) {
		ids = append(ids, r.(map[string]any)["id"].(string))
	}
	next, _ := resp.Body["nextCursor"].(string)
	return ids, next
}

// TestListRuns covers GET /v1/runs: newest first, each filter alone and together, pages that add up to the
// whole list, account and project isolation, runs of services the key may not use left out, and bad
// parameters answered 400 naming the parameter.
func TestListRuns(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	projResp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/projects", Key: acme.secret,
		Body: map[string]any{"name": "runs"}, Headers: map[string]string{"Idempotency-Key": "proj"}})
	require.Equal(t, http.StatusCreated, projResp.Status, "%s", projResp.Raw)
	projectID := projResp.Body["project"].(map[string]any)["id"].(string)

	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	wf, wallets := client.ServiceManagedWorkflows, client.ServiceManagedWallets
	insertRuns(t, env, acme,
		storedRun{"run_a0", wf, "echo", "succeeded", nil, at(0)},
		storedRun{"run_a1", wf, "sleep", "failed", nil, at(1)},
		storedRun{"run_a2", wallets, "transfer", "running", nil, at(2)},
		storedRun{"run_a3", wf, "sleep", "cancelled", nil, at(3)},
		// Two runs created in the same instant: the id breaks the tie, also across a page boundary.
		storedRun{"run_a4x", wf, "echo", "failed", nil, at(4)},
		storedRun{"run_a4y", wallets, "transfer", "failed", nil, at(4)},
		storedRun{"run_p0", wf, "echo", "succeeded", &projectID, at(5)},
	)
	// And one real run, made through the API now: the newest of all.
	created := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: acme.secret,
		Body:    map[string]any{"serviceId": wf, "operationId": "echo", "input": map[string]any{"n": 1}},
		Headers: map[string]string{"Idempotency-Key": "real"}})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	realID := created.Body["run"].(map[string]any)["id"].(string)
	waitRun(t, env, acme.secret, realID, client.RunSucceeded)

	all := []string{realID, "run_a4y", "run_a4x", "run_a3", "run_a2", "run_a1", "run_a0"}
	ids, next := listRunIDs(t, env, acme.secret, "", nil)
	require.Equal(t, all, ids, "newest first, the project's run left out")
	require.Empty(t, next)

	// The wire shape is the run's, as GET /v1/runs/{runId} answers it.
	full := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs?limit=1", Key: acme.secret})
	one := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + realID, Key: acme.secret})
	require.Equal(t, one.Body["run"], full.Body["runs"].([]any)[0])
	require.Equal(t, map[string]any{"n": float64(1)}, one.Body["run"].(map[string]any)["output"])

	t.Run("filters", func(t *testing.T) {
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"status=failed", []string{"run_a4y", "run_a4x", "run_a1"}},
			{"status=succeeded", []string{realID, "run_a0"}},
			{"status=queued", []string{}},
			{"serviceId=managed-wallets", []string{"run_a4y", "run_a2"}},
			{"operationId=sleep", []string{"run_a3", "run_a1"}},
			{"serviceId=managed-workflows&operationId=echo", []string{realID, "run_a4x", "run_a0"}},
			{"serviceId=nobody", []string{}},
			{"from=" + url.QueryEscape(at(1).Format(time.RFC3339)) + "&to=" + url.QueryEscape(at(4).Format(time.RFC3339)),
				[]string{"run_a3", "run_a2", "run_a1"}}, // from inclusive, to exclusive
			{"to=" + at(1).Format(time.RFC3339), []string{"run_a0"}},
			{"from=" + url.QueryEscape(at(4).In(time.FixedZone("CET", 3600)).Format(time.RFC3339)),
				[]string{realID, "run_a4y", "run_a4x"}}, // any offset names the same instant
			{"from=" + at(1).Format(time.RFC3339) + "&status=failed&serviceId=managed-workflows", []string{"run_a4x", "run_a1"}},
		} {
			ids, next := listRunIDs(t, env, acme.secret, c.query, nil)
			require.Equal(t, c.want, ids, c.query)
			require.Empty(t, next, c.query)
		}
	})

	t.Run("pages", func(t *testing.T) {
		for _, limit := range []int{1, 2, 3, 6} {
			var got []string
			cursor, pages := "", 0
			for {
				q := "limit=" + strconv.Itoa(limit)
				if cursor != "" {
					q += "&cursor=" + url.QueryEscape(cursor)
				}
				ids, next := listRunIDs(t, env, acme.secret, q, nil)
				require.LessOrEqual(t, len(ids), limit)
				got, cursor, pages = append(got, ids...), next, pages+1
				if cursor == "" {
					break
				}
				require.Len(t, ids, limit, "only the last page is short")
				require.Less(t, pages, 10, "paging does not end")
			}
			require.Equal(t, all, got, "limit %d", limit)
			require.Equal(t, (len(all)+limit-1)/limit, pages, "limit %d", limit)
		}
		// The cursor keeps the filters' meaning: page two of the failed runs.
		ids, next := listRunIDs(t, env, acme.secret, "status=failed&limit=2", nil)
		require.Equal(t, []string{"run_a4y", "run_a4x"}, ids)
		require.NotEmpty(t, next)
		ids, next = listRunIDs(t, env, acme.secret, "status=failed&limit=2&cursor="+url.QueryEscape(next), nil)
		require.Equal(t, []string{"run_a1"}, ids)
		require.Empty(t, next)
	})

	t.Run("isolation", func(t *testing.T) {
		inProject := map[string]string{"X-Svc-Project": projectID}
		ids, _ := listRunIDs(t, env, acme.secret, "", inProject)
		require.Equal(t, []string{"run_p0"}, ids, "a project sees only its own runs")
		bound := acme.childKey(t, env, "bound", map[string]any{"projectId": projectID})
		ids, _ = listRunIDs(t, env, bound, "", nil)
		require.Equal(t, []string{"run_p0"}, ids, "a project-bound key too")

		stranger := newRunsAccount(t, env)
		ids, next := listRunIDs(t, env, stranger.secret, "", nil)
		require.Empty(t, ids, "another account sees none of them")
		require.Empty(t, next)
		foreignProject := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs", Key: stranger.secret, Headers: inProject})
		require.Equal(t, http.StatusNotFound, foreignProject.Status, "%s", foreignProject.Raw)
	})

	t.Run("service access", func(t *testing.T) {
		walletsOnly := acme.childKey(t, env, "wallets-only", map[string]any{"scopes": []string{"runs:read"}, "services": []string{wallets}})
		ids, _ := listRunIDs(t, env, walletsOnly, "", nil)
		require.Equal(t, []string{"run_a4y", "run_a2"}, ids, "runs of services the key may not use are left out")
		ids, _ = listRunIDs(t, env, walletsOnly, "serviceId=managed-workflows", nil)
		require.Empty(t, ids, "filtering for a forbidden service finds nothing rather than failing")
		ids, next := listRunIDs(t, env, walletsOnly, "limit=1", nil)
		require.Equal(t, []string{"run_a4y"}, ids)
		ids, _ = listRunIDs(t, env, walletsOnly, "limit=1&cursor="+url.QueryEscape(next), nil)
		require.Equal(t, []string{"run_a2"}, ids, "pages skip forbidden runs too")

		none := acme.childKey(t, env, "no-services", map[string]any{"scopes": []string{"runs:read"}, "services": []string{}})
		ids, _ = listRunIDs(t, env, none, "", nil)
		require.Empty(t, ids)

		noScope := acme.childKey(t, env, "no-scope", map[string]any{"scopes": []string{"runs:write"}})
		denied := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs", Key: noScope})
		require.Equal(t, http.StatusForbidden, denied.Status)
		require.Equal(t, "scope_missing", denied.ErrorCode())
	})

	t.Run("bad parameters", func(t *testing.T) {
		for _, c := range []struct{ query, param string }{
			{"status=done", "status"},
			{"status=SUCCEEDED", "status"},
			{"from=yesterday", "from"},
			{"to=2025-03-01", "to"},
			{"from=2025-03-01T12:00:00Z&to=12:00", "to"},
			{"limit=0", "limit"},
			{"limit=201", "limit"},
			{"limit=ten", "limit"},
			{"cursor=not-a-cursor", "cursor"},
		} {
			resp := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs?" + c.query, Key: acme.secret})
			require.Equal(t, http.StatusBadRequest, resp.Status, "%s: %s", c.query, resp.Raw)
			require.Equal(t, "invalid_request", resp.ErrorCode(), c.query)
			require.Equal(t, c.param, errorOf(resp)["param"], "%s: %s", c.query, resp.Raw)
		}
	})
}

// workflowEvents returns the event types of a workflow's history.
func workflowEvents(t *testing.T, env *apptest.Env, workflowID string) []enums.EventType {
	t.Helper()
	it := env.Temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var types []enums.EventType
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		types = append(types, e.GetEventType())
	}
	return types
}

// TestCancelRun covers POST /v1/runs/{runId}/cancel: a long sleep run is cancelled through Temporal and
// ends cancelled; the answer replays under its Idempotency-Key; a finished run answers 409; a foreign,
// unknown or forbidden run changes nothing; a run whose workflow was terminated is settled cancelled.
func TestCancelRun(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme := newRunsAccount(t, env)
	ctx := context.Background()
	start := func(key, idem, operation string, input map[string]any) string {
		t.Helper()
		resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
			Body:    map[string]any{"serviceId": client.ServiceManagedWorkflows, "operationId": operation, "input": input},
			Headers: map[string]string{"Idempotency-Key": idem}})
		require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
		return resp.Body["run"].(map[string]any)["id"].(string)
	}
	cancel := func(key, runID, idem string) *apptest.Response {
		t.Helper()
		h := map[string]string{}
		if idem != "" {
			h["Idempotency-Key"] = idem
		}
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs/" + runID + "/cancel", Key: key, Headers: h})
	}
	long := map[string]any{"seconds": 600}

	// A foreign, unknown or forbidden run: the contract's error, and its workflow never hears of it.
	victim := start(acme.secret, "victim", client.OperationSleep, long)
	waitRun(t, env, acme.secret, victim, client.RunRunning)
	stranger := newRunsAccount(t, env)
	foreign := cancel(stranger.secret, victim, "c-foreign")
	require.Equal(t, http.StatusNotFound, foreign.Status, "%s", foreign.Raw)
	require.Equal(t, "not_found", foreign.ErrorCode())
	projResp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/projects", Key: acme.secret,
		Body: map[string]any{"name": "elsewhere"}, Headers: map[string]string{"Idempotency-Key": "proj"}})
	require.Equal(t, http.StatusCreated, projResp.Status, "%s", projResp.Raw)
	inProject := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs/" + victim + "/cancel", Key: acme.secret,
		Headers: map[string]string{"Idempotency-Key": "c-project", "X-Svc-Project": projResp.Body["project"].(map[string]any)["id"].(string)}})
	require.Equal(t, http.StatusNotFound, inProject.Status, "another project of the same account: %s", inProject.Raw)
	unknown := cancel(acme.secret, "run_doesnotexist", "c-unknown")
	require.Equal(t, http.StatusNotFound, unknown.Status, "%s", unknown.Raw)
	walletsOnly := acme.childKey(t, env, "wallets-only", map[string]any{"scopes": []string{"runs:write"}, "services": []string{client.ServiceManagedWallets}})
	forbidden := cancel(walletsOnly, victim, "c-forbidden")
	require.Equal(t, http.StatusForbidden, forbidden.Status, "%s", forbidden.Raw)
	require.Equal(t, "service_access_denied", forbidden.ErrorCode())
	readOnly := acme.childKey(t, env, "read-only", map[string]any{"scopes": []string{"runs:read"}})
	noScope := cancel(readOnly, victim, "c-scope")
	require.Equal(t, http.StatusForbidden, noScope.Status)
	require.Equal(t, "scope_missing", noScope.ErrorCode())
	noKey := cancel(acme.secret, victim, "")
	require.Equal(t, http.StatusBadRequest, noKey.Status)
	require.Equal(t, "idempotency_key_missing", noKey.ErrorCode())
	require.NotContains(t, workflowEvents(t, env, "run/"+victim), enums.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED)
	require.Equal(t, client.RunRunning, waitRun(t, env, acme.secret, victim, client.RunRunning)["status"])

	// The owner cancels it: the answer is the run, and the workflow ends it cancelled.
	first := cancel(acme.secret, victim, "c-owner")
	require.Equal(t, http.StatusOK, first.Status, "%s", first.Raw)
	answered := first.Body["run"].(map[string]any)
	require.Equal(t, victim, answered["id"])
	require.Contains(t, []any{client.RunRunning, client.RunCancelled}, answered["status"])
	replayed := cancel(acme.secret, victim, "c-owner")
	require.Equal(t, http.StatusOK, replayed.Status)
	require.Equal(t, "true", replayed.Header.Get("Idempotent-Replayed"))
	require.Equal(t, string(first.Raw), string(replayed.Raw))
	ended := waitRun(t, env, acme.secret, victim, client.RunCancelled)
	require.Equal(t, "cancelled", ended["error"].(map[string]any)["code"])
	require.NotNil(t, ended["completedAt"])
	require.Nil(t, ended["output"], "the sleep never finished")
	require.Eventually(t, func() bool {
		desc, err := env.Temporal.DescribeWorkflowExecution(ctx, "run/"+victim, "")
		require.NoError(t, err)
		return desc.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_CANCELED
	}, 10*time.Second, 20*time.Millisecond)
	ids, _ := listRunIDs(t, env, acme.secret, "status=cancelled", nil)
	require.Equal(t, []string{victim}, ids)

	// Once finished, a new cancellation is a conflict.
	again := cancel(acme.secret, victim, "c-again")
	require.Equal(t, http.StatusConflict, again.Status, "%s", again.Raw)
	require.Equal(t, "conflict", again.ErrorCode())
	require.Equal(t, client.RunCancelled, errorOf(again)["details"].(map[string]any)["status"])

	// A finished echo run: 409, and it stays as it was.
	echo := start(acme.secret, "echo", client.OperationEcho, map[string]any{"x": 1})
	before := waitRun(t, env, acme.secret, echo, client.RunSucceeded)
	late := cancel(acme.secret, echo, "c-echo")
	require.Equal(t, http.StatusConflict, late.Status, "%s", late.Raw)
	require.Equal(t, "conflict", late.ErrorCode())
	after := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + echo, Key: acme.secret})
	require.Equal(t, before, after.Body["run"].(map[string]any))

	// A run whose workflow an operator terminated: nothing will finish it, so the cancellation does.
	orphan := start(acme.secret, "orphan", client.OperationSleep, long)
	waitRun(t, env, acme.secret, orphan, client.RunRunning)
	require.NoError(t, env.Temporal.TerminateWorkflow(ctx, "run/"+orphan, "", "operator"))
	settled := cancel(acme.secret, orphan, "c-orphan")
	require.Equal(t, http.StatusOK, settled.Status, "%s", settled.Raw)
	require.Equal(t, client.RunCancelled, settled.Body["run"].(map[string]any)["status"])
	require.Equal(t, client.RunCancelled, waitRun(t, env, acme.secret, orphan, client.RunCancelled)["status"])
	gone := cancel(acme.secret, orphan, "c-orphan-again")
	require.Equal(t, http.StatusConflict, gone.Status, "%s", gone.Raw)
}
