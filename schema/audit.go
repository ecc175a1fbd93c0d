package schema

import (
	"time"

	"github.com/uptrace/bun"
)

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
	// SessionAddress is the signed-in address of a request made through a web session (SIWE).
	SessionAddress *string `bun:"session_address"`
	// PartnerID is the partner key (X-Partner-Key) of a request made with one.
	PartnerID *string `bun:"partner_id"`
}
