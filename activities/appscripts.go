package activities

import (
	"context"
	"errors"

	"github.com/svcplatform/svc/internal/apprun"
	"github.com/svcplatform/svc/workflows"
)

// FaultAppScriptStallAfterCall (a test-only fault, from SVC_TEST_FAULT) stops RunAppScript once the
// run's first journalled platform call (an appKV write, say) is performed and stored, before the script
// goes on: the crash test kills the worker there. Never set it in production.
const FaultAppScriptStallAfterCall = "appscript-stall-after-call"

// AppScripts are the activities of app script runs (issue 26). RunAppScript heartbeats while the script
// runs, so a run whose worker died is retried after workflows.AppScriptHeartbeatTimeout.
type AppScripts struct {
	// Runner performs them; nil fails them saying so (retried until a worker has one).
	Runner *apprun.Runner
}

var errNoAppScripts = errors.New("this worker does not run app scripts")

// appScriptHeartbeatEvery is how often a script's activity heartbeats.
const appScriptHeartbeatEvery = workflows.AppScriptHeartbeatTimeout / 4

// RunAppScript executes a run's script and records its outcome (a finished run answers its outcome).
func (a *AppScripts) RunAppScript(ctx context.Context, runID string) (workflows.AppScriptOutcome, error) {
	if a.Runner == nil {
		return workflows.AppScriptOutcome{}, errNoAppScripts
	}
	defer heartbeat(ctx, appScriptHeartbeatEvery, nil)()
	return a.Runner.Run(ctx, runID)
}

// FailAppScript records a run failed once RunAppScript gave up.
func (a *AppScripts) FailAppScript(ctx context.Context, f workflows.AppScriptFailure) (workflows.AppScriptOutcome, error) {
	if a.Runner == nil {
		return workflows.AppScriptOutcome{}, errNoAppScripts
	}
	return a.Runner.Fail(ctx, f)
}
