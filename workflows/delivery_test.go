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

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/workflows"
)

// fakeEndpoint plays DeliverWebhook: each attempt takes the next scripted result (the last repeats)
// and notes the workflow clock.
type fakeEndpoint struct {
	env      *testsuite.TestWorkflowEnvironment
	script   []workflows.DeliveryAttemptResult
	attempts []time.Time
	numbers  []int
	finished []string
}

func (f *fakeEndpoint) deliver(_ context.Context, in workflows.DeliveryAttempt) (workflows.DeliveryAttemptResult, error) {
	f.attempts = append(f.attempts, f.env.Now())
	f.numbers = append(f.numbers, in.Number)
	r := f.script[min(len(f.attempts), len(f.script))-1]
	if r.HTTPStatus == -1 {
		return workflows.DeliveryAttemptResult{}, errors.New("worker lost")
	}
	return r, nil
}

func (f *fakeEndpoint) finish(_ context.Context, _ string, status string) error {
	f.finished = append(f.finished, status)
	return nil
}

func runDelivery(t *testing.T, script ...workflows.DeliveryAttemptResult) (*fakeEndpoint, string) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := newTestEnv(&suite)
	f := &fakeEndpoint{env: env, script: script}
	env.RegisterWorkflowWithOptions(workflows.DeliveryWorkflow, workflow.RegisterOptions{Name: workflows.DeliveryWorkflowName})
	env.RegisterActivityWithOptions(f.deliver, activity.RegisterOptions{Name: workflows.ActivityDeliverWebhook})
	env.RegisterActivityWithOptions(f.finish, activity.RegisterOptions{Name: workflows.ActivityFinishDelivery})
	env.ExecuteWorkflow(workflows.DeliveryWorkflowName, workflows.DeliveryParams{DeliveryID: "dlv_test"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var status string
	require.NoError(t, env.GetWorkflowResult(&status))
	require.Equal(t, []string{status}, f.finished, "the final status is recorded once")
	return f, status
}

var (
	ok200   = workflows.DeliveryAttemptResult{Succeeded: true, HTTPStatus: 200}
	fail500 = workflows.DeliveryAttemptResult{HTTPStatus: 500}
)

// requireGap checks the wait before attempt i (0-based) is the schedule's step, plus at most the jitter.
func requireGap(t *testing.T, f *fakeEndpoint, i int, step time.Duration) {
	t.Helper()
	gap := f.attempts[i].Sub(f.attempts[i-1])
	require.GreaterOrEqual(t, gap, step, "wait before attempt %d", i+1)
	require.LessOrEqual(t, gap, step+time.Duration(float64(step)*workflows.DeliveryJitter), "wait before attempt %d", i+1)
}

// TestDeliverySucceedsFirstTime: one attempt, succeeded.
func TestDeliverySucceedsFirstTime(t *testing.T) {
	t.Parallel()
	f, status := runDelivery(t, ok200)
	require.Equal(t, workflows.DeliverySucceeded, status)
	require.Equal(t, []int{1}, f.numbers)
}

// TestDeliveryRetriesOnTheSchedule: two failures (an error status, then a lost attempt), then success;
// the waits are 5 s and 5 min with jitter.
func TestDeliveryRetriesOnTheSchedule(t *testing.T) {
	t.Parallel()
	f, status := runDelivery(t, fail500, workflows.DeliveryAttemptResult{HTTPStatus: -1}, ok200)
	require.Equal(t, workflows.DeliverySucceeded, status)
	require.Equal(t, []int{1, 2, 3}, f.numbers)
	requireGap(t, f, 1, 5*time.Second)
	requireGap(t, f, 2, 5*time.Minute)
}

// TestDeliveryHonoursRetryAfter: a 429 asking for an hour is retried after an hour, not 5 s; a
// Retry-After shorter than the step does not shorten it.
func TestDeliveryHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	f, status := runDelivery(t,
		workflows.DeliveryAttemptResult{HTTPStatus: 429, RetryAfter: time.Hour},
		workflows.DeliveryAttemptResult{HTTPStatus: 503, RetryAfter: time.Second},
		ok200)
	require.Equal(t, workflows.DeliverySucceeded, status)
	require.Equal(t, time.Hour, f.attempts[1].Sub(f.attempts[0]))
	requireGap(t, f, 2, 5*time.Minute)
}

// TestDeliveryStopsWhenTheEndpointIsDisabled: 410 Gone (the activity disabled the endpoint) ends the
// delivery failed at once.
func TestDeliveryStopsWhenTheEndpointIsDisabled(t *testing.T) {
	t.Parallel()
	f, status := runDelivery(t, workflows.DeliveryAttemptResult{HTTPStatus: 410, EndpointDisabled: true}, ok200)
	require.Equal(t, workflows.DeliveryFailed, status)
	require.Len(t, f.attempts, 1)
}

// TestDeliveryScheduleExhausted: ten failed attempts on the whole schedule, then failed.
func TestDeliveryScheduleExhausted(t *testing.T) {
	t.Parallel()
	f, status := runDelivery(t, fail500)
	require.Equal(t, workflows.DeliveryFailed, status)
	require.Len(t, f.attempts, len(workflows.DeliverySchedule)+1)
	for i, step := range workflows.DeliverySchedule {
		requireGap(t, f, i+1, step)
	}
}

// TestRetryDelay: deterministic per delivery and attempt, within the jitter, Retry-After capped.
func TestRetryDelay(t *testing.T) {
	t.Parallel()
	for n, step := range workflows.DeliverySchedule {
		d := workflows.RetryDelay("dlv_a", n+1, 0)
		require.Equal(t, d, workflows.RetryDelay("dlv_a", n+1, 0))
		require.GreaterOrEqual(t, d, step)
		require.LessOrEqual(t, d, step+time.Duration(float64(step)*workflows.DeliveryJitter))
	}
	require.NotEqual(t, workflows.RetryDelay("dlv_a", 5, 0), workflows.RetryDelay("dlv_b", 5, 0))
	require.Equal(t, workflows.MaxRetryAfter, workflows.RetryDelay("dlv_a", 1, 1000*time.Hour))
}

// The workflow writes delivery statuses without importing the client package; they must be the API's.
func TestDeliveryStatusesMatchTheAPI(t *testing.T) {
	t.Parallel()
	require.Equal(t, client.DeliveryPending, workflows.DeliveryPending)
	require.Equal(t, client.DeliverySucceeded, workflows.DeliverySucceeded)
	require.Equal(t, client.DeliveryFailed, workflows.DeliveryFailed)
}
