package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/vault"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// fromRuntime is the sender runtime a handoff's manifest names; its agent id is the handoff's id, so a
// retried write finds the transfer a crashed attempt completed.
const fromRuntime = "svc-platform"

// Worker does the work of the handoff workflow's activities on a worker that has the vault.
type Worker struct {
	DB *bun.DB
	// Vault is the worker's copy of the synced vault (SVC_VAULT); nil fails the activities saying so
	// (retried until a worker has it).
	Vault *vault.Vault
}

// errNoVault fails the activities of a worker without the vault.
var errNoVault = errors.New("this worker has no vault (SVC_VAULT) for handoffs")

// WriteTransfer writes the handoff's transfer and records its id (status awaiting_ack), answering the id
// recorded or written before. A transfer the vault refuses (a file gone or holding a secret) is a
// non-retryable ErrorTypeHandoffRefused error naming the problem.
func (w *Worker) WriteTransfer(ctx context.Context, handoffID string) (string, error) {
	if w.Vault == nil {
		return "", errNoVault
	}
	h, err := w.load(ctx, handoffID)
	if err != nil {
		return "", err
	}
	if h.TransferID != nil {
		return *h.TransferID, nil
	}
	id, err := w.existing(ctx, h)
	if err != nil {
		return "", err
	}
	if id == "" {
		if id, err = w.send(ctx, h); err != nil {
			return "", err
		}
	}
	_, err = w.DB.NewUpdate().Model((*schema.Handoff)(nil)).Set("transfer_id = ?, status = ?, updated_at = now()", id, schema.HandoffAwaitingAck).
		Where("id = ? AND transfer_id IS NULL", h.ID).Exec(ctx)
	if err != nil {
		return "", fmt.Errorf("record the transfer of handoff %s: %w", h.ID, err)
	}
	return id, nil
}

// target is the identity the transfer goes to: the agent for a task, the machine for plain files.
func target(h *schema.Handoff) vault.Identity {
	to := vault.Identity{MachineID: h.MachineID}
	if h.Task != nil {
		to.Runtime, to.AgentID = deref(h.Runtime), deref(h.AgentID)
	}
	return to
}

// existing finds a whole transfer an earlier attempt wrote for the handoff (crashed before recording it).
func (w *Worker) existing(ctx context.Context, h *schema.Handoff) (string, error) {
	ts, err := w.Vault.Inbox(ctx, vault.InboxQuery{Receiver: target(h), All: true})
	if err != nil {
		return "", fmt.Errorf("look for the transfer of handoff %s: %w", h.ID, err)
	}
	for _, t := range ts {
		if t.From != nil && t.From.Runtime == fromRuntime && t.From.AgentID == h.ID {
			return t.ID, nil
		}
	}
	return "", nil
}

// send writes the transfer: the files, and for a task its task file.
func (w *Worker) send(ctx context.Context, h *schema.Handoff) (string, error) {
	files := append([]string{}, h.Files...)
	if h.Task != nil {
		dir, err := os.MkdirTemp("", "svc-handoff-")
		if err != nil {
			return "", fmt.Errorf("task file directory: %w", err)
		}
		defer func() { _ = os.RemoveAll(dir) }()
		path := filepath.Join(dir, TaskFileName)
		if err := os.WriteFile(path, []byte(TaskText(infoOf(h))), 0o600); err != nil {
			return "", fmt.Errorf("write the task file: %w", err)
		}
		files = append(files, path)
	}
	note := deref(h.Note)
	if note == "" && h.Task != nil {
		note = "svc handoff " + h.ID + ": the task is in " + TaskFileName
	}
	m, err := w.Vault.Send(ctx, vault.SendRequest{Files: files, Note: note, To: target(h),
		From: &vault.Identity{Runtime: fromRuntime, AgentID: h.ID}})
	if e, ok := svcerr.As(err); ok {
		return "", temporal.NewNonRetryableApplicationError(e.Message, workflows.ErrorTypeHandoffRefused, nil)
	}
	if err != nil {
		return "", fmt.Errorf("write the transfer of handoff %s: %w", h.ID, err)
	}
	return m.ID, nil
}

// CheckAcks counts the acks of the handoff's transfer.
func (w *Worker) CheckAcks(ctx context.Context, c workflows.HandoffAckCheck) (int, error) {
	if w.Vault == nil {
		return 0, errNoVault
	}
	acks, err := w.Vault.Acks(c.TransferID)
	if err != nil {
		return 0, fmt.Errorf("read the acks of handoff %s: %w", c.HandoffID, err)
	}
	return len(acks), nil
}

// Finish records the handoff's end (the acks as read from the vault when acknowledged) and its event,
// once.
func (w *Worker) Finish(ctx context.Context, end workflows.HandoffEnd) error {
	h, err := w.load(ctx, end.HandoffID)
	if err != nil || final(h.Status) {
		return err
	}
	acks := []client.HandoffAck{}
	if end.Status == workflows.HandoffAcknowledged {
		if acks, err = w.acks(end.TransferID); err != nil {
			return err
		}
	}
	raw, err := json.Marshal(acks)
	if err != nil {
		return fmt.Errorf("encode acks: %w", err)
	}
	now := time.Now().UTC()
	h.Status, h.Acks, h.EndedAt, h.UpdatedAt = end.Status, raw, &now, now
	if end.Error != "" {
		h.ErrorMessage = &end.Error
	}
	return w.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model(h).Column("status", "acks", "ended_at", "updated_at", "error_message").WherePK().
			Where("status NOT IN (?)", bun.List([]string{schema.HandoffAcknowledged, schema.HandoffExpired, schema.HandoffFailed})).Exec(ctx)
		if err != nil {
			return fmt.Errorf("record the end of handoff %s: %w", h.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		return emit(ctx, tx, h)
	})
}

// emit records handoff.acknowledged or handoff.expired (a failed handoff has no event).
func emit(ctx context.Context, tx bun.Tx, h *schema.Handoff) error {
	event := map[string]string{schema.HandoffAcknowledged: outbox.HandoffAcknowledged, schema.HandoffExpired: outbox.HandoffExpired}[h.Status]
	if event == "" {
		return nil
	}
	return outbox.Emit(ctx, tx, outbox.Event{AccountID: h.AccountID, ProjectID: h.ProjectID, Type: event, Subject: h.ID, Data: ToWire(h)})
}

// acks reads the transfer's ack files.
func (w *Worker) acks(transferID string) ([]client.HandoffAck, error) {
	if w.Vault == nil {
		return nil, errNoVault
	}
	found, err := w.Vault.Acks(transferID)
	if err != nil {
		return nil, fmt.Errorf("read the acks of %s: %w", transferID, err)
	}
	out := make([]client.HandoffAck, 0, len(found))
	for _, a := range found {
		ack := client.HandoffAck{MachineID: a.MachineID, Host: a.Host, Runtime: a.Runtime, AgentID: a.AgentID, AckedAt: a.AckedAt,
			Verified: []client.AckFile{}}
		for _, v := range a.Verified {
			ack.Verified = append(ack.Verified, client.AckFile{Name: v.Name, SHA256: v.SHA256, Bytes: v.Bytes})
		}
		out = append(out, ack)
	}
	return out, nil
}

func (w *Worker) load(ctx context.Context, id string) (*schema.Handoff, error) {
	h := new(schema.Handoff)
	if err := w.DB.NewSelect().Model(h).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read handoff %s: %w", id, err)
	}
	return h, nil
}

func final(status string) bool {
	return status == schema.HandoffAcknowledged || status == schema.HandoffExpired || status == schema.HandoffFailed
}
