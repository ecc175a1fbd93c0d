package automation

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/limit"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// App script automations (issue 26) are made from an app manifest's schedule entries by
// apprun.SyncSchedules, never through POST /v1/automations. Their action is the app script run
// operation (managed-agents apps.scripts.run) with the input {app, script}; a fire records an app
// script run with trigger schedule, acting as the key recorded on the automation (the key that last
// synced the app's manifest, whose limits on apps.scripts.run apply to the fire), and the fire's
// workflow starts appscript/<runId> as its child and waits for it (the overlap policy sees it).

// AppScriptInput is the action input of an app script automation.
type AppScriptInput struct {
	App    string `json:"app"`
	Script string `json:"script"`
}

// IsAppScript says whether a's action runs an app's script.
func IsAppScript(a *schema.Automation) bool {
	return a.ServiceID == client.ServiceManagedAgents && a.OperationID == client.OpAppsScriptsRun
}

// appScriptInput reads a's app and script ("" when a is no app script automation).
func appScriptInput(a *schema.Automation) AppScriptInput {
	var in AppScriptInput
	if IsAppScript(a) {
		_ = json.Unmarshal(a.Input, &in)
	}
	return in
}

// errAppOwned refuses a change through /v1/automations that only an app's manifest makes.
func errAppOwned(field string) error {
	return svcerr.Invalid(field, "app script automations come from an app manifest's schedule: edit the app's manifest.json")
}

// AppScriptFire is one scheduled run of an app's script, as a fire asks for it.
type AppScriptFire struct {
	RunID  string
	Scope  tenant.Scope
	KeyID  string
	App    string
	Script string
}

// AppScripts records the runs of app script automations (apprun.Scheduled); the fire's workflow starts
// each recorded run's workflow appscript/<runId> as its child and waits for it, so the automation's
// overlap policy sees the script going.
type AppScripts interface {
	// Record records the run (queued, trigger schedule) in db, the fire's transaction; an app or script
	// that is gone is a svcerr NotFound.
	Record(ctx context.Context, db bun.IDB, f AppScriptFire) error
}

// AppRunID is the id of the app script run a fire of automation id scheduled at at starts.
func AppRunID(automationID string, at time.Time) string {
	return ids.Derive(ids.AppScriptRun, automationID, at.UTC().Format(time.RFC3339Nano))
}

// appRunStart is the fire's answer that starts the app script run runID of a.
func appRunStart(a *schema.Automation, runID string) *workflows.AppScriptStart {
	in := appScriptInput(a)
	return &workflows.AppScriptStart{RunID: runID, ServiceID: a.ServiceID, OperationID: a.OperationID, App: in.App, Script: in.Script}
}

// decideAppScript decides the fire of an app script automation: it records the app script run (trigger
// schedule, as the automation's key) and counts it, and answers the run for the fire's workflow to
// start. A retried fire finds the run it recorded and answers it again (its start is idempotent).
func (f *Firer) decideAppScript(ctx context.Context, tx bun.Tx, a *schema.Automation, at time.Time) (workflows.AutomationFire, error) {
	runID := AppRunID(a.ID, at)
	fire := workflows.AutomationFire{AccountID: a.AccountID, ProjectID: a.ProjectID}
	recorded, err := tx.NewSelect().Model((*schema.AppScriptRun)(nil)).Where("id = ?", runID).Exists(ctx)
	if err != nil {
		return fire, fmt.Errorf("read app script run %s: %w", runID, err)
	}
	if recorded {
		fire.AppRun = appRunStart(a, runID)
		fire.Pause, fire.Note = a.Status == schema.AutomationPaused, a.Note
		return fire, nil
	}
	l, fire, stop, err := f.gate(ctx, tx, a, at)
	if err != nil || stop {
		return fire, err
	}
	if skip, why, err := f.appScriptRefusal(ctx, a); err != nil || skip != "" {
		if err == nil {
			fire, err = f.refuse(ctx, tx, a, l, at, skip, why, skip != SkipKeyLimit)
		}
		return fire, err
	}
	in := appScriptInput(a)
	af := AppScriptFire{RunID: runID, Scope: tenant.Scope{AccountID: a.AccountID, ProjectID: a.ProjectID}, KeyID: a.KeyID,
		App: in.App, Script: in.Script}
	if err := f.AppScripts.Record(ctx, tx, af); err != nil {
		if svcerr.Is(err, svcerr.NotFound) {
			return f.refuse(ctx, tx, a, l, at, SkipInvalid, "its action can no longer start: "+err.Error(), true)
		}
		return fire, fmt.Errorf("record app script run %s: %w", runID, err)
	}
	events := []outbox.Event{{AccountID: a.AccountID, ProjectID: a.ProjectID, Type: outbox.AutomationRunStarted, Subject: runID,
		Data: map[string]any{"automationId": a.ID, "appScriptRunId": runID, "app": in.App, "script": in.Script}}}
	return f.count(ctx, tx, a, l, at, workflows.AutomationFire{AccountID: a.AccountID, ProjectID: a.ProjectID, AppRun: appRunStart(a, runID)}, events)
}

// appScriptRefusal says why an app script automation cannot fire: no app script runner on this worker,
// the key that synced its app was revoked, or that key's limits on apps.scripts.run (requestsPerMinute,
// as the owner's own POST .../scripts/{name}/run counts) are spent for now.
func (f *Firer) appScriptRefusal(ctx context.Context, a *schema.Automation) (skip, why string, err error) {
	if f.AppScripts == nil {
		return "", "", fmt.Errorf("this worker cannot run app scripts (automation %s)", a.ID)
	}
	if a.KeyID == "" {
		return "", "", nil
	}
	holder, err := f.Keys.Holder(ctx, a.KeyID)
	if svcerr.Is(err, svcerr.Unauthenticated) {
		return SkipKeyRevoked, "the API key that synced its app was revoked", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("read the key of automation %s: %w", a.ID, err)
	}
	refused, why, err := f.keyLimits(ctx, holder, limit.Operations(client.OpAppsScriptsRun, "", ""), 0)
	if err != nil || !refused {
		return "", "", err
	}
	return SkipKeyLimit, why, nil
}

// ForApp lists the scope's automations (not deleted) that run scripts of the app slug.
func (s *Store) ForApp(ctx context.Context, scope tenant.Scope, slug string) ([]schema.Automation, error) {
	out := []schema.Automation{}
	err := scope.Where(s.db.NewSelect().Model(&out)).Where("deleted_at IS NULL").
		Where("service_id = ? AND operation_id = ?", client.ServiceManagedAgents, client.OpAppsScriptsRun).
		Where("input->>'app' = ?", slug).OrderExpr("created_at, id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the automations of app %s: %w", slug, err)
	}
	return out, nil
}
