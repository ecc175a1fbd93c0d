package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// DatabaseTransferParams is the input of DatabaseTransferWorkflow.
type DatabaseTransferParams struct {
	TransferID string
	AccountID  string
	// Kind is "export" or "import".
	Kind string
	// AwaitParts is how long an import waits for its part list to close before it expires.
	AwaitParts time.Duration
	// KeepArchive is how long a completed export's archive stays before it is deleted.
	KeepArchive time.Duration
}

// TransferProgress is how far a transfer's work has come, as its activity reports it (signal
// SignalTransferProgress) and its memo shows it.
type TransferProgress struct {
	TablesDone   int   `json:"tablesDone"`
	TablesTotal  int   `json:"tablesTotal"`
	Bytes        int64 `json:"bytes"`
	ArchiveBytes int64 `json:"archiveBytes"`
}

// TransferEnd is what ActivityFinishTransfer records: the final status and, for a failure, its error.
type TransferEnd struct {
	TransferID   string
	Status       string
	ErrorCode    string
	ErrorMessage string
}

// Final statuses of a transfer (the values of schema's Transfer* constants).
const (
	transferCompleted  = "completed"
	transferFailed     = "failed"
	transferCancelled  = "cancelled"
	transferExpired    = "expired"
	transferKindImport = "import"
)

// ErrorTypeTransferUnretryable is the application error type prefix of a transfer whose archive or
// database refuses it for good: the rest of the type is the reason (dbarchive's kind), and the
// transfer fails with it as its error code.
const ErrorTypeTransferUnretryable = "transfer_"

// DatabaseTransferWorkflowID is the workflow id of a database transfer.
func DatabaseTransferWorkflowID(transferID string) string { return "dbtransfer/" + transferID }

// transferBookkeeping retries the short, idempotent steps until they succeed.
var transferBookkeeping = workflow.ActivityOptions{
	StartToCloseTimeout: time.Minute,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
}

// transferWork runs the export or the import: it heartbeats, so a worker that dies is noticed within
// the heartbeat timeout and the work starts again on another; cancelling waits until the activity has
// stopped (an import's transaction rolled back).
var transferWork = workflow.ActivityOptions{
	StartToCloseTimeout: 6 * time.Hour,
	HeartbeatTimeout:    10 * time.Second,
	WaitForCancellation: true,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
		MaximumAttempts: 10},
}

// transferState is what the workflow's handlers tell its main line.
type transferState struct {
	cancelled, expired bool
	// closing is set while the complete update closes the part list; closed once it has.
	closing, closed bool
	progress        TransferProgress
	status          string
}

// DatabaseTransferWorkflow (workflow id dbtransfer/<transferId>) runs one export or import of an
// account's managed database:
//
//   - An import first waits, on a durable timer of AwaitParts, for the Update UpdateTransferComplete
//     (which closes the part list through an activity and answers its refusal, a gap in the parts say,
//     to the caller) or the signal SignalTransferCancel; the timer expires it.
//   - The work (ActivityRunTransfer: export to the blob store, or verify and restore) reports progress
//     by signal; the workflow keeps it in its memo. A cancel stops the work and waits for it to stop.
//   - ActivityFinishTransfer records the end once, with its event, and deletes what is no longer needed.
//   - A completed export keeps its archive for KeepArchive (or until cancelled), then deletes it.
func DatabaseTransferWorkflow(ctx workflow.Context, p DatabaseTransferParams) error {
	st := &transferState{status: "running"}
	if p.Kind == transferKindImport {
		st.status = "awaiting_parts"
	}
	listenTransferSignals(ctx, st)
	if err := setCompleteHandler(ctx, p, st); err != nil {
		return err
	}
	if p.Kind == transferKindImport {
		if end, stop := awaitParts(ctx, p, st); stop {
			return finishTransfer(ctx, st, TransferEnd{TransferID: p.TransferID, Status: end})
		}
	}
	end := runTransfer(ctx, p, st)
	if err := finishTransfer(ctx, st, end); err != nil || end.Status != transferCompleted || p.Kind == transferKindImport {
		return err
	}
	return keepArchive(ctx, p, st)
}

// listenTransferSignals follows the cancel and progress signals for the workflow's whole life.
func listenTransferSignals(ctx workflow.Context, st *transferState) {
	cancel := workflow.GetSignalChannel(ctx, SignalTransferCancel)
	progress := workflow.GetSignalChannel(ctx, SignalTransferProgress)
	workflow.Go(ctx, func(ctx workflow.Context) {
		cancel.Receive(ctx, nil)
		st.cancelled = true
	})
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var pr TransferProgress
			if !progress.Receive(ctx, &pr) {
				return
			}
			st.progress = pr
			upsertTransferMemo(ctx, st)
		}
	})
	upsertTransferMemo(ctx, st)
}

// upsertTransferMemo shows the status and progress in the workflow's memo.
func upsertTransferMemo(ctx workflow.Context, st *transferState) {
	_ = workflow.UpsertMemo(ctx, map[string]any{"status": st.status, "progress": st.progress})
}

// setCompleteHandler registers the complete update: for an import awaiting parts it closes the part
// list once; it is refused once the import was cancelled or expired, and for an export.
func setCompleteHandler(ctx workflow.Context, p DatabaseTransferParams, st *transferState) error {
	actx := workflow.WithActivityOptions(ctx, transferBookkeeping)
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateTransferComplete, func(ctx workflow.Context) error {
		if st.closed {
			return nil
		}
		st.closing = true
		defer func() { st.closing = false }()
		if err := workflow.ExecuteActivity(actx, ActivityCloseTransferParts, p.TransferID).Get(ctx, nil); err != nil {
			return err
		}
		st.closed = true
		return nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context) error {
		switch {
		case p.Kind != transferKindImport:
			return errors.New("an export has no parts to complete")
		case st.closed:
			return nil
		case st.cancelled:
			return errors.New("the transfer was cancelled")
		case st.expired:
			return errors.New("the transfer expired")
		}
		return nil
	}})
}

// awaitParts waits until the import's part list is closed, it is cancelled, or its timer expires it.
// stop says the import ends here, with the status end.
func awaitParts(ctx workflow.Context, p DatabaseTransferParams, st *transferState) (end string, stop bool) {
	tctx, stopTimer := workflow.WithCancel(ctx)
	defer stopTimer()
	timer := workflow.NewTimer(tctx, p.AwaitParts)
	workflow.Go(ctx, func(ctx workflow.Context) {
		if timer.Get(ctx, nil) == nil {
			st.expired = true
		}
	})
	_ = workflow.Await(ctx, func() bool { return !st.closing && (st.closed || st.cancelled || st.expired) })
	switch {
	case st.closed:
		st.status = "running"
		upsertTransferMemo(ctx, st)
		return "", false
	case st.cancelled:
		return transferCancelled, true
	}
	return transferExpired, true
}

// runTransfer runs the export or import until it ends or is cancelled, and answers the end to record.
func runTransfer(ctx workflow.Context, p DatabaseTransferParams, st *transferState) TransferEnd {
	end := TransferEnd{TransferID: p.TransferID, Status: transferCompleted}
	if st.cancelled {
		end.Status = transferCancelled
		return end
	}
	rctx, stop := workflow.WithCancel(ctx)
	defer stop()
	fut := workflow.ExecuteActivity(workflow.WithActivityOptions(rctx, transferWork), ActivityRunTransfer, p.TransferID)
	done := false
	var err error
	workflow.Go(ctx, func(ctx workflow.Context) {
		err = fut.Get(ctx, nil)
		done = true
	})
	_ = workflow.Await(ctx, func() bool { return done || st.cancelled })
	if !done {
		stop()
		_ = workflow.Await(ctx, func() bool { return done })
	}
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
	case temporal.IsCanceledError(err):
		end.Status = transferCancelled
	case errors.As(err, &appErr) && strings.HasPrefix(appErr.Type(), ErrorTypeTransferUnretryable):
		end.Status, end.ErrorCode, end.ErrorMessage = transferFailed, strings.TrimPrefix(appErr.Type(), ErrorTypeTransferUnretryable), appErr.Message()
	default:
		end.Status, end.ErrorCode = transferFailed, "transfer_failed"
		end.ErrorMessage = fmt.Sprintf("the %s stopped after its retries: %v", p.Kind, rootMessage(err))
	}
	return end
}

// rootMessage is the innermost error's message (the activity's own, not Temporal's wrapping).
func rootMessage(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// finishTransfer records the transfer's end (ActivityFinishTransfer, idempotent) and shows it in the memo.
func finishTransfer(ctx workflow.Context, st *transferState, end TransferEnd) error {
	actx := workflow.WithActivityOptions(ctx, transferBookkeeping)
	if err := workflow.ExecuteActivity(actx, ActivityFinishTransfer, end).Get(ctx, nil); err != nil {
		return fmt.Errorf("record the end of database transfer %s: %w", end.TransferID, err)
	}
	st.status = end.Status
	upsertTransferMemo(ctx, st)
	return workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}

// keepArchive keeps a completed export's archive for KeepArchive, or until cancelled, then deletes it.
func keepArchive(ctx workflow.Context, p DatabaseTransferParams, st *transferState) error {
	ok, err := workflow.AwaitWithTimeout(ctx, p.KeepArchive, func() bool { return st.cancelled })
	if err != nil {
		return fmt.Errorf("keep the archive of database transfer %s: %w", p.TransferID, err)
	}
	end := TransferEnd{TransferID: p.TransferID, Status: transferExpired}
	if ok {
		end.Status = transferCancelled
	}
	return finishTransfer(ctx, st, end)
}
