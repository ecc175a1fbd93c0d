package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Wallet is a managed wallet (migration 0022, internal/wallet): its address, its sealed key and its
// policy (seed 002's controls, USD amounts in cents).
type Wallet struct {
	bun.BaseModel `bun:"table:wallets"`

	ID            string          `bun:"id,pk"`
	AccountID     string          `bun:"account_id"`
	ProjectID     *string         `bun:"project_id"`
	Name          string          `bun:"name"`
	Chain         string          `bun:"chain"`
	Address       string          `bun:"address"`
	SealedKey     []byte          `bun:"sealed_key"`
	SealedDataKey []byte          `bun:"sealed_data_key"`
	Policy        json.RawMessage `bun:"policy,type:jsonb"`
	CreatedAt     time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt     time.Time       `bun:"updated_at,nullzero,default:now()"`
}
