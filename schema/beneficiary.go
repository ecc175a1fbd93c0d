package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// Statuses of a beneficiary transfer.
const (
	BeneficiaryTransferring = "transferring"
	BeneficiaryTransferred  = "transferred"
	BeneficiaryFailed       = "failed"
)

// BeneficiaryTransfer is a managed wallet's transfer of its beneficiary share of a launched token's pool
// to another address, run by workflow beneficiary/<id> (migration 0033). Shares is what moves (WAD);
// Released0 and Released1 are what the old beneficiary was paid when the contract settled it (wei).
type BeneficiaryTransfer struct {
	bun.BaseModel `bun:"table:beneficiary_transfers"`

	ID             string     `bun:"id,pk"`
	AccountID      string     `bun:"account_id"`
	ProjectID      *string    `bun:"project_id"`
	SessionAddress *string    `bun:"session_address"`
	WalletID       string     `bun:"wallet_id"`
	WalletAddress  string     `bun:"wallet_address"`
	NewBeneficiary string     `bun:"new_beneficiary"`
	Chain          string     `bun:"chain"`
	TokenAddress   string     `bun:"token_address"`
	PoolID         string     `bun:"pool_id"`
	Shares         string     `bun:"shares"`
	Status         string     `bun:"status"`
	TransactionID  string     `bun:"transaction_id"`
	TxHash         *string    `bun:"tx_hash"`
	BlockNumber    *int64     `bun:"block_number"`
	GasUsed        *int64     `bun:"gas_used"`
	Released0      *string    `bun:"released0"`
	Released1      *string    `bun:"released1"`
	ErrorCode      *string    `bun:"error_code"`
	ErrorMessage   *string    `bun:"error_message"`
	CreatedAt      time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt      time.Time  `bun:"updated_at,nullzero,default:now()"`
	TransferredAt  *time.Time `bun:"transferred_at"`
	// ApprovalID is the approval the transfer's wallet transaction waits (or waited) for, when its
	// wallet's policy or screening asked for one; read from the transaction, not stored with the transfer.
	ApprovalID *string `bun:"-"`
}
