package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// Account owns keys, projects, runs and credits.
type Account struct {
	bun.BaseModel `bun:"table:accounts"`

	ID   string `bun:"id,pk"`
	Name string `bun:"name"`
	// Tier selects the account's storage limits (TierStandard or TierClub; see internal/file).
	Tier      string    `bun:"tier,nullzero,default:'standard'"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()"`
}

// CreditTokenUse records that a first-key credit token was spent.
type CreditTokenUse struct {
	bun.BaseModel `bun:"table:credit_token_uses"`

	JTI       string    `bun:"jti,pk"`
	AccountID string    `bun:"account_id"`
	KeyID     string    `bun:"key_id"`
	UsedAt    time.Time `bun:"used_at,nullzero,default:now()"`
}
