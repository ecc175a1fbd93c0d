package automation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Options tune automations.
type Options struct {
	// TestInterval, in tests only, makes every schedule fire at this interval instead of its cron
	// expression (which is still validated and shown); zero in production.
	TestInterval time.Duration
}

// Service is what the API asks of automations: rows here, schedules in Temporal.
type Service struct {
	Store     *Store
	Schedules sdkclient.ScheduleClient
	Catalog   *catalog.Catalog
	Opts      Options
}

// errNoEngine answers when the server has no Temporal client.
var errNoEngine = svcerr.New(svcerr.Unavailable, "automations need the workflow engine, which this server does not have")

// overlaps maps the API's overlap policies to Temporal's.
var overlaps = map[string]enums.ScheduleOverlapPolicy{
	client.OverlapSkip:      enums.SCHEDULE_OVERLAP_POLICY_SKIP,
	client.OverlapBufferOne: enums.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE,
	client.OverlapAllowAll:  enums.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL,
}

// NewAutomation is a create request with the caller's identity, as Validate left it (defaults filled in),
// with the action's input Validate answered.
type NewAutomation struct {
	ID    string
	Scope tenant.Scope
	KeyID string
	Req   client.CreateAutomationRequest
	Input json.RawMessage
}

// Validate checks a create request, naming the field at fault.
func (s *Service) Validate(r *client.CreateAutomationRequest) (json.RawMessage, error) {
	if err := ValidateCron("cron", r.Cron); err != nil {
		return nil, err
	}
	tz, err := ValidateTimezone("timezone", r.Timezone)
	if err != nil {
		return nil, err
	}
	r.Timezone = tz
	if r.Overlap == "" {
		r.Overlap = client.OverlapSkip
	}
	if _, ok := overlaps[r.Overlap]; !ok {
		return nil, svcerr.Invalid("overlap", "overlap is skip, buffer_one or allow_all")
	}
	if r.StartAt != nil && r.EndAt != nil && !r.EndAt.After(*r.StartAt) {
		return nil, svcerr.Invalid("endAt", "endAt must come after startAt")
	}
	if r.EndAt != nil && !r.EndAt.After(time.Now()) {
		return nil, svcerr.Invalid("endAt", "endAt is in the past: the automation would never fire")
	}
	if r.Action.ServiceID == client.ServiceManagedAgents && r.Action.OperationID == client.OpAppsScriptsRun {
		return nil, errAppOwned("action.operationId")
	}
	raw, op, err := run.Validate(s.Catalog, r.Action.ServiceID, r.Action.OperationID, r.Action.Input)
	if err != nil {
		if se, ok := svcerr.As(err); ok && se.Param != "" && se.Param != "input" {
			se.Param = "action." + se.Param
		}
		return nil, err
	}
	if op.RequiresApproval {
		return nil, svcerr.Invalid("action.operationId", "operation %q of %q requires an approval for each run, which an automation cannot give",
			r.Action.OperationID, r.Action.ServiceID)
	}
	return raw, nil
}

// Create records an automation validated by Validate and creates its schedule; a replay answers the
// automation recorded.
func (s *Service) Create(ctx context.Context, n NewAutomation) (*client.Automation, error) {
	if s.Schedules == nil {
		return nil, errNoEngine
	}
	r, input := n.Req, n.Input
	status := schema.AutomationActive
	if r.Paused {
		status = schema.AutomationPaused
	}
	a := &schema.Automation{ID: n.ID, AccountID: n.Scope.AccountID, ProjectID: n.Scope.ProjectID, KeyID: n.KeyID, Name: r.Name,
		Cron: r.Cron, Timezone: r.Timezone, ServiceID: r.Action.ServiceID, OperationID: r.Action.OperationID, Input: input,
		Overlap: r.Overlap, StartAt: utc(r.StartAt), EndAt: utc(r.EndAt), Status: status}
	row, limits, created, err := s.Store.Insert(ctx, a)
	if err != nil {
		return nil, err
	}
	if !created {
		return s.answerAs(ctx, row, &limits, answerFromSpec)
	}
	if err := s.createSchedule(ctx, row); err != nil {
		_ = s.Store.Remove(context.WithoutCancel(ctx), row.ID)
		return nil, err
	}
	// A new automation has no runs yet: its counts are the row's (zeros), nothing to read.
	next, err := s.upcoming(row, time.Now())
	if err != nil {
		return nil, err
	}
	out := ToWire(row, limits, Extra{Counts: rowCounts(row), NextFireTimes: next})
	return &out, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// spec is the schedule's spec of a.
func (s *Service) spec(a *schema.Automation) sdkclient.ScheduleSpec {
	spec := sdkclient.ScheduleSpec{CronExpressions: []string{a.Cron}, TimeZoneName: a.Timezone}
	if s.Opts.TestInterval > 0 {
		spec = sdkclient.ScheduleSpec{Intervals: []sdkclient.ScheduleIntervalSpec{{Every: s.Opts.TestInterval}}}
	}
	if a.StartAt != nil {
		spec.StartAt = *a.StartAt
	}
	if a.EndAt != nil {
		spec.EndAt = *a.EndAt
	}
	return spec
}

// createSchedule creates a's schedule (one made before by a request that died answers as made).
func (s *Service) createSchedule(ctx context.Context, a *schema.Automation) error {
	_, err := s.Schedules.Create(ctx, sdkclient.ScheduleOptions{
		ID:   workflows.AutomationScheduleID(a.ID),
		Spec: s.spec(a),
		Action: &sdkclient.ScheduleWorkflowAction{
			ID: workflows.AutomationFireWorkflowID(a.ID), Workflow: workflows.AutomationFireWorkflowName,
			Args: []any{workflows.AutomationFireParams{AutomationID: a.ID}}, TaskQueue: workflows.TaskQueue,
			TypedSearchAttributes: workflows.ResourceAttributes(a.AccountID, a.ProjectID, a.ServiceID, a.OperationID),
			Memo:                  map[string]any{"automationId": a.ID, "name": a.Name},
		},
		Overlap:       overlaps[a.Overlap],
		CatchupWindow: time.Minute,
		Paused:        a.Status == schema.AutomationPaused,
		Note:          fmt.Sprintf("automation %s (%s) of %s", a.ID, a.Name, a.AccountID),
		Memo:          map[string]any{"automationId": a.ID, "name": a.Name},
	})
	if err == nil || errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return nil
	}
	return svcerr.New(svcerr.Unavailable, "the workflow engine did not accept the automation's schedule; retry with the same Idempotency-Key")
}

// Get answers the scope's automation with its counts, next fire times and recent runs; it first takes
// over a pause or resume an operator made in the Temporal Web UI, and notices a schedule that has no
// fire left.
func (s *Service) Get(ctx context.Context, scope tenant.Scope, id string) (*client.Automation, error) {
	a, err := s.Store.Get(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	return s.answerAs(ctx, a, nil, answerRead)
}

// answerKind says how much an answer reads besides the row.
type answerKind int

const (
	// answerFromSpec reads only the row: next fire times come from the schedule's spec (after a change
	// the row records, and for every entry of a list).
	answerFromSpec answerKind = iota
	// answerRead is a GET of one automation: it reads the schedule (taking over a pause or resume made
	// in the Web UI, noticing an end) and its recent runs.
	answerRead
)

// answer makes the API's automation of a after a change.
func (s *Service) answer(ctx context.Context, a *schema.Automation) (*client.Automation, error) {
	return s.answerAs(ctx, a, nil, answerFromSpec)
}

// describeWait bounds how long a GET waits for the schedule's Describe. Temporal answers it by querying
// the schedule's workflow, which a busy engine serves late; past the bound the answer's fire times are
// computed from the spec instead (the same times), and the takeover of a Web UI pause waits for a later
// read.
const describeWait = 3 * time.Second

// answerAs makes the API's automation of a under the tier's limits l (nil: read the account's tier; a
// list reads it once for all its entries).
func (s *Service) answerAs(ctx context.Context, a *schema.Automation, l *Limits, kind answerKind) (*client.Automation, error) {
	if l == nil {
		tier, err := tierOf(ctx, s.Store.db, a.AccountID)
		if err != nil {
			return nil, err
		}
		lim := limitsOf(tier)
		l = &lim
	}
	var err error
	x := Extra{}
	synced := false
	if kind == answerRead && (a.Status == schema.AutomationActive || a.Status == schema.AutomationPaused) {
		if x.NextFireTimes, synced, err = s.sync(ctx, a); err != nil {
			return nil, err
		}
	}
	if !synced {
		if x.NextFireTimes, err = s.upcoming(a, time.Now()); err != nil {
			return nil, err
		}
	}
	if x.Counts, err = s.Store.counts(ctx, a); err != nil {
		return nil, err
	}
	if kind == answerRead {
		if x.RecentRuns, err = s.Store.recentRuns(ctx, a.ID, 10); err != nil {
			return nil, err
		}
	}
	out := ToWire(a, *l, x)
	return &out, nil
}

// sync reads a's schedule: its next fire times (up to five, when active), and a pause, resume or end
// the row does not know yet. synced is false when the schedule could not be read within describeWait
// (the caller computes the times from the spec).
func (s *Service) sync(ctx context.Context, a *schema.Automation) (next []time.Time, synced bool, err error) {
	if s.Schedules == nil {
		return nil, false, nil
	}
	dctx, cancel := context.WithTimeout(ctx, describeWait)
	defer cancel()
	d, err := s.Schedules.GetHandle(dctx, workflows.AutomationScheduleID(a.ID)).Describe(dctx)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return []time.Time{}, true, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, false, nil
	}
	st := d.Schedule.State
	switch {
	case st.Paused && a.Status == schema.AutomationActive:
		err = s.Store.SetStatus(ctx, a, schema.AutomationPaused, st.Note)
	case !st.Paused && a.Status == schema.AutomationPaused:
		err = s.Store.SetStatus(ctx, a, schema.AutomationActive, st.Note)
	case len(d.Info.NextActionTimes) == 0 && a.EndAt != nil && !a.EndAt.After(time.Now()):
		err = s.Store.SetStatus(ctx, a, schema.AutomationCompleted, "its schedule has no fire left")
	}
	if err != nil || a.Status != schema.AutomationActive {
		return []time.Time{}, err == nil, err
	}
	times := d.Info.NextActionTimes
	if len(times) > fireTimesShown {
		times = times[:fireTimesShown]
	}
	next = make([]time.Time, len(times))
	for i, t := range times {
		next[i] = t.UTC()
	}
	return next, true, nil
}

// List answers the scope's automations (of these statuses, when any), newest first, each with its counts and
// (when active) its next fire times computed from its spec, a few at a time.
func (s *Service) List(ctx context.Context, scope tenant.Scope, statuses []string, p page.Params) ([]client.Automation, *string, error) {
	rows, next, err := s.Store.List(ctx, scope, statuses, p)
	if err != nil {
		return nil, nil, err
	}
	tier, err := tierOf(ctx, s.Store.db, scope.AccountID)
	if err != nil {
		return nil, nil, err
	}
	l := limitsOf(tier)
	out := make([]client.Automation, len(rows))
	errs := make([]error, len(rows))
	sem := make(chan struct{}, listConcurrency)
	var wg sync.WaitGroup
	for i := range rows {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			a, err := s.answerAs(ctx, &rows[i], &l, answerFromSpec)
			if err == nil {
				out[i] = *a
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	return out, next, nil
}

// listConcurrency bounds the entries a list answers at once (each counts its runs).
const listConcurrency = 8

// live reads the scope's automation id and refuses one that is cancelled or completed.
func (s *Service) live(ctx context.Context, scope tenant.Scope, id, verb string) (*schema.Automation, error) {
	if s.Schedules == nil {
		return nil, errNoEngine
	}
	a, err := s.Store.Get(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	if a.Status == schema.AutomationCancelled || a.Status == schema.AutomationCompleted {
		return nil, svcerr.New(svcerr.Conflict, "automation %s is %s: it cannot be %s", id, a.Status, verb)
	}
	return a, nil
}

// Pause pauses the automation's schedule with note.
func (s *Service) Pause(ctx context.Context, scope tenant.Scope, id, note string) (*client.Automation, error) {
	return s.setPaused(ctx, scope, id, or(note, "paused through the API"), true)
}

// Resume resumes a paused automation's schedule with note.
func (s *Service) Resume(ctx context.Context, scope tenant.Scope, id, note string) (*client.Automation, error) {
	return s.setPaused(ctx, scope, id, or(note, "resumed through the API"), false)
}

// setPaused pauses or resumes the schedule, then the row, with note.
func (s *Service) setPaused(ctx context.Context, scope tenant.Scope, id, note string, paused bool) (*client.Automation, error) {
	verb, status := "resumed", schema.AutomationActive
	if paused {
		verb, status = "paused", schema.AutomationPaused
	}
	a, err := s.live(ctx, scope, id, verb)
	if err != nil {
		return nil, err
	}
	h := s.Schedules.GetHandle(ctx, workflows.AutomationScheduleID(id))
	if paused {
		err = h.Pause(ctx, sdkclient.SchedulePauseOptions{Note: note})
	} else {
		err = h.Unpause(ctx, sdkclient.ScheduleUnpauseOptions{Note: note})
	}
	if err != nil {
		return nil, engineError(err)
	}
	if err := s.Store.SetStatus(ctx, a, status, note); err != nil {
		return nil, err
	}
	return s.answer(ctx, a)
}

// Trigger fires the automation once now; the fire is decided like any other.
func (s *Service) Trigger(ctx context.Context, scope tenant.Scope, id string) (*client.Automation, error) {
	a, err := s.live(ctx, scope, id, "triggered")
	if err != nil {
		return nil, err
	}
	if a.Status != schema.AutomationActive {
		return nil, svcerr.New(svcerr.Conflict, "automation %s is paused: resume it before triggering it", id)
	}
	err = s.Schedules.GetHandle(ctx, workflows.AutomationScheduleID(id)).Trigger(ctx,
		sdkclient.ScheduleTriggerOptions{Overlap: enums.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL})
	if err != nil {
		return nil, engineError(err)
	}
	return s.answer(ctx, a)
}

// Update changes the automation's name, input, cron or timezone (the schedule's spec follows).
func (s *Service) Update(ctx context.Context, scope tenant.Scope, id string, r client.UpdateAutomationRequest) (*client.Automation, error) {
	a, err := s.live(ctx, scope, id, "updated")
	if err != nil {
		return nil, err
	}
	cols, respec, err := s.apply(a, r)
	if err != nil || len(cols) == 0 {
		if err != nil {
			return nil, err
		}
		return s.answer(ctx, a)
	}
	if respec {
		err := s.Schedules.GetHandle(ctx, workflows.AutomationScheduleID(id)).Update(ctx, sdkclient.ScheduleUpdateOptions{
			DoUpdate: func(in sdkclient.ScheduleUpdateInput) (*sdkclient.ScheduleUpdate, error) {
				sched := in.Description.Schedule
				spec := s.spec(a)
				sched.Spec = &spec
				return &sdkclient.ScheduleUpdate{Schedule: &sched}, nil
			}})
		if err != nil {
			return nil, engineError(err)
		}
	}
	if err := s.Store.Save(ctx, a, cols...); err != nil {
		return nil, err
	}
	return s.answer(ctx, a)
}

// apply validates r and sets it on a, answering the columns that changed and whether the schedule's
// spec must follow.
func (s *Service) apply(a *schema.Automation, r client.UpdateAutomationRequest) (cols []string, respec bool, err error) {
	if r.Name != nil {
		a.Name = *r.Name
		cols = append(cols, "name")
	}
	if r.Cron != nil {
		if err := ValidateCron("cron", *r.Cron); err != nil {
			return nil, false, err
		}
		a.Cron, respec = *r.Cron, true
		cols = append(cols, "cron")
	}
	if r.Timezone != nil {
		tz, err := ValidateTimezone("timezone", *r.Timezone)
		if err != nil {
			return nil, false, err
		}
		a.Timezone, respec = tz, true
		cols = append(cols, "timezone")
	}
	if r.Input != nil && IsAppScript(a) {
		return nil, false, errAppOwned("input")
	}
	if r.Input != nil {
		raw, _, err := run.Validate(s.Catalog, a.ServiceID, a.OperationID, *r.Input)
		if err != nil {
			return nil, false, err
		}
		a.Input = raw
		cols = append(cols, "input")
	}
	return cols, respec, nil
}

// Cancel stops the automation for good: its schedule is deleted (a run in flight continues).
func (s *Service) Cancel(ctx context.Context, scope tenant.Scope, id string) (*client.Automation, error) {
	if s.Schedules == nil {
		return nil, errNoEngine
	}
	a, err := s.Store.Get(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	if err := s.stop(ctx, a); err != nil {
		return nil, err
	}
	return s.answer(ctx, a)
}

// stop deletes a's schedule and marks it cancelled (a completed automation stays completed).
func (s *Service) stop(ctx context.Context, a *schema.Automation) error {
	err := s.Schedules.GetHandle(ctx, workflows.AutomationScheduleID(a.ID)).Delete(ctx)
	var notFound *serviceerror.NotFound
	if err != nil && !errors.As(err, &notFound) {
		return engineError(err)
	}
	if a.Status == schema.AutomationCancelled || a.Status == schema.AutomationCompleted {
		return nil
	}
	return s.Store.SetStatus(ctx, a, schema.AutomationCancelled, "cancelled: no further runs")
}

// Delete cancels the automation and removes it from listings.
func (s *Service) Delete(ctx context.Context, scope tenant.Scope, id string) (*client.Automation, error) {
	if s.Schedules == nil {
		return nil, errNoEngine
	}
	a, err := s.Store.Get(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	if err := s.stop(ctx, a); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	a.DeletedAt = &now
	if err := s.Store.Save(ctx, a, "deleted_at"); err != nil {
		return nil, err
	}
	tier, err := tierOf(ctx, s.Store.db, a.AccountID)
	if err != nil {
		return nil, err
	}
	out := ToWire(a, limitsOf(tier), Extra{Counts: rowCounts(a)})
	return &out, nil
}

// engineError answers a failed schedule call.
func engineError(err error) error {
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return svcerr.New(svcerr.Conflict, "the automation's schedule is gone (deleted in the Temporal Web UI?): cancel or delete the automation")
	}
	return svcerr.New(svcerr.Unavailable, "the workflow engine did not answer: %v", err)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
