// Package agent runs agent jobs (issue 25): a prompt becomes a job, run by workflow agentjob/<id>, whose
// model calls go through the LLM gateway and whose tool calls are the platform's own REST routes,
// dispatched in-process as the job's API key so each is authorised, limited and audited exactly like
// the equivalent request. History (threads, messages, steps) lives in PostgreSQL, never in a workflow
// payload. Service is the API side (prompt, read, cancel, confirm, threads); Runner is the worker side
// (the workflow's activities).
package agent

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/svcplatform/svc/internal/llm"
)

// Model completes chat requests, charging the caller exactly once per reference (the LLM gateway's
// Complete: the worker passes agentjob/<id>/model/<n>).
type Model interface {
	Complete(ctx context.Context, c llm.Caller, req llm.ChatRequest, reference string) (*llm.ChatResponse, llm.Charge, error)
}

// Call is the REST request a tool call becomes.
type Call struct {
	Method string
	// Path is the request's path with its parameters escaped.
	Path  string
	Query url.Values
	// Body is sent as JSON when set; Raw is sent as is (a file upload) with Header.
	Body   any
	Raw    []byte
	Header map[string]string
	// IdempotencyKey is sent on routes that take one (derived from the tool step: agentjob/<id>/tool/<n>).
	IdempotencyKey string
}

// Dispatcher sends a tool's REST request through the API's own middleware as the job's key: the key is
// loaded by id on each call (a revoked key is refused), and the route's scope, service access, limits
// and audit apply. api.Server implements it.
type Dispatcher interface {
	Dispatch(ctx context.Context, as llm.Caller, call Call) (status int, body []byte, err error)
	// Allows reports whether the key may use the route (method and Huma path, /v1/runs/{runId}): the
	// tools offered to the model are those of routes the key may use.
	Allows(ctx context.Context, as llm.Caller, method, path string) bool
}

// EnvValues resolves the account's environment variables by name at a tool's execution time (never
// into the model's context); nil means the account has none.
type EnvValues interface {
	Values(ctx context.Context, accountID string, names []string) (map[string]string, error)
}

// MCPTool is one tool of a user's MCP server, namespaced by the server's name (<server>__<tool>).
type MCPTool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// MCPServers lists and calls the tools of the account's own MCP servers; nil means none.
type MCPServers interface {
	Tools(ctx context.Context, accountID string) ([]MCPTool, error)
	Call(ctx context.Context, accountID, name string, args json.RawMessage) (string, error)
}
