package api_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	svctemporal "github.com/svcplatform/svc/temporal"
)

// loggedWorker runs the production worker on a client of its own whose SDK logs (info and above) go to
// the returned buffer.
func loggedWorker(t *testing.T, env *apptest.Env) *apptest.Buffer {
	t.Helper()
	logs := &apptest.Buffer{}
	c, err := svctemporal.Dial(context.Background(), svctemporal.ClientConfig{Address: env.TemporalAddress, Namespace: env.Namespace,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	w := app.NewWorker(c, app.WorkerDeps{DB: env.DB, Box: env.Box, Artifacts: env.Artifacts}, sdkworker.Options{})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return logs
}

// TestApprovalFlowsLogNoUnhandledSignals: approving, rejecting and cancelling gated runs leaves no
// approval outcome unread by its run (the decision reaches a run twice by design: from the API and
// relayed by the approval's workflow), so the worker logs neither "Workflow has unhandled signals" nor
// a refused close (UnhandledCommand), and every workflow closes.
func TestApprovalFlowsLogNoUnhandledSignals(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{NoWorker: true})
	logs := loggedWorker(t, env)
	root, _ := firstKey(t, env)
	approver, _ := approverKey(t, env, root)
	var workflowIDs []string
	for i := range 3 {
		for _, c := range []struct{ action, want string }{
			{"approve", client.RunSucceeded}, {"reject", client.RunFailed}, {"cancel", client.RunCancelled},
		} {
			idem := fmt.Sprintf("%s-%d", c.action, i)
			runID, aprID := startGatedRun(t, env, root, idem, nil)
			if c.action == "cancel" {
				r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs/" + runID + "/cancel", Key: root,
					Headers: map[string]string{"Idempotency-Key": idem + "-act"}})
				require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
			} else {
				require.Equal(t, http.StatusOK, decide(t, env, approver, aprID, c.action, idem+"-act").Status)
			}
			waitRun(t, env, root, runID, c.want)
			workflowIDs = append(workflowIDs, "run/"+runID, "approval/"+aprID)
		}
	}
	for _, id := range workflowIDs {
		require.Eventually(t, func() bool { return workflowClosed(env, id) }, 20*time.Second, 20*time.Millisecond, "%s never closed", id)
	}
	require.NotContains(t, logs.String(), "unhandled signals")
	require.NotContains(t, logs.String(), "UnhandledCommand")
	require.Contains(t, logs.String(), "Started Worker", "the logs are captured")
}
