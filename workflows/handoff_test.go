package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// fakeHandoff plays the vault and the handoff's row.
type fakeHandoff struct {
	refuse   bool
	ackAfter int // the check that first finds an ack (0: never)
	checks   int
	writes   int
	ends     []workflows.HandoffEnd
}

func (f *fakeHandoff) write(_ context.Context, id string) (string, error) {
	f.writes++
	if f.refuse {
		return "", temporal.NewNonRetryableApplicationError("files[0] (a.txt) holds a PEM private key", workflows.ErrorTypeHandoffRefused, nil)
	}
	return "transfer-of-" + id, nil
}

func (f *fakeHandoff) check(_ context.Context, c workflows.HandoffAckCheck) (int, error) {
	f.checks++
	if f.ackAfter > 0 && f.checks >= f.ackAfter {
		return 1, nil
	}
	return 0, nil
}

func (f *fakeHandoff) finish(_ context.Context, end workflows.HandoffEnd) error {
	f.ends = append(f.ends, end)
	return nil
}

func newHandoffEnv(f *fakeHandoff) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.HandoffWorkflow, workflow.RegisterOptions{Name: workflows.HandoffWorkflowName})
	env.RegisterActivityWithOptions(f.write, activity.RegisterOptions{Name: workflows.ActivityWriteHandoffTransfer})
	env.RegisterActivityWithOptions(f.check, activity.RegisterOptions{Name: workflows.ActivityCheckHandoffAcks})
	env.RegisterActivityWithOptions(f.finish, activity.RegisterOptions{Name: workflows.ActivityFinishHandoff})
	return env
}

func handoffResult(t *testing.T, env *testsuite.TestWorkflowEnvironment) string {
	t.Helper()
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var status string
	require.NoError(t, env.GetWorkflowResult(&status))
	return status
}

// TestHandoffAcknowledged: the transfer is written once, the acks are checked on the timer until the
// third check finds one, and the handoff ends acknowledged with its transfer.
func TestHandoffAcknowledged(t *testing.T) {
	t.Parallel()
	f := &fakeHandoff{ackAfter: 3}
	env := newHandoffEnv(f)
	start := env.Now()
	env.ExecuteWorkflow(workflows.HandoffWorkflowName, workflows.HandoffParams{HandoffID: "hnd_1", Deadline: start.Add(time.Hour), CheckEvery: time.Minute})
	require.Equal(t, workflows.HandoffAcknowledged, handoffResult(t, env))
	require.Equal(t, 1, f.writes)
	require.Equal(t, 3, f.checks)
	require.Equal(t, []workflows.HandoffEnd{{HandoffID: "hnd_1", TransferID: "transfer-of-hnd_1", Status: workflows.HandoffAcknowledged}}, f.ends)
	require.Equal(t, 2*time.Minute, env.Now().Sub(start).Round(time.Minute), "two timers between three checks")
}

// TestHandoffWokenBySignal: a handoff-ack signal wakes the wait at once instead of at the timer.
func TestHandoffWokenBySignal(t *testing.T) {
	t.Parallel()
	f := &fakeHandoff{ackAfter: 2}
	env := newHandoffEnv(f)
	start := env.Now()
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(workflows.SignalHandoffAck, nil) }, time.Second)
	env.ExecuteWorkflow(workflows.HandoffWorkflowName, workflows.HandoffParams{HandoffID: "hnd_2", Deadline: start.Add(time.Hour), CheckEvery: 30 * time.Minute})
	require.Equal(t, workflows.HandoffAcknowledged, handoffResult(t, env))
	require.Less(t, env.Now().Sub(start), time.Minute)
}

// TestHandoffExpired: nobody acknowledges; time skipping reaches the deadline and the handoff ends
// expired after checking at the deadline.
func TestHandoffExpired(t *testing.T) {
	t.Parallel()
	f := &fakeHandoff{}
	env := newHandoffEnv(f)
	start := env.Now()
	env.ExecuteWorkflow(workflows.HandoffWorkflowName, workflows.HandoffParams{HandoffID: "hnd_3", Deadline: start.Add(24 * time.Hour), CheckEvery: 15 * time.Minute})
	require.Equal(t, workflows.HandoffExpired, handoffResult(t, env))
	require.Equal(t, 24*4+1, f.checks)
	require.Equal(t, workflows.HandoffExpired, f.ends[0].Status)
	require.False(t, env.Now().Before(start.Add(24*time.Hour)))
}

// TestHandoffContinuesAsNew: a long wait continues as new with the transfer and the deadline, writing
// nothing again.
func TestHandoffContinuesAsNew(t *testing.T) {
	t.Parallel()
	f := &fakeHandoff{}
	env := newHandoffEnv(f)
	deadline := env.Now().Add(30 * 24 * time.Hour)
	env.ExecuteWorkflow(workflows.HandoffWorkflowName, workflows.HandoffParams{HandoffID: "hnd_4", Deadline: deadline, CheckEvery: time.Minute})
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	require.Equal(t, workflows.HandoffWorkflowName, can.WorkflowType.Name)
	require.Equal(t, 1, f.writes)
	require.Empty(t, f.ends)
}

// TestHandoffRefusedTransferFails: a transfer the vault refuses ends the handoff failed with the reason,
// without waiting for acks.
func TestHandoffRefusedTransferFails(t *testing.T) {
	t.Parallel()
	f := &fakeHandoff{refuse: true}
	env := newHandoffEnv(f)
	env.ExecuteWorkflow(workflows.HandoffWorkflowName, workflows.HandoffParams{HandoffID: "hnd_5", Deadline: env.Now().Add(time.Hour), CheckEvery: time.Minute})
	require.Equal(t, workflows.HandoffFailed, handoffResult(t, env))
	require.Zero(t, f.checks)
	require.Equal(t, workflows.HandoffFailed, f.ends[0].Status)
	require.Contains(t, f.ends[0].Error, "PEM private key")
}
