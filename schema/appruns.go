package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Statuses of an app script run.
const (
	AppRunQueued    = "queued"
	AppRunRunning   = "running"
	AppRunSucceeded = "succeeded"
	AppRunFailed    = "failed"
)

// Triggers of an app script run: the owner's request, the app's frontend (a viewer), or a schedule entry.
const (
	AppRunByOwner    = "owner"
	AppRunByFrontend = "frontend"
	AppRunBySchedule = "schedule"
)

// AppScriptRun is one run of an app's script, workflow appscript/<id> (migration 0047).
type AppScriptRun struct {
	bun.BaseModel `bun:"table:app_script_runs"`

	ID        string          `bun:"id,pk"`
	AccountID string          `bun:"account_id"`
	ProjectID *string         `bun:"project_id"`
	AppID     string          `bun:"app_id"`
	AppSlug   string          `bun:"app_slug"`
	Script    string          `bun:"script"`
	Trigger   string          `bun:"trigger"`
	Viewer    string          `bun:"viewer"`
	KeyID     string          `bun:"key_id"`
	Status    string          `bun:"status"`
	Args      json.RawMessage `bun:"args,type:jsonb"`
	Result    json.RawMessage `bun:"result,type:jsonb"`
	Log       string          `bun:"log"`
	Error     *string         `bun:"error"`
	HostCalls int             `bun:"host_calls"`
	// Inline marks a run executed in the API process without a workflow (it made no platform call).
	Inline     bool       `bun:"inline"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()"`
	StartedAt  *time.Time `bun:"started_at"`
	FinishedAt *time.Time `bun:"finished_at"`
}

// AppScriptRunCall is one journalled platform call of an app script run (migration 0047).
type AppScriptRunCall struct {
	bun.BaseModel `bun:"table:app_script_run_calls"`

	RunID     string          `bun:"run_id,pk"`
	N         int             `bun:"n,pk"`
	Method    string          `bun:"method"`
	ArgsHash  string          `bun:"args_hash"`
	Result    json.RawMessage `bun:"result,type:jsonb"`
	Error     *string         `bun:"error"`
	CreatedAt time.Time       `bun:"created_at,nullzero,default:now()"`
}
