package schema

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Statuses of a wallet signature.
const (
	WalletSigPendingApproval = "pending_approval"
	WalletSigQueued          = "queued"
	WalletSigSigned          = "signed"
	WalletSigFailed          = "failed"
	WalletSigRejected        = "rejected"
)

// WalletSignature is a message or transaction signature of a managed wallet (sig_…), signed once by the
// workflow walletsig/<id> (after its approval, when it is recorded pending_approval).
type WalletSignature struct {
	bun.BaseModel `bun:"table:wallet_signatures"`

	ID           string          `bun:"id,pk"`
	WalletID     string          `bun:"wallet_id"`
	AccountID    string          `bun:"account_id"`
	ProjectID    *string         `bun:"project_id"`
	KeyID        *string         `bun:"key_id"`
	Type         string          `bun:"type"`
	Request      json.RawMessage `bun:"request,type:jsonb"`
	Summary      json.RawMessage `bun:"summary,type:jsonb"`
	Digest       string          `bun:"digest"`
	USDCents     *int64          `bun:"usd_cents"`
	Verdict      json.RawMessage `bun:"verdict,type:jsonb"`
	Status       string          `bun:"status"`
	Signature    *string         `bun:"signature"`
	SignedTx     []byte          `bun:"signed_tx"`
	ErrorCode    *string         `bun:"error_code"`
	ErrorMessage *string         `bun:"error_message"`
	CreatedAt    time.Time       `bun:"created_at,nullzero,default:now()"`
	UpdatedAt    time.Time       `bun:"updated_at,nullzero,default:now()"`
	SignedAt     *time.Time      `bun:"signed_at"`
	// ApprovalID is the approval (kind wallet_signature) a pending_approval signature waits for
	// (migration 0028).
	ApprovalID *string `bun:"approval_id"`
}
