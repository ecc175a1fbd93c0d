package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Statuses of an agent job.
const (
	AgentQueued               = "queued"
	AgentRunning              = "running"
	AgentAwaitingConfirmation = "awaiting_confirmation"
	AgentSucceeded            = "succeeded"
	AgentFailed               = "failed"
	AgentCancelled            = "cancelled"
)

// Kinds and statuses of an agent job's steps.
const (
	StepModel        = "model"
	StepTool         = "tool"
	StepConfirmation = "confirmation"

	StepRunning   = "running"
	StepSucceeded = "succeeded"
	StepFailed    = "failed"
	StepPending   = "pending"
	StepApproved  = "approved"
	StepRejected  = "rejected"
)

// AgentThread is a conversation of agent jobs (migration 0045).
type AgentThread struct {
	bun.BaseModel `bun:"table:agent_threads"`

	ID        string    `bun:"id,pk"`
	AccountID string    `bun:"account_id"`
	ProjectID *string   `bun:"project_id"`
	Title     string    `bun:"title"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()"`
}

// AgentJob is one prompt's run, workflow agentjob/<id> (migration 0045).
type AgentJob struct {
	bun.BaseModel `bun:"table:agent_jobs"`

	ID               string     `bun:"id,pk"`
	AccountID        string     `bun:"account_id"`
	ProjectID        *string    `bun:"project_id"`
	KeyID            string     `bun:"key_id"`
	ThreadID         string     `bun:"thread_id"`
	Prompt           string     `bun:"prompt"`
	Status           string     `bun:"status"`
	Answer           *string    `bun:"answer"`
	ErrorMessage     *string    `bun:"error_message"`
	Untrusted        bool       `bun:"untrusted"`
	PromptTokens     int64      `bun:"prompt_tokens"`
	CompletionTokens int64      `bun:"completion_tokens"`
	Millicredits     int64      `bun:"millicredits"`
	CreatedAt        time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt        time.Time  `bun:"updated_at,nullzero,default:now()"`
	EndedAt          *time.Time `bun:"ended_at"`
}

// AgentStep is one model call, tool call or confirmation of an agent job (migration 0045).
type AgentStep struct {
	bun.BaseModel `bun:"table:agent_steps"`

	ID               string          `bun:"id,pk"`
	JobID            string          `bun:"job_id"`
	N                int             `bun:"n"`
	Kind             string          `bun:"kind"`
	ToolName         *string         `bun:"tool_name"`
	ToolCallID       *string         `bun:"tool_call_id"`
	Args             json.RawMessage `bun:"args,type:jsonb"`
	Reply            json.RawMessage `bun:"reply,type:jsonb"`
	Result           *string         `bun:"result"`
	Summary          *string         `bun:"summary"`
	Status           string          `bun:"status"`
	Untrusted        bool            `bun:"untrusted"`
	PromptTokens     int64           `bun:"prompt_tokens"`
	CompletionTokens int64           `bun:"completion_tokens"`
	Millicredits     int64           `bun:"millicredits"`
	CreatedAt        time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt        time.Time       `bun:"updated_at,nullzero,default:now()"`
}

// AgentMessage is one chat message of a thread, in order (migration 0045).
type AgentMessage struct {
	bun.BaseModel `bun:"table:agent_messages"`

	ThreadID  string          `bun:"thread_id,pk"`
	Seq       int             `bun:"seq,pk"`
	JobID     string          `bun:"job_id"`
	Message   json.RawMessage `bun:"message,type:jsonb"`
	CreatedAt time.Time       `bun:"created_at,nullzero,default:now()"`
}

// AgentDailyMessages counts an account's agent prompts in one UTC day (migration 0045).
type AgentDailyMessages struct {
	bun.BaseModel `bun:"table:agent_daily_messages"`

	AccountID string    `bun:"account_id,pk"`
	Day       time.Time `bun:"day,pk"`
	Count     int       `bun:"count"`
}
