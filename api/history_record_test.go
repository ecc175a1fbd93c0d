package api_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/workflows"
)

// TestRecordHistories re-records the workflow histories that workflows' replay tests read. It runs only
// with SVC_RECORD_HISTORIES=1 (make record-histories): recorded files are committed under
// workflows/testdata, so a change that breaks determinism fails the replay test against old histories.
func TestRecordHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.New(t)
	key, _ := firstKey(t, env)
	approver, _ := approverKey(t, env, key)
	testdata := filepath.Join("..", "workflows", "testdata")
	// run_echo.json and run_sleep.json were recorded before runs kept their status in the memo and stay
	// as they are, so the replay test proves old runs still replay.
	for name, body := range map[string]map[string]any{
		"run_echo_memo.json":  {"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"hello": "world"}},
		"run_sleep_memo.json": {"serviceId": "managed-workflows", "operationId": "sleep", "input": map[string]any{"seconds": 0.2}},
	} {
		resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key, Body: body,
			Headers: map[string]string{"Idempotency-Key": name}})
		require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
		id := resp.Body["run"].(map[string]any)["id"].(string)
		waitRun(t, env, key, id, client.RunSucceeded)
		writeHistory(t, env, "run/"+id, filepath.Join(testdata, name))
	}
	// run_gated_*_predeadline.json and run_gated_*_prelate.json were recorded before gated runs settled
	// their approval themselves, and before they received the decision's second signal before closing;
	// they stay as they are, so the replay test proves such runs still replay.
	for _, c := range []struct{ name, decision, want string }{
		{"approved", "approve", client.RunSucceeded},
		{"rejected", "reject", client.RunFailed},
		{"expired", "", client.RunFailed},
		{"cancelled", "cancel", client.RunCancelled},
	} {
		extra := map[string]any{}
		if c.decision == "" {
			extra["approvalExpiresInSeconds"] = 1
		}
		runID, aprID := startGatedRun(t, env, key, "gated-"+c.name, extra)
		switch c.decision {
		case "":
		case "cancel":
			r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs/" + runID + "/cancel", Key: key,
				Headers: map[string]string{"Idempotency-Key": "cancel-" + c.name}})
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		default:
			require.Equal(t, http.StatusOK, decide(t, env, approver, aprID, c.decision, "decide-"+c.name).Status)
		}
		waitRun(t, env, key, runID, c.want)
		require.Eventually(t, func() bool { return workflowClosed(env, "run/"+runID) && workflowClosed(env, "approval/"+aprID) },
			20*time.Second, 20*time.Millisecond)
		writeHistory(t, env, "run/"+runID, filepath.Join(testdata, "run_gated_"+c.name+".json"))
		writeHistory(t, env, "approval/"+aprID, filepath.Join(testdata, "approval_"+c.name+".json"))
	}
	sa := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/approvals/service-actions", Key: key,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, Headers: map[string]string{"Idempotency-Key": "sa"}})
	require.Equal(t, http.StatusCreated, sa.Status, "%s", sa.Raw)
	aprID := sa.Body["approval"].(map[string]any)["id"].(string)
	require.Equal(t, http.StatusOK, decide(t, env, approver, aprID, "approve", "sa-ok").Status)
	require.Eventually(t, func() bool {
		var runID *string
		err := env.DB.NewRaw("SELECT run_id FROM approvals WHERE id = ?", aprID).Scan(context.Background(), &runID)
		return err == nil && runID != nil && workflowClosed(env, "approval/"+aprID)
	}, 20*time.Second, 20*time.Millisecond)
	writeHistory(t, env, "approval/"+aprID, filepath.Join(testdata, "approval_service_action.json"))

	// An external service's run: one 503, then the answer.
	up, _, _ := flakyUpstream(t, 1)
	genv := gatewayRunEnv(t, up.URL)
	gkey := fundedKey(t, genv, 10)
	createConnection(t, genv, gkey)
	for name, op := range map[string]string{"run_external.json": "generate", "run_external_refused.json": "refuse"} {
		runID := startRun(t, genv, gkey, op, name)
		want := client.RunSucceeded
		if op == "refuse" {
			want = client.RunFailed
		}
		waitRun(t, genv, gkey, runID, want)
		writeHistory(t, genv, "run/"+runID, filepath.Join(testdata, name))
	}

	// delivery_succeeded.json, delivery_retried.json and delivery_gone.json were recorded before
	// deliveries went through their endpoint's loop (issue 24); they stay as they are, so the replay test
	// proves per-delivery workflows still in flight replay.
	// webhook_loop.json: TestRecordWebhookLoopHistory; webhook_loop_probe.json:
	// TestRecordWebhookLoopProbeHistory.
}

// TestRecordWebhookLoopHistory records an endpoint's delivery loop (webhook_loop.json): a delivery
// failing once (503, retried after the scaled 5 s step) then delivered, a replay of it woken by its
// signal, then the loop idle, terminated. It runs only with SVC_RECORD_HISTORIES=1.
func TestRecordWebhookLoopHistory(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	path := filepath.Join("..", "workflows", "testdata", "webhook_loop.json")
	denv := apptest.NewWith(t, apptest.Options{WebhookRetryScale: 0.1})
	dkey := denv.FirstKey(t)
	rc := newReceiver(t, func(n int64) int {
		if n == 1 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}, nil)
	hookID, _ := createHook(t, denv, dkey, rc.URL, "loop-hook", "run.created")
	startEcho(t, denv, dkey, "loop-run")
	ds := waitDeliveries(t, denv, dkey, "webhookId="+hookID, 1)
	require.Equal(t, client.DeliverySucceeded, ds[0].Status)
	rep := replay(t, denv, dkey, ds[0].ID, "loop-replay")
	require.Equal(t, http.StatusOK, rep.Status, "%s", rep.Raw)
	waitDeliveries(t, denv, dkey, "webhookId="+hookID, 2)
	id := workflows.WebhookLoopWorkflowID(hookID)
	require.Eventually(t, func() bool {
		d, err := denv.Temporal.DescribeWorkflowExecution(context.Background(), id, "")
		return err == nil && len(d.PendingActivities) == 0 && d.PendingWorkflowTask == nil
	}, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, denv.Temporal.TerminateWorkflow(context.Background(), id, "", "recorded"))
	writeHistory(t, denv, id, path)
}

// TestRecordWebhookLoopProbeHistory records an endpoint's loop probing (webhook_loop_probe.json): 55
// events whose first attempts all fail (500) put the loop in probing mode (LoopProbeAfter is 50); the
// first probe batch succeeds and the rest go out in a full batch; then the loop idles, terminated. It
// runs only with SVC_RECORD_HISTORIES=1.
func TestRecordWebhookLoopProbeHistory(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	const events = 55
	path := filepath.Join("..", "workflows", "testdata", "webhook_loop_probe.json")
	env := apptest.NewWith(t, apptest.Options{WebhookRetryScale: 0.1})
	key := env.FirstKey(t)
	rc := newReceiver(t, func(n int64) int {
		if n <= events {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}, nil)
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() { // the receiver's channel holds 64 requests; this test counts rows instead
		for {
			select {
			case <-rc.got:
			case <-done:
				return
			}
		}
	}()
	hookID, _ := createHook(t, env, key, rc.URL, "probe-hook", "*")
	ctx := context.Background()
	var scope struct {
		AccountID string  `bun:"account_id"`
		ProjectID *string `bun:"project_id"`
	}
	require.NoError(t, env.DB.NewRaw("SELECT account_id, project_id FROM webhooks WHERE id = ?", hookID).Scan(ctx, &scope))
	evs := make([]outbox.Event, events)
	for i := range evs {
		evs[i] = outbox.Event{AccountID: scope.AccountID, ProjectID: scope.ProjectID, Type: outbox.RunSucceeded,
			Subject: fmt.Sprintf("run_probe_%02d", i), Data: map[string]any{"n": i}}
	}
	require.NoError(t, outbox.Emit(ctx, env.DB, evs...))
	require.Eventually(t, func() bool {
		var n int
		err := env.DB.NewRaw("SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND status = 'succeeded'", hookID).Scan(ctx, &n)
		return err == nil && n == events
	}, 60*time.Second, 50*time.Millisecond)
	id := workflows.WebhookLoopWorkflowID(hookID)
	require.Eventually(t, func() bool {
		d, err := env.Temporal.DescribeWorkflowExecution(ctx, id, "")
		return err == nil && len(d.PendingActivities) == 0 && d.PendingWorkflowTask == nil
	}, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, env.Temporal.TerminateWorkflow(ctx, id, "", "recorded"))
	writeHistory(t, env, id, path)
}

// workflowClosed reports whether the workflow has finished.
func workflowClosed(env *apptest.Env, workflowID string) bool {
	d, err := env.Temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
	return err == nil && d.WorkflowExecutionInfo.GetStatus() != enums.WORKFLOW_EXECUTION_STATUS_RUNNING
}

func writeHistory(t *testing.T, env *apptest.Env, workflowID, path string) {
	t.Helper()
	iter := env.Temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &history.History{}
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	raw, err := protojson.MarshalOptions{Indent: "  "}.Marshal(h)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, append(raw, '\n'), 0o644))
}

// TestRecordTopUpHistories records the top-up workflow's histories: one credited, one whose payer lacks
// the USDC. It runs only with SVC_RECORD_HISTORIES=1 (make record-histories).
func TestRecordTopUpHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	key := env.FirstKey(t)
	testdata := filepath.Join("..", "workflows", "testdata")
	for name, usdc := range map[string]float64{"topup_credited.json": 10, "topup_refused.json": 1} {
		p := newPayer(t, env, usdc)
		pr := requirements(t, env, key, name, 10)
		payment, err := x402.Pay(p.key, pr.Accepts[0], nil, time.Now())
		require.NoError(t, err)
		r := pay(t, env, key, name, 10, paymentHeader(t, payment))
		require.Contains(t, []int{http.StatusOK, http.StatusPaymentRequired}, r.Status, "%s", r.Raw)
		var id string
		require.NoError(t, env.DB.NewRaw("SELECT id FROM topups WHERE payer = lower(?)", p.addr.Hex()).Scan(context.Background(), &id))
		require.Eventually(t, func() bool { return workflowClosed(env, "topup/"+id) }, 10*time.Second, 20*time.Millisecond)
		writeHistory(t, env, "topup/"+id, filepath.Join(testdata, name))
	}
}

// TestRecordUnstorableHistories records a run whose output PostgreSQL refuses: the workflow records a
// storable failure (output_unstorable) instead. It runs only with SVC_RECORD_HISTORIES=1.
func TestRecordUnstorableHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.New(t)
	a := newRunsAccount(t, env)
	id := startUnstorableRun(t, env, a)
	waitRun(t, env, a.secret, id, client.RunFailed)
	require.Eventually(t, func() bool { return workflowClosed(env, "run/"+id) }, 10*time.Second, 20*time.Millisecond)
	writeHistory(t, env, "run/"+id, filepath.Join("..", "workflows", "testdata", "run_output_unstorable.json"))
}

// TestRecordLostHistories records a run the sweep found unstarted past run.LostAfter and failed through
// its workflow (run_lost). It runs only with SVC_RECORD_HISTORIES=1.
func TestRecordLostHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{RunSweepInterval: 50 * time.Millisecond})
	a := newRunsAccount(t, env)
	insertRuns(t, env, a, storedRun{id: "run_lost", service: client.ServiceManagedWorkflows, operation: "echo",
		status: client.RunQueued, created: time.Now().Add(-20 * time.Minute)})
	waitRun(t, env, a.secret, "run_lost", client.RunFailed)
	require.Eventually(t, func() bool { return workflowClosed(env, "run/run_lost") }, 10*time.Second, 20*time.Millisecond)
	writeHistory(t, env, "run/run_lost", filepath.Join("..", "workflows", "testdata", "run_lost.json"))
}
