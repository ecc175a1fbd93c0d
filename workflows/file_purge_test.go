package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// TestFilePurgeWaitsThenPurgesOnce: the purge runs only once the timer reaches the purge time, and a
// store that fails for a while is retried until the file is gone.
func TestFilePurgeWaitsThenPurgesOnce(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.FilePurgeWorkflow, workflow.RegisterOptions{Name: workflows.FilePurgeWorkflowName})
	start := env.Now()
	purgeAt := start.Add(24 * time.Hour)
	var calls, purged int
	var calledAt time.Time
	env.RegisterActivityWithOptions(func(_ context.Context, id string) error {
		calls++
		if calls == 1 {
			calledAt = env.Now()
		}
		require.Equal(t, "file_x", id)
		if calls <= 2 {
			return errors.New("blob store away")
		}
		purged++
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityPurgeFile})

	env.ExecuteWorkflow(workflows.FilePurgeWorkflowName, workflows.FilePurgeParams{FileID: "file_x", PurgeAt: purgeAt})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, 1, purged)
	require.Equal(t, 3, calls)
	require.False(t, calledAt.Before(purgeAt), "purged at %s, before its purge time %s", calledAt, purgeAt)
}

// TestFilePurgePastItsTimePurgesAtOnce: a purge started late (its time already past) does not wait.
func TestFilePurgePastItsTimePurgesAtOnce(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	env.RegisterWorkflowWithOptions(workflows.FilePurgeWorkflow, workflow.RegisterOptions{Name: workflows.FilePurgeWorkflowName})
	start := env.Now()
	env.RegisterActivityWithOptions(func(context.Context, string) error { return nil }, activity.RegisterOptions{Name: workflows.ActivityPurgeFile})
	env.ExecuteWorkflow(workflows.FilePurgeWorkflowName, workflows.FilePurgeParams{FileID: "file_y", PurgeAt: start.Add(-time.Hour)})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Less(t, env.Now().Sub(start), time.Minute)
}
