package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Event is one entry of the event outbox (see migration 0008).
type Event struct {
	bun.BaseModel `bun:"table:events"`

	Seq          int64           `bun:"seq,scanonly"`
	ID           string          `bun:"id,pk"`
	AccountID    string          `bun:"account_id"`
	ProjectID    *string         `bun:"project_id"`
	Type         string          `bun:"type"`
	Data         json.RawMessage `bun:"data,type:jsonb"`
	CreatedAt    time.Time       `bun:"created_at,nullzero,default:now()"`
	DispatchedAt *time.Time      `bun:"dispatched_at"`
}
