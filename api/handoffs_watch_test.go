package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/collector"
	"github.com/svcplatform/svc/internal/handoff"
	"github.com/svcplatform/svc/internal/vault"
	"github.com/svcplatform/svc/workflows"
)

// handoffHistory counts, in a handoff workflow's history so far, the ack checks scheduled, the
// handoff-ack signals received and the timers started and fired.
type handoffHistory struct{ checks, signals, timersStarted, timersFired int }

func readHandoffHistory(t *testing.T, env *apptest.Env, workflowID string) handoffHistory {
	t.Helper()
	var h handoffHistory
	iter := env.Temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		switch ev.GetEventType() {
		case enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			if ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == workflows.ActivityCheckHandoffAcks {
				h.checks++
			}
		case enums.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			if ev.GetWorkflowExecutionSignaledEventAttributes().GetSignalName() == workflows.SignalHandoffAck {
				h.signals++
			}
		case enums.EVENT_TYPE_TIMER_STARTED:
			h.timersStarted++
		case enums.EVENT_TYPE_TIMER_FIRED:
			h.timersFired++
		}
	}
	return h
}

// waitSleeping waits until a handoff workflow's first check has found no ack and it sleeps on its timer.
func waitSleeping(t *testing.T, env *apptest.Env, workflowID string) {
	t.Helper()
	require.Eventually(t, func() bool { return readHandoffHistory(t, env, workflowID).timersStarted == 1 },
		20*time.Second, 20*time.Millisecond, "the workflow never started waiting")
	require.Equal(t, 1, readHandoffHistory(t, env, workflowID).checks)
}

// TestHandoffAckedThroughVaultWakesWorkflow: with an hour between the workflow's own ack checks, a
// receiver's ack written into the vault is noticed by the worker's vault watcher, which signals the
// workflow: the handoff is acknowledged within seconds, after exactly one more check, one signal and no
// timer fired.
func TestHandoffAckedThroughVaultWakesWorkflow(t *testing.T) {
	t.Parallel()
	h := newHandoffEnvWith(t, apptest.Options{HandoffCheckEvery: time.Hour})
	ctx := context.Background()
	r := h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffSendFile, Target: "studio-pc",
		Files: []string{h.file(t, "report.txt", "quarterly numbers")}})
	require.NoError(t, r.Err())
	got := h.waitHandoff(t, r.Body.Handoff.ID, client.HandoffAwaitingAck)
	waitSleeping(t, h.env, got.WorkflowID)

	acked := time.Now()
	_, err := h.vault.Ack(ctx, *got.TransferID, vault.Identity{MachineID: "studio-pc", Runtime: "claude", AgentID: "main"})
	require.NoError(t, err)
	done := h.waitHandoff(t, got.ID, client.HandoffAcknowledged)
	require.Less(t, time.Since(acked), 10*time.Second, "woken by the watcher, not by the hour-long timer")
	require.Len(t, done.Acks, 1)
	require.Equal(t, "main", done.Acks[0].AgentID)
	require.Eventually(t, func() bool { return workflowClosed(h.env, got.WorkflowID) }, 20*time.Second, 20*time.Millisecond)
	hist := readHandoffHistory(t, h.env, got.WorkflowID)
	require.Equal(t, handoffHistory{checks: 2, signals: 1, timersStarted: 1, timersFired: 0}, hist)
}

// TestHandoffWatcherPoll: the watcher signals only handoffs awaiting an ack that have one, each once;
// a handoff still without an ack, or one that has ended, is not signalled.
func TestHandoffWatcherPoll(t *testing.T) {
	t.Parallel()
	h := newHandoffEnvWith(t, apptest.Options{HandoffCheckEvery: time.Hour, VaultWatchEvery: time.Hour})
	ctx := context.Background()
	send := func(name string) client.Handoff {
		r := h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffSendFile, Target: "studio-pc",
			Files: []string{h.file(t, name, "content of "+name)}})
		require.NoError(t, r.Err())
		got := h.waitHandoff(t, r.Body.Handoff.ID, client.HandoffAwaitingAck)
		waitSleeping(t, h.env, got.WorkflowID)
		return got
	}
	quiet, acked := send("quiet.txt"), send("acked.txt")
	counter := &countingSignaler{Client: h.env.Temporal}
	w := &handoff.Watcher{DB: h.env.DB, Vault: h.vault, Engine: counter}
	n, err := w.Poll(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "no ack yet")

	_, err = h.vault.Ack(ctx, *acked.TransferID, vault.Identity{MachineID: "studio-pc"})
	require.NoError(t, err)
	n, err = w.Poll(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, []string{acked.WorkflowID}, counter.ids())
	h.waitHandoff(t, acked.ID, client.HandoffAcknowledged)
	n, err = w.Poll(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "signalled once")
	require.Equal(t, handoffHistory{checks: 2, signals: 1, timersStarted: 1}, readHandoffHistory(t, h.env, acked.WorkflowID))
	require.Equal(t, client.HandoffAwaitingAck, h.c.GetHandoff(ctx, quiet.ID).Body.Handoff.Status)
}

// countingSignaler records the workflows it signals.
type countingSignaler struct {
	sdkclient.Client
	signalled atomic.Value
}

func (c *countingSignaler) SignalWorkflow(ctx context.Context, workflowID, runID, name string, arg any) error {
	prev, _ := c.signalled.Load().([]string)
	c.signalled.Store(append(append([]string{}, prev...), workflowID))
	return c.Client.SignalWorkflow(ctx, workflowID, runID, name, arg)
}

func (c *countingSignaler) ids() []string {
	ids, _ := c.signalled.Load().([]string)
	return ids
}

// TestHandoffSweepStartsUnstarted: Temporal refuses the API's start, so the handoff is recorded but has
// no workflow (503); the sweep leaves it while it is younger than the settle time, then starts its
// workflow once, which writes the transfer and, acked, ends acknowledged.
func TestHandoffSweepStartsUnstarted(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	down.Store(true)
	h := newHandoffEnvWith(t, apptest.Options{HandoffCheckEvery: 100 * time.Millisecond,
		APITemporal: func(c sdkclient.Client) sdkclient.Client { return &switchable{Client: c, down: &down} }})
	ctx := context.Background()
	r := h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffSendFile, Target: "studio-pc",
		Files: []string{h.file(t, "late.txt", "recorded, never started")}})
	require.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
	require.Contains(t, r.Error.Message, "did not start")
	list := h.c.Handoffs(ctx, client.ListParams{})
	require.NoError(t, list.Err())
	require.Len(t, list.Body.Handoffs, 1)
	id := list.Body.Handoffs[0].ID
	require.Equal(t, client.HandoffSending, list.Body.Handoffs[0].Status)
	_, err := h.env.Temporal.DescribeWorkflowExecution(ctx, workflows.HandoffWorkflowID(id), "")
	require.Error(t, err, "no workflow yet")

	svc := &handoff.Service{DB: h.env.DB, Engine: h.env.Temporal, Opts: handoff.Options{CheckEvery: 100 * time.Millisecond}}
	n, err := svc.Sweep(ctx, time.Hour, 10)
	require.NoError(t, err)
	require.Zero(t, n, "younger than the settle time")
	n, err = svc.Sweep(ctx, 0, 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = svc.Sweep(ctx, 0, 10)
	require.NoError(t, err)
	require.Zero(t, n, "its workflow runs")

	got := h.waitHandoff(t, id, client.HandoffAwaitingAck)
	require.NotNil(t, got.TransferID)
	_, err = h.vault.Ack(ctx, *got.TransferID, vault.Identity{MachineID: "studio-pc"})
	require.NoError(t, err)
	h.waitHandoff(t, id, client.HandoffAcknowledged)
	n, err = svc.Sweep(ctx, 0, 10)
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestHandoffAckedThroughCollector: the receiving machine has its own copy of the vault and a collector
// that knows nothing of the platform; the transfer is synced to it, its agent acks with the collector's
// POST /transfers/ack, and once the ack file is synced back the platform's vault watcher wakes the
// workflow (an hour between its own checks), which ends acknowledged with that ack.
func TestHandoffAckedThroughCollector(t *testing.T) {
	t.Parallel()
	h := newHandoffEnvWith(t, apptest.Options{HandoffCheckEvery: time.Hour})
	ctx := context.Background()
	r := h.c.Handoff(ctx, client.HandoffRequest{Action: client.HandoffSendTask, Target: "studio-pc", Task: "tidy the downloads folder"})
	require.NoError(t, r.Err())
	got := h.waitHandoff(t, r.Body.Handoff.ID, client.HandoffAwaitingAck)
	waitSleeping(t, h.env, got.WorkflowID)

	remote, err := vault.Open(t.TempDir(), vault.Options{})
	require.NoError(t, err)
	transfer := filepath.Join(vault.TransfersDir, *got.TransferID)
	syncTree(t, filepath.Join(h.vault.Root(), transfer), filepath.Join(remote.Root(), transfer))
	col, err := collector.New(collector.Config{Vault: remote, MachineID: "studio-pc", Runtimes: []string{"claude"},
		Agents: []vault.AgentCard{{ID: "main", Runtime: "claude", WorkerClasses: []string{"general"}}}})
	require.NoError(t, err)
	srv := httptest.NewServer(col.Handler())
	t.Cleanup(srv.Close)
	body, err := json.Marshal(collector.AckBody{ID: *got.TransferID, MachineID: "studio-pc", Runtime: "claude", AgentID: "main"})
	require.NoError(t, err)
	resp, err := http.Post(srv.URL+"/transfers/ack", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, client.HandoffAwaitingAck, h.c.GetHandoff(ctx, got.ID).Body.Handoff.Status, "not synced back yet")

	synced := time.Now()
	syncTree(t, filepath.Join(remote.Root(), transfer, vault.AcksDir), filepath.Join(h.vault.Root(), transfer, vault.AcksDir))
	done := h.waitHandoff(t, got.ID, client.HandoffAcknowledged)
	require.Less(t, time.Since(synced), 10*time.Second, "woken by the watcher, not by the hour-long timer")
	require.Len(t, done.Acks, 1)
	require.Equal(t, "main", done.Acks[0].AgentID)
	require.Equal(t, "claude", done.Acks[0].Runtime)
}

// syncTree copies the files below src to dst as a sync provider would (each written whole, then renamed).
func syncTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target+".part", data, 0o644); err != nil {
			return err
		}
		return os.Rename(target+".part", target)
	}))
}
