package dbtransfer

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/dbarchive"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Cluster opens export and import connections to accounts' databases (accountdb.Cluster.OpenBulk).
type Cluster interface {
	OpenBulk(ctx context.Context, accountID string, role accountdb.Role) (*bun.DB, error)
}

// Runner does the work of the transfer workflow's activities.
type Runner struct {
	Store   *Store
	Cluster Cluster
	// Signer signs export archives; its public key is the one imports trust.
	Signer ed25519.PrivateKey
	// TempDir holds an import's assembled archive while it is verified and restored ("" for os.TempDir).
	TempDir string
}

// Refused is a transfer that cannot succeed however often it is tried (a tampered archive, say): Code
// names the reason and becomes the transfer's error code; Message is safe to show the client.
type Refused struct {
	Code    string
	Message string
}

// Error implements error.
func (e *Refused) Error() string { return e.Message }

// Progress reports how far a transfer has come.
type Progress = workflows.TransferProgress

// Run exports or imports transfer id, calling report with its progress. A transfer that is no longer
// running (cancelled meanwhile, or finished by an earlier attempt) is left as it is.
func (r *Runner) Run(ctx context.Context, id string, report func(Progress)) error {
	t, err := r.Store.load(ctx, r.Store.db, id, "")
	if err != nil {
		return err
	}
	if t.Status != schema.TransferRunning {
		return nil
	}
	rep := &recorder{store: r.Store, id: id, report: report}
	if t.Kind == schema.TransferExport {
		return r.export(ctx, t, rep)
	}
	return r.restore(ctx, t, rep)
}

// recorder passes progress on and writes it to the transfer's row at most every recordEvery.
type recorder struct {
	store  *Store
	id     string
	report func(Progress)
	mu     sync.Mutex
	last   time.Time
}

// recordEvery spaces the progress writes to a transfer's row.
const recordEvery = 500 * time.Millisecond

func (rc *recorder) progress(ctx context.Context, p dbarchive.Progress, archiveBytes int64, final bool) {
	pr := Progress{TablesDone: p.TablesDone, TablesTotal: p.TablesTotal, Bytes: p.Bytes, ArchiveBytes: archiveBytes}
	if rc.report != nil {
		rc.report(pr)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if !final && time.Since(rc.last) < recordEvery {
		return
	}
	rc.last = time.Now()
	// Progress is advisory: a failed write leaves the row's older figures.
	_, _ = rc.store.db.NewUpdate().Model((*schema.DatabaseTransfer)(nil)).
		Set("tables_done = ?, tables_total = ?, data_bytes = ?, progress_bytes = ?", pr.TablesDone, pr.TablesTotal, pr.Bytes, pr.ArchiveBytes).
		Set("updated_at = now()").Where("id = ? AND status = ?", rc.id, schema.TransferRunning).Exec(ctx)
}

// export writes the account's database as a signed archive into the blob store (a retry rewrites it
// whole) and records the archive on the transfer's row.
func (r *Runner) export(ctx context.Context, t *schema.DatabaseTransfer, rep *recorder) error {
	db, err := r.Cluster.OpenBulk(ctx, t.AccountID, accountdb.Reader)
	if err != nil {
		return fmt.Errorf("export database transfer %s: %w", t.ID, err)
	}
	defer db.Close()
	pr, pw := io.Pipe()
	var last dbarchive.Progress
	exported := make(chan error, 1)
	go func() {
		_, err := dbarchive.Export(ctx, db, pw, r.Signer, func(p dbarchive.Progress) {
			last = p
			rep.progress(ctx, p, p.ArchiveBytes, false)
		})
		_ = pw.CloseWithError(err)
		exported <- err
	}()
	key := archiveKey(t)
	size, sum, err := r.Store.blobs.Put(ctx, key, pr)
	_ = pr.CloseWithError(errors.New("the archive's store stopped reading"))
	if exportErr := <-exported; exportErr != nil {
		return refusedArchive(exportErr)
	}
	if err != nil {
		return fmt.Errorf("store the archive of database transfer %s: %w", t.ID, err)
	}
	rep.progress(ctx, last, size, true)
	pub := dbarchive.PublicKeyString(r.Signer.Public().(ed25519.PublicKey))
	_, err = r.Store.db.NewUpdate().Model((*schema.DatabaseTransfer)(nil)).
		Set("archive_key = ?, archive_bytes = ?, archive_sha256 = ?, archive_key_id = ?", key, size, sum, pub).
		Set("progress_bytes = ?, updated_at = now()", size).Where("id = ? AND status = ?", t.ID, schema.TransferRunning).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record the archive of database transfer %s: %w", t.ID, err)
	}
	return nil
}

// refusedArchive makes an archive's refusal a Refused; other errors pass as they are.
func refusedArchive(err error) error {
	if e, ok := dbarchive.AsError(err); ok {
		return &Refused{Code: "archive_" + string(e.Kind), Message: e.Error()}
	}
	return err
}

// restore assembles an import's parts, verifies the archive and restores it in one transaction, at most
// once: the restoring transaction's id is recorded just before it commits, and a retry that finds one
// asks PostgreSQL whether it committed.
func (r *Runner) restore(ctx context.Context, t *schema.DatabaseTransfer, rep *recorder) error {
	db, err := r.Cluster.OpenBulk(ctx, t.AccountID, accountdb.Owner)
	if err != nil {
		return fmt.Errorf("import database transfer %s: %w", t.ID, err)
	}
	defer db.Close()
	if t.ImportXID != nil {
		done, err := committed(ctx, db, *t.ImportXID)
		if err != nil {
			return err
		}
		if done {
			// The worker died between the restore's COMMIT and its last progress write: the row may
			// show fewer tables than were restored.
			rep.progress(ctx, dbarchive.Progress{TablesDone: t.TablesTotal, TablesTotal: t.TablesTotal, Bytes: t.DataBytes},
				deref64(t.ArchiveBytes), true)
			return nil
		}
	}
	f, size, err := r.assemble(ctx, t)
	if err != nil {
		return err
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	pub := r.Signer.Public().(ed25519.PublicKey)
	a, err := dbarchive.Open(f, size, dbarchive.VerifyOptions{PublicKey: pub, AllowUnsigned: t.AllowUnsigned})
	if err != nil {
		return refusedArchive(err)
	}
	if a.Signed {
		if _, err := r.Store.db.NewUpdate().Model((*schema.DatabaseTransfer)(nil)).Set("archive_key_id = ?", dbarchive.PublicKeyString(pub)).
			Where("id = ?", t.ID).Exec(ctx); err != nil {
			return fmt.Errorf("record the signer of database transfer %s: %w", t.ID, err)
		}
	}
	var last dbarchive.Progress
	err = a.ImportWith(ctx, db, dbarchive.ImportOptions{
		Progress: func(p dbarchive.Progress) {
			last = p
			rep.progress(ctx, p, size, false)
		},
		BeforeCommit: func(ctx context.Context, conn bun.Conn) error { return r.noteXID(ctx, conn, t.ID) },
	})
	if err != nil {
		return refusedRestore(err)
	}
	rep.progress(ctx, last, size, true)
	return nil
}

// deref64 is *n, or 0 for nil.
func deref64(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

// noteXID records the restoring transaction's id on the transfer's row (committed on its own, before the
// restore commits).
func (r *Runner) noteXID(ctx context.Context, conn bun.Conn, id string) error {
	var xid int64
	if err := conn.QueryRowContext(ctx, "SELECT txid_current()").Scan(&xid); err != nil {
		return fmt.Errorf("read the restore's transaction id: %w", err)
	}
	if _, err := r.Store.db.NewUpdate().Model((*schema.DatabaseTransfer)(nil)).Set("import_xid = ?", xid).
		Where("id = ?", id).Exec(ctx); err != nil {
		return fmt.Errorf("record the restore's transaction id: %w", err)
	}
	return nil
}

// committed asks PostgreSQL whether transaction xid committed; one still in progress (the backend of a
// killed worker not yet gone) is an error to retry later.
func committed(ctx context.Context, db *bun.DB, xid int64) (bool, error) {
	var status *string
	if err := db.QueryRowContext(ctx, "SELECT txid_status(?)", xid).Scan(&status); err != nil {
		return false, fmt.Errorf("ask whether restore transaction %d committed: %w", xid, err)
	}
	switch {
	case status == nil:
		return false, nil // too old to know: restoring again gives the same tables
	case *status == "committed":
		return true, nil
	case *status == "in progress":
		return false, fmt.Errorf("an earlier restore (transaction %d) is still in progress", xid)
	}
	return false, nil
}

// refusedRestore makes a restore that the archive's content or the database refused for good (an
// archive's refusal, bad data, a constraint) a Refused.
func refusedRestore(err error) error {
	if _, ok := dbarchive.AsError(err); ok {
		return refusedArchive(err)
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		switch code := pgErr.Field('C'); {
		case strings.HasPrefix(code, "22"), strings.HasPrefix(code, "23"), strings.HasPrefix(code, "42"), strings.HasPrefix(code, "54"):
			return &Refused{Code: "restore_refused", Message: "the database refused the archive's content: " + pgErr.Field('M')}
		}
	}
	return err
}

// assemble concatenates an import's parts into a temporary file, checking each part's size and SHA-256
// as it goes, and records the archive's digest.
func (r *Runner) assemble(ctx context.Context, t *schema.DatabaseTransfer) (*os.File, int64, error) {
	parts, err := r.Store.Parts(ctx, t.ID)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.CreateTemp(r.TempDir, "svc-import-*.zip")
	if err != nil {
		return nil, 0, fmt.Errorf("make the import's temporary file: %w", err)
	}
	whole := sha256.New()
	var size int64
	for _, p := range parts {
		n, err := copyPart(ctx, r.Store.blobs, p, io.MultiWriter(f, whole))
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			return nil, 0, fmt.Errorf("assemble database transfer %s: %w", t.ID, err)
		}
		size += n
	}
	sum := hex.EncodeToString(whole.Sum(nil))
	if _, err := r.Store.db.NewUpdate().Model((*schema.DatabaseTransfer)(nil)).Set("archive_bytes = ?, archive_sha256 = ?", size, sum).
		Where("id = ?", t.ID).Exec(ctx); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, 0, fmt.Errorf("record the archive of database transfer %s: %w", t.ID, err)
	}
	return f, size, nil
}

// copyPart copies one part's blob into w and checks it against its row.
func copyPart(ctx context.Context, blobs blob.Store, p schema.DatabaseTransferPart, w io.Writer) (int64, error) {
	rc, err := blobs.Open(ctx, p.BlobKey)
	if err != nil {
		return 0, fmt.Errorf("open part %d: %w", p.PartNumber, err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), rc)
	if err != nil {
		return 0, fmt.Errorf("copy part %d: %w", p.PartNumber, err)
	}
	if n != p.Bytes || hex.EncodeToString(h.Sum(nil)) != p.SHA256 {
		return 0, fmt.Errorf("part %d changed in the blob store (%d bytes, recorded %d)", p.PartNumber, n, p.Bytes)
	}
	return n, nil
}

// Finish records a transfer's end, once, with its event (completed and failed), and deletes the blobs
// no longer needed: everything but a completed export's archive. Ends that no longer apply (a cancel
// after the import completed, say) change nothing.
func (r *Runner) Finish(ctx context.Context, end workflows.TransferEnd) error {
	var t *schema.DatabaseTransfer
	err := r.Store.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if t, err = r.Store.load(ctx, tx, end.TransferID, "UPDATE"); err != nil {
			return err
		}
		if t.Status == end.Status || !canEnd(t, end.Status) {
			return nil
		}
		return r.record(ctx, tx, t, end)
	})
	if err != nil {
		return err
	}
	return r.cleanUp(ctx, t)
}

// canEnd reports whether t may move to status.
func canEnd(t *schema.DatabaseTransfer, status string) bool {
	exportKept := t.Kind == schema.TransferExport && t.Status == schema.TransferCompleted
	switch status {
	case schema.TransferCompleted, schema.TransferFailed:
		return t.Status == schema.TransferRunning
	case schema.TransferCancelled:
		return t.Status == schema.TransferAwaitingParts || t.Status == schema.TransferRunning || exportKept
	case schema.TransferExpired:
		return t.Status == schema.TransferAwaitingParts || exportKept
	}
	return false
}

// record writes the end on t's row and its event.
func (r *Runner) record(ctx context.Context, tx bun.Tx, t *schema.DatabaseTransfer, end workflows.TransferEnd) error {
	now := time.Now().UTC()
	t.Status, t.UpdatedAt, t.ExpiresAt = end.Status, now, nil
	if end.Status == schema.TransferCompleted {
		t.CompletedAt = &now
		if t.Kind == schema.TransferExport {
			expires := now.Add(r.Store.opts.KeepArchive)
			t.ExpiresAt = &expires
		}
	}
	if end.Status == schema.TransferFailed {
		t.ErrorCode, t.ErrorMessage = &end.ErrorCode, &end.ErrorMessage
	}
	if _, err := tx.NewUpdate().Model(t).Column("status", "updated_at", "expires_at", "completed_at", "error_code", "error_message").
		WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("record the end of database transfer %s: %w", t.ID, err)
	}
	typ := ""
	switch end.Status {
	case schema.TransferCompleted:
		typ = outbox.DatabaseTransferCompleted
	case schema.TransferFailed:
		typ = outbox.DatabaseTransferFailed
	default:
		return nil
	}
	parts, err := r.Store.Parts(ctx, t.ID)
	if err != nil {
		return err
	}
	return outbox.Emit(ctx, tx, outbox.Event{AccountID: t.AccountID, Type: typ, Subject: t.ID, Data: ToWire(t, parts)})
}

// cleanUp deletes t's blobs that its status no longer needs.
func (r *Runner) cleanUp(ctx context.Context, t *schema.DatabaseTransfer) error {
	switch t.Status {
	case schema.TransferRunning, schema.TransferAwaitingParts:
		return nil
	}
	keep := ""
	if t.Kind == schema.TransferExport && t.Status == schema.TransferCompleted {
		keep = archiveKey(t)
	}
	var keys []string
	err := r.Store.blobs.List(ctx, transferPrefix(t), func(i blob.Info) error {
		if i.Key != keep {
			keys = append(keys, i.Key)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list the blobs of database transfer %s: %w", t.ID, err)
	}
	for _, k := range keys {
		if err := r.Store.blobs.Delete(ctx, k); err != nil {
			return fmt.Errorf("delete blob %s of database transfer %s: %w", k, t.ID, err)
		}
	}
	return nil
}
