package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// triggerEnv is orderEnv with TriggerOrderWorkflow and its activities: the watch reads reached from
// its reachedAt-th read on (0: never), recording the test clock at each read; the fire answers the
// market path of a swap alone; stops are recorded.
func triggerEnv(t *testing.T, reachedAt int) (*testEnv, *[]time.Time, *[]workflows.OrderStop) {
	t.Helper()
	e, _ := orderEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 0)
	e.env.RegisterWorkflowWithOptions(workflows.TriggerOrderWorkflow, workflow.RegisterOptions{Name: workflows.TriggerOrderWorkflowName})
	var reads []time.Time
	var stops []workflows.OrderStop
	e.env.RegisterActivityWithOptions(func(_ context.Context, id string) (workflows.OrderWatch, error) {
		reads = append(reads, e.env.Now())
		*e.steps = append(*e.steps, "watch "+id)
		return workflows.OrderWatch{Reached: reachedAt > 0 && len(reads) >= reachedAt, Price: "2500", Trigger: "2400"}, nil
	}, activity.RegisterOptions{Name: workflows.ActivityWatchOrder})
	e.env.RegisterActivityWithOptions(func(_ context.Context, id string) (workflows.OrderFire, error) {
		*e.steps = append(*e.steps, "fire "+id)
		return workflows.OrderFire{Fired: true, Order: workflows.OrderParams{OrderID: id, SwapTxID: "tx_swap"}}, nil
	}, activity.RegisterOptions{Name: workflows.ActivityFireOrder})
	e.env.RegisterActivityWithOptions(func(_ context.Context, s workflows.OrderStop) error {
		*e.steps = append(*e.steps, "stop "+s.Status)
		stops = append(stops, s)
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityStopOrder})
	return e, &reads, &stops
}

// TestTriggerOrderFiresWhenReached: the price is read every CheckEvery on a durable timer; on the third
// read it is reached, the order fires and the market path sends its swap and records its end.
func TestTriggerOrderFiresWhenReached(t *testing.T) {
	e, reads, stops := triggerEnv(t, 3)
	start := e.env.Now()
	e.env.ExecuteWorkflow(workflows.TriggerOrderWorkflowName, workflows.TriggerOrderParams{OrderID: "ord_1",
		ExpiresAt: start.Add(time.Hour), CheckEvery: 5 * time.Second})
	require.True(t, e.env.IsWorkflowCompleted())
	require.NoError(t, e.env.GetWorkflowError())
	require.Equal(t, []string{"watch ord_1", "watch ord_1", "watch ord_1", "fire ord_1", "sign", "broadcast", "receipt", "finish ord_1"}, *e.steps)
	require.Len(t, *reads, 3)
	require.Equal(t, 10*time.Second, e.env.Now().Sub(start), "three reads, two timers of CheckEvery apart")
	require.Empty(t, *stops)
}

// TestTriggerOrderExpires: a trigger never reached ends expired at ExpiresAt, nothing fired.
func TestTriggerOrderExpires(t *testing.T) {
	e, reads, stops := triggerEnv(t, 0)
	start := e.env.Now()
	e.env.ExecuteWorkflow(workflows.TriggerOrderWorkflowName, workflows.TriggerOrderParams{OrderID: "ord_1",
		ExpiresAt: start.Add(12 * time.Second), CheckEvery: 5 * time.Second})
	require.NoError(t, e.env.GetWorkflowError())
	require.Equal(t, []workflows.OrderStop{{OrderID: "ord_1", Status: workflows.OrderStopExpired}}, *stops)
	require.Len(t, *reads, 3, "reads at 0, 5 and 10 s; the last wait is cut to the expiry")
	require.NotContains(t, *e.steps, "fire ord_1")
	require.False(t, e.env.Now().Before(start.Add(12*time.Second)))
}

// TestTriggerOrderCancelled: the cancel signal during a wait ends the order cancelled at once, unfired.
func TestTriggerOrderCancelled(t *testing.T) {
	e, reads, stops := triggerEnv(t, 0)
	start := e.env.Now()
	e.env.RegisterDelayedCallback(func() { e.env.SignalWorkflow(workflows.OrderCancelSignal, nil) }, 7*time.Second)
	e.env.ExecuteWorkflow(workflows.TriggerOrderWorkflowName, workflows.TriggerOrderParams{OrderID: "ord_1",
		ExpiresAt: start.Add(time.Hour), CheckEvery: 5 * time.Second})
	require.NoError(t, e.env.GetWorkflowError())
	require.Equal(t, []workflows.OrderStop{{OrderID: "ord_1", Status: workflows.OrderStopCancelled}}, *stops)
	require.Len(t, *reads, 2)
	require.NotContains(t, *e.steps, "fire ord_1")
	require.Less(t, e.env.Now().Sub(start), 10*time.Second, "the cancel does not wait for the timer")
}

// TestTriggerOrderRefusedAtFire: an order whose swap the policy refuses when it fires (the fire answers
// not fired: it recorded the order failed) ends there, sending nothing.
func TestTriggerOrderRefusedAtFire(t *testing.T) {
	e, _, stops := triggerEnv(t, 1)
	e.env.OnActivity(workflows.ActivityFireOrder, mock.Anything, "ord_1").Return(workflows.OrderFire{}, nil)
	e.env.ExecuteWorkflow(workflows.TriggerOrderWorkflowName, workflows.TriggerOrderParams{OrderID: "ord_1",
		ExpiresAt: e.env.Now().Add(time.Hour), CheckEvery: 5 * time.Second})
	require.NoError(t, e.env.GetWorkflowError())
	require.Equal(t, []string{"watch ord_1"}, *e.steps, "nothing signed")
	require.Empty(t, *stops)
}
