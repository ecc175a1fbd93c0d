package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Statuses of a trading order.
const (
	OrderPendingApproval = "pending_approval"
	OrderOpen            = "open"
	OrderSubmitted       = "submitted"
	OrderFilled          = "filled"
	OrderFailed          = "failed"
	OrderCancelled       = "cancelled"
	OrderExpired         = "expired"
)

// Types of a trading order.
const (
	OrderMarket = "market"
	// OrderLimit waits until the pool's price is at or better than its trigger price.
	OrderLimit = "limit"
	// OrderStop fires a market order once the pool's price crosses its trigger price.
	OrderStop = "stop"
	// OrderTWAP is a parent order placing its amount in slices at even intervals (its child orders).
	OrderTWAP = "twap"
	// OrderDCA is a parent order placing one slice at each fire of its schedule (its child orders).
	OrderDCA = "dca"
)

// TradingQuote is a quoted swap of managed trading (migration 0034).
type TradingQuote struct {
	bun.BaseModel `bun:"table:trading_quotes"`

	ID          string          `bun:"id,pk"`
	AccountID   string          `bun:"account_id"`
	ProjectID   *string         `bun:"project_id"`
	WalletID    string          `bun:"wallet_id"`
	Side        string          `bun:"side"`
	Base        string          `bun:"base"`
	Quote       string          `bun:"quote"`
	AmountKind  string          `bun:"amount_kind"`
	Path        []string        `bun:"path,array"`
	AmountIn    string          `bun:"amount_in,type:numeric"`
	AmountOut   string          `bun:"amount_out,type:numeric"`
	Bound       string          `bun:"bound,type:numeric"`
	SlippageBps int             `bun:"slippage_bps"`
	USDCents    *int64          `bun:"usd_cents"`
	BlockNumber int64           `bun:"block_number"`
	Answer      json.RawMessage `bun:"answer,type:jsonb"`
	ExpiresAt   time.Time       `bun:"expires_at"`
	CreatedAt   time.Time       `bun:"created_at,nullzero,default:now()"`
}

// TradingOrder is a spot order of managed trading run by workflow order/<id> (migration 0035).
type TradingOrder struct {
	bun.BaseModel `bun:"table:trading_orders"`

	ID              string     `bun:"id,pk"`
	AccountID       string     `bun:"account_id"`
	ProjectID       *string    `bun:"project_id"`
	KeyID           *string    `bun:"key_id"`
	WalletID        string     `bun:"wallet_id"`
	Type            string     `bun:"type"`
	ParentOrderID   *string    `bun:"parent_order_id"`
	QuoteID         *string    `bun:"quote_id"`
	Status          string     `bun:"status"`
	Side            string     `bun:"side"`
	Base            string     `bun:"base"`
	Quote           string     `bun:"quote"`
	AmountKind      string     `bun:"amount_kind"`
	Path            []string   `bun:"path,array"`
	AmountIn        string     `bun:"amount_in,type:numeric"`
	AmountOut       string     `bun:"amount_out,type:numeric"`
	Bound           string     `bun:"bound,type:numeric"`
	SlippageBps     int        `bun:"slippage_bps"`
	USDCents        *int64     `bun:"usd_cents"`
	FeeMillicredits int64      `bun:"fee_millicredits"`
	ApprovalID      *string    `bun:"approval_id"`
	ApproveTxID     *string    `bun:"approve_tx_id"`
	SwapTxID        string     `bun:"swap_tx_id"`
	SwapTxHash      *string    `bun:"swap_tx_hash"`
	FilledIn        *string    `bun:"filled_in,type:numeric"`
	FilledOut       *string    `bun:"filled_out,type:numeric"`
	GasWei          *string    `bun:"gas_wei,type:numeric"`
	FailureReason   *string    `bun:"failure_reason"`
	ErrorMessage    *string    `bun:"error_message"`
	CreatedAt       time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt       time.Time  `bun:"updated_at,nullzero,default:now()"`
	FilledAt        *time.Time `bun:"filled_at"`
	// TriggerPrice is a limit or stop order's price, quote token per base token (migration 0036).
	TriggerPrice *string `bun:"trigger_price,type:numeric"`
	// ExpiresAt is when a limit or stop order that has not fired expires (migration 0036).
	ExpiresAt *time.Time `bun:"expires_at"`
	// Slices is a twap or dca order's number of child orders (migration 0039).
	Slices *int `bun:"slices"`
	// SliceIndex is a child order's place among its parent's children, from 0 (migration 0039).
	SliceIndex *int `bun:"slice_index"`
	// DurationMS is a twap order's duration in milliseconds (migration 0039).
	DurationMS *int64 `bun:"duration_ms"`
	// Every is a dca order's interval: a Go duration or a 5-field cron expression (migration 0039).
	Every *string `bun:"every"`
	// Paused says a dca order's schedule is paused (migration 0039).
	Paused bool `bun:"paused,notnull"`
}

// TradingFill is one pair Swap event of an order's swap (migration 0035).
type TradingFill struct {
	bun.BaseModel `bun:"table:trading_fills"`

	OrderID     string    `bun:"order_id"`
	TxHash      string    `bun:"tx_hash,pk"`
	LogIndex    int       `bun:"log_index,pk"`
	Pair        string    `bun:"pair"`
	TokenIn     string    `bun:"token_in"`
	TokenOut    string    `bun:"token_out"`
	AmountIn    string    `bun:"amount_in,type:numeric"`
	AmountOut   string    `bun:"amount_out,type:numeric"`
	BlockNumber int64     `bun:"block_number"`
	CreatedAt   time.Time `bun:"created_at,nullzero,default:now()"`
}
