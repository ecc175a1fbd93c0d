package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// Webhook is an endpoint that receives signed event deliveries (see migration 0011 and internal/webhook).
// The secrets are sealed with secretbox (aad = ID) and never leave internal/webhook in the clear except in
// the answers of creation and rotation.
type Webhook struct {
	bun.BaseModel `bun:"table:webhooks"`

	ID                      string     `bun:"id,pk"`
	AccountID               string     `bun:"account_id"`
	ProjectID               *string    `bun:"project_id"`
	URL                     string     `bun:"url"`
	Events                  []string   `bun:"events,array"`
	Description             string     `bun:"description"`
	Enabled                 bool       `bun:"enabled"`
	DisabledReason          *string    `bun:"disabled_reason"`
	SecretSealed            []byte     `bun:"secret_sealed"`
	PreviousSecretSealed    []byte     `bun:"previous_secret_sealed"`
	PreviousSecretExpiresAt *time.Time `bun:"previous_secret_expires_at"`
	// FailingSince is since when the endpoint's attempts have failed without a success (migration 0012).
	FailingSince *time.Time `bun:"failing_since"`
	CreatedAt    time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt    time.Time  `bun:"updated_at,nullzero,default:now()"`
}

// String keeps the sealed secrets out of prints.
func (w *Webhook) String() string { return "webhook " + w.ID }

// WebhookDelivery is one event for one webhook endpoint, or a replay of an earlier delivery (see
// migration 0012 and internal/delivery).
type WebhookDelivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`

	ID              string  `bun:"id,pk"`
	AccountID       string  `bun:"account_id"`
	ProjectID       *string `bun:"project_id"`
	WebhookID       string  `bun:"webhook_id"`
	EventID         string  `bun:"event_id"`
	EventType       string  `bun:"event_type"`
	Status          string  `bun:"status"`
	ReplayOf        *string `bun:"replay_of"`
	WorkflowStarted bool    `bun:"workflow_started"`
	// NextAttemptAt is when the endpoint's delivery loop makes the next attempt (migration 0042); nil
	// for a delivery of a per-delivery workflow started before the loop existed.
	NextAttemptAt *time.Time `bun:"next_attempt_at"`
	// AttemptCount is how many attempts the loop recorded.
	AttemptCount int `bun:"attempt_count"`
	// LeaseOwner and LeaseUntil mark a delivery an activity of the loop is sending.
	LeaseOwner  *string    `bun:"lease_owner"`
	LeaseUntil  *time.Time `bun:"lease_until"`
	CreatedAt   time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt   time.Time  `bun:"updated_at,nullzero,default:now()"`
	CompletedAt *time.Time `bun:"completed_at"`
}

// WebhookAttempt is one HTTP call of a delivery.
type WebhookAttempt struct {
	bun.BaseModel `bun:"table:webhook_attempts"`

	DeliveryID string    `bun:"delivery_id,pk"`
	Number     int       `bun:"number,pk"`
	StartedAt  time.Time `bun:"started_at"`
	HTTPStatus *int      `bun:"http_status"`
	LatencyMs  int64     `bun:"latency_ms"`
	Error      *string   `bun:"error"`
}
