package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// Statuses of a fee claim.
const (
	FeeClaimClaiming = "claiming"
	FeeClaimClaimed  = "claimed"
	FeeClaimFailed   = "failed"
)

// FeeClaim is a managed wallet's claim of a launched token's fees, run by workflow feeclaim/<id>
// (migration 0032). Amount0 and Amount1 are the Release event's amounts (wei, decimal strings).
type FeeClaim struct {
	bun.BaseModel `bun:"table:fee_claims"`

	ID            string     `bun:"id,pk"`
	AccountID     string     `bun:"account_id"`
	ProjectID     *string    `bun:"project_id"`
	KeyID         *string    `bun:"key_id"`
	WalletID      string     `bun:"wallet_id"`
	WalletAddress string     `bun:"wallet_address"`
	Chain         string     `bun:"chain"`
	TokenAddress  string     `bun:"token_address"`
	PoolID        string     `bun:"pool_id"`
	Status        string     `bun:"status"`
	TransactionID string     `bun:"transaction_id"`
	TxHash        *string    `bun:"tx_hash"`
	BlockNumber   *int64     `bun:"block_number"`
	GasUsed       *int64     `bun:"gas_used"`
	Amount0       *string    `bun:"amount0"`
	Amount1       *string    `bun:"amount1"`
	ErrorCode     *string    `bun:"error_code"`
	ErrorMessage  *string    `bun:"error_message"`
	CreatedAt     time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt     time.Time  `bun:"updated_at,nullzero,default:now()"`
	ClaimedAt     *time.Time `bun:"claimed_at"`
	// ApprovalID is the approval the claim's wallet transaction waits (or waited) for, when its wallet's
	// policy or screening asked for one; read from the transaction, not stored with the claim.
	ApprovalID *string `bun:"-"`
}
