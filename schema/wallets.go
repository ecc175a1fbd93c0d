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

// WalletQuote is a priced, judged send that can be executed until it expires (migration 0023).
type WalletQuote struct {
	bun.BaseModel `bun:"table:wallet_quotes"`

	ID           string          `bun:"id,pk"`
	WalletID     string          `bun:"wallet_id"`
	AccountID    string          `bun:"account_id"`
	ToAddress    string          `bun:"to_address"`
	Asset        string          `bun:"asset"`
	Token        *string         `bun:"token"`
	Atomic       string          `bun:"atomic,type:numeric"`
	Decimals     int             `bun:"decimals"`
	USDCents     *int64          `bun:"usd_cents"`
	ContractCall bool            `bun:"contract_call"`
	Data         []byte          `bun:"data"`
	Verdict      json.RawMessage `bun:"verdict,type:jsonb"`
	ExpiresAt    time.Time       `bun:"expires_at"`
	CreatedAt    time.Time       `bun:"created_at,nullzero,default:now()"`
}

// Wallet transaction statuses.
const (
	WalletTxPendingApproval = "pending_approval"
	WalletTxQueued          = "queued"
	WalletTxBroadcast       = "broadcast"
	WalletTxConfirmed       = "confirmed"
	WalletTxFailed          = "failed"
	WalletTxRejected        = "rejected"
)

// WalletTransaction is an outbound transaction of a wallet, run by the workflow wallettx/<id>
// (migration 0024).
type WalletTransaction struct {
	bun.BaseModel `bun:"table:wallet_transactions"`

	ID           string          `bun:"id,pk"`
	WalletID     string          `bun:"wallet_id"`
	AccountID    string          `bun:"account_id"`
	ProjectID    *string         `bun:"project_id"`
	KeyID        *string         `bun:"key_id"`
	QuoteID      *string         `bun:"quote_id"`
	Chain        string          `bun:"chain"`
	ToAddress    string          `bun:"to_address"`
	Asset        string          `bun:"asset"`
	Token        *string         `bun:"token"`
	Atomic       string          `bun:"atomic,type:numeric"`
	Decimals     int             `bun:"decimals"`
	USDCents     *int64          `bun:"usd_cents"`
	TxTo         string          `bun:"tx_to"`
	Value        string          `bun:"value,type:numeric"`
	Data         []byte          `bun:"data"`
	Status       string          `bun:"status"`
	Verdict      json.RawMessage `bun:"verdict,type:jsonb"`
	Nonce        *int64          `bun:"nonce"`
	RawTx        []byte          `bun:"raw_tx"`
	TxHash       *string         `bun:"tx_hash"`
	ErrorCode    *string         `bun:"error_code"`
	ErrorMessage *string         `bun:"error_message"`
	CreatedAt    time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt    time.Time       `bun:"updated_at,nullzero,default:now()"`
	ConfirmedAt  *time.Time      `bun:"confirmed_at"`
	// ApprovalID is the approval a send in pending_approval waits for (migration 0025).
	ApprovalID *string `bun:"approval_id"`
	// Screening is the screening step's verdict (migration 0025; nil on sends recorded before it).
	Screening json.RawMessage `bun:"screening,type:jsonb"`
}
