package api_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/outbox"
)

// approverKey makes a second key of the root's account holding approvals:read/write (and runs:read).
func approverKey(t *testing.T, env *apptest.Env, root string) (secret, id string) {
	t.Helper()
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: root,
		Body:    map[string]any{"name": "approver", "scopes": []string{"approvals:read", "approvals:write", "runs:read"}},
		Headers: map[string]string{"Idempotency-Key": "approver"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	k := r.Body["apiKey"].(map[string]any)
	return k["secret"].(string), k["id"].(string)
}

func startGatedRun(t *testing.T, env *apptest.Env, key, idem string, extra map[string]any) (runID, approvalID string) {
	t.Helper()
	body := map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"x": 1}, "requireApproval": true}
	for k, v := range extra {
		body[k] = v
	}
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key, Body: body, Headers: map[string]string{"Idempotency-Key": idem}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	run := r.Body["run"].(map[string]any)
	require.Equal(t, "awaiting_approval", run["status"])
	require.NotEmpty(t, run["approvalId"])
	return run["id"].(string), run["approvalId"].(string)
}

func decide(t *testing.T, env *apptest.Env, key, approvalID, decision, idem string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/approvals/" + approvalID, Key: key,
		Body: map[string]any{"decision": decision, "comment": "looked at it"}, Headers: map[string]string{"Idempotency-Key": idem}})
}

func eventTypes(t *testing.T, env *apptest.Env, accountID string) []string {
	t.Helper()
	evs, err := outbox.List(context.Background(), env.DB, accountID)
	require.NoError(t, err)
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// TestApprovalApproveRunsTheRun: a gated run waits, is listed, is approved by a second key (which the
// approval records), then completes; a second, conflicting decision answers 409; events follow.
func TestApprovalApproveRunsTheRun(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, rootKey := firstKey(t, env)
	approver, approverID := approverKey(t, env, root)
	runID, aprID := startGatedRun(t, env, root, "gated", nil)

	list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/approvals?status=pending&runId=" + runID, Key: approver})
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	items := list.Body["approvals"].([]any)
	require.Len(t, items, 1)
	apr := items[0].(map[string]any)
	require.Equal(t, aprID, apr["id"])
	require.Equal(t, "run", apr["kind"])
	require.Equal(t, rootKey["id"], apr["requestedByKeyId"])
	waitRun(t, env, root, runID, "awaiting_approval")

	ok := decide(t, env, approver, aprID, "approve", "d1")
	require.Equal(t, http.StatusOK, ok.Status, "%s", ok.Raw)
	decided := ok.Body["approval"].(map[string]any)
	require.Equal(t, "approved", decided["status"])
	require.Equal(t, approverID, decided["decidedByKeyId"])
	require.Equal(t, "looked at it", decided["comment"])

	run := waitRun(t, env, root, runID, "succeeded")
	require.Equal(t, map[string]any{"x": float64(1)}, run["output"])

	// The run's output is kept as an artifact, downloadable with its checksum.
	arts := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/artifacts?runId=" + runID, Key: root})
	require.Equal(t, http.StatusOK, arts.Status, "%s", arts.Raw)
	items = arts.Body["artifacts"].([]any)
	require.Len(t, items, 1)
	art := items[0].(map[string]any)
	require.Equal(t, "output.json", art["name"])
	require.Equal(t, "application/json", art["contentType"])
	content := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/artifacts/" + art["id"].(string) + "/content", Key: root})
	require.Equal(t, http.StatusOK, content.Status)
	require.JSONEq(t, `{"x":1}`, string(content.Raw))
	require.Equal(t, art["sha256"], content.Header.Get("X-Content-Sha256"))

	again := decide(t, env, approver, aprID, "reject", "d2")
	require.Equal(t, http.StatusConflict, again.Status, "%s", again.Raw)
	require.Equal(t, "conflict", again.ErrorCode())
	replay := decide(t, env, approver, aprID, "approve", "d1")
	require.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))

	var acct string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM runs WHERE id = ?", runID).Scan(context.Background(), &acct))
	require.Equal(t, []string{"approval.requested", "run.created", "approval.decided", "run.succeeded"}, eventTypes(t, env, acct))
}

// TestApprovalRejectFailsTheRun: a rejection fails the run with approval_rejected; two concurrent
// decisions: exactly one wins, the other is 409.
func TestApprovalRejectFailsTheRun(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	approver, _ := approverKey(t, env, root)
	runID, aprID := startGatedRun(t, env, root, "gated", nil)

	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i, d := range []string{"reject", "approve"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = decide(t, env, approver, aprID, d, "race-"+d).Status
		}()
	}
	wg.Wait()
	require.ElementsMatch(t, []int{http.StatusOK, http.StatusConflict}, statuses)
	if statuses[0] == http.StatusOK {
		run := waitRun(t, env, root, runID, "failed")
		require.Equal(t, "approval_rejected", run["error"].(map[string]any)["code"])
	} else {
		waitRun(t, env, root, runID, "succeeded")
	}
}

// TestApprovalExpiresAndFailsTheRun: an approval nobody decides expires and the run fails with
// approval_expired; deciding it afterwards is 409.
func TestApprovalExpiresAndFailsTheRun(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	approver, _ := approverKey(t, env, root)
	runID, aprID := startGatedRun(t, env, root, "gated", map[string]any{"approvalExpiresInSeconds": 1})
	run := waitRun(t, env, root, runID, "failed")
	require.Equal(t, "approval_expired", run["error"].(map[string]any)["code"])
	late := decide(t, env, approver, aprID, "approve", "late")
	require.Equal(t, http.StatusConflict, late.Status, "%s", late.Raw)
	list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/approvals?status=expired", Key: approver})
	require.Len(t, list.Body["approvals"].([]any), 1)
}

// TestApprovalCancelWhileWaiting: cancelling a run that awaits approval ends it cancelled and cancels the
// approval.
func TestApprovalCancelWhileWaiting(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	approver, _ := approverKey(t, env, root)
	runID, aprID := startGatedRun(t, env, root, "gated", nil)
	c := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs/" + runID + "/cancel", Key: root, Headers: map[string]string{"Idempotency-Key": "c"}})
	require.Equal(t, http.StatusOK, c.Status, "%s", c.Raw)
	waitRun(t, env, root, runID, "cancelled")
	require.Eventually(t, func() bool {
		l := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/approvals?runId=" + runID, Key: approver})
		items := l.Body["approvals"].([]any)
		return len(items) == 1 && items[0].(map[string]any)["status"] == "cancelled"
	}, 20*time.Second, 20*time.Millisecond)
	require.Equal(t, http.StatusConflict, decide(t, env, approver, aprID, "approve", "x").Status)
}

// TestServiceActionApprovalStartsARun: an approved service action runs as a run whose id the approval
// carries; bad input and foreign approvals are refused.
func TestServiceActionApprovalStartsARun(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	approver, _ := approverKey(t, env, root)
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/approvals/service-actions", Key: root,
		Body:    map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"y": 2}, "reason": "nightly", "expiresInSeconds": 600},
		Headers: map[string]string{"Idempotency-Key": "sa"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	apr := r.Body["approval"].(map[string]any)
	require.Equal(t, "service_action", apr["kind"])
	require.Equal(t, "nightly", apr["reason"])
	require.Nil(t, apr["runId"])

	noRuns := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/approvals/service-actions", Key: approver,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, Headers: map[string]string{"Idempotency-Key": "sa-noruns"}})
	require.Equal(t, http.StatusForbidden, noRuns.Status, "a key that may not start runs cannot ask for one: %s", noRuns.Raw)
	require.Equal(t, "scope_missing", noRuns.ErrorCode())
	bad := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/approvals/service-actions", Key: root,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "expiresInSeconds": 604801}, Headers: map[string]string{"Idempotency-Key": "sa-bad"}})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Equal(t, "expiresInSeconds", bad.Body["error"].(map[string]any)["param"])
	badDecision := decide(t, env, approver, apr["id"].(string), "maybe", "bad")
	require.Equal(t, http.StatusBadRequest, badDecision.Status, "%s", badDecision.Raw)

	other, _ := firstKey(t, env) // another account
	foreign := decide(t, env, other, apr["id"].(string), "approve", "foreign")
	require.Equal(t, http.StatusNotFound, foreign.Status, "%s", foreign.Raw)
	unknown := decide(t, env, approver, "apr_nope", "approve", "unknown")
	require.Equal(t, http.StatusNotFound, unknown.Status)

	require.Equal(t, http.StatusOK, decide(t, env, approver, apr["id"].(string), "approve", "ok").Status)
	var runID string
	require.Eventually(t, func() bool {
		l := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/approvals?status=approved", Key: approver})
		items := l.Body["approvals"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["runId"] == nil {
			return false
		}
		runID = items[0].(map[string]any)["runId"].(string)
		return true
	}, 20*time.Second, 20*time.Millisecond)
	run := waitRun(t, env, root, runID, "succeeded")
	require.Equal(t, map[string]any{"y": float64(2)}, run["output"])
}

// TestDecisionWhileNoWorkerRuns: a decision sent while no worker runs is kept by Temporal and acted on
// when a worker comes back.
func TestDecisionWhileNoWorkerRuns(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{NoWorker: true})
	root, _ := firstKey(t, env)
	approver, _ := approverKey(t, env, root)
	runID, aprID := startGatedRun(t, env, root, "gated", nil)
	own := decide(t, env, root, aprID, "approve", "own")
	require.Equal(t, http.StatusForbidden, own.Status, "the asking key cannot approve: %s", own.Raw)
	require.Equal(t, "forbidden", own.ErrorCode())
	ok := decide(t, env, approver, aprID, "approve", "d")
	require.Equal(t, http.StatusOK, ok.Status, "%s", ok.Raw)
	run := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + runID, Key: root}).Body["run"].(map[string]any)
	require.Equal(t, "awaiting_approval", run["status"], "no worker has acted yet")

	w := app.NewWorker(env.Temporal, app.WorkerDeps{DB: env.DB}, sdkworker.Options{})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	waitRun(t, env, root, runID, "succeeded")
}
