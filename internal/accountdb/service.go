package accountdb

import (
	"context"
	"fmt"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
	svctemporal "github.com/svcplatform/svc/temporal"
	"github.com/svcplatform/svc/workflows"
)

// Engine starts workflows, or signals the running one (a Temporal client).
type Engine interface {
	SignalWithStartWorkflow(ctx context.Context, workflowID, signalName string, signalArg any,
		options sdkclient.StartWorkflowOptions, workflow any, workflowArgs ...any) (sdkclient.WorkflowRun, error)
}

// Service is what the API asks of account databases: it records the request in the account's row and
// hands the work to the account's DatabaseWorkflow (database/<accountId>), starting it or joining the
// running one.
type Service struct {
	Cluster *Cluster
	// Engine starts the workflows; nil answers provisioning and deprovisioning 503.
	Engine Engine
}

// Provision asks for the account's database. A ready database is answered with its status and
// accepted false; otherwise the workflow is started (or joined) and the row is answered, accepted true.
func (s *Service) Provision(ctx context.Context, accountID string) (*Info, bool, error) {
	r, err := s.Cluster.RequestProvision(ctx, accountID)
	if err != nil {
		return nil, false, err
	}
	if r.Status == schema.DatabaseReady {
		info, err := s.Cluster.Status(ctx, accountID)
		return info, false, err
	}
	if err := s.start(ctx, accountID, workflows.DatabaseOpProvision, client.OpDatabasesAccountProvision); err != nil {
		return nil, false, err
	}
	return &Info{Row: r}, true, nil
}

// Deprovision asks to drop the account's database. A deleted database is answered as it is, accepted
// false; otherwise the row is marked deprovisioning and the workflow started (or joined), accepted true.
// An account that never provisioned one is an svcerr NotFound.
func (s *Service) Deprovision(ctx context.Context, accountID string) (*Info, bool, error) {
	r, err := s.Cluster.RequestDeprovision(ctx, accountID)
	if err != nil {
		return nil, false, err
	}
	if r == nil {
		return nil, false, svcerr.NotFoundf("the account has no database: POST /v1/databases/account")
	}
	if r.Status == schema.DatabaseDeleted {
		return &Info{Row: r}, false, nil
	}
	if err := s.start(ctx, accountID, workflows.DatabaseOpDeprovision, client.OpDatabasesAccountDeprovision); err != nil {
		return nil, false, err
	}
	return &Info{Row: r}, true, nil
}

// start signals op to the account's database workflow, starting it when none runs.
func (s *Service) start(ctx context.Context, accountID, op, operationID string) error {
	if s.Engine == nil {
		return svcerr.New(svcerr.Unavailable, "managed databases are not configured on this server (no workflow engine)")
	}
	opts := sdkclient.StartWorkflowOptions{
		ID:                    workflows.DatabaseWorkflowID(accountID),
		TaskQueue:             workflows.TaskQueue,
		TypedSearchAttributes: svctemporal.ResourceAttributes(accountID, nil, client.ServiceDatabase, operationID),
		StaticSummary:         fmt.Sprintf("database of %s: %s", accountID, op),
	}
	_, err := s.Engine.SignalWithStartWorkflow(ctx, opts.ID, workflows.SignalDatabaseOp, op, opts,
		workflows.DatabaseWorkflowName, workflows.DatabaseParams{AccountID: accountID, Op: op})
	if err != nil {
		return fmt.Errorf("start the database workflow of account %s: %w", accountID, err)
	}
	return nil
}
