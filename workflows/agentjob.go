package workflows

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/ids"
)

// AgentMaxSteps is the step cap of an agent job: at most this many model calls, then the job fails
// saying so.
const AgentMaxSteps = 24

// AgentTurnsPerRun is how many model calls one workflow run makes before it continues as new (K): the
// history of a run stays small whatever the job's length, since everything large lives in PostgreSQL.
const AgentTurnsPerRun = 8

// AgentJobParams is the input of AgentJobWorkflow.
type AgentJobParams struct {
	JobID string
	// Turn is the next model call's number (0 on the first run; set when continuing as new), Step the
	// next step number.
	Turn int
	Step int
}

// AgentTurn is what a model call decided: a final answer, or tool calls to make in order.
type AgentTurn struct {
	Answer string
	Final  bool
	Calls  []AgentCall
}

// AgentCall is one tool call of a turn: its step number, its tool and whether it needs the user's
// confirmation.
type AgentCall struct {
	N       int
	Tool    string
	Confirm bool
}

// AgentModelCall is the input of ActivityAgentModel.
type AgentModelCall struct {
	JobID string
	N     int
	// FirstStep is the step number the turn's first tool call gets.
	FirstStep int
}

// AgentToolCall is the input of ActivityAgentTool and ActivityAgentPropose.
type AgentToolCall struct {
	JobID string
	// Model is the step number of the model call that asked for the tool; Index the call's position in
	// its reply; N the tool step's number.
	Model int
	Index int
	N     int
	// Decision is "" for a call that needs no confirmation, else "approve" or "reject".
	Decision string
}

// AgentConfirmation is the payload of SignalAgentConfirm.
type AgentConfirmation struct {
	N        int
	Decision string
}

// AgentEnd is what ActivityAgentFinish records.
type AgentEnd struct {
	JobID  string
	Status string
	Answer string
	Error  string
}

// Statuses of an agent job's end.
const (
	AgentSucceeded = "succeeded"
	AgentFailed    = "failed"
	AgentCancelled = "cancelled"
)

// AgentJobWorkflowID is the workflow id of an agent job.
func AgentJobWorkflowID(jobID string) string { return "agentjob/" + jobID }

// AgentHeartbeatTimeout is how long a silent agent activity is trusted: its attempt heartbeats while it
// runs (a model call can take minutes), so a worker that dies mid-step has the step retried elsewhere
// after this long rather than after the step's whole timeout.
const AgentHeartbeatTimeout = 10 * time.Second

// agentSteps retry each activity: each is idempotent on its step's row (and the gateway's reference, the
// tool route's Idempotency-Key), so a retry after a crash repeats no model charge and no tool.
var agentSteps = workflow.ActivityOptions{
	StartToCloseTimeout: 5 * time.Minute,
	HeartbeatTimeout:    AgentHeartbeatTimeout,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: 20},
}

// AgentJobWorkflow (workflow id agentjob/<jobId>) runs a prompt: ActivityAgentBegin (a slash command
// ends here), then turns of ActivityAgentModel, whose tool calls run in order through ActivityAgentTool;
// a call that moves money or signs first records a confirmation (ActivityAgentPropose) and waits for
// SignalAgentConfirm with its step number; a rejected call is not run and the model is told. The loop
// ends with the model's answer, or fails at AgentMaxSteps; after AgentTurnsPerRun turns the workflow
// continues as new. Cancelling the workflow ends the job cancelled. The memo keeps the status.
func AgentJobWorkflow(ctx workflow.Context, p AgentJobParams) (string, error) {
	actx := workflow.WithActivityOptions(ctx, agentSteps)
	if p.Turn == 0 && p.Step == 0 {
		var turn AgentTurn
		if err := workflow.ExecuteActivity(actx, ActivityAgentBegin, p.JobID).Get(ctx, &turn); err != nil {
			return finishAgent(ctx, p.JobID, err)
		}
		upsertStatus(ctx, "running")
		if turn.Final {
			return endAgent(ctx, AgentEnd{JobID: p.JobID, Status: AgentSucceeded, Answer: turn.Answer})
		}
	}
	confirms := workflow.GetSignalChannel(ctx, SignalAgentConfirm)
	outcomes := workflow.GetSignalChannel(ctx, SignalApprovalOutcome)
	decided := map[int]string{}
	for turns := 0; p.Turn < AgentMaxSteps; turns++ {
		if turns >= AgentTurnsPerRun {
			return "", workflow.NewContinueAsNewError(ctx, AgentJobWorkflowName, p)
		}
		modelStep := p.Step
		var turn AgentTurn
		call := AgentModelCall{JobID: p.JobID, N: modelStep, FirstStep: modelStep + 1}
		if err := workflow.ExecuteActivity(actx, ActivityAgentModel, call).Get(ctx, &turn); err != nil {
			return finishAgent(ctx, p.JobID, err)
		}
		p.Turn++
		p.Step = modelStep + 1 + len(turn.Calls)
		if turn.Final {
			return endAgent(ctx, AgentEnd{JobID: p.JobID, Status: AgentSucceeded, Answer: turn.Answer})
		}
		for i, c := range turn.Calls {
			tc := AgentToolCall{JobID: p.JobID, Model: modelStep, Index: i, N: c.N}
			if c.Confirm {
				if err := workflow.ExecuteActivity(actx, ActivityAgentPropose, tc).Get(ctx, nil); err != nil {
					return finishAgent(ctx, p.JobID, err)
				}
				upsertStatus(ctx, "awaiting_confirmation")
				decision, err := awaitConfirmation(ctx, confirms, outcomes, decided, p.JobID, c.N)
				if err != nil {
					return finishAgent(ctx, p.JobID, err)
				}
				tc.Decision = decision
				upsertStatus(ctx, "running")
			}
			if err := workflow.ExecuteActivity(actx, ActivityAgentTool, tc).Get(ctx, nil); err != nil {
				return finishAgent(ctx, p.JobID, err)
			}
		}
	}
	return endAgent(ctx, AgentEnd{JobID: p.JobID, Status: AgentFailed,
		Error: fmt.Sprintf("the job reached its cap of %d model calls without an answer", AgentMaxSteps)})
}

// awaitConfirmation waits for the decision on step n: a SignalAgentConfirm (POST …/confirm), or the
// outcome of the step's approval (the approvals routes: approved, or rejected, expired or cancelled,
// which refuse the call). Decisions on other steps that arrive meanwhile are kept for later.
func awaitConfirmation(ctx workflow.Context, ch, outcomes workflow.ReceiveChannel, decided map[int]string, jobID string, n int) (string, error) {
	approvalID := AgentApprovalID(jobID, n)
	for decided[n] == "" {
		var c AgentConfirmation
		var o ApprovalOutcome
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(ch, func(r workflow.ReceiveChannel, _ bool) { r.Receive(ctx, &c) })
		sel.AddReceive(outcomes, func(r workflow.ReceiveChannel, _ bool) { r.Receive(ctx, &o) })
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		sel.Select(ctx)
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if c.Decision == "approve" || c.Decision == "reject" {
			decided[c.N] = c.Decision
		}
		if o.ApprovalID == approvalID && o.Status != "" && o.Status != "pending" {
			decided[n] = "reject"
			if o.Status == "approved" {
				decided[n] = "approve"
			}
		}
	}
	return decided[n], nil
}

// AgentApprovalID is the id of the approval that gates step n of an agent job (derived, so the worker
// and the workflow name it alike).
func AgentApprovalID(jobID string, n int) string {
	return ids.Derive(ids.Approval, "agentjob", jobID, strconv.Itoa(n))
}

// finishAgent ends the job after err: cancelled when the workflow was cancelled, failed otherwise.
func finishAgent(ctx workflow.Context, jobID string, err error) (string, error) {
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) || errors.Is(ctx.Err(), workflow.ErrCanceled) {
		return endAgent(ctx, AgentEnd{JobID: jobID, Status: AgentCancelled})
	}
	msg := err.Error()
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		msg = appErr.Message()
	}
	return endAgent(ctx, AgentEnd{JobID: jobID, Status: AgentFailed, Error: msg})
}

// endAgent records the end on a context that survives the workflow's cancellation.
func endAgent(ctx workflow.Context, end AgentEnd) (string, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	dctx = workflow.WithActivityOptions(dctx, agentSteps)
	if err := workflow.ExecuteActivity(dctx, ActivityAgentFinish, end).Get(dctx, nil); err != nil {
		return "", fmt.Errorf("record the end of agent job %s: %w", end.JobID, err)
	}
	upsertStatus(ctx, end.Status)
	return end.Status, nil
}
