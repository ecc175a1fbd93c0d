package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Statuses of a handoff.
const (
	HandoffSending      = "sending"
	HandoffAwaitingAck  = "awaiting_ack"
	HandoffAcknowledged = "acknowledged"
	HandoffExpired      = "expired"
	HandoffFailed       = "failed"
)

// Handoff is one file or task handoff to another machine through the vault, run by workflow
// handoff/<id> (migration 0038).
type Handoff struct {
	bun.BaseModel `bun:"table:handoffs"`

	ID           string          `bun:"id,pk"`
	AccountID    string          `bun:"account_id"`
	ProjectID    *string         `bun:"project_id"`
	KeyID        *string         `bun:"key_id"`
	Action       string          `bun:"action"`
	Status       string          `bun:"status"`
	Target       string          `bun:"target"`
	MachineID    string          `bun:"machine_id"`
	Host         *string         `bun:"host"`
	Runtime      *string         `bun:"runtime"`
	AgentID      *string         `bun:"agent_id"`
	WorkerClass  *string         `bun:"worker_class"`
	Files        []string        `bun:"files,array"`
	Task         *string         `bun:"task"`
	Note         *string         `bun:"note"`
	TransferID   *string         `bun:"transfer_id"`
	Acks         json.RawMessage `bun:"acks,type:jsonb"`
	ErrorMessage *string         `bun:"error_message"`
	AckDeadline  time.Time       `bun:"ack_deadline"`
	CreatedAt    time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt    time.Time       `bun:"updated_at,nullzero,default:now()"`
	EndedAt      *time.Time      `bun:"ended_at"`
}
