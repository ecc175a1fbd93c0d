package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// fakeBatches plays DeliverWebhookBatch: each batch takes the next scripted result (the last repeats)
// and notes the workflow clock; a result with Sent -1 fails the batch.
type fakeBatches struct {
	env    *testsuite.TestWorkflowEnvironment
	script []workflows.WebhookBatchResult
	at     []time.Time
	inputs []workflows.WebhookBatch
	// memos are the loop's memo upserts, each after the batch it follows (batch counts the batches run).
	memos []memoAt
}

// memoAt is one memo upsert and how many batches had run.
type memoAt struct {
	batch int
	memo  map[string]any
}

func (f *fakeBatches) batch(_ context.Context, in workflows.WebhookBatch) (workflows.WebhookBatchResult, error) {
	f.at = append(f.at, f.env.Now())
	f.inputs = append(f.inputs, in)
	r := f.script[min(len(f.at), len(f.script))-1]
	if r.Sent == -1 {
		return workflows.WebhookBatchResult{}, temporal.NewNonRetryableApplicationError("database away", "Test", errors.New("away"))
	}
	return r, nil
}

// gaps returns the waits between consecutive batches.
func (f *fakeBatches) gaps() []time.Duration {
	out := make([]time.Duration, 0, len(f.at))
	for i := 1; i < len(f.at); i++ {
		out = append(out, f.at[i].Sub(f.at[i-1]))
	}
	return out
}

// runLoop runs one run of the loop of whk_test for batches batches; signals are sent after each delay
// from the start. It returns the fake and the run's error (a continue-as-new).
func runLoop(t *testing.T, batches int, signalsAt []time.Duration, script ...workflows.WebhookBatchResult) (*fakeBatches, error) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	f := &fakeBatches{env: env, script: script}
	env.RegisterWorkflowWithOptions(workflows.WebhookLoopWorkflow, workflow.RegisterOptions{Name: workflows.WebhookLoopWorkflowName})
	env.RegisterActivityWithOptions(f.batch, activity.RegisterOptions{Name: workflows.ActivityDeliverWebhookBatch})
	env.OnUpsertMemo(mock.Anything).Run(func(args mock.Arguments) {
		f.memos = append(f.memos, memoAt{batch: len(f.at), memo: args.Get(0).(map[string]any)})
	}).Return()
	for _, d := range signalsAt {
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(workflows.SignalDeliveriesDue, nil) }, d)
	}
	env.ExecuteWorkflow(workflows.WebhookLoopWorkflowName, workflows.WebhookLoopParams{WebhookID: "whk_test", RetryScale: 0.5, BatchesPerRun: batches})
	require.True(t, env.IsWorkflowCompleted())
	require.Len(t, f.at, batches, "one activity per batch")
	return f, env.GetWorkflowError()
}

// TestWebhookLoopSleepsUntilTheNextDueDelivery: more due at once → the next batch at once; a delivery
// due in 5 s → the next batch 5 s later; nothing waiting → it sleeps until the dispatcher's signal (1 min
// later), not the idle recheck; after BatchesPerRun batches it continues as new with the same input.
func TestWebhookLoopSleepsUntilTheNextDueDelivery(t *testing.T) {
	t.Parallel()
	f, err := runLoop(t, 4, []time.Duration{65 * time.Second},
		workflows.WebhookBatchResult{Sent: 200, Succeeded: 200, Waiting: 3},
		workflows.WebhookBatchResult{Sent: 3, Succeeded: 2, Waiting: 1, NextDueIn: 5 * time.Second, LastError: "the endpoint answered 500"},
		workflows.WebhookBatchResult{Sent: 1, Succeeded: 1},
		workflows.WebhookBatchResult{Sent: 1, Succeeded: 1})
	require.Equal(t, []time.Duration{0, 5 * time.Second, 60 * time.Second}, f.gaps())
	for _, in := range f.inputs {
		require.Equal(t, workflows.WebhookBatch{WebhookID: "whk_test", RetryScale: 0.5}, in)
	}
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, err, &can)
	require.Equal(t, workflows.WebhookLoopWorkflowName, can.WorkflowType.Name)
}

// TestWebhookLoopBacksOffAFailedBatchAndIdlesWhenDisabled: a failed batch is followed by the next one
// LoopErrorBackoff later; a disabled endpoint's loop waits the idle recheck, and a signal wakes it
// sooner.
func TestWebhookLoopBacksOffAFailedBatchAndIdlesWhenDisabled(t *testing.T) {
	t.Parallel()
	disabled := workflows.WebhookBatchResult{Disabled: true, DisabledReason: "410 Gone"}
	f, err := runLoop(t, 4, []time.Duration{workflows.LoopErrorBackoff + workflows.LoopIdleRecheck + time.Minute},
		workflows.WebhookBatchResult{Sent: -1}, disabled, disabled, disabled)
	require.Equal(t, []time.Duration{workflows.LoopErrorBackoff, workflows.LoopIdleRecheck, time.Minute}, f.gaps())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, err, &can)
}

// TestWebhookLoopCapsItsSleep: a delivery due in two days (a Retry-After, or a late schedule step) is
// looked at again after the idle recheck, not slept on for two days; a batch that claimed nothing of
// what is due does not make the loop spin.
func TestWebhookLoopCapsItsSleep(t *testing.T) {
	t.Parallel()
	f, _ := runLoop(t, 3, nil, workflows.WebhookBatchResult{Sent: 1, Waiting: 1, NextDueIn: 48 * time.Hour},
		workflows.WebhookBatchResult{Waiting: 1})
	require.Equal(t, []time.Duration{workflows.LoopIdleRecheck, workflows.LoopBlockedWait}, f.gaps(),
		"a due delivery it could not claim is looked at again a second later, not at once")
}

// TestWebhookLoopEndsWhenIdle: a loop whose batches find nothing waiting LoopIdleBatches times in a row
// (the idle rechecks lapsing without a signal) ends without error instead of waking forever; one whose
// endpoint keeps a delivery waiting does not.
func TestWebhookLoopEndsWhenIdle(t *testing.T) {
	t.Parallel()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	f := &fakeBatches{env: env, script: []workflows.WebhookBatchResult{{Sent: 5, Succeeded: 5}}}
	env.RegisterWorkflowWithOptions(workflows.WebhookLoopWorkflow, workflow.RegisterOptions{Name: workflows.WebhookLoopWorkflowName})
	env.RegisterActivityWithOptions(f.batch, activity.RegisterOptions{Name: workflows.ActivityDeliverWebhookBatch})
	env.ExecuteWorkflow(workflows.WebhookLoopWorkflowName, workflows.WebhookLoopParams{WebhookID: "whk_test", BatchesPerRun: 50})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError(), "an idle loop ends, it does not continue as new")
	require.Len(t, f.at, workflows.LoopIdleBatches)
	for _, gap := range f.gaps() {
		require.Equal(t, workflows.LoopIdleRecheck, gap)
	}

	busy, err := runLoop(t, 8, nil, workflows.WebhookBatchResult{Sent: 1, Waiting: 1, NextDueIn: time.Hour})
	require.Len(t, busy.at, 8, "a loop with a delivery waiting keeps going")
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, err, &can)
}

// limits returns the Limit of each batch's input.
func (f *fakeBatches) limits() []int {
	out := make([]int, len(f.inputs))
	for i, in := range f.inputs {
		out[i] = in.Limit
	}
	return out
}

// memoAfter returns the last memo upserted after batch n (nil when none was).
func (f *fakeBatches) memoAfter(n int) map[string]any {
	var out map[string]any
	for _, m := range f.memos {
		if m.batch == n {
			out = m.memo
		}
	}
	return out
}

// TestWebhookLoopProbesAFailingEndpoint: a full batch that all failed (200 ≥ LoopProbeAfter) puts the
// loop in probing mode: the next batches claim LoopProbes deliveries each, a back-off apart (the scaled
// 5 s, doubling), and a dispatcher signal does not cut the back-off short; the memo says so. The first
// success returns the endpoint to full batches at once.
func TestWebhookLoopProbesAFailingEndpoint(t *testing.T) {
	t.Parallel()
	fail := func(sent, waiting int) workflows.WebhookBatchResult {
		return workflows.WebhookBatchResult{Sent: sent, Waiting: waiting, LastError: "the endpoint answered 500"}
	}
	f, _ := runLoop(t, 6, []time.Duration{time.Second},
		fail(200, 4800), fail(5, 4795), fail(5, 4790),
		workflows.WebhookBatchResult{Sent: 5, Succeeded: 1, Waiting: 4786},
		workflows.WebhookBatchResult{Sent: 200, Succeeded: 200, Waiting: 4586})
	require.Equal(t, []time.Duration{2500 * time.Millisecond, 5 * time.Second, 10 * time.Second, 0, 0}, f.gaps())
	require.Equal(t, []int{0, workflows.LoopProbes, workflows.LoopProbes, workflows.LoopProbes, 0, 0}, f.limits())
	probing := f.memoAfter(1)
	require.Equal(t, true, probing["probing"])
	require.Equal(t, 200, probing["consecutiveFailures"])
	require.Equal(t, f.at[0].Add(2500*time.Millisecond).UTC().Format(time.RFC3339), probing["nextAttemptAt"])
	require.Equal(t, 210, f.memoAfter(3)["consecutiveFailures"])
	require.Equal(t, false, f.memoAfter(4)["probing"], "a success ends probing")
}

// TestWebhookLoopProbeBackoffIsCapped: the back-off between failed probes doubles up to the scaled
// LoopProbeBackoffMax; and a few failures (below LoopProbeAfter) keep the endpoint on full batches at
// the pace of the retry schedule.
func TestWebhookLoopProbeBackoffIsCapped(t *testing.T) {
	t.Parallel()
	fail := workflows.WebhookBatchResult{Sent: 5, Waiting: 1000, LastError: "the endpoint answered 500"}
	first := fail
	first.Sent = workflows.LoopProbeAfter
	f, _ := runLoop(t, 10, nil, first, fail)
	capped := workflows.LoopProbeBackoffMax / 2
	require.Equal(t, []time.Duration{2500 * time.Millisecond, 5 * time.Second, 10 * time.Second, 20 * time.Second,
		40 * time.Second, 80 * time.Second, capped, capped, capped}, f.gaps())

	few := workflows.WebhookBatchResult{Sent: 3, Waiting: 3, NextDueIn: 5 * time.Second, LastError: "the endpoint answered 500"}
	f, _ = runLoop(t, 5, nil, few)
	require.Equal(t, []time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second}, f.gaps())
	require.Equal(t, []int{0, 0, 0, 0, 0}, f.limits())
	for n := 1; n <= 5; n++ {
		require.NotContains(t, f.memoAfter(n), "probing", "below the threshold the memo is as before")
	}
}
