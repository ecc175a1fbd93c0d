package dbtransfer

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
	svctemporal "github.com/svcplatform/svc/temporal"
	"github.com/svcplatform/svc/workflows"
)

// Engine is what the Service asks of Temporal.
type Engine interface {
	ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
	UpdateWorkflow(ctx context.Context, opts sdkclient.UpdateWorkflowOptions) (sdkclient.WorkflowUpdateHandle, error)
}

// Databases tells whether an account's database is ready (accountdb.Cluster).
type Databases interface {
	Row(ctx context.Context, accountID string) (*schema.AccountDatabase, error)
}

// Service is what the API asks of transfers: it records them and hands them to their workflows.
type Service struct {
	Store     *Store
	Engine    Engine
	Databases Databases
	// PublicKey is the archive key's public half (dbarchive.PublicKeyString), sent with archives.
	PublicKey string
}

// Create records a transfer of the account's ready database and starts its workflow; a replay of the
// request (the same id) answers the transfer recorded and joins the workflow already started.
func (s *Service) Create(ctx context.Context, id, accountID, kind string, allowUnsigned bool) (*schema.DatabaseTransfer, error) {
	r, err := s.Databases.Row(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if r == nil || r.Status != schema.DatabaseReady {
		return nil, svcerr.New(svcerr.Conflict, "the account has no ready database: provision it first (POST /v1/databases/account)")
	}
	t, err := s.Store.Create(ctx, id, accountID, kind, allowUnsigned)
	if err != nil {
		return nil, err
	}
	opts := sdkclient.StartWorkflowOptions{
		ID: workflows.DatabaseTransferWorkflowID(t.ID), TaskQueue: workflows.TaskQueue,
		WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: svctemporal.ResourceAttributes(accountID, nil, client.ServiceDatabase, client.OpDatabasesTransfersCreate),
		StaticSummary:         fmt.Sprintf("database %s of %s", kind, accountID),
		Memo:                  map[string]any{"accountId": accountID, "kind": kind},
	}
	o := s.Store.opts
	_, err = s.Engine.ExecuteWorkflow(ctx, opts, workflows.DatabaseTransferWorkflowName, workflows.DatabaseTransferParams{
		TransferID: t.ID, AccountID: accountID, Kind: kind, AwaitParts: o.AwaitParts, KeepArchive: o.KeepArchive})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &started) {
		return nil, svcerr.New(svcerr.Unavailable, "the transfer is recorded but its workflow did not start; retry with the same Idempotency-Key")
	}
	return t, nil
}

// Complete closes an import's part list through its workflow (the update UpdateTransferComplete) and
// answers the transfer; a list closed before is answered as it is.
func (s *Service) Complete(ctx context.Context, accountID, id string) (*schema.DatabaseTransfer, error) {
	t, err := s.Store.Get(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	if t.Kind != schema.TransferImport {
		return nil, svcerr.New(svcerr.Conflict, "database transfer %s is an export: only an import is completed by its client", id)
	}
	if t.Status == schema.TransferAwaitingParts {
		if err := s.closeParts(ctx, id); err != nil {
			return nil, err
		}
	}
	if t, err = s.Store.Get(ctx, accountID, id); err != nil {
		return nil, err
	}
	if t.Status == schema.TransferCancelled || t.Status == schema.TransferExpired {
		return nil, svcerr.New(svcerr.Conflict, "database transfer %s is %s: it cannot be completed", id, t.Status)
	}
	return t, nil
}

// closeParts sends the complete update and waits for its answer.
func (s *Service) closeParts(ctx context.Context, id string) error {
	h, err := s.Engine.UpdateWorkflow(ctx, sdkclient.UpdateWorkflowOptions{
		WorkflowID: workflows.DatabaseTransferWorkflowID(id), UpdateID: "complete", UpdateName: workflows.UpdateTransferComplete,
		WaitForStage: sdkclient.WorkflowUpdateStageCompleted})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	var appErr *temporal.ApplicationError
	var notFound *serviceerror.NotFound
	switch {
	case err == nil:
		return nil
	case errors.As(err, &appErr) && appErr.Type() == ErrorTypeParts:
		return svcerr.Invalid("parts", "%s", appErr.Message())
	case errors.As(err, &appErr):
		return svcerr.New(svcerr.Conflict, "database transfer %s cannot be completed: %s", id, appErr.Message())
	case errors.As(err, &notFound):
		return nil // the workflow has ended; the row says how
	}
	return svcerr.New(svcerr.Unavailable, "the transfer's workflow did not answer; retry: %v", err)
}

// Cancel asks the transfer's workflow to stop and clean up, and answers the transfer; accepted says
// the workflow has work to do (the answer is then 202).
func (s *Service) Cancel(ctx context.Context, accountID, id string) (t *schema.DatabaseTransfer, accepted bool, err error) {
	if t, err = s.Store.RequestCancel(ctx, accountID, id); err != nil {
		return nil, false, err
	}
	switch t.Status {
	case schema.TransferFailed, schema.TransferCancelled, schema.TransferExpired:
		return t, false, nil
	}
	err = s.Engine.SignalWorkflow(ctx, workflows.DatabaseTransferWorkflowID(id), "", workflows.SignalTransferCancel, nil)
	var notFound *serviceerror.NotFound
	if err != nil && !errors.As(err, &notFound) {
		return nil, false, svcerr.New(svcerr.Unavailable, "the cancel is recorded but did not reach the transfer's workflow; retry")
	}
	return t, true, nil
}

// Archive opens a completed export's archive.
func (s *Service) Archive(ctx context.Context, accountID, id string) (*schema.DatabaseTransfer, blob.Reader, error) {
	t, err := s.Store.Get(ctx, accountID, id)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case t.Kind != schema.TransferExport:
		return nil, nil, svcerr.New(svcerr.Conflict, "database transfer %s is an import: only an export has an archive to download", id)
	case t.Status != schema.TransferCompleted || t.ArchiveKey == nil || t.ArchiveBytes == nil:
		return nil, nil, svcerr.New(svcerr.Conflict, "database transfer %s is %s: its archive is downloadable once it is completed", id, t.Status).
			WithDetails("status", t.Status)
	}
	rc, err := s.Store.blobs.Open(ctx, *t.ArchiveKey)
	if err != nil {
		return nil, nil, fmt.Errorf("open the archive of database transfer %s: %w", id, err)
	}
	if rc.Size() != *t.ArchiveBytes {
		_ = rc.Close()
		return nil, nil, fmt.Errorf("archive of database transfer %s: blob of %d bytes, row of %d", id, rc.Size(), *t.ArchiveBytes)
	}
	return t, rc, nil
}

// Wire is the transfer with its parts as the API shows it.
func (s *Service) Wire(ctx context.Context, t *schema.DatabaseTransfer) (client.DatabaseTransfer, error) {
	var parts []schema.DatabaseTransferPart
	if t.Kind == schema.TransferImport {
		var err error
		if parts, err = s.Store.Parts(ctx, t.ID); err != nil {
			return client.DatabaseTransfer{}, err
		}
	}
	return ToWire(t, parts), nil
}
