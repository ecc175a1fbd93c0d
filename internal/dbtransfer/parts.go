package dbtransfer

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// Part is one part of an import as a request brings it.
type Part struct {
	AccountID  string
	TransferID string
	Number     int
	// Length is the part's declared size (Content-Length).
	Length int64
	// SHA256 is the expected hex SHA-256 (X-Content-Sha256), "" when not sent.
	SHA256 string
	Body   io.Reader
}

// ErrShortBody is what PutPart answers when the body ends before its declared length; the caller names
// the header (it is the client's doing, not the store's).
var ErrShortBody = errors.New("the body ended before its Content-Length")

// PutPart stores a part of an import awaiting its parts: the body streams into a blob of its own while
// its size and SHA-256 are measured, then the part is recorded. A part number accepted before answers
// that part when the bytes are the same (created false) and 409 when they differ; either way the new
// blob is deleted, as on any failure, so nothing of a refused part stays.
func (s *Store) PutPart(ctx context.Context, p Part) (*schema.DatabaseTransferPart, bool, error) {
	if p.Length > s.opts.PartMaxBytes {
		return nil, false, svcerr.New(svcerr.PayloadTooLarge, "a part holds at most %d bytes; this one declares %d", s.opts.PartMaxBytes, p.Length).
			WithDetails("maxPartBytes", s.opts.PartMaxBytes)
	}
	t, err := s.Get(ctx, p.AccountID, p.TransferID)
	if err != nil {
		return nil, false, err
	}
	if err := acceptsParts(t); err != nil {
		return nil, false, err
	}
	if t.ProgressBytes+p.Length > s.opts.ArchiveMaxBytes {
		return nil, false, svcerr.New(svcerr.PayloadTooLarge, "an import's parts hold at most %d bytes together; %d are received and this part adds %d",
			s.opts.ArchiveMaxBytes, t.ProgressBytes, p.Length).WithDetails("maxArchiveBytes", s.opts.ArchiveMaxBytes)
	}
	key := partKey(t, p.Number)
	part, created, err := s.storePart(ctx, t, p, key)
	if err != nil || !created {
		if derr := s.blobs.Delete(context.WithoutCancel(ctx), key); derr != nil && err == nil {
			err = fmt.Errorf("delete the blob of a part answered from before: %w", derr)
		}
	}
	return part, created, err
}

// partKey is a new blob key for a part: each attempt writes its own, so a refused re-upload never
// touches the accepted part's bytes.
func partKey(t *schema.DatabaseTransfer, n int) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%sparts/%05d-%s", transferPrefix(t), n, hex.EncodeToString(b))
}

// acceptsParts refuses a transfer that is no import awaiting parts.
func acceptsParts(t *schema.DatabaseTransfer) error {
	if t.Kind != schema.TransferImport {
		return svcerr.New(svcerr.Conflict, "database transfer %s is an export: only an import takes parts", t.ID)
	}
	if t.Status != schema.TransferAwaitingParts {
		return svcerr.New(svcerr.Conflict, "database transfer %s is %s: it takes no more parts", t.ID, t.Status)
	}
	return nil
}

// countingReader remembers whether its source failed, to tell the client's body from the store.
type countingReader struct {
	r   io.Reader
	err error
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// storePart writes the part's blob, checks it, and records it under the transfer's row lock.
func (s *Store) storePart(ctx context.Context, t *schema.DatabaseTransfer, p Part, key string) (*schema.DatabaseTransferPart, bool, error) {
	src := &countingReader{r: io.LimitReader(p.Body, p.Length+1)}
	size, sum, err := s.blobs.Put(ctx, key, src)
	switch {
	case src.err != nil:
		return nil, false, fmt.Errorf("%w of %d bytes: %v", ErrShortBody, p.Length, src.err)
	case err != nil:
		return nil, false, fmt.Errorf("store part %d of database transfer %s: %w", p.Number, t.ID, err)
	case size < p.Length:
		return nil, false, fmt.Errorf("%w of %d bytes (%d arrived)", ErrShortBody, p.Length, size)
	case size > p.Length:
		return nil, false, svcerr.Invalid("Content-Length", "the body is longer than its Content-Length of %d bytes: nothing is stored", p.Length)
	case p.SHA256 != "" && !strings.EqualFold(p.SHA256, sum):
		return nil, false, svcerr.Invalid("X-Content-Sha256", "the part's SHA-256 is %s, not the X-Content-Sha256 sent: nothing is stored", sum)
	}
	part := &schema.DatabaseTransferPart{TransferID: t.ID, PartNumber: p.Number, Bytes: size, SHA256: sum, BlobKey: key}
	created := false
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		locked, err := s.load(ctx, tx, t.ID, "SHARE")
		if err != nil {
			return err
		}
		if err := acceptsParts(locked); err != nil {
			return err
		}
		res, err := tx.NewInsert().Model(part).On("CONFLICT (transfer_id, part_number) DO NOTHING").Returning("created_at").Exec(ctx)
		if err != nil {
			return fmt.Errorf("record part %d of database transfer %s: %w", p.Number, t.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			created = true
			_, err = tx.NewUpdate().Model((*schema.DatabaseTransfer)(nil)).Set("progress_bytes = progress_bytes + ?", size).
				Set("updated_at = now()").Where("id = ?", t.ID).Exec(ctx)
			return err
		}
		return tx.NewSelect().Model(part).Where("transfer_id = ? AND part_number = ?", t.ID, p.Number).Scan(ctx)
	})
	if err != nil {
		return nil, false, err
	}
	if !created && (part.SHA256 != sum || part.Bytes != size) {
		return nil, false, svcerr.New(svcerr.Conflict, "part %d of database transfer %s was accepted with other bytes (SHA-256 %s); a part cannot be replaced",
			p.Number, t.ID, part.SHA256).WithDetails("sha256", part.SHA256)
	}
	return part, created, nil
}

// ErrorTypeParts is the application error type of a part list that cannot be closed: no parts, or a
// gap in their numbers.
const ErrorTypeParts = "transfer_parts"

// PartsError says why a part list cannot be closed; its message is safe to show the client.
type PartsError struct{ Message string }

// Error implements error.
func (e *PartsError) Error() string { return e.Message }

// CloseParts closes an import's part list: the parts must be numbered 1..N without a gap. The import
// moves to running; a part list closed before is left as it is. It answers a *PartsError when the
// parts do not form an archive, and an svcerr Conflict when the transfer was cancelled or expired.
func (s *Store) CloseParts(ctx context.Context, id string) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		t, err := s.load(ctx, tx, id, "UPDATE")
		if err != nil {
			return err
		}
		switch t.Status {
		case schema.TransferRunning, schema.TransferCompleted, schema.TransferFailed:
			return nil
		case schema.TransferAwaitingParts:
		default:
			return svcerr.New(svcerr.Conflict, "database transfer %s is %s", id, t.Status)
		}
		var parts []schema.DatabaseTransferPart
		if err := tx.NewSelect().Model(&parts).Column("part_number", "bytes").Where("transfer_id = ?", id).
			Order("part_number").Scan(ctx); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("list the parts of database transfer %s: %w", id, err)
		}
		if err := contiguous(parts); err != nil {
			return err
		}
		var total int64
		for _, p := range parts {
			total += p.Bytes
		}
		_, err = tx.NewUpdate().Model(t).Set("status = ?", schema.TransferRunning).Set("archive_bytes = ?", total).
			Set("expires_at = NULL").Set("updated_at = now()").WherePK().Exec(ctx)
		return err
	})
}

// contiguous checks that parts (ordered) are numbered 1..N, N >= 1.
func contiguous(parts []schema.DatabaseTransferPart) error {
	if len(parts) == 0 {
		return &PartsError{Message: "no part was uploaded: PUT the archive as parts 1..N before completing"}
	}
	for i, p := range parts {
		if p.PartNumber != i+1 {
			return &PartsError{Message: fmt.Sprintf("part %d is missing: the parts must be numbered 1..N without a gap (the highest is %d)",
				i+1, parts[len(parts)-1].PartNumber)}
		}
	}
	if len(parts) > client.MaxTransferParts {
		return &PartsError{Message: fmt.Sprintf("an import has at most %d parts", client.MaxTransferParts)}
	}
	return nil
}
