package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/agentenv"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/skills"
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
	if d.DB != nil && d.Box != nil && r.Env == nil && r.MCP == nil {
		store := agentenv.NewStore(d.DB, d.Box, AgentURLGuard(d.AllowLoopback))
		r.Env, r.MCP = agentEnvValues{store}, agentMCPServers{store: store, guard: AgentURLGuard(d.AllowLoopback)}
	}
	if r.Model == nil && d.DB != nil {
		// The worker's own gateway over the ledger: each model call is charged once per reference
		// (agentjob/<id>/model/<n>), like the API's gateway.
		gw := llmGateway(APIDeps{DB: d.DB, LLM: d.LLM}, ledger.New(d.DB), nil)
		r.Model, r.ModelID = gw, gw.Catalog().Base().ID
	}
	if d.Temporal != nil {
		r.Approvals = d.Temporal
	}
	if st := workerSkills(d); st != nil {
		r.Skills = st
	}
	if d.AgentDispatch != nil {
		r.Dispatch = d.AgentDispatch
	}
	if d.Fault == activities.FaultAgentStallAfterTool {
		r.AfterTool = activities.StallUntilDone
	}
	return &activities.AgentJobs{Runner: r, Fault: d.Fault}
}

// workerSkills is the worker's skills store for agent jobs, read-only here (nil without a database or
// blob store: jobs see no skills).
func workerSkills(d WorkerDeps) *skills.Store {
	if d.DB == nil || d.Blobs == nil {
		return nil
	}
	return skills.NewStore(d.DB, file.NewStore(d.DB, d.Files), blob.WithPrefix(d.Blobs, FilePrefix), nil, nil)
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

// agentEnvValues gives agent jobs the account's environment variables by name (agentenv.Store.Resolve),
// opened only inside the tool activity that uses them.
type agentEnvValues struct{ store *agentenv.Store }

// Values implements agent.EnvValues.
func (a agentEnvValues) Values(ctx context.Context, accountID string, names []string) (map[string]string, error) {
	return a.store.Resolve(ctx, accountID, names)
}

// agentMCPServers offers agent jobs the tools of the account's own MCP servers, named
// <server>__<tool>, each call over a session of its own through the outbound guard.
type agentMCPServers struct {
	store *agentenv.Store
	guard agentenv.URLGuard
}

// functionName is what chat-completions providers accept as a function's name: a user's MCP tool whose
// namespaced name is not is left out of the offer rather than failing every model call of the job.
var functionName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// mcpToolSeparator joins a server's name and its tool's (server names are slugs without it).
const mcpToolSeparator = "__"

// Tools implements agent.MCPServers: the tools of every server that answers; a server that does not is
// left out of this step's offer (the model sees the others).
func (a agentMCPServers) Tools(ctx context.Context, accountID string) ([]agent.MCPTool, error) {
	servers, err := a.store.Servers(ctx, accountID)
	if err != nil {
		return nil, err
	}
	var out []agent.MCPTool
	for _, srv := range servers {
		tools, err := a.serverTools(ctx, srv)
		if err != nil {
			continue
		}
		out = append(out, tools...)
	}
	return out, nil
}

func (a agentMCPServers) serverTools(ctx context.Context, srv agentenv.Server) ([]agent.MCPTool, error) {
	sess, err := a.guard.Connect(ctx, srv)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	listed, err := sess.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("list the tools of %s: %w", srv, err)
	}
	out := make([]agent.MCPTool, 0, len(listed.Tools))
	for _, t := range listed.Tools {
		if !functionName.MatchString(srv.Name + mcpToolSeparator + t.Name) {
			// Providers refuse a whole request naming a function so; the server's other tools are offered.
			continue
		}
		params, err := json.Marshal(t.InputSchema)
		if err != nil || t.InputSchema == nil {
			params = json.RawMessage(`{"type":"object"}`)
		}
		out = append(out, agent.MCPTool{Name: srv.Name + mcpToolSeparator + t.Name, Description: t.Description, Parameters: params})
	}
	return out, nil
}

// Call implements agent.MCPServers: it calls <server>__<tool> with args and answers the result's text
// (an error result is an error naming the tool).
func (a agentMCPServers) Call(ctx context.Context, accountID, name string, args json.RawMessage) (string, error) {
	serverName, tool, ok := strings.Cut(name, mcpToolSeparator)
	if !ok {
		return "", fmt.Errorf("tool %q names no MCP server", name)
	}
	servers, err := a.store.Servers(ctx, accountID)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(servers, func(s agentenv.Server) bool { return s.Name == serverName })
	if i < 0 {
		return "", fmt.Errorf("no MCP server named %q", serverName)
	}
	sess, err := a.guard.Connect(ctx, servers[i])
	if err != nil {
		return "", err
	}
	defer sess.Close()
	var arguments any = map[string]any{}
	if len(args) > 0 {
		arguments = args
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: arguments})
	if err != nil {
		return "", fmt.Errorf("call %s: %w", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%s answered an error: %s", name, text.String())
	}
	return text.String(), nil
}
