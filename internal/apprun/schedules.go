package apprun

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// Scheduled records the runs of app script automations (automation.AppScripts), on the worker: trigger
// schedule, as the automation's key, the owner as the viewer; the fire's workflow starts each run.
type Scheduled struct {
	DB   *bun.DB
	Apps Apps
}

// Record implements automation.AppScripts: the run is recorded queued in db, the fire's transaction.
func (s Scheduled) Record(ctx context.Context, db bun.IDB, f automation.AppScriptFire) error {
	if s.Apps == nil {
		return ErrUnavailable
	}
	_, err := (&Service{DB: s.DB, Apps: s.Apps}).recordIn(ctx, db, StartRequest{Scope: f.Scope, KeyID: f.KeyID, RunID: f.RunID,
		Slug: f.App, Script: f.Script, Trigger: schema.AppRunBySchedule})
	return err
}

// ScheduleName is the name of the automation of the manifest's schedule entry index of the app slug.
func ScheduleName(slug, script string, index int) string {
	return fmt.Sprintf("app:%s:%s:%d", slug, script, index)
}

// SyncSchedules makes the app's automations match its manifest's schedule: one automation per entry
// (named by ScheduleName), created, its cron updated, paused when the entry is disabled and resumed when
// enabled, and the automations of entries that are gone deleted. keyID is the syncing caller's key, which
// the fires act as ("" for a web session: no key limits apply). Calling it twice changes nothing. A
// service without the workflow engine has no automations: nothing to sync.
func SyncSchedules(ctx context.Context, autos *automation.Service, app *apps.App, keyID string) error {
	if autos == nil || autos.Schedules == nil {
		return nil
	}
	scope := app.Scope()
	have, err := autos.Store.ForApp(ctx, scope, app.Slug)
	if err != nil {
		return err
	}
	want := map[string]int{}
	for i, e := range app.Manifest.Schedule {
		want[ScheduleName(app.Slug, e.Script, i)] = i
	}
	for i := range have {
		a := &have[i]
		idx, ok := want[a.Name]
		if !ok || (a.Status != schema.AutomationActive && a.Status != schema.AutomationPaused) {
			if _, err := autos.Delete(ctx, scope, a.ID); err != nil {
				return fmt.Errorf("delete automation %s of app %s: %w", a.Name, app.Slug, err)
			}
			continue
		}
		delete(want, a.Name)
		if err := reconcile(ctx, autos, scope, a, app.Manifest.Schedule[idx], keyID); err != nil {
			return fmt.Errorf("sync automation %s of app %s: %w", a.Name, app.Slug, err)
		}
	}
	for name, i := range want {
		if err := createSchedule(ctx, autos, app, name, i, keyID); err != nil {
			return err
		}
	}
	return nil
}

// RemoveSchedules deletes the automations of the scope's app slug (the app was deleted).
func RemoveSchedules(ctx context.Context, autos *automation.Service, app *apps.App) error {
	gone := *app
	gone.Manifest.Schedule = nil
	return SyncSchedules(ctx, autos, &gone, "")
}

// reconcile brings one automation in line with its entry: cron, key, paused.
func reconcile(ctx context.Context, autos *automation.Service, scope tenant.Scope, a *schema.Automation, e apps.ScheduleEntry, keyID string) error {
	if a.Cron != e.Cron {
		cron := e.Cron
		if _, err := autos.Update(ctx, scope, a.ID, client.UpdateAutomationRequest{Cron: &cron}); err != nil {
			return err
		}
	}
	if keyID != "" && a.KeyID != keyID {
		a.KeyID = keyID
		if err := autos.Store.Save(ctx, a, "key_id"); err != nil {
			return err
		}
	}
	switch {
	case e.Enabled && a.Status == schema.AutomationPaused:
		_, err := autos.Resume(ctx, scope, a.ID, "resumed: its app's schedule entry is enabled")
		return err
	case !e.Enabled && a.Status == schema.AutomationActive:
		_, err := autos.Pause(ctx, scope, a.ID, "paused: its app's schedule entry is disabled")
		return err
	}
	return nil
}

// createSchedule creates the automation of the manifest's entry i, paused when it is disabled; the
// tier's count of automations applies (429 naming automations.active).
func createSchedule(ctx context.Context, autos *automation.Service, app *apps.App, name string, i int, keyID string) error {
	e := app.Manifest.Schedule[i]
	if err := automation.ValidateCron(fmt.Sprintf("schedule[%d].cron", i), e.Cron); err != nil {
		return err
	}
	req := client.CreateAutomationRequest{Name: name, Cron: e.Cron, Timezone: "UTC", Overlap: client.OverlapSkip, Paused: !e.Enabled,
		Action: client.AutomationAction{ServiceID: client.ServiceManagedAgents, OperationID: client.OpAppsScriptsRun,
			Input: map[string]any{"app": app.Slug, "script": e.Script}}}
	input, err := json.Marshal(automation.AppScriptInput{App: app.Slug, Script: e.Script})
	if err != nil {
		return fmt.Errorf("encode the action of automation %s: %w", name, err)
	}
	_, err = autos.Create(ctx, automation.NewAutomation{ID: ids.New(ids.Automation), Scope: app.Scope(), KeyID: keyID, Req: req, Input: input})
	if err != nil {
		if se, ok := svcerr.As(err); ok && se.Code == svcerr.LimitExceeded {
			return err
		}
		return fmt.Errorf("create automation %s of app %s: %w", name, app.Slug, err)
	}
	return nil
}
