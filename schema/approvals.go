package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Approval is a decision awaited before an action runs (see migration 0008).
type Approval struct {
	bun.BaseModel `bun:"table:approvals"`

	ID             string          `bun:"id,pk"`
	AccountID      string          `bun:"account_id"`
	ProjectID      *string         `bun:"project_id"`
	KeyID          string          `bun:"key_id"`
	Kind           string          `bun:"kind"`
	ServiceID      string          `bun:"service_id"`
	OperationID    string          `bun:"operation_id"`
	Input          json.RawMessage `bun:"input,type:jsonb"`
	Reason         *string         `bun:"reason"`
	RunID          *string         `bun:"run_id"`
	Status         string          `bun:"status"`
	DecidedByKeyID *string         `bun:"decided_by_key_id"`
	Comment        *string         `bun:"comment"`
	WorkflowID     string          `bun:"workflow_id"`
	ExpiresAt      time.Time       `bun:"expires_at"`
	DecidedAt      *time.Time      `bun:"decided_at"`
	CreatedAt      time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt      time.Time       `bun:"updated_at,nullzero,default:now()"`
	// TransactionID is the wallet transaction a wallet_transaction approval gates (migration 0025).
	TransactionID *string `bun:"transaction_id"`
	// SignatureID is the wallet signature a wallet_signature approval gates (migration 0028).
	SignatureID *string `bun:"signature_id"`
	// AgentJobID and AgentStepID are the agent job and confirmation step an agent_step approval gates
	// (migration 0045).
	AgentJobID  *string `bun:"agent_job_id"`
	AgentStepID *string `bun:"agent_step_id"`
}
