package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// The agent jobs' operations (issue 25: POST /agent/prompt and its /v1/agent/jobs twins).
const (
	OpAgentPrompt      = "agent.prompt"
	OpAgentJobsRead    = "agent.jobs.read"
	OpAgentJobsCancel  = "agent.jobs.cancel"
	OpAgentJobsConfirm = "agent.jobs.confirm"
	OpAgentThreadsList = "agent.threads.list"
	OpAgentThreadsRead = "agent.threads.read"
)

// Statuses of an agent job.
const (
	AgentJobQueued               = "queued"
	AgentJobRunning              = "running"
	AgentJobAwaitingConfirmation = "awaiting_confirmation"
	AgentJobSucceeded            = "succeeded"
	AgentJobFailed               = "failed"
	AgentJobCancelled            = "cancelled"
)

// Decisions on a confirmation step.
const (
	AgentApprove = "approve"
	AgentReject  = "reject"
)

// AgentPromptRequest is the body of POST /agent/prompt (and POST /v1/agent/jobs).
type AgentPromptRequest struct {
	Prompt   string `json:"prompt" minLength:"1" maxLength:"32000" doc:"What to do, in natural language; /handoff-task <name> <text> delegates a task without calling the model."`
	ThreadID string `json:"threadId,omitempty" maxLength:"200" doc:"Continue this thread (thr_…); a new thread when absent."`
}

// AgentJobRef is the job a prompt started.
type AgentJobRef struct {
	ID       string `json:"id"`
	ThreadID string `json:"threadId"`
	Status   string `json:"status"`
}

// AgentPromptEnvelope answers POST /agent/prompt (202). ThreadID repeats the job's thread at the top level:
// seed 002's prompt response carries threadId, which a later prompt may continue.
type AgentPromptEnvelope struct {
	OK       bool        `json:"ok"`
	Job      AgentJobRef `json:"job"`
	ThreadID string      `json:"threadId" doc:"The job's thread (thr_…), as job.threadId; pass it as threadId to continue."`
}

// AgentStep is one step of an agent job: a model call, a tool call, or a confirmation a money-moving or
// signing tool call waits for.
type AgentStep struct {
	ID   string `json:"id"`
	N    int    `json:"n"`
	Kind string `json:"kind" doc:"model, tool or confirmation."`
	Tool string `json:"tool,omitempty"`
	// Args are the tool call's arguments, secrets redacted.
	Args    any    `json:"args,omitempty"`
	Summary string `json:"summary,omitempty"`
	Status  string `json:"status" doc:"running, succeeded, failed; a confirmation: pending, approved or rejected."`
	// Untrusted marks a confirmation proposed after untrusted content (http_fetch, files, MCP tools)
	// entered the job's context.
	Untrusted bool      `json:"untrusted"`
	CreatedAt time.Time `json:"createdAt"`
}

// AgentUsage is what a job used: tokens and credits.
type AgentUsage struct {
	PromptTokens     int64   `json:"promptTokens"`
	CompletionTokens int64   `json:"completionTokens"`
	Credits          float64 `json:"credits"`
}

// AgentJob is a prompt's job.
type AgentJob struct {
	ID         string      `json:"id"`
	ThreadID   string      `json:"threadId"`
	Prompt     string      `json:"prompt"`
	Status     string      `json:"status" doc:"queued, running, awaiting_confirmation, succeeded, failed or cancelled."`
	Answer     *string     `json:"answer"`
	Error      *string     `json:"error,omitempty"`
	Steps      []AgentStep `json:"steps"`
	Usage      AgentUsage  `json:"usage"`
	WorkflowID string      `json:"workflowId"`
	CreatedAt  time.Time   `json:"createdAt"`
	UpdatedAt  time.Time   `json:"updatedAt"`
	EndedAt    *time.Time  `json:"endedAt,omitempty"`
}

// AgentJobEnvelope answers GET /agent/job/{jobId} and the cancel and confirm routes.
type AgentJobEnvelope struct {
	OK  bool     `json:"ok"`
	Job AgentJob `json:"job"`
}

// AgentConfirmRequest is the body of POST /agent/job/{jobId}/confirm.
type AgentConfirmRequest struct {
	StepID   string `json:"stepId" maxLength:"200" doc:"The confirmation step (stp_…)."`
	Decision string `json:"decision" enum:"approve,reject" doc:"approve runs the tool call; reject tells the model it was refused."`
}

// AgentMessage is one message of a thread.
type AgentMessage struct {
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	Tool      string    `json:"tool,omitempty"`
	JobID     string    `json:"jobId"`
	CreatedAt time.Time `json:"createdAt"`
}

// AgentThread is a conversation of prompts.
type AgentThread struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Messages are the thread's messages, in order (GET /agent/threads/{id} only).
	Messages []AgentMessage `json:"messages,omitempty"`
}

// AgentThreadEnvelope answers GET /agent/threads/{id}.
type AgentThreadEnvelope struct {
	OK     bool        `json:"ok"`
	Thread AgentThread `json:"thread"`
}

// AgentThreadList answers GET /agent/threads.
type AgentThreadList struct {
	OK         bool          `json:"ok"`
	Threads    []AgentThread `json:"threads"`
	NextCursor *string       `json:"nextCursor"`
}

// AgentPrompt starts an agent job, POST /v1/agent/jobs (scope runs:write, service managed-agents).
func (c *Client) AgentPrompt(ctx context.Context, r AgentPromptRequest, opts ...CallOption) Response[AgentPromptEnvelope] {
	return send[AgentPromptEnvelope](ctx, c, call{method: http.MethodPost, path: "/agent/jobs", body: r, auth: authKey, idem: true, opts: opts})
}

// AgentJob reads one of the account's agent jobs with its steps, GET /v1/agent/jobs/{jobId}.
func (c *Client) AgentJob(ctx context.Context, id string) Response[AgentJobEnvelope] {
	if id == "" {
		return invalidArg[AgentJobEnvelope]("jobId", "the job id is empty")
	}
	return send[AgentJobEnvelope](ctx, c, call{method: http.MethodGet, path: "/agent/jobs/" + url.PathEscape(id), auth: authKey})
}

// CancelAgentJob asks an agent job to stop, POST /v1/agent/jobs/{jobId}/cancel.
func (c *Client) CancelAgentJob(ctx context.Context, id string, opts ...CallOption) Response[AgentJobEnvelope] {
	if id == "" {
		return invalidArg[AgentJobEnvelope]("jobId", "the job id is empty")
	}
	return send[AgentJobEnvelope](ctx, c, call{method: http.MethodPost, path: "/agent/jobs/" + url.PathEscape(id) + "/cancel",
		auth: authKey, idem: true, opts: opts})
}

// ConfirmAgentJob decides a job's pending confirmation, POST /v1/agent/jobs/{jobId}/confirm.
func (c *Client) ConfirmAgentJob(ctx context.Context, id string, r AgentConfirmRequest, opts ...CallOption) Response[AgentJobEnvelope] {
	if id == "" {
		return invalidArg[AgentJobEnvelope]("jobId", "the job id is empty")
	}
	return send[AgentJobEnvelope](ctx, c, call{method: http.MethodPost, path: "/agent/jobs/" + url.PathEscape(id) + "/confirm",
		body: r, auth: authKey, idem: true, opts: opts})
}

// AgentThreads lists the account's threads, newest first, GET /v1/agent/threads.
func (c *Client) AgentThreads(ctx context.Context, p ListParams) Response[AgentThreadList] {
	return send[AgentThreadList](ctx, c, call{method: http.MethodGet, path: "/agent/threads", query: p.query(), auth: authKey})
}

// AgentThread reads a thread with its messages, GET /v1/agent/threads/{threadId}.
func (c *Client) AgentThread(ctx context.Context, id string) Response[AgentThreadEnvelope] {
	if id == "" {
		return invalidArg[AgentThreadEnvelope]("threadId", "the thread id is empty")
	}
	return send[AgentThreadEnvelope](ctx, c, call{method: http.MethodGet, path: "/agent/threads/" + url.PathEscape(id), auth: authKey})
}
