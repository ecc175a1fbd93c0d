package schema

import (
	"time"

	"github.com/uptrace/bun"
)

// Artifact is a file or output a run produced: metadata here, the bytes in the blob store under BlobKey
// (see migration 0009 and internal/artifact).
type Artifact struct {
	bun.BaseModel `bun:"table:artifacts"`

	ID          string    `bun:"id,pk"`
	AccountID   string    `bun:"account_id"`
	ProjectID   *string   `bun:"project_id"`
	RunID       string    `bun:"run_id"`
	ServiceID   string    `bun:"service_id"`
	Name        string    `bun:"name"`
	ContentType string    `bun:"content_type"`
	SizeBytes   int64     `bun:"size_bytes"`
	SHA256      string    `bun:"sha256"`
	BlobKey     string    `bun:"blob_key"`
	CreatedAt   time.Time `bun:"created_at,nullzero,default:now()"`
}
