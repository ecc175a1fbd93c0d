// Package outbox records events (run.created, approval.decided, ...) in the transaction that makes them
// happen, so a later dispatcher (webhooks) delivers exactly what committed. An event's id is derived from
// what it reports, so a retried transaction or activity records it once.
package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/schema"
)

// Event types.
const (
	RunCreated        = "run.created"
	RunSucceeded      = "run.succeeded"
	RunFailed         = "run.failed"
	RunCancelled      = "run.cancelled"
	ApprovalRequested = "approval.requested"
	ApprovalDecided   = "approval.decided"
	ApprovalExpired   = "approval.expired"
	// WebhookDisabled: an endpoint was disabled by its deliveries (410 Gone, or failing for 5 days).
	WebhookDisabled = "webhook.disabled"
	// CreditsToppedUp: an x402 top-up was settled on chain and its credits posted.
	CreditsToppedUp = "credits.topped_up"
	// FileCreated: a file was uploaded (its data is the file as the API shows it).
	FileCreated = "file.created"
	// FileDeleted: a file was deleted; its bytes are purged 24 h later.
	FileDeleted = "file.deleted"
	// DatabaseReady: an account's managed database was provisioned (its data is the database as the API
	// shows it, without its structure).
	DatabaseReady = "database.ready"
	// DatabaseTransferCompleted: an export's archive is ready, or an import is restored (its data is the
	// transfer as the API shows it).
	DatabaseTransferCompleted = "database.transfer.completed"
	// DatabaseTransferFailed: a transfer stopped on an error; an import left the database as it was.
	DatabaseTransferFailed = "database.transfer.failed"
	// AutomationRunStarted: a fire of an automation started a run (its data is the run).
	AutomationRunStarted = "automation.run_started"
	// AutomationPaused: an automation was paused (by its owner, an operator, or its lifetime limit).
	AutomationPaused = "automation.paused"
	// AutomationLimitReached: a fire started no run because a limit refused it (its data names the
	// limit and the automation).
	AutomationLimitReached = "automation.limit_reached"
	// WalletTransactionConfirmed: a wallet's outbound transaction was mined and succeeded.
	WalletTransactionConfirmed = "wallet.transaction.confirmed"
	// WalletTransactionFailed: a wallet's outbound transaction failed (refused before signing, or
	// reverted); its reserved spend is released.
	WalletTransactionFailed = "wallet.transaction.failed"
	// WalletTransactionPendingApproval: a wallet's outbound transaction waits for an approval (its
	// data is the transaction, with its approvalId); its spend is reserved meanwhile.
	WalletTransactionPendingApproval = "wallet.transaction.pending_approval"
	// WalletTransactionRejected: a wallet's outbound transaction's approval was rejected, expired or
	// was cancelled; nothing was signed and its reserved spend is released.
	WalletTransactionRejected = "wallet.transaction.rejected"
	// OrderFilled: a trading order's swap confirmed and its fills are recorded (its data is the order).
	OrderFilled = "order.filled"
	// OrderFailed: a trading order ended without a fill (slippage, policy, a revert); its reserved spend
	// and its fee's hold are released.
	OrderFailed = "order.failed"
	// OrderCancelled: a trading order was cancelled before it was sent.
	OrderCancelled = "order.cancelled"
	// HandoffAcknowledged: a receiver acknowledged a handoff's vault transfer (its data is the handoff).
	HandoffAcknowledged = "handoff.acknowledged"
	// HandoffExpired: nobody acknowledged a handoff's transfer before its deadline.
	HandoffExpired = "handoff.expired"
	// ClubRenewed: a Club subscription's renewal was charged (its data is the membership, issue 25).
	ClubRenewed = "club.renewed"
	// ClubLapsed: a Club renewal could not be paid; the account is standard again.
	ClubLapsed = "club.lapsed"
	// AgentJobSucceeded: an agent job answered (its data: jobId, threadId, status).
	AgentJobSucceeded = "agent.job.succeeded"
	// AgentJobFailed: an agent job failed or was cancelled (its data says which, and why).
	AgentJobFailed = "agent.job.failed"
	// AgentJobAwaitingConfirmation: an agent job waits for the user's decision on a money-moving or
	// signing tool call (its data: jobId, stepId, tool, args redacted, untrusted).
	AgentJobAwaitingConfirmation = "agent.job.awaiting_confirmation"
	// AppScriptFailed: an app script run ended failed (its data is the run: app, script, trigger, error).
	AppScriptFailed = "app.script.failed"
)

// Types lists every event type, in documentation order.
var Types = []string{RunCreated, RunSucceeded, RunFailed, RunCancelled, ApprovalRequested, ApprovalDecided, ApprovalExpired, WebhookDisabled, CreditsToppedUp, FileCreated, FileDeleted, DatabaseReady,
	DatabaseTransferCompleted, DatabaseTransferFailed, AutomationRunStarted, AutomationPaused, AutomationLimitReached,
	WalletTransactionConfirmed, WalletTransactionFailed, WalletTransactionPendingApproval, WalletTransactionRejected,
	OrderFilled, OrderFailed, OrderCancelled, HandoffAcknowledged, HandoffExpired, ClubRenewed, ClubLapsed,
	AgentJobSucceeded, AgentJobFailed, AgentJobAwaitingConfirmation,
	AppScriptFailed}

// Event is one thing that happened to a resource of an account.
type Event struct {
	AccountID string
	ProjectID *string
	Type      string
	// Subject is the id of the resource the event is about; with Type it determines the event id.
	Subject string
	// Data is the resource as the API shows it.
	Data any
}

// ID returns the event's id: the same type and subject always give the same id.
func (e Event) ID() string { return ids.Derive(ids.Event, e.Type, e.Subject) }

// Emit records events in db (the caller's transaction); an event recorded before is left as it was.
func Emit(ctx context.Context, db bun.IDB, events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	rows := make([]schema.Event, len(events))
	for i, e := range events {
		data, err := json.Marshal(e.Data)
		if err != nil {
			return fmt.Errorf("encode %s event: %w", e.Type, err)
		}
		rows[i] = schema.Event{ID: e.ID(), AccountID: e.AccountID, ProjectID: e.ProjectID, Type: e.Type, Data: data}
	}
	if _, err := db.NewInsert().Model(&rows).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("record events: %w", err)
	}
	return nil
}

// List returns the account's events, oldest first (for tests and diagnostics).
func List(ctx context.Context, db bun.IDB, accountID string) ([]schema.Event, error) {
	var out []schema.Event
	err := db.NewSelect().Model(&out).Where("account_id = ?", accountID).Order("seq").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	return out, nil
}

// ErrMissing is the error of an event id that has no row.
var ErrMissing = errors.New("no such event")

// Get returns the event with the id, or an error wrapping ErrMissing.
func Get(ctx context.Context, db bun.IDB, id string) (*schema.Event, error) {
	ev := new(schema.Event)
	err := db.NewSelect().Model(ev).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("event %s: %w", id, ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("load event %s: %w", id, err)
	}
	return ev, nil
}
