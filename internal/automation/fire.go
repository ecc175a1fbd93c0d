package automation

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/limit"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// KeyLimiter applies the per-key limits of the key that created an automation to its fires
// (limit.Limiter).
type KeyLimiter interface {
	Allow(ctx context.Context, owners []limit.Owner, operations []string) (limit.Decision, error)
	ReserveCredits(ctx context.Context, owners []limit.Owner, operations []string, millicredits int64) (limit.Decision, *limit.Reservation, error)
}

// Firer decides fires (the activity ActivityPrepareAutomationFire).
type Firer struct {
	Store   *Store
	Catalog *catalog.Catalog
	Keys    *apikey.Store
	// Limiter applies the creating key's limits; nil applies none.
	Limiter KeyLimiter
	// AppScripts records and starts the runs of app script automations; nil refuses their fires.
	AppScripts AppScripts
}

// Reasons a fire starts no run.
const (
	SkipInactive   = "inactive"
	SkipExecutions = "executions"
	SkipPerDay     = "runs_per_day"
	SkipKeyLimit   = "key_limit"
	SkipKeyRevoked = "key_revoked"
	SkipInvalid    = "action_invalid"
)

// RunID is the id of the run a fire of automation id scheduled at at starts.
func RunID(automationID string, at time.Time) string {
	return ids.Derive(ids.Run, automationID, at.UTC().Format(time.RFC3339Nano))
}

// Prepare decides one fire under the automation's row lock: the run it starts (recorded, with its
// events, and counted against the tier's lifetime and daily limits and the creating key's limits), or
// why it starts none. A retry after the run was recorded answers the same run.
func (f *Firer) Prepare(ctx context.Context, in workflows.AutomationFireInput) (workflows.AutomationFire, error) {
	var fire workflows.AutomationFire
	err := f.Store.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		a := new(schema.Automation)
		err := tx.NewSelect().Model(a).Where("id = ?", in.AutomationID).For("UPDATE").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			fire.Skipped = SkipInactive
			return nil
		}
		if err != nil {
			return fmt.Errorf("lock automation %s: %w", in.AutomationID, err)
		}
		fire, err = f.decide(ctx, tx, a, in.ScheduledAt)
		return err
	})
	return fire, err
}

// decide is Prepare on the locked row.
func (f *Firer) decide(ctx context.Context, tx bun.Tx, a *schema.Automation, at time.Time) (workflows.AutomationFire, error) {
	if IsAppScript(a) {
		return f.decideAppScript(ctx, tx, a, at)
	}
	return f.decideRun(ctx, tx, a, at)
}

// decideRun decides the fire of an automation whose action is a run.
func (f *Firer) decideRun(ctx context.Context, tx bun.Tx, a *schema.Automation, at time.Time) (workflows.AutomationFire, error) {
	fire := workflows.AutomationFire{AccountID: a.AccountID, ProjectID: a.ProjectID}
	runID := RunID(a.ID, at)
	existing := new(schema.Run)
	if err := tx.NewSelect().Model(existing).Where("id = ?", runID).Scan(ctx); err == nil {
		// A retry after the run was recorded: the same run, and the same pause if that fire paused it.
		fire.RunID, fire.Run = runID, f.params(existing)
		fire.Pause, fire.Note = a.Status == schema.AutomationPaused, a.Note
		return fire, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return fire, fmt.Errorf("read run %s: %w", runID, err)
	}
	l, fire, stop, err := f.gate(ctx, tx, a, at)
	if err != nil || stop {
		return fire, err
	}
	r, skip, why, err := f.newRun(ctx, a, runID, at)
	if err != nil || skip != "" {
		if err == nil {
			return f.refuse(ctx, tx, a, l, at, skip, why, skip == SkipKeyRevoked || skip == SkipInvalid)
		}
		return fire, err
	}
	return f.record(ctx, tx, a, r, l)
}

// gate applies the automation's status and the tier's lifetime and daily limits to a fire: stop says
// the fire starts nothing (fire says why), else l are the tier's limits.
func (f *Firer) gate(ctx context.Context, tx bun.Tx, a *schema.Automation, at time.Time) (l Limits, fire workflows.AutomationFire, stop bool, err error) {
	fire = workflows.AutomationFire{AccountID: a.AccountID, ProjectID: a.ProjectID}
	if a.Status != schema.AutomationActive || a.DeletedAt != nil {
		fire.Skipped = SkipInactive
		return l, fire, true, nil
	}
	tier, err := tierOf(ctx, tx, a.AccountID)
	if err != nil {
		return l, fire, true, err
	}
	l = limitsOf(tier)
	day := at.UTC().Truncate(24 * time.Hour)
	if a.Day == nil || !a.Day.UTC().Equal(day) {
		a.Day, a.DayRuns = &day, 0
	}
	switch {
	case a.Executions >= l.Executions:
		fire, err = f.refuse(ctx, tx, a, l, at, SkipExecutions, fmt.Sprintf("the %s tier allows %d runs per automation, and this one has started them all", tier, l.Executions), true)
		return l, fire, true, err
	case int64(a.DayRuns) >= l.PerDay:
		fire, err = f.refuse(ctx, tx, a, l, at, SkipPerDay, fmt.Sprintf("the %s tier allows %d runs per automation a day (UTC), and this one has started them today", tier, l.PerDay), false)
		return l, fire, true, err
	}
	return l, fire, false, nil
}

// newRun builds the fire's run, applying the creating key's limits; skip names a refusal.
func (f *Firer) newRun(ctx context.Context, a *schema.Automation, runID string, at time.Time) (r *schema.Run, skip, why string, err error) {
	var input map[string]any
	_ = json.Unmarshal(a.Input, &input)
	raw, op, err := run.Validate(f.Catalog, a.ServiceID, a.OperationID, input)
	if err != nil {
		return nil, SkipInvalid, "its action can no longer start: " + err.Error(), nil
	}
	holder, err := f.Keys.Holder(ctx, a.KeyID)
	if svcerr.Is(err, svcerr.Unauthenticated) {
		return nil, SkipKeyRevoked, "the API key that created it was revoked", nil
	}
	if err != nil {
		return nil, "", "", err
	}
	ops := limit.Operations(client.OpRunsCreate, a.ServiceID, a.OperationID)
	if refused, why, err := f.keyLimits(ctx, holder, ops, op.Millicredits); err != nil || refused {
		if err != nil {
			return nil, "", "", err
		}
		return nil, SkipKeyLimit, why, nil
	}
	scheduled := at.UTC()
	automationID := a.ID
	return &schema.Run{ID: runID, AccountID: a.AccountID, ProjectID: a.ProjectID, KeyID: a.KeyID, ServiceID: a.ServiceID,
		OperationID: a.OperationID, Status: client.RunQueued, Input: raw, WorkflowID: workflows.RunWorkflowID(runID),
		AutomationID: &automationID, ScheduledAt: &scheduled}, "", "", nil
}

// keyLimits applies the creating key's requestsPerMinute limits on the operations ops (with *) and,
// for a priced action (millicredits > 0), its creditsPerDay; refused says one of them is spent.
func (f *Firer) keyLimits(ctx context.Context, holder *apikey.Caller, ops []string, millicredits int64) (refused bool, why string, err error) {
	if f.Limiter == nil {
		return false, "", nil
	}
	owners := []limit.Owner{{KeyID: holder.Key.ID, Limits: holder.Key.Limits}}
	for _, k := range holder.Ancestors {
		owners = append(owners, limit.Owner{KeyID: k.ID, Limits: k.Limits})
	}
	d, err := f.Limiter.Allow(ctx, owners, ops)
	if err != nil {
		return false, "", fmt.Errorf("apply the key's limits: %w", err)
	}
	if !d.Allowed {
		return true, "the key's limit on " + d.Operation + " is spent for now", nil
	}
	if millicredits == 0 {
		return false, "", nil
	}
	d, _, err = f.Limiter.ReserveCredits(ctx, owners, ops, millicredits)
	if err != nil {
		return false, "", fmt.Errorf("apply the key's creditsPerDay: %w", err)
	}
	if !d.Allowed {
		return true, "the key's creditsPerDay on " + d.Operation + " is spent for today", nil
	}
	return false, "", nil
}

// record stores the run and the automation's counters, with the events, and says whether this fire used
// the last execution (the schedule then pauses).
func (f *Firer) record(ctx context.Context, tx bun.Tx, a *schema.Automation, r *schema.Run, l Limits) (workflows.AutomationFire, error) {
	fire := workflows.AutomationFire{AccountID: a.AccountID, ProjectID: a.ProjectID, RunID: r.ID, Run: f.params(r)}
	if _, err := tx.NewInsert().Model(r).Returning("created_at, updated_at").Exec(ctx); err != nil {
		return fire, fmt.Errorf("record run %s: %w", r.ID, err)
	}
	events := []outbox.Event{run.Event(outbox.RunCreated, r),
		{AccountID: r.AccountID, ProjectID: r.ProjectID, Type: outbox.AutomationRunStarted, Subject: r.ID,
			Data: map[string]any{"automationId": a.ID, "run": run.ToWire(r)}}}
	return f.count(ctx, tx, a, l, r.ScheduledAt.UTC(), fire, events)
}

// count counts a started run on the automation, with the events, and pauses it when this fire used the
// last execution.
func (f *Firer) count(ctx context.Context, tx bun.Tx, a *schema.Automation, l Limits, at time.Time, fire workflows.AutomationFire, events []outbox.Event) (workflows.AutomationFire, error) {
	now := time.Now().UTC()
	a.Executions++
	a.DayRuns++
	a.LastFireAt, a.UpdatedAt = &now, now
	cols := []string{"executions", "day", "day_runs", "last_fire_at", "updated_at"}
	if a.Executions >= l.Executions {
		fire.Pause, fire.Note = true, fmt.Sprintf("paused: it has started all %d runs its tier allows", l.Executions)
		a.Status, a.Note = schema.AutomationPaused, fire.Note
		cols = append(cols, "status", "note")
		events = append(events, limitEvent(a, SkipExecutions, fire.Note, at), pausedEvent(a, l))
	}
	if _, err := tx.NewUpdate().Model(a).Column(cols...).WherePK().Exec(ctx); err != nil {
		return fire, fmt.Errorf("count the fire of automation %s: %w", a.ID, err)
	}
	return fire, outbox.Emit(ctx, tx, events...)
}

// refuse counts a fire that starts no run, records automation.limit_reached, and pauses the automation
// when pause is set.
func (f *Firer) refuse(ctx context.Context, tx bun.Tx, a *schema.Automation, l Limits, at time.Time, reason, why string, pause bool) (workflows.AutomationFire, error) {
	fire := workflows.AutomationFire{AccountID: a.AccountID, ProjectID: a.ProjectID, Skipped: reason}
	now := time.Now().UTC()
	a.Skipped++
	a.LastFireAt, a.UpdatedAt = &now, now
	cols := []string{"skipped", "day", "day_runs", "last_fire_at", "updated_at"}
	events := []outbox.Event{limitEvent(a, reason, why, at)}
	if pause {
		fire.Pause, fire.Note = true, "paused: "+why
		a.Status, a.Note = schema.AutomationPaused, fire.Note
		cols = append(cols, "status", "note")
		events = append(events, pausedEvent(a, l))
	}
	if _, err := tx.NewUpdate().Model(a).Column(cols...).WherePK().Exec(ctx); err != nil {
		return fire, fmt.Errorf("count the refused fire of automation %s: %w", a.ID, err)
	}
	return fire, outbox.Emit(ctx, tx, events...)
}

// limitEvent is automation.limit_reached for the fire of a at at: one per limit and scheduled time
// (Temporal names a fire by its scheduled time to the second, so two triggers in one second are one fire).
func limitEvent(a *schema.Automation, reason, why string, at time.Time) outbox.Event {
	return outbox.Event{AccountID: a.AccountID, ProjectID: a.ProjectID, Type: outbox.AutomationLimitReached,
		Subject: a.ID + "/" + reason + "@" + at.UTC().Format(time.RFC3339Nano),
		Data:    map[string]any{"automationId": a.ID, "limit": reason, "message": why, "scheduledAt": at.UTC()}}
}

// params is the RunWorkflow input of r.
func (f *Firer) params(r *schema.Run) workflows.RunParams {
	p := workflows.RunParams{RunID: r.ID, ServiceID: r.ServiceID, OperationID: r.OperationID, Input: r.Input}
	if svc, ok := f.Catalog.Lookup(r.ServiceID); ok {
		if op, ok := svc.Operation(r.OperationID); ok && op.Kind == run.KindInvoke {
			p.External = true
		}
	}
	return p
}
