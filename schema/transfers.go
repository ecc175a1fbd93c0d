package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// Database transfer kinds and statuses (migration 0020, internal/dbtransfer).
const (
	TransferExport = "export"
	TransferImport = "import"

	TransferAwaitingParts = "awaiting_parts"
	TransferRunning       = "running"
	TransferCompleted     = "completed"
	TransferFailed        = "failed"
	TransferCancelled     = "cancelled"
	TransferExpired       = "expired"
)

// DatabaseTransfer is a portable copy of an account's managed database on its way out (an export) or in
// (an import), run by the workflow dbtransfer/<id>.
type DatabaseTransfer struct {
	bun.BaseModel `bun:"table:database_transfers"`

	ID            string  `bun:"id,pk"`
	AccountID     string  `bun:"account_id"`
	Kind          string  `bun:"kind"`
	Status        string  `bun:"status"`
	AllowUnsigned bool    `bun:"allow_unsigned"`
	ArchiveKey    *string `bun:"archive_key"`
	ArchiveBytes  *int64  `bun:"archive_bytes"`
	ArchiveSHA256 *string `bun:"archive_sha256"`
	// ArchiveKeyID is the signing key of the archive (its base64 public key), nil when unsigned.
	ArchiveKeyID *string `bun:"archive_key_id"`
	TablesDone   int     `bun:"tables_done"`
	TablesTotal  int     `bun:"tables_total"`
	// DataBytes is the table data (CSV) exported or restored so far.
	DataBytes int64 `bun:"data_bytes"`
	// ProgressBytes is the archive written so far (an export) or the parts received (an import).
	ProgressBytes     int64      `bun:"progress_bytes"`
	ImportXID         *int64     `bun:"import_xid"`
	ErrorCode         *string    `bun:"error_code"`
	ErrorMessage      *string    `bun:"error_message"`
	CancelRequestedAt *time.Time `bun:"cancel_requested_at"`
	CreatedAt         time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt         time.Time  `bun:"updated_at,nullzero,default:now()"`
	CompletedAt       *time.Time `bun:"completed_at"`
	ExpiresAt         *time.Time `bun:"expires_at"`
}

// DatabaseTransferPart is one accepted part of an import: its bytes live in the blob store under BlobKey.
type DatabaseTransferPart struct {
	bun.BaseModel `bun:"table:database_transfer_parts"`

	TransferID string    `bun:"transfer_id,pk"`
	PartNumber int       `bun:"part_number,pk"`
	Bytes      int64     `bun:"bytes"`
	SHA256     string    `bun:"sha256"`
	BlobKey    string    `bun:"blob_key"`
	CreatedAt  time.Time `bun:"created_at,nullzero,default:now()"`
}
