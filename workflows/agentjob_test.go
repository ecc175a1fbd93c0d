package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// fakeAgent plays the job's rows: each model call answers the next scripted turn.
type fakeAgent struct {
	turns    []workflows.AgentTurn
	models   []workflows.AgentModelCall
	tools    []workflows.AgentToolCall
	proposed []workflows.AgentToolCall
	ends     []workflows.AgentEnd
	slash    bool
}

func (f *fakeAgent) begin(context.Context, string) (workflows.AgentTurn, error) {
	if f.slash {
		return workflows.AgentTurn{Final: true, Answer: "delegated"}, nil
	}
	return workflows.AgentTurn{}, nil
}

func (f *fakeAgent) model(_ context.Context, c workflows.AgentModelCall) (workflows.AgentTurn, error) {
	f.models = append(f.models, c)
	if len(f.turns) == 0 {
		return workflows.AgentTurn{Calls: []workflows.AgentCall{{N: c.FirstStep, Tool: "get_balance"}}}, nil
	}
	t := f.turns[0]
	f.turns = f.turns[1:]
	for i := range t.Calls {
		t.Calls[i].N = c.FirstStep + i
	}
	return t, nil
}

func (f *fakeAgent) propose(_ context.Context, c workflows.AgentToolCall) error {
	f.proposed = append(f.proposed, c)
	return nil
}

func (f *fakeAgent) tool(_ context.Context, c workflows.AgentToolCall) error {
	f.tools = append(f.tools, c)
	return nil
}

func (f *fakeAgent) finish(_ context.Context, end workflows.AgentEnd) error {
	f.ends = append(f.ends, end)
	return nil
}

func newAgentEnv(f *fakeAgent) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(workflows.AgentJobWorkflow, workflow.RegisterOptions{Name: workflows.AgentJobWorkflowName})
	env.RegisterActivityWithOptions(f.begin, activity.RegisterOptions{Name: workflows.ActivityAgentBegin})
	env.RegisterActivityWithOptions(f.model, activity.RegisterOptions{Name: workflows.ActivityAgentModel})
	env.RegisterActivityWithOptions(f.propose, activity.RegisterOptions{Name: workflows.ActivityAgentPropose})
	env.RegisterActivityWithOptions(f.tool, activity.RegisterOptions{Name: workflows.ActivityAgentTool})
	env.RegisterActivityWithOptions(f.finish, activity.RegisterOptions{Name: workflows.ActivityAgentFinish})
	return env
}

func agentStatus(t *testing.T, env *testsuite.TestWorkflowEnvironment) string {
	t.Helper()
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var status string
	require.NoError(t, env.GetWorkflowResult(&status))
	return status
}

// A tool call then an answer: steps numbered model 0, tool 1, model 2.
func TestAgentJobToolThenAnswer(t *testing.T) {
	t.Parallel()
	f := &fakeAgent{turns: []workflows.AgentTurn{{Calls: []workflows.AgentCall{{Tool: "get_balance"}}}, {Final: true, Answer: "42"}}}
	env := newAgentEnv(f)
	env.ExecuteWorkflow(workflows.AgentJobWorkflowName, workflows.AgentJobParams{JobID: "job_1"})
	require.Equal(t, workflows.AgentSucceeded, agentStatus(t, env))
	require.Equal(t, []workflows.AgentModelCall{{JobID: "job_1", N: 0, FirstStep: 1}, {JobID: "job_1", N: 2, FirstStep: 3}}, f.models)
	require.Equal(t, []workflows.AgentToolCall{{JobID: "job_1", Model: 0, Index: 0, N: 1}}, f.tools)
	require.Equal(t, []workflows.AgentEnd{{JobID: "job_1", Status: workflows.AgentSucceeded, Answer: "42"}}, f.ends)
}

// A slash command ends the job at once, without a model call.
func TestAgentJobSlashCommand(t *testing.T) {
	t.Parallel()
	f := &fakeAgent{slash: true}
	env := newAgentEnv(f)
	env.ExecuteWorkflow(workflows.AgentJobWorkflowName, workflows.AgentJobParams{JobID: "job_2"})
	require.Equal(t, workflows.AgentSucceeded, agentStatus(t, env))
	require.Empty(t, f.models)
	require.Equal(t, "delegated", f.ends[0].Answer)
}

// A money-moving call waits for its confirmation; a decision on another step does not release it.
func TestAgentJobConfirmation(t *testing.T) {
	t.Parallel()
	for _, decision := range []string{"approve", "reject"} {
		f := &fakeAgent{turns: []workflows.AgentTurn{{Calls: []workflows.AgentCall{{Tool: "wallet_send", Confirm: true}}}, {Final: true, Answer: "ok"}}}
		env := newAgentEnv(f)
		env.RegisterDelayedCallback(func() {
			require.Empty(t, f.tools, "nothing runs before the decision")
			env.SignalWorkflow(workflows.SignalAgentConfirm, workflows.AgentConfirmation{N: 7, Decision: "approve"})
		}, time.Hour)
		env.RegisterDelayedCallback(func() {
			require.Empty(t, f.tools)
			env.SignalWorkflow(workflows.SignalAgentConfirm, workflows.AgentConfirmation{N: 1, Decision: decision})
		}, 2*time.Hour)
		env.ExecuteWorkflow(workflows.AgentJobWorkflowName, workflows.AgentJobParams{JobID: "job_3"})
		require.Equal(t, workflows.AgentSucceeded, agentStatus(t, env))
		require.Len(t, f.proposed, 1)
		require.Equal(t, []workflows.AgentToolCall{{JobID: "job_3", Model: 0, Index: 0, N: 1, Decision: decision}}, f.tools)
	}
}

// Cancelled while waiting for a confirmation, the job ends cancelled and the tool never runs.
func TestAgentJobCancelled(t *testing.T) {
	t.Parallel()
	f := &fakeAgent{turns: []workflows.AgentTurn{{Calls: []workflows.AgentCall{{Tool: "wallet_send", Confirm: true}}}}}
	env := newAgentEnv(f)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(workflows.AgentJobWorkflowName, workflows.AgentJobParams{JobID: "job_4"})
	require.True(t, env.IsWorkflowCompleted())
	require.Empty(t, f.tools)
	require.Equal(t, []workflows.AgentEnd{{JobID: "job_4", Status: workflows.AgentCancelled}}, f.ends)
}

// After AgentTurnsPerRun model calls the workflow continues as new, carrying its turn and step.
func TestAgentJobContinuesAsNew(t *testing.T) {
	t.Parallel()
	f := &fakeAgent{} // always another tool call
	env := newAgentEnv(f)
	env.ExecuteWorkflow(workflows.AgentJobWorkflowName, workflows.AgentJobParams{JobID: "job_5"})
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "%v", env.GetWorkflowError())
	require.Len(t, f.models, workflows.AgentTurnsPerRun)
	require.Empty(t, f.ends)
}

// At the step cap the job fails, saying so.
func TestAgentJobStepCap(t *testing.T) {
	t.Parallel()
	f := &fakeAgent{}
	env := newAgentEnv(f)
	env.ExecuteWorkflow(workflows.AgentJobWorkflowName, workflows.AgentJobParams{JobID: "job_6", Turn: workflows.AgentMaxSteps - 1, Step: 100})
	require.Equal(t, workflows.AgentFailed, agentStatus(t, env))
	require.Len(t, f.models, 1)
	require.Contains(t, f.ends[0].Error, "cap")
}

// The outcome of the step's approval decides it too: an expired approval refuses the call; an outcome
// of another approval is ignored.
func TestAgentJobApprovalOutcome(t *testing.T) {
	t.Parallel()
	f := &fakeAgent{turns: []workflows.AgentTurn{{Calls: []workflows.AgentCall{{Tool: "trading_order", Confirm: true}}}, {Final: true, Answer: "ok"}}}
	env := newAgentEnv(f)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(workflows.SignalApprovalOutcome, workflows.ApprovalOutcome{ApprovalID: "apr_other", Status: "approved"})
	}, time.Hour)
	env.RegisterDelayedCallback(func() {
		require.Empty(t, f.tools)
		env.SignalWorkflow(workflows.SignalApprovalOutcome, workflows.ApprovalOutcome{ApprovalID: workflows.AgentApprovalID("job_7", 1), Status: "expired"})
	}, 2*time.Hour)
	env.ExecuteWorkflow(workflows.AgentJobWorkflowName, workflows.AgentJobParams{JobID: "job_7"})
	require.Equal(t, workflows.AgentSucceeded, agentStatus(t, env))
	require.Equal(t, []workflows.AgentToolCall{{JobID: "job_7", Model: 0, Index: 0, N: 1, Decision: "reject"}}, f.tools)
}
