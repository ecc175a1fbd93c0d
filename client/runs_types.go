package client

import "time"

// Run statuses.
const (
	RunQueued           = "queued"
	RunRunning          = "running"
	RunAwaitingApproval = "awaiting_approval"
	RunSucceeded        = "succeeded"
	RunFailed           = "failed"
	RunCancelled        = "cancelled"
)

// RunError says why a run failed.
type RunError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Run is a durable invocation of a service operation, executed as a Temporal workflow run/<id>.
type Run struct {
	ID          string         `json:"id" doc:"Run id (run_...)."`
	ServiceID   string         `json:"serviceId"`
	OperationID string         `json:"operationId"`
	Status      string         `json:"status" enum:"queued,running,awaiting_approval,succeeded,failed,cancelled"`
	Input       map[string]any `json:"input"`
	Output      any            `json:"output"`
	Error       *RunError      `json:"error"`
	ApprovalID  *string        `json:"approvalId"`
	// AutomationID names the automation whose fire started the run, if one did.
	AutomationID   *string    `json:"automationId,omitempty" doc:"The automation (auto_...) whose fire started the run."`
	ChargedCredits float64    `json:"chargedCredits"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	CompletedAt    *time.Time `json:"completedAt"`
}

// Finished reports whether the run reached a final status.
func (r Run) Finished() bool {
	return r.Status == RunSucceeded || r.Status == RunFailed || r.Status == RunCancelled
}

// CreateRunRequest is the body of POST /v1/runs.
type CreateRunRequest struct {
	ServiceID       string         `json:"serviceId" minLength:"1" doc:"The service that executes the run."`
	OperationID     string         `json:"operationId" minLength:"1" doc:"The operation of that service."`
	Input           map[string]any `json:"input,omitempty" doc:"Operation input; {} when omitted."`
	RequireApproval bool           `json:"requireApproval,omitempty" doc:"Wait for an approval before running."`
	// ApprovalExpiresInSeconds bounds the wait for the approval (default 86400, at most 604800).
	ApprovalExpiresInSeconds int `json:"approvalExpiresInSeconds,omitempty" minimum:"0" doc:"How long the run's approval waits (default 86400, at most 604800)."`
}

// RunEnvelope answers one run.
type RunEnvelope struct {
	OK  bool `json:"ok"`
	Run Run  `json:"run"`
}

// RunList answers GET /v1/runs.
type RunList struct {
	OK         bool    `json:"ok"`
	Runs       []Run   `json:"runs"`
	NextCursor *string `json:"nextCursor"`
}
