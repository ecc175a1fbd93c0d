package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Automation statuses (migration 0021, internal/automation).
const (
	AutomationActive    = "active"
	AutomationPaused    = "paused"
	AutomationCancelled = "cancelled"
	AutomationCompleted = "completed"
)

// Automation is a cron-driven series of runs on the Temporal Schedule automation/<id>.
type Automation struct {
	bun.BaseModel `bun:"table:automations"`

	ID          string          `bun:"id,pk"`
	AccountID   string          `bun:"account_id"`
	ProjectID   *string         `bun:"project_id"`
	KeyID       string          `bun:"key_id"`
	Name        string          `bun:"name"`
	Cron        string          `bun:"cron"`
	Timezone    string          `bun:"timezone"`
	ServiceID   string          `bun:"service_id"`
	OperationID string          `bun:"operation_id"`
	Input       json.RawMessage `bun:"input,type:jsonb"`
	Overlap     string          `bun:"overlap"`
	StartAt     *time.Time      `bun:"start_at"`
	EndAt       *time.Time      `bun:"end_at"`
	Status      string          `bun:"status"`
	Note        string          `bun:"note"`
	// Executions counts the runs its fires started, for the tier's lifetime limit.
	Executions int64 `bun:"executions"`
	// Skipped counts the fires a limit refused.
	Skipped int64 `bun:"skipped"`
	// Day is the UTC day DayRuns counts the runs of.
	Day        *time.Time `bun:"day,type:date"`
	DayRuns    int        `bun:"day_runs"`
	LastFireAt *time.Time `bun:"last_fire_at"`
	DeletedAt  *time.Time `bun:"deleted_at"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt  time.Time  `bun:"updated_at,nullzero,default:now()"`
}
