package activities

import (
	"context"
	"errors"

	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/workflows"
)

// Test-only faults of agent jobs (as AgentJobs.Fault, from SVC_TEST_FAULT): each makes a step stop
// (heartbeating, until its context ends) at a point where the crash test kills the worker. Never set
// them in production.
const (
	// FaultAgentStallAfterModel stops AgentModel once the model's reply, its usage and its charge are
	// stored, before the activity returns: between the model's answer and the tool call.
	FaultAgentStallAfterModel = "agent-stall-after-model"
	// FaultAgentStallAfterTool stops AgentTool once the tool was executed (its request made as the
	// job's key), before its result is stored: between the tool call and the next model call.
	FaultAgentStallAfterTool = "agent-stall-after-tool"
)

// StallUntilDone is the agent.Runner hook of FaultAgentStallAfterTool: it waits until ctx ends.
func StallUntilDone(ctx context.Context) { <-ctx.Done() }

// AgentJobs are the activities of agent jobs (issue 25). Each heartbeats while it runs, so a step of a
// worker that died is retried after workflows.AgentHeartbeatTimeout.
type AgentJobs struct {
	// Runner performs them; nil fails them saying so (retried until a worker has one).
	Runner *agent.Runner
	// Fault injects a test fault (FaultAgentStallAfterModel; FaultAgentStallAfterTool is wired into the
	// Runner as its AfterTool); empty in production.
	Fault string
}

var errNoAgent = errors.New("this worker does not run agent jobs (no LLM gateway and API engine wired)")

// agentHeartbeatEvery is how often an agent activity heartbeats.
const agentHeartbeatEvery = workflows.AgentHeartbeatTimeout / 4

// AgentBegin marks a job running and handles its slash command.
func (a *AgentJobs) AgentBegin(ctx context.Context, jobID string) (workflows.AgentTurn, error) {
	if a.Runner == nil {
		return workflows.AgentTurn{}, errNoAgent
	}
	defer heartbeat(ctx, agentHeartbeatEvery, nil)()
	return a.Runner.Begin(ctx, jobID)
}

// AgentModel makes one model call of a job (or reuses its stored reply).
func (a *AgentJobs) AgentModel(ctx context.Context, c workflows.AgentModelCall) (workflows.AgentTurn, error) {
	if a.Runner == nil {
		return workflows.AgentTurn{}, errNoAgent
	}
	defer heartbeat(ctx, agentHeartbeatEvery, nil)()
	turn, err := a.Runner.ModelStep(ctx, c)
	if err == nil && a.Fault == FaultAgentStallAfterModel {
		<-ctx.Done()
		return workflows.AgentTurn{}, ctx.Err()
	}
	return turn, err
}

// AgentPropose records a confirmation a tool call waits for.
func (a *AgentJobs) AgentPropose(ctx context.Context, c workflows.AgentToolCall) error {
	if a.Runner == nil {
		return errNoAgent
	}
	defer heartbeat(ctx, agentHeartbeatEvery, nil)()
	return a.Runner.Propose(ctx, c)
}

// AgentTool runs one tool call of a job (or finds its stored result).
func (a *AgentJobs) AgentTool(ctx context.Context, c workflows.AgentToolCall) error {
	if a.Runner == nil {
		return errNoAgent
	}
	defer heartbeat(ctx, agentHeartbeatEvery, nil)()
	return a.Runner.Tool(ctx, c)
}

// AgentFinish records a job's end.
func (a *AgentJobs) AgentFinish(ctx context.Context, end workflows.AgentEnd) error {
	if a.Runner == nil {
		return errNoAgent
	}
	defer heartbeat(ctx, agentHeartbeatEvery, nil)()
	return a.Runner.Finish(ctx, end)
}
