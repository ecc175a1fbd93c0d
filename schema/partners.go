package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// Partner is an organisation-level key (seed 002's X-Partner-Key) that acts for AccountID on the routes
// that accept one (token launch deploys). Only the SHA-256 of its secret is kept.
type Partner struct {
	bun.BaseModel `bun:"table:partners"`

	ID         string     `bun:"id,pk"`
	AccountID  string     `bun:"account_id"`
	Name       string     `bun:"name"`
	Prefix     string     `bun:"prefix"`
	SecretHash []byte     `bun:"secret_hash"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()"`
	RevokedAt  *time.Time `bun:"revoked_at"`
}
