package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// AppScriptWorkflowID is the workflow id of an app script run.
func AppScriptWorkflowID(runID string) string { return "appscript/" + runID }

// AppScriptParams is the input of AppScriptWorkflow.
type AppScriptParams struct {
	RunID string
}

// AppScriptOutcome is what ActivityRunAppScript recorded: the run's final status and its error.
type AppScriptOutcome struct {
	RunID  string
	Status string
	Error  string
}

// AppScriptFailure is the input of ActivityFailAppScript.
type AppScriptFailure struct {
	RunID   string
	Message string
}

// AppScriptHeartbeatTimeout is how long a silent script activity is trusted: it heartbeats while the
// script runs, so a run whose worker died is retried elsewhere after this long.
const AppScriptHeartbeatTimeout = 10 * time.Second

// appScriptRun retries the script's activity a few times: each attempt re-executes the script, its
// platform calls answered from the run's journal (see migration 0047), so a retry repeats no write.
var appScriptRun = workflow.ActivityOptions{
	StartToCloseTimeout: 2 * time.Minute,
	HeartbeatTimeout:    AppScriptHeartbeatTimeout,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2,
		MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
}

// appScriptBookkeeping retries the failure's record until it commits.
var appScriptBookkeeping = workflow.ActivityOptions{
	StartToCloseTimeout: 10 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: time.Minute},
}

// AppScriptWorkflow (workflow id appscript/<runId>) runs an app's script once: ActivityRunAppScript does
// the work and records the outcome; should it give up (its worker kept failing), ActivityFailAppScript
// records the run failed with the reason. The memo keeps the status.
func AppScriptWorkflow(ctx workflow.Context, p AppScriptParams) (AppScriptOutcome, error) {
	upsertStatus(ctx, "running")
	var out AppScriptOutcome
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, appScriptRun), ActivityRunAppScript, p.RunID).Get(ctx, &out)
	if err != nil {
		f := AppScriptFailure{RunID: p.RunID, Message: fmt.Sprintf("the script could not be run: %v", err)}
		if ferr := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, appScriptBookkeeping), ActivityFailAppScript, f).Get(ctx, &out); ferr != nil {
			return AppScriptOutcome{}, fmt.Errorf("record app script run %s failed: %w", p.RunID, ferr)
		}
	}
	upsertStatus(ctx, out.Status)
	return out, nil
}
