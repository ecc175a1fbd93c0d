package activities

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/dbtransfer"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/workflows"
)

// Signaler signals workflows (the worker's Temporal client).
type Signaler interface {
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Transfers are the activities of database transfers.
type Transfers struct {
	// Runner does the work; nil fails the activities saying so (retried until a worker has one).
	Runner *dbtransfer.Runner
	// Signaler carries progress to the transfer's workflow memo; nil keeps progress in the row only.
	Signaler Signaler
}

// errNoTransfers is what the activities answer on a worker without a database cluster or blob store.
var errNoTransfers = errors.New("this worker cannot move database transfers (no database cluster or blob store)")

// CloseTransferParts closes an import's part list; a list that cannot be closed (no parts, a gap)
// fails for good with the reason the client sees.
func (t *Transfers) CloseTransferParts(ctx context.Context, transferID string) error {
	if t.Runner == nil {
		return errNoTransfers
	}
	err := t.Runner.Store.CloseParts(ctx, transferID)
	var pe *dbtransfer.PartsError
	switch {
	case errors.As(err, &pe):
		return temporal.NewNonRetryableApplicationError(pe.Message, dbtransfer.ErrorTypeParts, nil)
	case svcerr.Is(err, svcerr.Conflict):
		return temporal.NewNonRetryableApplicationError(err.Error(), svcerr.Conflict, nil)
	}
	return err
}

// progressEvery spaces the progress signals a transfer sends its workflow.
const progressEvery = time.Second

// heartbeatEvery is how often RunTransfer heartbeats, whatever the work reports.
const heartbeatEvery = 2 * time.Second

// RunTransfer exports or imports the transfer, heartbeating with its progress and signalling it to the
// workflow at most every progressEvery. A refusal of the archive or of its content fails for good.
func (t *Transfers) RunTransfer(ctx context.Context, transferID string) error {
	if t.Runner == nil {
		return errNoTransfers
	}
	info := activity.GetInfo(ctx)
	var mu sync.Mutex
	var latest workflows.TransferProgress
	var sent time.Time
	report := func(p workflows.TransferProgress) {
		mu.Lock()
		latest = p
		due := time.Since(sent) >= progressEvery
		if due {
			sent = time.Now()
		}
		mu.Unlock()
		if due && t.Signaler != nil {
			_ = t.Signaler.SignalWorkflow(ctx, info.WorkflowExecution.ID, "", workflows.SignalTransferProgress, p)
		}
	}
	stop := heartbeat(ctx, heartbeatEvery, func() any {
		mu.Lock()
		defer mu.Unlock()
		return latest
	})
	err := t.Runner.Run(ctx, transferID, report)
	stop()
	if err == nil && t.Signaler != nil {
		mu.Lock()
		final := latest
		mu.Unlock()
		_ = t.Signaler.SignalWorkflow(ctx, info.WorkflowExecution.ID, "", workflows.SignalTransferProgress, final)
	}
	var refused *dbtransfer.Refused
	if errors.As(err, &refused) {
		return temporal.NewNonRetryableApplicationError(refused.Message, workflows.ErrorTypeTransferUnretryable+refused.Code, nil)
	}
	return err
}

// FinishTransfer records the transfer's end with its event and deletes the blobs it no longer needs.
func (t *Transfers) FinishTransfer(ctx context.Context, end workflows.TransferEnd) error {
	if t.Runner == nil {
		return errNoTransfers
	}
	return t.Runner.Finish(ctx, end)
}
