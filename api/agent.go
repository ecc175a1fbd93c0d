package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
)

// agentAPI serves agent jobs (issue 25): POST /agent/prompt, GET /agent/job/{jobId}, its cancel and
// confirm, and the threads, at the host root (seed 002's paths) and under /v1/agent for API clients.
type agentAPI struct {
	agent *agent.Service
}

type agentPromptInput struct {
	Body client.AgentPromptRequest
}

type agentPromptOut struct {
	Status int
	Body   client.AgentPromptEnvelope
}

// prompt records a prompt's job and starts workflow agentjob/<id>: 202 with the job queued.
func (aa *agentAPI) prompt(ctx context.Context, in *agentPromptInput) (*agentPromptOut, error) {
	if aa.agent == nil {
		return nil, agent.ErrUnavailable
	}
	p := principalFrom(ctx)
	if p.Key == nil {
		return nil, svcerr.New(svcerr.Forbidden, "agent jobs act as an API key: send one")
	}
	ref, err := aa.agent.Prompt(ctx, agent.PromptRequest{Scope: p.Scope, KeyID: p.Key.ID, JobID: newID(ctx, ids.AgentJob), Body: in.Body}, time.Now())
	if err != nil {
		return nil, err
	}
	return &agentPromptOut{Status: http.StatusAccepted, Body: client.AgentPromptEnvelope{OK: true, Job: *ref, ThreadID: ref.ThreadID}}, nil
}

type agentJobInput struct {
	JobID string `path:"jobId" maxLength:"200" doc:"The job (job_…)."`
}

func (aa *agentAPI) get(ctx context.Context, in *agentJobInput) (*Out[client.AgentJobEnvelope], error) {
	if aa.agent == nil {
		return nil, agent.ErrUnavailable
	}
	j, err := aa.agent.Get(ctx, principalFrom(ctx).Scope, in.JobID)
	if err != nil {
		return nil, err
	}
	return reply(client.AgentJobEnvelope{OK: true, Job: *j})
}

func (aa *agentAPI) cancel(ctx context.Context, in *agentJobInput) (*Out[client.AgentJobEnvelope], error) {
	if aa.agent == nil {
		return nil, agent.ErrUnavailable
	}
	j, err := aa.agent.Cancel(ctx, principalFrom(ctx).Scope, in.JobID)
	if err != nil {
		return nil, err
	}
	return reply(client.AgentJobEnvelope{OK: true, Job: *j})
}

type agentConfirmInput struct {
	JobID string `path:"jobId" maxLength:"200" doc:"The job (job_…)."`
	Body  client.AgentConfirmRequest
}

func (aa *agentAPI) confirm(ctx context.Context, in *agentConfirmInput) (*Out[client.AgentJobEnvelope], error) {
	if aa.agent == nil {
		return nil, agent.ErrUnavailable
	}
	p := principalFrom(ctx)
	keyID := ""
	if p.Key != nil {
		keyID = p.Key.ID
	}
	j, err := aa.agent.Confirm(ctx, p.Scope, keyID, in.JobID, in.Body)
	if err != nil {
		return nil, err
	}
	return reply(client.AgentJobEnvelope{OK: true, Job: *j})
}

func (aa *agentAPI) threads(ctx context.Context, in *listInput) (*Out[client.AgentThreadList], error) {
	if aa.agent == nil {
		return nil, agent.ErrUnavailable
	}
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	ts, next, err := aa.agent.Threads(ctx, principalFrom(ctx).Scope, pg)
	if err != nil {
		return nil, err
	}
	return reply(client.AgentThreadList{OK: true, Threads: ts, NextCursor: next})
}

type agentThreadInput struct {
	ThreadID string `path:"threadId" maxLength:"200" doc:"The thread (thr_…)."`
}

func (aa *agentAPI) thread(ctx context.Context, in *agentThreadInput) (*Out[client.AgentThreadEnvelope], error) {
	if aa.agent == nil {
		return nil, agent.ErrUnavailable
	}
	t, err := aa.agent.Thread(ctx, principalFrom(ctx).Scope, in.ThreadID)
	if err != nil {
		return nil, err
	}
	return reply(client.AgentThreadEnvelope{OK: true, Thread: *t})
}

// routes are the agent routes: seed 002's at the host root, and their /v1/agent twins (each twin has an
// operation id of its own, "v1." + the root one, and shares the root's limit operation).
func (aa *agentAPI) routes() []Route {
	const tag = "Agent"
	svc := client.ServiceManagedAgents
	root := []Route{
		handle(Route{Op: client.OpAgentPrompt, Method: http.MethodPost, Path: "/agent/prompt", Tag: tag, Auth: authKey, Scope: client.ScopeRunsWrite,
			Service: svc, Idem: true, Status: http.StatusAccepted, FreeText: []string{"prompt"},
			Summary: "Ask the agent: records a job (job_…) and starts workflow agentjob/<id>; threadId continues a thread (100 messages per UTC day, 1,000 for Club)"},
			aa.prompt),
		handle(Route{Op: client.OpAgentJobsRead, Method: http.MethodGet, Path: "/agent/job/{jobId}", Tag: tag, Auth: authKey, Scope: client.ScopeRunsRead,
			Service: svc, Summary: "Read an agent job: status, answer, steps (arguments redacted), tokens and credits"}, aa.get),
		handle(Route{Op: client.OpAgentJobsCancel, Method: http.MethodPost, Path: "/agent/job/{jobId}/cancel", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsWrite, Service: svc, Idem: true, Summary: "Cancel an agent job (it ends cancelled)"}, aa.cancel),
		handle(Route{Op: client.OpAgentJobsConfirm, Method: http.MethodPost, Path: "/agent/job/{jobId}/confirm", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsWrite, Service: svc, Idem: true,
			Summary: "Approve or reject the tool call an agent job waits for (a send, an order, a signature...)"}, aa.confirm),
		handle(Route{Op: client.OpAgentThreadsList, Method: http.MethodGet, Path: "/agent/threads", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsRead, Service: svc, Summary: "List the agent threads, most recently used first"}, aa.threads),
		handle(Route{Op: client.OpAgentThreadsRead, Method: http.MethodGet, Path: "/agent/threads/{threadId}", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsRead, Service: svc, Summary: "Read an agent thread with its messages"}, aa.thread),
	}
	v1 := map[string]string{
		"/agent/prompt": "/v1/agent/jobs", "/agent/job/{jobId}": "/v1/agent/jobs/{jobId}",
		"/agent/job/{jobId}/cancel": "/v1/agent/jobs/{jobId}/cancel", "/agent/job/{jobId}/confirm": "/v1/agent/jobs/{jobId}/confirm",
		"/agent/threads": "/v1/agent/threads", "/agent/threads/{threadId}": "/v1/agent/threads/{threadId}",
	}
	out := append([]Route(nil), root...)
	for _, r := range root {
		twin := r
		twin.Limit = r.LimitOp()
		twin.Op = "v1." + r.Op
		twin.Path = v1[r.Path]
		out = append(out, twin)
	}
	return out
}

// internalCallerKey marks an in-process request made for an agent job (see Dispatch): only code in this
// process can put it in a request's context, never a client.
type internalCallerKey struct{}

// Dispatch sends a tool's request through the engine as the job's key (agent.Dispatcher): the key is
// loaded by id (a revoked key, or one whose ancestor is revoked, is refused with 401), and the route's
// scope, service access, idempotency, limits and audit apply as to the key's own requests. The key's
// IP allowlist is not applied: the worker is not the key's client (the prompt passed it).
func (s *Server) Dispatch(ctx context.Context, as llm.Caller, call agent.Call) (int, []byte, error) {
	var body io.Reader = http.NoBody
	switch {
	case call.Raw != nil:
		body = bytes.NewReader(call.Raw)
	case call.Body != nil:
		raw, err := json.Marshal(call.Body)
		if err != nil {
			return 0, nil, fmt.Errorf("encode the tool's body: %w", err)
		}
		body = bytes.NewReader(raw)
	}
	target := call.Path
	if len(call.Query) > 0 {
		target += "?" + call.Query.Encode()
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, internalCallerKey{}, as), call.Method, target, body)
	if err != nil {
		return 0, nil, fmt.Errorf("build the tool's request: %w", err)
	}
	req.RemoteAddr = "127.0.0.1:0"
	req.Header.Set("User-Agent", "svc-agent")
	if call.Body != nil && call.Raw == nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range call.Header {
		req.Header.Set(k, v)
	}
	if call.Raw != nil {
		req.ContentLength = int64(len(call.Raw))
	}
	if call.IdempotencyKey != "" && call.Method != http.MethodGet {
		req.Header.Set(headerIdemKey, call.IdempotencyKey)
	}
	rec := httptest.NewRecorder()
	s.engine.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), nil
}

// internalPrincipal is the principal of an in-process agent request: the job's key, loaded by id.
func (s *Server) internalPrincipal(ctx context.Context, as llm.Caller) (*Principal, error) {
	caller, err := apikey.NewStore(s.db).Holder(ctx, as.KeyID)
	if err != nil {
		return nil, err
	}
	scope := tenant.Scope{AccountID: caller.Key.AccountID, ProjectID: caller.Key.ProjectID}
	if as.ProjectID != "" {
		pid := as.ProjectID
		scope.ProjectID = &pid
	}
	return &Principal{Key: caller.Key, Ancestors: caller.Ancestors, Scope: scope}, nil
}

// Allows reports whether the job's key may use the route (agent.Dispatcher): its scope, write access
// and service access.
func (s *Server) Allows(ctx context.Context, as llm.Caller, method, path string) bool {
	r := s.routes[method+" "+ginPath(path)]
	if r == nil {
		return false
	}
	caller, err := apikey.NewStore(s.db).Holder(ctx, as.KeyID)
	if err != nil {
		return false
	}
	return keyMayUse(caller.Key, r, r.Service)
}
