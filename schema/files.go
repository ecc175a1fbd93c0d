package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// File statuses: a deleted file has left listings and reads and waits for its purge.
const (
	FileActive  = "active"
	FileDeleted = "deleted"
)

// Account tiers, which select the storage limits (see internal/file).
const (
	TierStandard = "standard"
	TierClub     = "club"
)

// File is an account's stored file: metadata here, the bytes in the blob store under BlobKey (see
// migration 0018 and internal/file).
type File struct {
	bun.BaseModel `bun:"table:files"`

	ID        string     `bun:"id,pk"`
	AccountID string     `bun:"account_id"`
	ProjectID *string    `bun:"project_id"`
	KeyID     *string    `bun:"key_id"`
	Name      string     `bun:"name"`
	MediaType string     `bun:"media_type"`
	Bytes     int64      `bun:"bytes"`
	SHA256    string     `bun:"sha256"`
	Purpose   string     `bun:"purpose"`
	BlobKey   string     `bun:"blob_key"`
	Status    string     `bun:"status,nullzero,default:'active'"`
	DeletedAt *time.Time `bun:"deleted_at"`
	PurgeAt   *time.Time `bun:"purge_at"`
	CreatedAt time.Time  `bun:"created_at,nullzero,default:now()"`
}

// StorageUsage is an account's storage accounting: bytes of live files and bytes reserved by uploads in
// flight. Every change locks the row.
type StorageUsage struct {
	bun.BaseModel `bun:"table:storage_usage"`

	AccountID     string    `bun:"account_id,pk"`
	UsedBytes     int64     `bun:"used_bytes"`
	ReservedBytes int64     `bun:"reserved_bytes"`
	UpdatedAt     time.Time `bun:"updated_at,nullzero,default:now()"`
}

// StorageReservation is quota held for one upload while it streams.
type StorageReservation struct {
	bun.BaseModel `bun:"table:storage_reservations"`

	ID        string    `bun:"id,pk"`
	AccountID string    `bun:"account_id"`
	Bytes     int64     `bun:"bytes"`
	ExpiresAt time.Time `bun:"expires_at"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()"`
}

// DownloadVolume is the bytes an account downloaded in one UTC month (Month is the month's first day).
type DownloadVolume struct {
	bun.BaseModel `bun:"table:download_volume"`

	AccountID string    `bun:"account_id,pk"`
	Month     time.Time `bun:"month,pk,type:date"`
	Bytes     int64     `bun:"bytes"`
}
