package schema

import (
	"time"

	"github.com/uptrace/bun"
)

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
