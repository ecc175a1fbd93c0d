package apprun

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Runner is the worker side of runs: the activities of workflow appscript/<runId>.
type Runner struct {
	DB     *bun.DB
	Engine Engine
	Host   HostDeps
	// AfterJournal, when set, is called once each journalled platform call is stored (the crash test's
	// fault); nil in production.
	AfterJournal func(ctx context.Context)
}

// errNoEngine fails runs on a worker without the script engine or the apps capability (retried).
var errNoEngine = errors.New("this worker does not run app scripts (no script engine or apps capability wired)")

// Run executes a run once: a finished run answers its stored outcome; otherwise it is marked running,
// its app, manifest and script are loaded, the script is executed with the Host (its journalled calls
// answered from the journal on a retry), and its result, log and error are recorded with the status in
// one transaction, with event app.script.failed when it failed.
func (r *Runner) Run(ctx context.Context, runID string) (workflows.AppScriptOutcome, error) {
	if r == nil || r.Engine == nil || r.Host.Apps == nil {
		return workflows.AppScriptOutcome{}, errNoEngine
	}
	row, err := r.begin(ctx, runID)
	if err != nil || finished(row.Status) {
		return outcome(row), err
	}
	scope := tenant.Scope{AccountID: row.AccountID, ProjectID: row.ProjectID}
	app, err := r.Host.Apps.App(ctx, scope, row.AppSlug)
	if err != nil || app.ID != row.AppID {
		return r.finish(ctx, row, Result{Error: fmt.Sprintf("app %s is gone", row.AppSlug)})
	}
	source, err := r.Host.Apps.Script(ctx, app, row.Script)
	if err != nil {
		return r.finish(ctx, row, Result{Error: fmt.Sprintf("script %s of app %s cannot be read: %v", row.Script, row.AppSlug, err)})
	}
	host := &journal{db: r.DB, runID: row.ID, host: NewHost(r.Host, row, app), after: r.AfterJournal}
	res, err := r.Engine.Run(ctx, Script{Name: row.Script, Source: source}, Env{Permissions: app.Permissions, Args: row.Args,
		Ctx: runContext(row), Host: host})
	if err != nil {
		return workflows.AppScriptOutcome{}, fmt.Errorf("run script %s of app %s: %w", row.Script, row.AppSlug, err)
	}
	return r.finish(ctx, row, res)
}

// begin reads the run and marks it running (a finished run is answered as it is).
func (r *Runner) begin(ctx context.Context, runID string) (*schema.AppScriptRun, error) {
	row := new(schema.AppScriptRun)
	err := r.DB.NewRaw(`UPDATE app_script_runs SET status = CASE WHEN status IN ('succeeded', 'failed') THEN status ELSE 'running' END,
		started_at = coalesce(started_at, now()) WHERE id = ? RETURNING *`, runID).Scan(ctx, row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("app script run %s does not exist", runID)
	}
	if err != nil {
		return nil, fmt.Errorf("mark app script run %s running: %w", runID, err)
	}
	return row, nil
}

// runContext is the script's ctx global: slug, runId, trigger, owner and viewer.
func runContext(row *schema.AppScriptRun) json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"slug": row.AppSlug, "runId": row.ID, "trigger": row.Trigger,
		"owner": row.AccountID, "viewer": row.Viewer, "script": row.Script})
	return raw
}

// finish records the run's end in one transaction (unless it ended meanwhile) with its event.
func (r *Runner) finish(ctx context.Context, row *schema.AppScriptRun, res Result) (workflows.AppScriptOutcome, error) {
	if err := settle(row, res); err != nil {
		return workflows.AppScriptOutcome{}, err
	}
	err := r.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewUpdate().Model((*schema.AppScriptRun)(nil)).Set("status = ?", row.Status).Set("log = ?", row.Log).
			Set("error = ?", row.Error).Set("host_calls = ?", row.HostCalls).Set("finished_at = ?", row.FinishedAt).
			Where("id = ? AND status NOT IN ('succeeded', 'failed')", row.ID)
		if row.Result != nil {
			q = q.Set("result = ?", string(row.Result))
		}
		done, err := q.Exec(ctx)
		if err != nil {
			return fmt.Errorf("record the end of run %s: %w", row.ID, err)
		}
		if n, _ := done.RowsAffected(); n == 0 {
			return nil
		}
		return emitFailed(ctx, tx, row)
	})
	if err != nil {
		return workflows.AppScriptOutcome{}, err
	}
	return outcome(row), nil
}

// settle sets row's end from the script's result: status, result (null for a success without a value,
// none for a failure), log, error, platform calls and finished_at.
func settle(row *schema.AppScriptRun, res Result) error {
	row.Status, row.Result, row.Error = schema.AppRunSucceeded, res.Value, nil
	if res.Error != "" {
		msg := res.Error
		row.Status, row.Result, row.Error = schema.AppRunFailed, nil, &msg
	}
	if len(row.Result) == 0 && row.Status == schema.AppRunSucceeded {
		row.Result = json.RawMessage(`null`)
	}
	logText, err := json.Marshal(nonNil(res.Log))
	if err != nil {
		return fmt.Errorf("encode the log of run %s: %w", row.ID, err)
	}
	now := time.Now()
	row.Log, row.HostCalls, row.FinishedAt = string(logText), res.HostCalls, &now
	return nil
}

// emitFailed emits app.script.failed for a run that failed, in tx.
func emitFailed(ctx context.Context, tx bun.Tx, row *schema.AppScriptRun) error {
	if row.Status != schema.AppRunFailed || row.Error == nil {
		return nil
	}
	return outbox.Emit(ctx, tx, outbox.Event{AccountID: row.AccountID, ProjectID: row.ProjectID, Type: outbox.AppScriptFailed,
		Subject: row.ID, Data: map[string]any{"runId": row.ID, "app": row.AppSlug, "script": row.Script, "trigger": row.Trigger, "error": *row.Error}})
}

func nonNil(log []string) []string {
	if log == nil {
		return []string{}
	}
	return log
}

// Fail records a run failed with the message (after its activity gave up); a finished run is answered
// as it is.
func (r *Runner) Fail(ctx context.Context, f workflows.AppScriptFailure) (workflows.AppScriptOutcome, error) {
	row, err := r.begin(ctx, f.RunID)
	if err != nil || finished(row.Status) {
		return outcome(row), err
	}
	return r.finish(ctx, row, Result{Error: f.Message})
}

// outcome is the workflow's view of a run.
func outcome(row *schema.AppScriptRun) workflows.AppScriptOutcome {
	if row == nil {
		return workflows.AppScriptOutcome{}
	}
	out := workflows.AppScriptOutcome{RunID: row.ID, Status: row.Status}
	if row.Error != nil {
		out.Error = *row.Error
	}
	return out
}
