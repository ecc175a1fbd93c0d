package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Account owns keys, projects, runs and credits.
type Account struct {
	bun.BaseModel `bun:"table:accounts"`

	ID        string    `bun:"id,pk"`
	Name      string    `bun:"name"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()"`
}

// Project groups an account's resources; every lookup is scoped to one project or to none.
type Project struct {
	bun.BaseModel `bun:"table:projects"`

	ID          string     `bun:"id,pk"`
	AccountID   string     `bun:"account_id"`
	Name        string     `bun:"name"`
	Status      string     `bun:"status"`
	Description string     `bun:"description"`
	CreatedAt   time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt   time.Time  `bun:"updated_at,nullzero,default:now()"`
	ArchivedAt  *time.Time `bun:"archived_at"`
}

// APIKey is a stored key. Only the SHA-256 of its secret is kept.
type APIKey struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID         string     `bun:"id,pk"`
	AccountID  string     `bun:"account_id"`
	ProjectID  *string    `bun:"project_id"`
	ParentID   *string    `bun:"parent_id"`
	Ancestors  []string   `bun:"ancestors,array"`
	Name       string     `bun:"name"`
	Prefix     string     `bun:"prefix"`
	SecretHash []byte     `bun:"secret_hash"`
	Scopes     []string   `bun:"scopes,array"`
	Services   []string   `bun:"services,array"`
	Limits     []Limit    `bun:"limits,type:jsonb"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()"`
	RevokedAt  *time.Time `bun:"revoked_at"`
}

// Limit is one stored per-key limit (see client.Limit).
type Limit struct {
	Operation         string `json:"operation"`
	RequestsPerMinute int64  `json:"requestsPerMinute,omitempty"`
	CreditsPerDay     int64  `json:"creditsPerDay,omitempty"`
}

// CreditTokenUse records that a first-key credit token was spent.
type CreditTokenUse struct {
	bun.BaseModel `bun:"table:credit_token_uses"`

	JTI       string    `bun:"jti,pk"`
	AccountID string    `bun:"account_id"`
	KeyID     string    `bun:"key_id"`
	UsedAt    time.Time `bun:"used_at,nullzero,default:now()"`
}

// IdempotencyKey is the stored outcome of one idempotent request, per account and key.
type IdempotencyKey struct {
	bun.BaseModel `bun:"table:idempotency_keys"`

	AccountID       string              `bun:"account_id,pk"`
	Key             string              `bun:"key,pk"`
	Seed            string              `bun:"seed"`
	Fingerprint     []byte              `bun:"fingerprint"`
	Method          string              `bun:"method"`
	Path            string              `bun:"path"`
	LockedUntil     *time.Time          `bun:"locked_until"`
	ResponseStatus  *int                `bun:"response_status"`
	ResponseHeaders map[string][]string `bun:"response_headers,type:jsonb"`
	ResponseBody    []byte              `bun:"response_body"`
	ResponseSealed  bool                `bun:"response_sealed"`
	CreatedAt       time.Time           `bun:"created_at,nullzero,default:now()"`
	ExpiresAt       time.Time           `bun:"expires_at"`
}

// Run is the read model of one durable run; the Temporal workflow is the source of truth.
type Run struct {
	bun.BaseModel `bun:"table:runs"`

	ID                  string          `bun:"id,pk"`
	AccountID           string          `bun:"account_id"`
	ProjectID           *string         `bun:"project_id"`
	KeyID               string          `bun:"key_id"`
	ServiceID           string          `bun:"service_id"`
	OperationID         string          `bun:"operation_id"`
	Status              string          `bun:"status"`
	Input               json.RawMessage `bun:"input,type:jsonb"`
	Output              json.RawMessage `bun:"output,type:jsonb,nullzero"`
	ErrorCode           *string         `bun:"error_code"`
	ErrorMessage        *string         `bun:"error_message"`
	ApprovalID          *string         `bun:"approval_id"`
	ChargedMillicredits int64           `bun:"charged_millicredits"`
	WorkflowID          string          `bun:"workflow_id"`
	CreatedAt           time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt           time.Time       `bun:"updated_at,nullzero,default:now()"`
	StartedAt           *time.Time      `bun:"started_at"`
	CompletedAt         *time.Time      `bun:"completed_at"`
	// StartCheckedAt is when the API's sweep made sure the run's workflow was started (see
	// run.Service.SweepStarts); nil until then.
	StartCheckedAt *time.Time `bun:"start_checked_at"`
	// StartRetryAt is when the sweep may next try a run it claimed without settling it (see
	// run.SweepRetry); nil until its first attempt.
	StartRetryAt *time.Time `bun:"start_retry_at"`
}

// AuditEvent records one authenticated request: who, what, outcome. Never a secret or a body.
type AuditEvent struct {
	bun.BaseModel `bun:"table:audit_events"`

	ID        string    `bun:"id,pk"`
	AccountID string    `bun:"account_id"`
	ProjectID *string   `bun:"project_id"`
	KeyID     *string   `bun:"key_id"`
	Operation string    `bun:"operation"`
	Method    string    `bun:"method"`
	Path      string    `bun:"path"`
	Status    int       `bun:"status"`
	RequestID string    `bun:"request_id"`
	ClientIP  string    `bun:"client_ip"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()"`
	// ChargedMillicredits is what the request charged (0 for most).
	ChargedMillicredits int64 `bun:"charged_millicredits"`
	// Sanitized: a text field held bytes PostgreSQL cannot store (NUL, invalid UTF-8), stored as %XX.
	Sanitized bool `bun:"sanitized"`
}

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
}

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

// Artifact is a file or output a run produced: metadata here, the bytes in the blob store under BlobKey
// (see migration 0009 and internal/artifact).
type Artifact struct {
	bun.BaseModel `bun:"table:artifacts"`

	ID          string    `bun:"id,pk"`
	AccountID   string    `bun:"account_id"`
	ProjectID   *string   `bun:"project_id"`
	RunID       string    `bun:"run_id"`
	ServiceID   string    `bun:"service_id"`
	Name        string    `bun:"name"`
	ContentType string    `bun:"content_type"`
	SizeBytes   int64     `bun:"size_bytes"`
	SHA256      string    `bun:"sha256"`
	BlobKey     string    `bun:"blob_key"`
	CreatedAt   time.Time `bun:"created_at,nullzero,default:now()"`
}

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

	ID              string     `bun:"id,pk"`
	AccountID       string     `bun:"account_id"`
	ProjectID       *string    `bun:"project_id"`
	WebhookID       string     `bun:"webhook_id"`
	EventID         string     `bun:"event_id"`
	EventType       string     `bun:"event_type"`
	Status          string     `bun:"status"`
	ReplayOf        *string    `bun:"replay_of"`
	WorkflowStarted bool       `bun:"workflow_started"`
	CreatedAt       time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt       time.Time  `bun:"updated_at,nullzero,default:now()"`
	CompletedAt     *time.Time `bun:"completed_at"`
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

// TopUp is an x402 credit purchase (migration 0013, internal/topup). Amounts on chain (value, the
// authorization window, chain id) are decimal strings: they are uint256 on chain.
type TopUp struct {
	bun.BaseModel `bun:"table:topups"`

	ID             string     `bun:"id,pk"`
	AccountID      string     `bun:"account_id"`
	ProjectID      *string    `bun:"project_id"`
	ReceiptID      string     `bun:"receipt_id"`
	AmountCents    int64      `bun:"amount_cents"`
	Millicredits   int64      `bun:"millicredits"`
	Network        string     `bun:"network"`
	ChainID        string     `bun:"chain_id,type:numeric"`
	Asset          string     `bun:"asset"`
	PayTo          string     `bun:"pay_to"`
	Payer          string     `bun:"payer"`
	Nonce          string     `bun:"nonce"`
	Value          string     `bun:"value,type:numeric"`
	ValidAfter     string     `bun:"valid_after,type:numeric"`
	ValidBefore    string     `bun:"valid_before,type:numeric"`
	Signature      string     `bun:"signature"`
	X402Version    int        `bun:"x402_version"`
	IdempotencyKey string     `bun:"idempotency_key"`
	Status         string     `bun:"status"`
	TxHash         *string    `bun:"tx_hash"`
	FailureReason  *string    `bun:"failure_reason"`
	FailureMessage *string    `bun:"failure_message"`
	CreatedAt      time.Time  `bun:"created_at,nullzero,default:now()"`
	SettledAt      *time.Time `bun:"settled_at"`
	CreditedAt     *time.Time `bun:"credited_at"`
	UpdatedAt      time.Time  `bun:"updated_at,nullzero,default:now()"`
}
