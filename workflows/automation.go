package workflows

import (
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// AutomationFireParams is the input of AutomationFireWorkflow, the action of the schedule
// automation/<id>: the same for every fire (the automation's definition is read when it fires).
type AutomationFireParams struct {
	AutomationID string
}

// AutomationFireInput is what ActivityPrepareAutomationFire is asked: the automation and the fire's
// scheduled time, from which the run's id derives.
type AutomationFireInput struct {
	AutomationID string
	ScheduledAt  time.Time
}

// AutomationFire is what a fire does, as ActivityPrepareAutomationFire decided it under the automation's
// lock: start the run RunID (recorded, with Run its workflow's input), or the app script run AppRun, or
// nothing (Skipped says why), and pause the schedule when Pause is set (the automation used up its
// executions, say; Note says why).
type AutomationFire struct {
	RunID     string
	Run       RunParams
	AppRun    *AppScriptStart `json:",omitempty"`
	AccountID string
	ProjectID *string
	Skipped   string
	Pause     bool
	Note      string
}

// AppScriptStart is the app script run (recorded queued) a fire starts as appscript/<RunID> and waits
// for; ServiceID and OperationID are its resource attributes, App and Script its memo.
type AppScriptStart struct {
	RunID       string
	ServiceID   string
	OperationID string
	App         string
	Script      string
}

// AutomationScheduleID is the Temporal Schedule id of an automation.
func AutomationScheduleID(automationID string) string { return "automation/" + automationID }

// AutomationFireWorkflowID is the workflow id a schedule gives its fires; Temporal appends each fire's
// scheduled time, so a fire is never started twice.
func AutomationFireWorkflowID(automationID string) string { return "automation-fire/" + automationID }

// scheduledStartTime is the search attribute Temporal sets on a schedule's workflows: the fire's
// scheduled time (the trigger's time for a triggered fire).
var scheduledStartTime = temporal.NewSearchAttributeKeyTime("TemporalScheduledStartTime")

// fireBookkeeping retries the fire's short, idempotent steps until they succeed. Each is one short
// transaction or Temporal call, so an attempt lost with its worker (killed mid-step) is retried within
// seconds: while the fire waits, the schedule's skip policy skips the fires that come due.
var fireBookkeeping = workflow.ActivityOptions{
	StartToCloseTimeout: 10 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
}

// AutomationFireWorkflow (workflow id automation-fire/<automationId>-<scheduled time>, started by the
// schedule automation/<automationId>) performs one fire: ActivityPrepareAutomationFire records the run
// under the tier's and the key's limits (or refuses it), then the run's own RunWorkflow (run/<runId>,
// or AppScriptWorkflow appscript/<runId> for an app's scheduled script) starts as a child, abandoned if
// this workflow ends, and this workflow waits for it, so the schedule's overlap policy sees the run going.
// The run's id derives from the automation and the scheduled time: a retried fire, a restarted process or
// a second worker never doubles it.
func AutomationFireWorkflow(ctx workflow.Context, p AutomationFireParams) error {
	in := AutomationFireInput{AutomationID: p.AutomationID, ScheduledAt: scheduledAt(ctx)}
	actx := workflow.WithActivityOptions(ctx, fireBookkeeping)
	var fire AutomationFire
	if err := workflow.ExecuteActivity(actx, ActivityPrepareAutomationFire, in).Get(ctx, &fire); err != nil {
		return fmt.Errorf("prepare the fire of automation %s: %w", p.AutomationID, err)
	}
	if fire.Pause {
		if err := workflow.ExecuteActivity(actx, ActivityPauseAutomationSchedule, p.AutomationID, fire.Note).Get(ctx, nil); err != nil {
			return fmt.Errorf("pause automation %s: %w", p.AutomationID, err)
		}
	}
	if fire.AppRun != nil {
		return awaitAppScript(ctx, p.AutomationID, fire)
	}
	if fire.RunID == "" {
		return nil
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            RunWorkflowID(fire.RunID),
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: ResourceAttributes(fire.AccountID, fire.ProjectID, fire.Run.ServiceID, fire.Run.OperationID),
		Memo:                  map[string]any{"runId": fire.RunID, "automationId": p.AutomationID},
	})
	child := workflow.ExecuteChildWorkflow(cctx, RunWorkflowName, fire.Run)
	if err := child.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		if temporal.IsWorkflowExecutionAlreadyStartedError(err) {
			return nil // the run was started before (by the run sweep, say)
		}
		return fmt.Errorf("start run %s of automation %s: %w", fire.RunID, p.AutomationID, err)
	}
	_ = child.Get(ctx, nil) // the run records its own outcome; waiting lets the overlap policy see it
	return nil
}

// awaitAppScript starts the fire's app script run appscript/<runId> as a child, abandoned if the fire
// ends, and waits for it like a run, so the schedule's overlap policy sees the script going. A run
// started before (by the app runs' sweep, say) is not waited for.
func awaitAppScript(ctx workflow.Context, automationID string, fire AutomationFire) error {
	r := fire.AppRun
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            AppScriptWorkflowID(r.RunID),
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: ResourceAttributes(fire.AccountID, fire.ProjectID, r.ServiceID, r.OperationID),
		Memo:                  map[string]any{"status": "queued", "app": r.App, "script": r.Script, "automationId": automationID},
	})
	child := workflow.ExecuteChildWorkflow(cctx, AppScriptWorkflowName, AppScriptParams{RunID: r.RunID})
	if err := child.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		if temporal.IsWorkflowExecutionAlreadyStartedError(err) {
			return nil
		}
		return fmt.Errorf("start app script run %s of automation %s: %w", r.RunID, automationID, err)
	}
	_ = child.Get(ctx, nil) // the run records its own outcome; waiting lets the overlap policy see it
	return nil
}

// scheduledAt is the fire's scheduled time, or the workflow's start time when started otherwise.
func scheduledAt(ctx workflow.Context) time.Time {
	if t, ok := workflow.GetTypedSearchAttributes(ctx).GetTime(scheduledStartTime); ok {
		return t.UTC()
	}
	return workflow.GetInfo(ctx).WorkflowStartTime.UTC()
}
