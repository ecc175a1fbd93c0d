package app

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/llm"
)

// LateDispatcher is an agent.Dispatcher bound once the process's API server exists (the worker is built
// first): agent tools are dispatched through that server's engine as the job's key. Until it is bound,
// dispatching fails (the tool activity is retried).
type LateDispatcher struct {
	d atomic.Pointer[agent.Dispatcher]
}

// Bind makes d the dispatcher.
func (l *LateDispatcher) Bind(d agent.Dispatcher) { l.d.Store(&d) }

var errUnbound = errors.New("no API engine in this process to act as the job's key yet")

// Dispatch implements agent.Dispatcher.
func (l *LateDispatcher) Dispatch(ctx context.Context, as llm.Caller, call agent.Call) (int, []byte, error) {
	d := l.d.Load()
	if d == nil {
		return 0, nil, errUnbound
	}
	return (*d).Dispatch(ctx, as, call)
}

// Allows implements agent.Dispatcher.
func (l *LateDispatcher) Allows(ctx context.Context, as llm.Caller, method, path string) bool {
	d := l.d.Load()
	return d != nil && (*d).Allows(ctx, as, method, path)
}

// agentActivities run agent jobs with the worker's model, dispatcher, environment and MCP servers (each
// nil fails or omits what needs it, saying so).
func agentActivities(d WorkerDeps) *activities.AgentJobs {
	r := &agent.Runner{DB: d.DB, Model: d.AgentModel, Env: d.AgentEnv, MCP: d.AgentMCP, AllowLoopback: d.AllowLoopback}
	if r.Model == nil && d.DB != nil {
		// The worker's own gateway over the ledger: each model call is charged once per reference
		// (agentjob/<id>/model/<n>), like the API's gateway.
		gw := llmGateway(APIDeps{DB: d.DB, LLM: d.LLM}, ledger.New(d.DB))
		r.Model, r.ModelID = gw, gw.Catalog().Base().ID
	}
	if d.Temporal != nil {
		r.Approvals = d.Temporal
	}
	if d.AgentDispatch != nil {
		r.Dispatch = d.AgentDispatch
	}
	return &activities.AgentJobs{Runner: r}
}

// agentService records prompts and starts their jobs (503 without Temporal).
func agentService(d APIDeps) *agent.Service {
	s := &agent.Service{DB: d.DB}
	if d.Temporal != nil {
		s.Engine = d.Temporal
	}
	return s
}

// agentSweepSettle is how long a recorded agent job may wait for its request to start its workflow
// before the sweep starts it.
const agentSweepSettle = time.Minute

// sweepAgentJobs starts the workflows of agent jobs a dying request recorded without starting.
func (a *APIProcess) sweepAgentJobs(ctx context.Context) {
	n, err := a.deps.Agent.Sweep(ctx, agentSweepSettle, 100)
	if err != nil && ctx.Err() == nil {
		a.log.Warn("start unstarted agent jobs", "err", err)
	}
	if n > 0 {
		a.log.Info("handed agent jobs to their workflows", "count", n)
	}
}
