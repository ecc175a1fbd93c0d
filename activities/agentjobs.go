package activities

import (
	"context"
	"errors"

	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/workflows"
)

// AgentJobs are the activities of agent jobs (issue 25).
type AgentJobs struct {
	// Runner performs them; nil fails them saying so (retried until a worker has one).
	Runner *agent.Runner
}

var errNoAgent = errors.New("this worker does not run agent jobs (no LLM gateway and API engine wired)")

// AgentBegin marks a job running and handles its slash command.
func (a *AgentJobs) AgentBegin(ctx context.Context, jobID string) (workflows.AgentTurn, error) {
	if a.Runner == nil {
		return workflows.AgentTurn{}, errNoAgent
	}
	return a.Runner.Begin(ctx, jobID)
}

// AgentModel makes one model call of a job (or reuses its stored reply).
func (a *AgentJobs) AgentModel(ctx context.Context, c workflows.AgentModelCall) (workflows.AgentTurn, error) {
	if a.Runner == nil {
		return workflows.AgentTurn{}, errNoAgent
	}
	return a.Runner.ModelStep(ctx, c)
}

// AgentPropose records a confirmation a tool call waits for.
func (a *AgentJobs) AgentPropose(ctx context.Context, c workflows.AgentToolCall) error {
	if a.Runner == nil {
		return errNoAgent
	}
	return a.Runner.Propose(ctx, c)
}

// AgentTool runs one tool call of a job (or finds its stored result).
func (a *AgentJobs) AgentTool(ctx context.Context, c workflows.AgentToolCall) error {
	if a.Runner == nil {
		return errNoAgent
	}
	return a.Runner.Tool(ctx, c)
}

// AgentFinish records a job's end.
func (a *AgentJobs) AgentFinish(ctx context.Context, end workflows.AgentEnd) error {
	if a.Runner == nil {
		return errNoAgent
	}
	return a.Runner.Finish(ctx, end)
}
