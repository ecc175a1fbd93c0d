package schema

import (
	"time"

	"github.com/uptrace/bun"
)

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
