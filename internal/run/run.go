// Package run keeps the read model of durable runs in PostgreSQL and starts their Temporal workflows.
// The workflow is the source of truth for execution; the row follows it (queued, running, final status).
package run

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/outbox"
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

// MarkRunning moves a queued (or approved, awaiting_approval) run to running; a run already past that is
// left alone. When the run is already final (cancelled before its workflow got to it, say), it returns the
// row, and the run must not perform its operation.
func (s *Store) MarkRunning(ctx context.Context, id string) (*schema.Run, error) {
	res, err := s.db.NewUpdate().Model((*schema.Run)(nil)).
		Set("status = ?", client.RunRunning).Set("updated_at = now()").Set("started_at = now()").
		Where("id = ? AND status IN (?)", id, bun.List([]string{client.RunQueued, client.RunAwaitingApproval})).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("mark run %s running: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil, nil
	}
	r, err := s.ByID(ctx, id)
	if err != nil || !finished(r.Status) {
		return nil, err // running already (a retried attempt moved it), or missing
	}
	return r, nil
}

// Finish records a final outcome once, with its run.succeeded, run.failed or run.cancelled event; later
// calls for a finished run change nothing.
func (s *Store) Finish(ctx context.Context, o workflows.RunOutcome) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		r := new(schema.Run)
		q := tx.NewUpdate().Model(r).
			Set("status = ?", o.Status).Set("updated_at = now()").Set("completed_at = now()").
			Where("id = ?", o.RunID).Where("status NOT IN (?)", bun.List([]string{client.RunSucceeded, client.RunFailed, client.RunCancelled}))
		if len(o.Output) > 0 {
			q = q.Set("output = ?", string(o.Output))
		}
		if o.ErrorCode != "" {
			q = q.Set("error_code = ?", storableText(o.ErrorCode)).Set("error_message = ?", storableText(o.ErrorMessage))
		}
		err := q.Returning("*").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return (&Store{db: tx}).mustExist(ctx, o.RunID, noRows{})
		}
		if err != nil {
			return fmt.Errorf("finish run %s: %w", o.RunID, err)
		}
		return outbox.Emit(ctx, tx, Event(finishedEvents[r.Status], r))
	})
}

// storableText is s as a text column can hold it: without NUL bytes and as valid UTF-8. Error messages
// quote what services and inputs said, which must never keep a run from being recorded.
func storableText(s string) string {
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
}

var finishedEvents = map[string]string{
	client.RunSucceeded: outbox.RunSucceeded, client.RunFailed: outbox.RunFailed, client.RunCancelled: outbox.RunCancelled,
}

// Event is the outbox event of the given type about the run.
func Event(typ string, r *schema.Run) outbox.Event {
	return outbox.Event{AccountID: r.AccountID, ProjectID: r.ProjectID, Type: typ, Subject: r.ID, Data: ToWire(r)}
}

// noRows is the sql.Result of an update that changed nothing.
type noRows struct{}

func (noRows) LastInsertId() (int64, error) { return 0, nil }
func (noRows) RowsAffected() (int64, error) { return 0, nil }

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
	CancelWorkflow(ctx context.Context, workflowID, runID string) error
	SignalWithStartWorkflow(ctx context.Context, workflowID, signalName string, signalArg any,
		opts sdkclient.StartWorkflowOptions, workflow any, workflowArgs ...any) (sdkclient.WorkflowRun, error)
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Service creates runs: a row, then its workflow.
type Service struct {
	store    *Store
	temporal Engine
	catalog  *catalog.Catalog
}

// NewService returns a Service for the built-in services' runs.
func NewService(store *Store, engine Engine) *Service {
	return &Service{store: store, temporal: engine, catalog: catalog.Builtin()}
}

// WithCatalog makes the service validate and start runs of cat's services (the built-in ones and a
// deployment's external services). It returns s.
func (s *Service) WithCatalog(cat *catalog.Catalog) *Service {
	s.catalog = cat
	return s
}

// Catalog returns the services the service starts runs of.
func (s *Service) Catalog() *catalog.Catalog { return s.catalog }

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
	// ApprovalID, when set, makes the run wait in awaiting_approval for that approval, created with it.
	ApprovalID string
	// ApprovalTTL is how long the approval waits (approval.DefaultTTL when zero).
	ApprovalTTL time.Duration
}

// Validate checks the service, operation and input against cat: the operation must be available and
// started as a run (a managed-workflows operation, or an external service's operation). It returns the
// input as JSON and the operation. Errors name the field.
func Validate(cat *catalog.Catalog, serviceID, operationID string, input map[string]any) (json.RawMessage, catalog.Operation, error) {
	svc, ok := cat.Lookup(serviceID)
	if !ok {
		return nil, catalog.Operation{}, svcerr.Invalid("serviceId", "unknown service %q", serviceID)
	}
	op, ok := svc.Operation(operationID)
	if !ok {
		return nil, op, svcerr.Invalid("operationId", "service %q has no operation %q", serviceID, operationID)
	}
	if (op.Kind != catalog.KindRun && op.Kind != KindInvoke) || !op.Available {
		return nil, op, svcerr.Invalid("operationId", "operation %q of %q cannot be started as a run", operationID, serviceID)
	}
	if input == nil {
		input = map[string]any{}
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, op, svcerr.Invalid("input", "input is not valid JSON")
	}
	if operationID == client.OperationSleep && serviceID == client.ServiceManagedWorkflows {
		if _, err := workflows.SleepDuration(raw); err != nil {
			return nil, op, svcerr.Invalid("input.seconds", "%s", err.Error())
		}
	}
	return raw, op, nil
}

// KindInvoke is the catalog kind of external services' operations (see gateway.KindInvoke).
const KindInvoke = "invoke"

// Create stores the run and starts its workflow run/<id> (and, for a run that needs approval, its
// approval and workflow approval/<id>). Creating the same id again (a retried request) finds the existing
// rows and never starts a second workflow. When a start fails, rows younger than StartGrace are removed only if Temporal
// confirms no run workflow exists; if that cannot be known, they stay and the caller is told to retry
// with the same Idempotency-Key, which derives the same ids and completes the start.
func (s *Service) Create(ctx context.Context, p CreateParams) (*schema.Run, error) {
	input, _, err := Validate(s.catalog, p.ServiceID, p.OperationID, p.Input)
	if err != nil {
		return nil, err
	}
	r := &schema.Run{
		ID: p.ID, AccountID: p.Scope.AccountID, ProjectID: p.Scope.ProjectID, KeyID: p.KeyID,
		ServiceID: p.ServiceID, OperationID: p.OperationID, Status: client.RunQueued, Input: input,
		WorkflowID: workflows.RunWorkflowID(p.ID),
	}
	var apr *schema.Approval
	if p.ApprovalID != "" {
		r.Status, r.ApprovalID = client.RunAwaitingApproval, &p.ApprovalID
		apr = s.approvalFor(r, p)
	}
	inserted, err := s.insert(ctx, r, apr)
	if err != nil {
		return nil, err
	}
	if !inserted {
		existing, err := s.store.Get(ctx, p.Scope, p.ID)
		if err != nil {
			return nil, err
		}
		if finished(existing.Status) {
			return existing, nil // a retried request of a run that ended (cancelled before it started, say)
		}
	}
	if err := s.startAll(ctx, r, apr); err != nil {
		s.forgetIfNeverStarted(context.WithoutCancel(ctx), r)
		return nil, err
	}
	if inserted {
		return r, nil // as inserted: the workflow may already have moved it on, which GET shows
	}
	return s.store.Get(ctx, p.Scope, p.ID) // a retried request: answer the run as it is now
}

// approvalFor is the approval row of a run that waits for one.
func (s *Service) approvalFor(r *schema.Run, p CreateParams) *schema.Approval {
	ttl := p.ApprovalTTL
	if ttl <= 0 {
		ttl = approval.DefaultTTL
	}
	return &schema.Approval{
		ID: p.ApprovalID, AccountID: r.AccountID, ProjectID: r.ProjectID, KeyID: r.KeyID, Kind: approval.KindRun,
		ServiceID: r.ServiceID, OperationID: r.OperationID, Input: r.Input, RunID: &r.ID, Status: client.ApprovalPending,
		WorkflowID: workflows.ApprovalWorkflowID(p.ApprovalID), ExpiresAt: time.Now().Add(ttl).UTC(),
	}
}

// insert writes the run, its approval and their events in one transaction; it reports whether the run
// is new.
func (s *Service) insert(ctx context.Context, r *schema.Run, apr *schema.Approval) (bool, error) {
	inserted := false
	err := s.store.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewInsert().Model(r).On("CONFLICT (id) DO NOTHING").Returning("created_at, updated_at").Exec(ctx)
		if err != nil {
			return fmt.Errorf("insert run: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if apr != nil { // the retry must start the approval the first attempt stored
				return tx.NewSelect().Model(apr).WherePK().Scan(ctx)
			}
			return nil
		}
		inserted = true
		if apr != nil {
			if err := approval.Insert(ctx, tx, apr); err != nil {
				return err
			}
		}
		return outbox.Emit(ctx, tx, Event(outbox.RunCreated, r))
	})
	if err != nil {
		return false, fmt.Errorf("create run: %w", err)
	}
	return inserted, nil
}

// startAll starts the run's workflow, then its approval's (which signals the run when decided).
func (s *Service) startAll(ctx context.Context, r *schema.Run, apr *schema.Approval) error {
	if err := s.start(ctx, r, apr); err != nil {
		return err
	}
	if apr == nil {
		return nil
	}
	return approval.Start(ctx, s.temporal, apr)
}

// CreateFromApproval creates and starts the run of an approved service action; its id derives from the
// approval's, so a retried activity finds the run its first attempt made. It returns the run id.
func (s *Service) CreateFromApproval(ctx context.Context, a *schema.Approval) (string, error) {
	r := &schema.Run{
		ID: ids.Derive(ids.Run, a.ID), AccountID: a.AccountID, ProjectID: a.ProjectID, KeyID: a.KeyID,
		ServiceID: a.ServiceID, OperationID: a.OperationID, Status: client.RunQueued, Input: a.Input,
	}
	r.WorkflowID = workflows.RunWorkflowID(r.ID)
	err := s.store.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewInsert().Model(r).On("CONFLICT (id) DO NOTHING").Returning("created_at, updated_at").Exec(ctx)
		if err != nil {
			return fmt.Errorf("insert run: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if err := approval.NewStore(tx).SetRun(ctx, tx, a.ID, r.ID); err != nil {
			return err
		}
		return outbox.Emit(ctx, tx, Event(outbox.RunCreated, r))
	})
	if err != nil {
		return "", fmt.Errorf("create the approved run: %w", err)
	}
	if err := s.start(ctx, r, nil); err != nil {
		return "", err
	}
	return r.ID, nil
}

// start starts the run's workflow; apr is the approval it waits for, if any.
func (s *Service) start(ctx context.Context, r *schema.Run, apr *schema.Approval) error {
	return s.startWorkflow(ctx, r, apr, "")
}

// startWorkflow starts the run's workflow; with lost set, the workflow only records the run failed with
// that reason (workflows.RunParams.Lost).
func (s *Service) startWorkflow(ctx context.Context, r *schema.Run, apr *schema.Approval, lost string) error {
	opts := sdkclient.StartWorkflowOptions{
		ID:                       r.WorkflowID,
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		TypedSearchAttributes:    svctemporal.ResourceAttributes(r.AccountID, r.ProjectID, r.ServiceID, r.OperationID),
		Memo:                     map[string]any{"runId": r.ID, "serviceId": r.ServiceID, "operationId": r.OperationID, "status": r.Status},
		StaticSummary:            fmt.Sprintf("run %s: %s.%s", r.ID, r.ServiceID, r.OperationID),
	}
	params := workflows.RunParams{RunID: r.ID, ServiceID: r.ServiceID, OperationID: r.OperationID, Input: r.Input, Lost: lost}
	if r.ApprovalID != nil {
		params.ApprovalID = *r.ApprovalID
	}
	if apr != nil {
		params.ApprovalExpiresAt = apr.ExpiresAt
	}
	if svc, ok := s.catalog.Lookup(r.ServiceID); ok {
		if op, ok := svc.Operation(r.OperationID); ok && op.Kind == KindInvoke {
			params.External = true
		}
	}
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

// forgetIfNeverStarted removes a queued row whose workflow Temporal confirms does not exist, if it is
// younger than StartGrace. An older one (its request lived that long, or this is a retry) is left to the
// sweep, which may be starting it at this moment.
func (s *Service) forgetIfNeverStarted(ctx context.Context, r *schema.Run) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := s.temporal.DescribeWorkflowExecution(ctx, r.WorkflowID, "")
	var notFound *serviceerror.NotFound
	if !errors.As(err, &notFound) {
		return // it exists, or we cannot tell: keep the row for the retry
	}
	_ = s.store.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().Model(r).WherePK().Where("status = ?", client.RunQueued).
			Where("created_at > now() - make_interval(secs => ?)", StartGrace.Seconds()).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		// The run never existed for anyone: its run.created event goes with it.
		_, err = tx.NewDelete().Model((*schema.Event)(nil)).Where("id = ?", Event(outbox.RunCreated, r).ID()).Exec(ctx)
		return err
	})
}

// ToWire converts a row to the API's shape.
func ToWire(r *schema.Run) client.Run {
	out := client.Run{
		ID: r.ID, ServiceID: r.ServiceID, OperationID: r.OperationID, Status: r.Status, Input: map[string]any{},
		ApprovalID: r.ApprovalID, AutomationID: r.AutomationID, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		ChargedCredits: catalog.Credits(r.ChargedMillicredits),
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

// ByID returns the run with the id in any scope (for the worker, which acts for the run's workflow).
func (s *Store) ByID(ctx context.Context, id string) (*schema.Run, error) {
	r := new(schema.Run)
	err := s.db.NewSelect().Model(r).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %s: %w", id, ErrRunMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("load run %s: %w", id, err)
	}
	return r, nil
}

// ErrHoldClosed means a run's hold was released (or settled) before its call's answer was recorded.
var ErrHoldClosed = errors.New("the run's credit hold is no longer open")

// RecordInvocation stores what an external call answered (output; nil keeps the row's) and charged,
// committing settle (the settlement of the run's hold holdID) in the same transaction, so a retried
// activity finds the call already made and paid. The hold must still be open: one released meanwhile (the
// run was cancelled or timed out) fails with ErrHoldClosed and records nothing.
func (s *Store) RecordInvocation(ctx context.Context, id string, output json.RawMessage, charged int64, holdID string, settle *bun.RawQuery) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if settle != nil {
			var status string
			err := tx.NewRaw("SELECT status FROM credit_holds WHERE id = ? FOR UPDATE", holdID).Scan(ctx, &status)
			if err != nil {
				return fmt.Errorf("lock the hold of run %s: %w", id, err)
			}
			if status != "held" {
				return fmt.Errorf("run %s: %w", id, ErrHoldClosed)
			}
			if _, err := settle.Conn(tx).Exec(ctx); err != nil {
				return fmt.Errorf("settle run %s: %w", id, err)
			}
		}
		q := tx.NewUpdate().Model((*schema.Run)(nil)).Set("charged_millicredits = ?", charged).Set("updated_at = now()").
			Where("id = ?", id).Where("status NOT IN (?)", bun.List([]string{client.RunSucceeded, client.RunFailed, client.RunCancelled}))
		if output != nil {
			q = q.Set("output = ?", string(output))
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("record the call of run %s: %w", id, err)
		}
		return nil
	})
}
