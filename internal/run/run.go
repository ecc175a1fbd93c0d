// Package run keeps the read model of durable runs in PostgreSQL and starts their Temporal workflows.
// The workflow is the source of truth for execution; the row follows it (queued, running, final status).
package run

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	svctemporal "github.com/svcplatform/svc/temporal"
	"github.com/svcplatform/svc/workflows"
)

// Store reads and writes run rows. Finished runs never change, so reads of them are kept in a bounded
// in-memory cache.
type Store struct {
	db       bun.IDB
	finished *finishedCache
}

// NewStore returns a Store on db that caches up to 10,000 finished runs for reads.
func NewStore(db bun.IDB) *Store { return &Store{db: db, finished: newFinishedCache(10000)} }

// NewWriteStore returns a Store for writers (the worker's activities), which never read through a cache.
func NewWriteStore(db bun.IDB) *Store { return &Store{db: db, finished: newFinishedCache(0)} }

// Get returns the run with the id in the scope, or not_found. The caller must not modify the result.
func (s *Store) Get(ctx context.Context, scope tenant.Scope, id string) (*schema.Run, error) {
	r, _, err := s.lookup(ctx, scope, id)
	return r, err
}

// Read returns the API form of the run with the id in the scope, or not_found.
func (s *Store) Read(ctx context.Context, scope tenant.Scope, id string) (client.Run, error) {
	r, cached, err := s.lookup(ctx, scope, id)
	if err != nil {
		return client.Run{}, err
	}
	if cached != nil {
		return cached.wire, nil
	}
	return ToWire(r), nil
}

func (s *Store) lookup(ctx context.Context, scope tenant.Scope, id string) (*schema.Run, *cachedRun, error) {
	if e, ok := s.finished.get(id); ok {
		if !inScope(e.row, scope) {
			return nil, nil, svcerr.NotFoundf("no run %q", id)
		}
		return e.row, &e, nil
	}
	r := new(schema.Run)
	err := scope.Where(s.db.NewSelect().Model(r)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, svcerr.NotFoundf("no run %q", id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load run: %w", err)
	}
	if finished(r.Status) {
		e := s.finished.put(r)
		return r, &e, nil
	}
	return r, nil, nil
}

func inScope(r *schema.Run, scope tenant.Scope) bool {
	if r.AccountID != scope.AccountID {
		return false
	}
	if r.ProjectID == nil || scope.ProjectID == nil {
		return r.ProjectID == nil && scope.ProjectID == nil
	}
	return *r.ProjectID == *scope.ProjectID
}

func finished(status string) bool {
	return status == client.RunSucceeded || status == client.RunFailed || status == client.RunCancelled
}

// ErrRunMissing means the run's row does not exist in this database: the workflow was picked up by a
// worker of another deployment (same Temporal namespace and task queue, another database).
var ErrRunMissing = errors.New("run row not found in this database")

// MarkRunning moves a queued run to running; a run already past queued is left alone.
func (s *Store) MarkRunning(ctx context.Context, id string) error {
	res, err := s.db.NewUpdate().Model((*schema.Run)(nil)).
		Set("status = ?", client.RunRunning).Set("updated_at = now()").
		Where("id = ? AND status = ?", id, client.RunQueued).Exec(ctx)
	if err != nil {
		return fmt.Errorf("mark run %s running: %w", id, err)
	}
	return s.mustExist(ctx, id, res)
}

// Finish records a final outcome once; later calls for a finished run change nothing.
func (s *Store) Finish(ctx context.Context, o workflows.RunOutcome) error {
	q := s.db.NewUpdate().Model((*schema.Run)(nil)).
		Set("status = ?", o.Status).Set("updated_at = now()").Set("completed_at = now()").
		Where("id = ?", o.RunID).Where("status NOT IN (?)", bun.List([]string{client.RunSucceeded, client.RunFailed, client.RunCancelled}))
	if len(o.Output) > 0 {
		q = q.Set("output = ?", string(o.Output))
	}
	if o.ErrorCode != "" {
		q = q.Set("error_code = ?", o.ErrorCode).Set("error_message = ?", o.ErrorMessage)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return fmt.Errorf("finish run %s: %w", o.RunID, err)
	}
	return s.mustExist(ctx, o.RunID, res)
}

// mustExist turns "no row changed" into ErrRunMissing when the run is not there at all.
func (s *Store) mustExist(ctx context.Context, id string, res sql.Result) error {
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	exists, err := s.db.NewSelect().Model((*schema.Run)(nil)).Where("id = ?", id).Exists(ctx)
	if err != nil {
		return fmt.Errorf("check run %s: %w", id, err)
	}
	if !exists {
		return fmt.Errorf("run %s: %w", id, ErrRunMissing)
	}
	return nil
}

// Engine is the part of the Temporal client that runs need (sdkclient.Client has it).
type Engine interface {
	ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
}

// Service creates runs: a row, then its workflow.
type Service struct {
	store    *Store
	temporal Engine
}

// NewService returns a Service.
func NewService(store *Store, engine Engine) *Service {
	return &Service{store: store, temporal: engine}
}

// Store returns the service's store.
func (s *Service) Store() *Store { return s.store }

// CreateParams is a validated request to start a run.
type CreateParams struct {
	ID          string
	Scope       tenant.Scope
	KeyID       string
	ServiceID   string
	OperationID string
	Input       map[string]any
}

// Validate checks the service, operation and input; errors name the field.
func Validate(serviceID, operationID string, input map[string]any) (json.RawMessage, error) {
	svc, ok := catalog.Lookup(serviceID)
	if !ok {
		return nil, svcerr.Invalid("serviceId", "unknown service %q", serviceID)
	}
	op, ok := svc.Operation(operationID)
	if !ok {
		return nil, svcerr.Invalid("operationId", "service %q has no operation %q", serviceID, operationID)
	}
	if op.Kind != catalog.KindRun || !op.Available {
		return nil, svcerr.Invalid("operationId", "operation %q of %q cannot be started as a run", operationID, serviceID)
	}
	if input == nil {
		input = map[string]any{}
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, svcerr.Invalid("input", "input is not valid JSON")
	}
	if operationID == client.OperationSleep {
		if _, err := workflows.SleepDuration(raw); err != nil {
			return nil, svcerr.Invalid("input.seconds", "%s", err.Error())
		}
	}
	return raw, nil
}

// Create stores the run and starts its workflow run/<id>. Creating the same id again (a retried request)
// finds the existing row and never starts a second workflow. When the start fails, the row is removed only
// if Temporal confirms no workflow exists; if that cannot be known, the row stays queued and the caller is
// told to retry with the same Idempotency-Key, which derives the same id and completes the start.
func (s *Service) Create(ctx context.Context, p CreateParams) (*schema.Run, error) {
	input, err := Validate(p.ServiceID, p.OperationID, p.Input)
	if err != nil {
		return nil, err
	}
	r := &schema.Run{
		ID: p.ID, AccountID: p.Scope.AccountID, ProjectID: p.Scope.ProjectID, KeyID: p.KeyID,
		ServiceID: p.ServiceID, OperationID: p.OperationID, Status: client.RunQueued, Input: input,
		WorkflowID: workflows.RunWorkflowID(p.ID),
	}
	res, err := s.store.db.NewInsert().Model(r).On("CONFLICT (id) DO NOTHING").Returning("created_at, updated_at").Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("insert run: %w", err)
	}
	inserted, _ := res.RowsAffected()
	if err := s.start(ctx, r); err != nil {
		s.forgetIfNeverStarted(context.WithoutCancel(ctx), r)
		return nil, err
	}
	if inserted == 1 {
		return r, nil // as inserted: the workflow may already have moved it on, which GET shows
	}
	return s.store.Get(ctx, p.Scope, p.ID) // a retried request: answer the run as it is now
}

func (s *Service) start(ctx context.Context, r *schema.Run) error {
	opts := sdkclient.StartWorkflowOptions{
		ID:                       r.WorkflowID,
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		TypedSearchAttributes:    searchAttributes(r),
		Memo:                     map[string]any{"runId": r.ID, "serviceId": r.ServiceID, "operationId": r.OperationID},
		StaticSummary:            fmt.Sprintf("run %s: %s.%s", r.ID, r.ServiceID, r.OperationID),
	}
	params := workflows.RunParams{RunID: r.ID, ServiceID: r.ServiceID, OperationID: r.OperationID, Input: r.Input}
	_, err := s.temporal.ExecuteWorkflow(ctx, opts, workflows.RunWorkflowName, params)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err == nil || errors.As(err, &started) {
		return nil // a retried request: the workflow exists (running or closed)
	}
	if s.workflowExists(context.WithoutCancel(ctx), r.WorkflowID) {
		return nil // the start reached Temporal although its answer did not reach us
	}
	return svcerr.New(svcerr.Unavailable, "the workflow engine did not accept the run; retry with the same Idempotency-Key")
}

// workflowExists asks Temporal whether the run's workflow was started.
func (s *Service) workflowExists(ctx context.Context, workflowID string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := s.temporal.DescribeWorkflowExecution(ctx, workflowID, "")
	return err == nil
}

// forgetIfNeverStarted removes a queued row whose workflow Temporal confirms does not exist.
func (s *Service) forgetIfNeverStarted(ctx context.Context, r *schema.Run) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := s.temporal.DescribeWorkflowExecution(ctx, r.WorkflowID, "")
	var notFound *serviceerror.NotFound
	if !errors.As(err, &notFound) {
		return // it exists, or we cannot tell: keep the row for the retry
	}
	_, _ = s.store.db.NewDelete().Model(r).WherePK().Where("status = ?", client.RunQueued).Exec(ctx)
}

func searchAttributes(r *schema.Run) temporal.SearchAttributes {
	updates := []temporal.SearchAttributeUpdate{
		svctemporal.KeyAccountID.ValueSet(r.AccountID),
		svctemporal.KeyServiceID.ValueSet(r.ServiceID),
		svctemporal.KeyOperationID.ValueSet(r.OperationID),
	}
	if r.ProjectID != nil {
		updates = append(updates, svctemporal.KeyProjectID.ValueSet(*r.ProjectID))
	}
	return temporal.NewSearchAttributes(updates...)
}

// ToWire converts a row to the API's shape.
func ToWire(r *schema.Run) client.Run {
	out := client.Run{
		ID: r.ID, ServiceID: r.ServiceID, OperationID: r.OperationID, Status: r.Status, Input: map[string]any{},
		ApprovalID: r.ApprovalID, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		ChargedCredits: float64(r.ChargedMillicredits) / catalog.MillicreditsPerCredit,
	}
	_ = json.Unmarshal(r.Input, &out.Input)
	if len(r.Output) > 0 {
		_ = json.Unmarshal(r.Output, &out.Output)
	}
	if r.ErrorCode != nil {
		out.Error = &client.RunError{Code: *r.ErrorCode, Message: deref(r.ErrorMessage)}
	}
	if r.CompletedAt != nil {
		t := r.CompletedAt.UTC()
		out.CompletedAt = &t
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
