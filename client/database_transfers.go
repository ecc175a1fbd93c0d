package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Kinds of a database transfer.
const (
	// TransferKindExport copies the account's database into a signed ZIP archive to download.
	TransferKindExport = "export"
	// TransferKindImport restores an uploaded archive into the account's database.
	TransferKindImport = "import"
)

// Statuses of a database transfer.
const (
	// TransferStatusAwaitingParts: an import open for parts, until completed, cancelled or expired.
	TransferStatusAwaitingParts = "awaiting_parts"
	// TransferStatusRunning: an export writing its archive, or an import verifying and restoring.
	TransferStatusRunning = "running"
	// TransferStatusCompleted: an export's archive is ready to download, or an import is restored.
	TransferStatusCompleted = "completed"
	// TransferStatusFailed: the transfer stopped on an error (see DatabaseTransfer.Error); for an import,
	// the database is as it was.
	TransferStatusFailed = "failed"
	// TransferStatusCancelled: cancelled by DELETE; its parts and archive are deleted.
	TransferStatusCancelled = "cancelled"
	// TransferStatusExpired: an import abandoned for a day, or an export's archive older than a day; its
	// parts and archive are deleted.
	TransferStatusExpired = "expired"
)

// Limits of a database transfer's parts.
const (
	// MaxTransferParts is the highest part number of an import.
	MaxTransferParts = 10000
	// HeaderArchivePublicKey carries, on an archive download, the public key that signed it
	// (32 bytes, standard base64); GET /v1/health publishes the same key, so a client can pin it.
	HeaderArchivePublicKey = "X-Svc-Archive-Public-Key"
	// MediaTypeZip is the media type of transfer parts and archives.
	MediaTypeZip = "application/zip"
)

// CreateDatabaseTransferRequest is the body of POST /v1/databases/transfers.
type CreateDatabaseTransferRequest struct {
	Kind string `json:"kind" enum:"export,import"`
	// AllowUnsigned lets an import restore an archive that is unsigned or signed by another key.
	AllowUnsigned bool `json:"allowUnsigned,omitempty" doc:"Imports only: restore an archive that is unsigned or signed by a key other than this platform's (its digests are still checked)."`
}

// DatabaseTransferProgress is how far a transfer has come.
type DatabaseTransferProgress struct {
	TablesDone  int `json:"tablesDone"`
	TablesTotal int `json:"tablesTotal"`
	// Bytes counts the table data (CSV) exported or restored so far.
	Bytes int64 `json:"bytes" doc:"Table data (uncompressed CSV) exported or restored so far."`
	// ArchiveBytes is the size of the archive written so far (an export) or of the parts received (an
	// import).
	ArchiveBytes int64 `json:"archiveBytes" doc:"An export: archive bytes written so far; an import: bytes of the parts received."`
}

// DatabaseTransferPart is one accepted part of an import.
type DatabaseTransferPart struct {
	PartNumber int       `json:"partNumber"`
	Bytes      int64     `json:"bytes"`
	SHA256     string    `json:"sha256"`
	CreatedAt  time.Time `json:"createdAt"`
}

// DatabaseArchive describes a transfer's archive: an export's result, or an import's assembled parts.
type DatabaseArchive struct {
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	// PublicKey is the key whose signature the archive carries (32 bytes, standard base64), "" when unsigned.
	PublicKey string `json:"publicKey,omitempty" doc:"The key that signed the archive, the Ed25519 public key in standard base64; absent when unsigned."`
}

// DatabaseTransferError is why a transfer failed.
type DatabaseTransferError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// DatabaseTransfer is a portable copy of the account's database on its way out (export) or in
// (import), run by the workflow dbtransfer/<id>.
type DatabaseTransfer struct {
	ID     string `json:"id" doc:"xfer_…"`
	Kind   string `json:"kind" enum:"export,import"`
	Status string `json:"status" enum:"awaiting_parts,running,completed,failed,cancelled,expired"`
	// AllowUnsigned is what the import was created with.
	AllowUnsigned bool                     `json:"allowUnsigned"`
	Progress      DatabaseTransferProgress `json:"progress"`
	// Parts are an import's accepted parts, by part number.
	Parts []DatabaseTransferPart `json:"parts" doc:"An import's accepted parts, by part number (empty for an export)."`
	// Archive is set once an export's archive is written, or an import's parts are assembled.
	Archive *DatabaseArchive       `json:"archive"`
	Error   *DatabaseTransferError `json:"error"`
	// CancelRequested is true once DELETE asked the workflow to stop; the status follows.
	CancelRequested bool       `json:"cancelRequested"`
	WorkflowID      string     `json:"workflowId" doc:"dbtransfer/<id>, as the Temporal Web UI lists it."`
	CreatedAt       time.Time  `json:"createdAt"`
	UpdatedAt       time.Time  `json:"updatedAt"`
	CompletedAt     *time.Time `json:"completedAt"`
	// ExpiresAt is when an import still awaiting parts expires, or when an export's archive is deleted.
	ExpiresAt *time.Time `json:"expiresAt" doc:"When an import awaiting parts expires, or when a completed export's archive is deleted."`
}

// DatabaseTransferEnvelope answers the transfer routes.
type DatabaseTransferEnvelope struct {
	OK       bool             `json:"ok"`
	Transfer DatabaseTransfer `json:"transfer"`
}

// DatabaseTransferPartEnvelope answers PUT /v1/databases/transfers/{transferId}/parts/{partNumber}.
type DatabaseTransferPartEnvelope struct {
	OK   bool                 `json:"ok"`
	Part DatabaseTransferPart `json:"part"`
}

// Done reports whether the transfer's workflow has nothing more to do for it until something else
// happens: completed, failed, cancelled or expired.
func (t DatabaseTransfer) Done() bool {
	switch t.Status {
	case TransferStatusCompleted, TransferStatusFailed, TransferStatusCancelled, TransferStatusExpired:
		return true
	}
	return false
}

// CreateDatabaseTransfer starts an export or an import of the account's database, POST
// /v1/databases/transfers (scope databases:write, service access svc-database).
func (c *Client) CreateDatabaseTransfer(ctx context.Context, r CreateDatabaseTransferRequest, opts ...CallOption) Response[DatabaseTransferEnvelope] {
	return send[DatabaseTransferEnvelope](ctx, c, call{method: http.MethodPost, path: "/databases/transfers", body: r,
		auth: authKey, idem: true, opts: opts})
}

// GetDatabaseTransfer reads a transfer: status, progress, parts and archive (scope databases:read).
func (c *Client) GetDatabaseTransfer(ctx context.Context, transferID string) Response[DatabaseTransferEnvelope] {
	if transferID == "" {
		return invalidArg[DatabaseTransferEnvelope]("transferId", "the transfer id is empty")
	}
	return send[DatabaseTransferEnvelope](ctx, c, call{method: http.MethodGet, path: transferPath(transferID), auth: authKey})
}

// UploadDatabaseTransferPart uploads one part of an import, PUT
// /v1/databases/transfers/{transferId}/parts/{partNumber} (scope databases:write), streaming size bytes
// of body. sha256 (hex), when not empty, is checked by the server; the call also checks the stored part's
// SHA-256 against the bytes it sent. A re-upload of the same bytes answers the accepted part; other bytes
// under an accepted part number are refused with 409.
func (c *Client) UploadDatabaseTransferPart(ctx context.Context, transferID string, partNumber int, size int64, body io.Reader, sha256Hex string, opts ...CallOption) Response[DatabaseTransferPartEnvelope] {
	switch {
	case transferID == "":
		return invalidArg[DatabaseTransferPartEnvelope]("transferId", "the transfer id is empty")
	case partNumber < 1 || partNumber > MaxTransferParts:
		return invalidArg[DatabaseTransferPartEnvelope]("partNumber", fmt.Sprintf("partNumber must be between 1 and %d", MaxTransferParts))
	case body == nil:
		return invalidArg[DatabaseTransferPartEnvelope]("body", "the part body is nil")
	case size < 0:
		return invalidArg[DatabaseTransferPartEnvelope]("size", "the part size is negative")
	}
	if sha256Hex != "" {
		opts = append([]CallOption{WithHeader(HeaderContentSHA256, sha256Hex)}, opts...)
	}
	h := sha256.New()
	var raw io.Reader = http.NoBody
	if size > 0 {
		raw = io.TeeReader(body, h)
	}
	out := send[DatabaseTransferPartEnvelope](ctx, c, call{method: http.MethodPut,
		path: transferPath(transferID) + "/parts/" + strconv.Itoa(partNumber), raw: raw, rawLen: size, rawType: MediaTypeZip,
		auth: authKey, idem: true, opts: opts})
	if sent := hex.EncodeToString(h.Sum(nil)); out.OK && !strings.EqualFold(out.Body.Part.SHA256, sent) {
		out.OK, out.Error = false, &Error{Code: CodeContentMismatch, RequestID: out.RequestID,
			Message: fmt.Sprintf("the server accepted part %d of SHA-256 %s, but the bytes sent have %s", partNumber, out.Body.Part.SHA256, sent)}
	}
	return out
}

// CompleteDatabaseTransfer closes an import's part list, POST /v1/databases/transfers/{transferId}/complete
// (scope databases:write): the parts 1..N, concatenated, form the archive the workflow verifies and
// restores. It answers 202 with the transfer running; poll GetDatabaseTransfer for the outcome.
func (c *Client) CompleteDatabaseTransfer(ctx context.Context, transferID string, opts ...CallOption) Response[DatabaseTransferEnvelope] {
	if transferID == "" {
		return invalidArg[DatabaseTransferEnvelope]("transferId", "the transfer id is empty")
	}
	return send[DatabaseTransferEnvelope](ctx, c, call{method: http.MethodPost, path: transferPath(transferID) + "/complete",
		auth: authKey, idem: true, opts: opts})
}

// CancelDatabaseTransfer cancels a transfer, DELETE /v1/databases/transfers/{transferId} (scope
// databases:write): the workflow stops, and deletes the parts and the archive.
func (c *Client) CancelDatabaseTransfer(ctx context.Context, transferID string, opts ...CallOption) Response[DatabaseTransferEnvelope] {
	if transferID == "" {
		return invalidArg[DatabaseTransferEnvelope]("transferId", "the transfer id is empty")
	}
	return send[DatabaseTransferEnvelope](ctx, c, call{method: http.MethodDelete, path: transferPath(transferID),
		auth: authKey, idem: true, opts: opts})
}

// DatabaseArchiveDownload is what DownloadDatabaseArchive received.
type DatabaseArchiveDownload struct {
	TransferID string
	Bytes      int64
	SHA256     string
	// PublicKey is X-Svc-Archive-Public-Key: the key that signed the archive.
	PublicKey string
}

// DownloadDatabaseArchive streams a completed export's archive into w, GET
// /v1/databases/transfers/{transferId}/archive (scope databases:read), calling progress (when not nil)
// with the bytes written so far and the total, and verifying the length and X-Content-Sha256 as
// DownloadFile does. Write to a temporary file and keep it only when the Response is OK.
func (c *Client) DownloadDatabaseArchive(ctx context.Context, transferID string, w io.Writer, progress func(done, total int64)) Response[DatabaseArchiveDownload] {
	if transferID == "" {
		return invalidArg[DatabaseArchiveDownload]("transferId", "the transfer id is empty")
	}
	opened := c.openContent(ctx, transferPath(transferID)+"/archive", transferID, "archive")
	out := Response[DatabaseArchiveDownload]{StatusCode: opened.StatusCode, Header: opened.Header, RequestID: opened.RequestID,
		Error: opened.Error, Raw: opened.Raw}
	if !opened.OK {
		return out
	}
	a := opened.Body
	out.Body = DatabaseArchiveDownload{TransferID: transferID, Bytes: a.SizeBytes, SHA256: a.SHA256,
		PublicKey: opened.Header.Get(HeaderArchivePublicKey)}
	out.Error = streamContent(a, w, progress, out.RequestID, "archive")
	out.OK = out.Error == nil
	return out
}

// transferPath is the path of a transfer.
func transferPath(transferID string) string {
	return "/databases/transfers/" + url.PathEscape(transferID)
}
