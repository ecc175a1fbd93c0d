package workflows_test

import (
	"context"
	"encoding/json"
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

// fakeApprovals plays the approval row: the first settlement wins, as the conditional update does.
type fakeApprovals struct {
	status    string
	settled   int
	cancelled int
	started   []string
}

func (f *fakeApprovals) settle(_ context.Context, id string, d *workflows.ApprovalDecision) (workflows.ApprovalOutcome, error) {
	f.settled++
	if f.status == "pending" {
		f.status = workflows.ApprovalExpired
		if d != nil {
			f.status = d.Status
		}
	}
	return workflows.ApprovalOutcome{ApprovalID: id, Status: f.status}, nil
}

func (f *fakeApprovals) cancel(_ context.Context, id string) (workflows.ApprovalOutcome, error) {
	f.cancelled++
	if f.status == "pending" {
		f.status = workflows.ApprovalCancelled
	}
	return workflows.ApprovalOutcome{ApprovalID: id, Status: f.status}, nil
}

func (f *fakeApprovals) startRun(_ context.Context, id string) (string, error) {
	f.started = append(f.started, id)
	return "run_from_" + id, nil
}

func newApprovalEnv(t *testing.T) (*testsuite.TestWorkflowEnvironment, *fakeApprovals) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	f := &fakeApprovals{status: "pending"}
	env.RegisterWorkflowWithOptions(workflows.ApprovalWorkflow, workflow.RegisterOptions{Name: workflows.ApprovalWorkflowName})
	env.RegisterActivityWithOptions(f.settle, activity.RegisterOptions{Name: workflows.ActivitySettleApproval})
	env.RegisterActivityWithOptions(f.cancel, activity.RegisterOptions{Name: workflows.ActivityCancelApproval})
	env.RegisterActivityWithOptions(f.startRun, activity.RegisterOptions{Name: workflows.ActivityStartApprovedRun})
	return env, f
}

func approvalParams(env *testsuite.TestWorkflowEnvironment, kind string, ttl time.Duration) workflows.ApprovalParams {
	return workflows.ApprovalParams{ApprovalID: "apr_1", Kind: kind, RunWorkflowID: "run/run_1", ExpiresAt: env.Now().Add(ttl)}
}

// TestApprovalDecisionReachesTheRun: a decision signal settles the row once and the outcome is signalled
// to the gated run.
func TestApprovalDecisionReachesTheRun(t *testing.T) {
	t.Parallel()
	env, f := newApprovalEnv(t)
	var told []workflows.ApprovalOutcome
	env.OnSignalExternalWorkflow(mock.Anything, "run/run_1", "", workflows.SignalApprovalOutcome, mock.Anything).
		Return(func(_, _, _, _ string, arg any) error {
			told = append(told, arg.(workflows.ApprovalOutcome))
			return nil
		})
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.SignalApprovalDecision, workflows.ApprovalDecision{Status: workflows.ApprovalRejected, KeyID: "key_b"})
	}, time.Hour)
	env.ExecuteWorkflow(workflows.ApprovalWorkflowName, approvalParams(env, "run", 24*time.Hour))
	require.NoError(t, env.GetWorkflowError())
	var out workflows.ApprovalOutcome
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, workflows.ApprovalRejected, out.Status)
	require.Equal(t, 1, f.settled)
	require.Equal(t, []workflows.ApprovalOutcome{{ApprovalID: "apr_1", Status: workflows.ApprovalRejected}}, told)
	require.Empty(t, f.started, "a run approval starts no run of its own")
}

// TestApprovalExpires: with nobody deciding, the approval expires at its deadline (time skipping).
func TestApprovalExpires(t *testing.T) {
	t.Parallel()
	env, f := newApprovalEnv(t)
	env.OnSignalExternalWorkflow(mock.Anything, "run/run_1", "", workflows.SignalApprovalOutcome, mock.Anything).Return(nil)
	start := env.Now()
	env.ExecuteWorkflow(workflows.ApprovalWorkflowName, approvalParams(env, "run", 7*24*time.Hour))
	require.NoError(t, env.GetWorkflowError())
	var out workflows.ApprovalOutcome
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, workflows.ApprovalExpired, out.Status)
	require.GreaterOrEqual(t, env.Now().Sub(start), 7*24*time.Hour)
	require.Equal(t, 1, f.settled)
}

// TestApprovalDecisionJustBeforeExpiryStands: when the row was decided (by the API) just as the timer
// fired, the settlement answers the decision and the workflow passes it on.
func TestApprovalDecisionJustBeforeExpiryStands(t *testing.T) {
	t.Parallel()
	env, f := newApprovalEnv(t)
	f.status = workflows.ApprovalApproved // committed by the API; its signal is still on the way
	env.OnSignalExternalWorkflow(mock.Anything, "run/run_1", "", workflows.SignalApprovalOutcome, mock.Anything).Return(nil)
	env.ExecuteWorkflow(workflows.ApprovalWorkflowName, approvalParams(env, "run", time.Minute))
	var out workflows.ApprovalOutcome
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, workflows.ApprovalApproved, out.Status)
}

// TestServiceActionStartsItsRunOnApproval: an approved service action starts its run and carries its id.
func TestServiceActionStartsItsRunOnApproval(t *testing.T) {
	t.Parallel()
	env, f := newApprovalEnv(t)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.SignalApprovalDecision, workflows.ApprovalDecision{Status: workflows.ApprovalApproved, KeyID: "key_b"})
	}, time.Minute)
	env.ExecuteWorkflow(workflows.ApprovalWorkflowName, approvalParams(env, "service_action", time.Hour))
	var out workflows.ApprovalOutcome
	require.NoError(t, env.GetWorkflowResult(&out))
	require.Equal(t, "run_from_apr_1", out.RunID)
	require.Equal(t, []string{"apr_1"}, f.started)
}

// TestApprovalCancelled: cancelling the workflow cancels the pending approval and tells the gated run,
// which must not wait for ever.
func TestApprovalCancelled(t *testing.T) {
	t.Parallel()
	env, f := newApprovalEnv(t)
	var told []workflows.ApprovalOutcome
	env.OnSignalExternalWorkflow(mock.Anything, "run/run_1", "", workflows.SignalApprovalOutcome, mock.Anything).
		Return(func(_, _, _, _ string, arg any) error {
			told = append(told, arg.(workflows.ApprovalOutcome))
			return nil
		})
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(workflows.ApprovalWorkflowName, approvalParams(env, "run", time.Hour))
	require.Error(t, env.GetWorkflowError())
	require.Equal(t, 1, f.cancelled)
	require.Equal(t, workflows.ApprovalCancelled, f.status)
	require.Zero(t, f.settled)
	require.Equal(t, []workflows.ApprovalOutcome{{ApprovalID: "apr_1", Status: workflows.ApprovalCancelled}}, told)
}

// TestGatedRunWaitsForItsApproval: a gated run does nothing until the outcome arrives; a rejection fails
// it with approval_rejected, an approval runs it.
func TestGatedRunWaitsForItsApproval(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status, wantStatus, wantCode string
		marked                       int
	}{
		{workflows.ApprovalApproved, "succeeded", "", 1},
		{workflows.ApprovalRejected, "failed", workflows.CodeApprovalRejected, 0},
		{workflows.ApprovalExpired, "failed", workflows.CodeApprovalExpired, 0},
	} {
		t.Run(c.status, func(t *testing.T) {
			t.Parallel()
			env, f := newEnv(t)
			p := params("echo", `{"a":1}`)
			p.ApprovalID = "apr_1"
			env.RegisterDelayedCallback(func() {
				require.Empty(t, f.running, "nothing runs before the approval")
				env.SignalWorkflow(workflows.SignalApprovalOutcome, workflows.ApprovalOutcome{ApprovalID: "apr_1", Status: c.status})
			}, time.Hour)
			env.ExecuteWorkflow(workflows.RunWorkflowName, p)
			require.NoError(t, env.GetWorkflowError())
			require.Len(t, f.running, c.marked)
			require.Len(t, f.outcomes, 1)
			require.Equal(t, c.wantStatus, f.outcomes[0].Status)
			require.Equal(t, c.wantCode, f.outcomes[0].ErrorCode)
		})
	}
}

// TestGatedRunReceivesTheDecisionTwice: a decision reaches its run twice (from the API and relayed by the
// approval's workflow); the run closes once it has received both, and closes anyway a bounded time after
// finishing when the second never comes.
func TestGatedRunReceivesTheDecisionTwice(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		signals []time.Duration
		closeBy time.Duration
	}{
		{"both", []time.Duration{time.Hour, time.Hour + time.Second}, time.Hour + 2*time.Second},
		{"one lost", []time.Duration{time.Hour}, time.Hour + 11*time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env, f := newEnv(t)
			start := env.Now()
			p := params("echo", `{}`)
			p.ApprovalID = "apr_1"
			for _, at := range c.signals {
				env.RegisterDelayedCallback(func() {
					env.SignalWorkflow(workflows.SignalApprovalOutcome, workflows.ApprovalOutcome{ApprovalID: "apr_1", Status: workflows.ApprovalApproved})
				}, at)
			}
			env.ExecuteWorkflow(workflows.RunWorkflowName, p)
			require.NoError(t, env.GetWorkflowError())
			require.Len(t, f.outcomes, 1)
			require.Equal(t, "succeeded", f.outcomes[0].Status)
			require.Less(t, env.Now().Sub(start), c.closeBy)
			require.GreaterOrEqual(t, env.Now().Sub(start), c.signals[len(c.signals)-1])
		})
	}
}

// TestGatedRunCancelledCancelsItsApproval: cancelling a waiting run ends it cancelled and asks its
// approval's workflow to cancel.
func TestGatedRunCancelledCancelsItsApproval(t *testing.T) {
	t.Parallel()
	env, f := newEnv(t)
	var cancelled []string
	env.OnRequestCancelExternalWorkflow(mock.Anything, mock.Anything, "").Return(func(_, id, _ string) error {
		cancelled = append(cancelled, id)
		return nil
	})
	p := params("echo", `{}`)
	p.ApprovalID = "apr_1"
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(workflows.RunWorkflowName, p)
	require.Error(t, env.GetWorkflowError())
	require.Equal(t, []string{"approval/apr_1"}, cancelled)
	require.Len(t, f.outcomes, 1)
	require.Equal(t, "cancelled", f.outcomes[0].Status)
}

// TestExternalRunReleasesItsHoldWhenTheCallFails: an external run whose call fails for good releases its
// held credits and fails with the failure's type as its code; a successful call's answer is the output.
func TestExternalRunReleasesItsHoldWhenTheCallFails(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		err      error
		want     string
		released int
	}{
		{"refused", temporal.NewNonRetryableApplicationError("no", workflows.ErrorTypeUpstreamRejected, nil), "upstream_rejected", 1},
		{"ok", nil, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env, f := newEnv(t)
			released := 0
			env.RegisterActivityWithOptions(func(context.Context, string) (workflows.InvokeOutcome, error) {
				return workflows.InvokeOutcome{Output: json.RawMessage(`{"image":"ok"}`)}, c.err
			}, activity.RegisterOptions{Name: workflows.ActivityInvokeService})
			env.RegisterActivityWithOptions(func(context.Context, string) error { released++; return nil },
				activity.RegisterOptions{Name: workflows.ActivityReleaseRunHold})
			p := params("generate", `{}`)
			p.ServiceID, p.External = "imagegen", true
			env.ExecuteWorkflow(workflows.RunWorkflowName, p)
			require.NoError(t, env.GetWorkflowError())
			require.Equal(t, c.released, released)
			require.Len(t, f.outcomes, 1)
			require.Equal(t, c.want, f.outcomes[0].ErrorCode)
			if c.err == nil {
				require.JSONEq(t, `{"image":"ok"}`, string(f.outcomes[0].Output))
			}
		})
	}
}

// TestGatedRunSettlesAnApprovalWhoseOutcomeNeverCame: when no outcome arrives by a minute past the
// approval's expiry (its workflow never ran), the run settles the approval itself and fails expired.
func TestGatedRunSettlesAnApprovalWhoseOutcomeNeverCame(t *testing.T) {
	t.Parallel()
	env, f := newEnv(t)
	approvals := &fakeApprovals{status: "pending"}
	env.RegisterActivityWithOptions(approvals.settle, activity.RegisterOptions{Name: workflows.ActivitySettleApproval})
	p := params("echo", `{}`)
	p.ApprovalID = "apr_1"
	p.ApprovalExpiresAt = env.Now().Add(24 * time.Hour)
	start := env.Now()
	env.ExecuteWorkflow(workflows.RunWorkflowName, p)
	require.NoError(t, env.GetWorkflowError())
	require.GreaterOrEqual(t, env.Now().Sub(start), 24*time.Hour+time.Minute)
	require.Equal(t, 1, approvals.settled)
	require.Len(t, f.outcomes, 1)
	require.Equal(t, workflows.CodeApprovalExpired, f.outcomes[0].ErrorCode)
	require.Empty(t, f.running)
}
