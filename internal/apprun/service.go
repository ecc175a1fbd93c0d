package apprun

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// MaxArgsBytes bounds a run's args.
const MaxArgsBytes = 64 << 10

// DefaultWait is how long POST .../run waits for the run to end before answering it 202, still going.
const DefaultWait = 10 * time.Second

// WorkflowEngine is the part of the Temporal client the service needs (sdkclient.Client has it).
type WorkflowEngine interface {
	ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
	GetWorkflow(ctx context.Context, workflowID, runID string) sdkclient.WorkflowRun
}

// Service records runs, starts their workflows and reads them.
type Service struct {
	DB     *bun.DB
	Engine WorkflowEngine
	Apps   Apps
	// Inline, when set, executes runs in this process while they make no platform call (see Inline).
	Inline *Inline
	// Wait bounds how long Start waits for a run to end (DefaultWait when zero).
	Wait time.Duration
}

// ErrUnavailable answers run routes of a server without a workflow engine or the apps capability.
var ErrUnavailable = svcerr.New(svcerr.Unavailable, "app script runs are not configured here (a workflow engine and the apps capability are needed)")

// StartRequest is one run to start: RunID derives from the request's idempotency record, so a retried
// request finds the run its first attempt recorded.
type StartRequest struct {
	Scope   tenant.Scope
	KeyID   string
	RunID   string
	Slug    string
	Script  string
	Trigger string
	// Viewer is the frontend's signed-in viewer (trigger frontend); empty for the owner.
	Viewer string
	// Anonymous marks a frontend call without a signed-in viewer: refused (403).
	Anonymous bool
	Args      json.RawMessage
}

// Start runs the request's script: inline when the service has an Inline engine and the script makes no
// platform call (the run is recorded finished), otherwise by recording the run (queued) and starting
// workflow appscript/<id>, then waiting up to the service's wait for it to end. done reports whether the
// answered run has ended.
func (s *Service) Start(ctx context.Context, r StartRequest) (run *client.AppScriptRun, done bool, err error) {
	if s == nil || s.Engine == nil || s.Apps == nil {
		return nil, false, ErrUnavailable
	}
	app, row, err := s.prepare(ctx, r)
	if err != nil {
		return nil, false, err
	}
	if s.Inline != nil {
		if ran, err := s.runInline(ctx, app, row); err != nil || ran {
			return s.answer(ctx, r, row.ID, err)
		}
	}
	if row, err = insertRun(ctx, s.DB, r.Scope, row); err != nil {
		return nil, false, err
	}
	if !finished(row.Status) {
		if err := s.start(ctx, row); err != nil {
			return nil, false, err
		}
		s.wait(ctx, row.ID)
	}
	return s.answer(ctx, r, row.ID, nil)
}

// answer reads the run the request started, unless err.
func (s *Service) answer(ctx context.Context, r StartRequest, runID string, err error) (*client.AppScriptRun, bool, error) {
	if err != nil {
		return nil, false, err
	}
	return s.Get(ctx, r.Scope, r.Slug, runID)
}

// runInline tries the run in this process: ran reports that it finished there, or that a run of its id
// was recorded already (a retried request, answered that run: the attempt had no effect to undo).
func (s *Service) runInline(ctx context.Context, app *App, row *schema.AppScriptRun) (ran bool, err error) {
	source, err := s.Apps.Script(ctx, app, row.Script)
	if err != nil {
		return false, nil //nolint:nilerr // the workflow reads it again and records why it cannot
	}
	started := time.Now()
	res, ok := s.Inline.try(ctx, Script{Name: row.Script, Source: source}, Env{Permissions: app.Permissions, Args: row.Args, Ctx: runContext(row)})
	if !ok {
		return false, nil
	}
	row.StartedAt, row.Inline = &started, true
	if err := settle(row, res); err != nil {
		return false, err
	}
	return true, s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		done, err := tx.NewInsert().Model(row).On("CONFLICT (id) DO NOTHING").Exec(ctx)
		if err != nil {
			return fmt.Errorf("record inline run %s of script %s: %w", row.ID, row.Script, err)
		}
		if n, _ := done.RowsAffected(); n == 0 {
			return nil // an earlier or concurrent attempt of the request recorded it first
		}
		return emitFailed(ctx, tx, row)
	})
}

// recordIn validates the request and inserts its row queued in db (or finds the row of a retried
// request); a scheduled fire records its run in the fire's transaction.
func (s *Service) recordIn(ctx context.Context, db bun.IDB, r StartRequest) (*schema.AppScriptRun, error) {
	_, row, err := s.prepare(ctx, r)
	if err != nil {
		return nil, err
	}
	return insertRun(ctx, db, r.Scope, row)
}

// prepare validates the request against its app and answers the app and the run's row, queued.
func (s *Service) prepare(ctx context.Context, r StartRequest) (*App, *schema.AppScriptRun, error) {
	if err := validateStart(r); err != nil {
		return nil, nil, err
	}
	app, err := s.Apps.App(ctx, r.Scope, r.Slug)
	if err != nil {
		return nil, nil, err
	}
	if !slices.Contains(app.Scripts, r.Script) {
		return nil, nil, &svcerr.Error{Code: svcerr.NotFound, Param: "name", Message: fmt.Sprintf("app %s has no script %q in its manifest", app.Slug, r.Script)}
	}
	args := r.Args
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	return app, &schema.AppScriptRun{ID: r.RunID, AccountID: r.Scope.AccountID, ProjectID: r.Scope.ProjectID, AppID: app.ID, AppSlug: app.Slug,
		Script: r.Script, Trigger: r.Trigger, Viewer: r.Viewer, KeyID: r.KeyID, Status: schema.AppRunQueued, Args: args}, nil
}

// insertRun inserts row, or answers the row of the same id already recorded (a retried request).
func insertRun(ctx context.Context, db bun.IDB, scope tenant.Scope, row *schema.AppScriptRun) (*schema.AppScriptRun, error) {
	res, err := db.NewInsert().Model(row).On("CONFLICT (id) DO NOTHING").Returning("created_at").Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("record run %s of script %s: %w", row.ID, row.Script, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return load(ctx, db, scope, row.ID)
	}
	return row, nil
}

// validateStart checks the request's trigger, viewer and args.
func validateStart(r StartRequest) error {
	switch {
	case r.Anonymous:
		return svcerr.New(svcerr.Forbidden, "anonymous viewers cannot run scripts: sign in")
	case r.Trigger != schema.AppRunByOwner && r.Trigger != schema.AppRunByFrontend && r.Trigger != schema.AppRunBySchedule:
		return svcerr.Invalid("trigger", "trigger is owner, frontend or schedule")
	case r.Trigger == schema.AppRunByFrontend && r.Viewer == "":
		return svcerr.Invalid("viewer", "a frontend run needs its signed-in viewer")
	case len(r.Args) > MaxArgsBytes:
		return svcerr.Invalid("args", "args has at most %d bytes of JSON", MaxArgsBytes)
	case len(r.Args) > 0 && !json.Valid(r.Args):
		return svcerr.Invalid("args", "args is not valid JSON")
	}
	return nil
}

// start starts the run's workflow; a workflow already started (a retried request) is fine.
func (s *Service) start(ctx context.Context, row *schema.AppScriptRun) error {
	return startRun(ctx, s.Engine, row)
}

// Starter starts workflows (sdkclient.Client and run.Engine have it).
type Starter interface {
	ExecuteWorkflow(ctx context.Context, opts sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
}

// startRun starts the workflow appscript/<id> of row with engine.
func startRun(ctx context.Context, engine Starter, row *schema.AppScriptRun) error {
	_, err := engine.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: workflows.AppScriptWorkflowID(row.ID), TaskQueue: workflows.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE, WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes: workflows.ResourceAttributes(row.AccountID, row.ProjectID, client.ServiceManagedAgents, client.OpAppsScriptsRun),
		Memo:                  map[string]any{"status": row.Status, "app": row.AppSlug, "script": row.Script}},
		workflows.AppScriptWorkflowName, workflows.AppScriptParams{RunID: row.ID})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &already) {
		return fmt.Errorf("start the workflow of app script run %s: %w", row.ID, err)
	}
	return nil
}

// wait waits up to the service's wait for the run's workflow to end (a timeout is no error: the run is
// answered as it is then).
func (s *Service) wait(ctx context.Context, runID string) {
	wctx, cancel := context.WithTimeout(ctx, cmpDuration(s.Wait, DefaultWait))
	defer cancel()
	_ = s.Engine.GetWorkflow(wctx, workflows.AppScriptWorkflowID(runID), "").Get(wctx, nil)
}

func cmpDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// load reads a run of the scope (404 for another account's).
func load(ctx context.Context, db bun.IDB, scope tenant.Scope, id string) (*schema.AppScriptRun, error) {
	row := new(schema.AppScriptRun)
	err := scope.Where(db.NewSelect().Model(row)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("app script run %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read app script run %s: %w", id, err)
	}
	return row, nil
}

// Get reads a run of the scope's app slug; done reports whether it has ended.
func (s *Service) Get(ctx context.Context, scope tenant.Scope, slug, id string) (*client.AppScriptRun, bool, error) {
	if s == nil || s.DB == nil {
		return nil, false, ErrUnavailable
	}
	row, err := load(ctx, s.DB, scope, id)
	if err != nil {
		return nil, false, err
	}
	if row.AppSlug != slug {
		return nil, false, svcerr.NotFoundf("app script run %s not found", id)
	}
	w := ToWire(row)
	return &w, finished(row.Status), nil
}

func finished(status string) bool {
	return status == schema.AppRunSucceeded || status == schema.AppRunFailed
}

// List lists the runs of the scope's app slug (this app, not an earlier one of the slug), newest first;
// an app the scope does not own is 404.
func (s *Service) List(ctx context.Context, scope tenant.Scope, slug string, pg page.Params) ([]client.AppScriptRun, *string, error) {
	if s == nil || s.DB == nil || s.Apps == nil {
		return nil, nil, ErrUnavailable
	}
	app, err := s.Apps.App(ctx, scope, slug)
	if err != nil {
		return nil, nil, fmt.Errorf("list the runs of app %s: %w", slug, err)
	}
	rows := []schema.AppScriptRun{}
	// By id too: an app deleted and made again under its slug starts with no runs.
	q := scope.Where(s.DB.NewSelect().Model(&rows)).Where("app_slug = ? AND app_id = ?", slug, app.ID)
	if pg.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", pg.After.CreatedAt, pg.After.ID)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(pg.Limit + 1)).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list the runs of app %s: %w", slug, err)
	}
	rows, next := page.Next(pg, rows, func(r schema.AppScriptRun) page.Cursor { return page.Cursor{CreatedAt: r.CreatedAt, ID: r.ID} })
	out := make([]client.AppScriptRun, 0, len(rows))
	for i := range rows {
		out = append(out, ToWire(&rows[i]))
	}
	return out, next, nil
}

// ToWire is the API's view of a run.
func ToWire(r *schema.AppScriptRun) client.AppScriptRun {
	out := client.AppScriptRun{ID: r.ID, App: r.AppSlug, Script: r.Script, Trigger: r.Trigger, Status: r.Status, Args: r.Args,
		Result: r.Result, Log: []string{}, Error: r.Error, HostCalls: r.HostCalls, Inline: r.Inline,
		CreatedAt: r.CreatedAt.UTC(), StartedAt: r.StartedAt, FinishedAt: r.FinishedAt}
	if !r.Inline {
		out.WorkflowID = workflows.AppScriptWorkflowID(r.ID)
	}
	if len(out.Result) == 0 {
		out.Result = json.RawMessage(`null`)
	}
	if r.Log != "" && json.Unmarshal([]byte(r.Log), &out.Log) != nil {
		out.Log = []string{r.Log}
	}
	return out
}

// Sweep starts the workflows of runs still queued settle after they were recorded (a request that died
// between its commit and the start); starting is idempotent. It answers how many it handed over.
func (s *Service) Sweep(ctx context.Context, settle time.Duration, limit int) (int, error) {
	if s == nil || s.Engine == nil {
		return 0, nil
	}
	var rows []schema.AppScriptRun
	if err := s.DB.NewSelect().Model(&rows).Where("status = ? AND created_at < ?", schema.AppRunQueued, time.Now().Add(-settle)).
		Order("created_at").Limit(int64(limit)).Scan(ctx); err != nil {
		return 0, fmt.Errorf("list queued app script runs: %w", err)
	}
	for i := range rows {
		if err := s.start(ctx, &rows[i]); err != nil {
			return i, err
		}
	}
	return len(rows), nil
}
