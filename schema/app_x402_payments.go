package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Statuses of an app x402 call (AppX402Payment.Status).
const (
	// AppX402Calling is a call counted and in flight.
	AppX402Calling = "calling"
	// AppX402Free is a call the server answered without asking for a payment.
	AppX402Free = "free"
	// AppX402Refused is a call refused before anything was signed (price, limits, policy).
	AppX402Refused = "refused"
	// AppX402Paying is a payment signed and sent, its outcome not known yet.
	AppX402Paying = "paying"
	// AppX402Paid is a payment the server settled (tx_hash, receipt).
	AppX402Paid = "paid"
	// AppX402Unsettled is a payment sent whose answer carried no successful settlement but was not a
	// refusal either: it stays counted.
	AppX402Unsettled = "unsettled"
	// AppX402Failed is a payment the server refused (402 again): nothing moved, nothing counted.
	AppX402Failed = "failed"
)

// AppX402Payment is one x402.fetch call of an app for one visitor (migration 0048, internal/apppay).
// AmountAtomic is a decimal string (uint256 on chain).
type AppX402Payment struct {
	bun.BaseModel `bun:"table:app_x402_payments"`

	ID           string          `bun:"id,pk"`
	AccountID    string          `bun:"account_id"`
	ProjectID    *string         `bun:"project_id"`
	AppSlug      string          `bun:"app_slug"`
	Visitor      string          `bun:"visitor"`
	WalletID     string          `bun:"wallet_id"`
	Method       string          `bun:"method"`
	Host         string          `bun:"host"`
	URL          string          `bun:"url"`
	Status       string          `bun:"status"`
	HTTPStatus   *int            `bun:"http_status"`
	AmountAtomic *string         `bun:"amount_atomic,type:numeric"`
	AmountCents  *int64          `bun:"amount_cents"`
	Network      *string         `bun:"network"`
	Asset        *string         `bun:"asset"`
	PayTo        *string         `bun:"pay_to"`
	Payer        *string         `bun:"payer"`
	TxHash       *string         `bun:"tx_hash"`
	Receipt      json.RawMessage `bun:"receipt,type:jsonb"`
	ErrorMessage *string         `bun:"error_message"`
	CreatedAt    time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt    time.Time       `bun:"updated_at,nullzero,default:now()"`
}
