package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Run is the read model of one durable run; the Temporal workflow is the source of truth.
type Run struct {
	bun.BaseModel `bun:"table:runs"`

	ID           string          `bun:"id,pk"`
	AccountID    string          `bun:"account_id"`
	ProjectID    *string         `bun:"project_id"`
	KeyID        string          `bun:"key_id"`
	ServiceID    string          `bun:"service_id"`
	OperationID  string          `bun:"operation_id"`
	Status       string          `bun:"status"`
	Input        json.RawMessage `bun:"input,type:jsonb"`
	Output       json.RawMessage `bun:"output,type:jsonb,nullzero"`
	ErrorCode    *string         `bun:"error_code"`
	ErrorMessage *string         `bun:"error_message"`
	ApprovalID   *string         `bun:"approval_id"`
	// AutomationID is the automation whose fire started the run; ScheduledAt that fire's time.
	AutomationID        *string    `bun:"automation_id"`
	ScheduledAt         *time.Time `bun:"scheduled_at"`
	ChargedMillicredits int64      `bun:"charged_millicredits"`
	WorkflowID          string     `bun:"workflow_id"`
	CreatedAt           time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt           time.Time  `bun:"updated_at,nullzero,default:now()"`
	StartedAt           *time.Time `bun:"started_at"`
	CompletedAt         *time.Time `bun:"completed_at"`
	// StartCheckedAt is when the API's sweep made sure the run's workflow was started (see
	// run.Service.SweepStarts); nil until then.
	StartCheckedAt *time.Time `bun:"start_checked_at"`
	// StartRetryAt is when the sweep may next try a run it claimed without settling it (see
	// run.SweepRetry); nil until its first attempt.
	StartRetryAt *time.Time `bun:"start_retry_at"`
}
