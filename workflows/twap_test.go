package workflows_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows"
)

// twapEnv is orderEnv with TwapOrderWorkflow, DcaFireWorkflow and their activities: each slice placed
// answers a child order of its own (the test clock recorded at each), and parents' ends are recorded.
func twapEnv(t *testing.T) (*testEnv, *[]time.Time, *[]workflows.OrderSlice, *[]workflows.ParentEnd) {
	t.Helper()
	e, _ := orderEnv(t, workflows.WalletTxSigned{Hash: "0xabc"}, true, 0)
	e.env.RegisterWorkflowWithOptions(workflows.TwapOrderWorkflow, workflow.RegisterOptions{Name: workflows.TwapOrderWorkflowName})
	e.env.RegisterWorkflowWithOptions(workflows.DcaFireWorkflow, workflow.RegisterOptions{Name: workflows.DcaFireWorkflowName})
	var placedAt []time.Time
	var slices []workflows.OrderSlice
	var ends []workflows.ParentEnd
	e.env.RegisterActivityWithOptions(func(_ context.Context, s workflows.OrderSlice) (workflows.OrderFire, error) {
		placedAt, slices = append(placedAt, e.env.Now()), append(slices, s)
		id := fmt.Sprintf("ord_child%d%s", s.Index, s.FireKey)
		*e.steps = append(*e.steps, "place "+id)
		return workflows.OrderFire{Fired: true, Order: workflows.OrderParams{OrderID: id, SwapTxID: "tx_" + id}}, nil
	}, activity.RegisterOptions{Name: workflows.ActivityPlaceSlice})
	e.env.RegisterActivityWithOptions(func(_ context.Context, end workflows.ParentEnd) error {
		*e.steps = append(*e.steps, "end "+end.OrderID)
		ends = append(ends, end)
		return nil
	}, activity.RegisterOptions{Name: workflows.ActivityEndParent})
	return e, &placedAt, &slices, &ends
}

// TestTwapPlacesSlicesAtTheSpacing: four slices over 8 s on the test clock are placed 2 s apart, the
// first at once, each run as its own child order (its swap sent once), and the parent's end is recorded
// once, not cancelled, after the last child has ended.
func TestTwapPlacesSlicesAtTheSpacing(t *testing.T) {
	e, placedAt, slices, ends := twapEnv(t)
	start := e.env.Now()
	e.env.ExecuteWorkflow(workflows.TwapOrderWorkflowName, workflows.TwapOrderParams{OrderID: "ord_p", Slices: 4, Interval: 2 * time.Second})
	require.True(t, e.env.IsWorkflowCompleted())
	require.NoError(t, e.env.GetWorkflowError())
	require.Len(t, *placedAt, 4)
	for i, at := range *placedAt {
		require.Equal(t, time.Duration(i)*2*time.Second, at.Sub(start), "slice %d", i)
		require.Equal(t, workflows.OrderSlice{ParentOrderID: "ord_p", Index: i}, (*slices)[i])
	}
	require.Len(t, *e.ends, 4, "one swap per slice")
	require.Equal(t, []workflows.ParentEnd{{OrderID: "ord_p"}}, *ends)
	require.Equal(t, "end ord_p", (*e.steps)[len(*e.steps)-1])
}

// TestTwapCancelStopsFutureSlices: a cancel 3 s in (after two slices) places no more; the slices placed
// run to their end and the parent's end says cancelled.
func TestTwapCancelStopsFutureSlices(t *testing.T) {
	e, placedAt, _, ends := twapEnv(t)
	e.env.RegisterDelayedCallback(func() { e.env.SignalWorkflow(workflows.OrderCancelSignal, nil) }, 3*time.Second)
	e.env.ExecuteWorkflow(workflows.TwapOrderWorkflowName, workflows.TwapOrderParams{OrderID: "ord_p", Slices: 4, Interval: 2 * time.Second})
	require.NoError(t, e.env.GetWorkflowError())
	require.Len(t, *placedAt, 2)
	require.Len(t, *e.ends, 2, "the two slices placed were sent")
	require.Equal(t, []workflows.ParentEnd{{OrderID: "ord_p", Cancelled: true}}, *ends)
}

// TestDcaFirePlacesOneSlice: a fire places one slice keyed by its scheduled time (the start time when
// started outside a schedule), runs it, then records the parent's end (which leaves it open while
// slices remain).
func TestDcaFirePlacesOneSlice(t *testing.T) {
	e, _, slices, ends := twapEnv(t)
	e.env.ExecuteWorkflow(workflows.DcaFireWorkflowName, workflows.DcaFireParams{OrderID: "ord_d"})
	require.NoError(t, e.env.GetWorkflowError())
	require.Len(t, *slices, 1)
	require.Equal(t, "ord_d", (*slices)[0].ParentOrderID)
	_, err := time.Parse(time.RFC3339Nano, (*slices)[0].FireKey)
	require.NoError(t, err, "the fire key is the fire's time")
	require.Len(t, *e.ends, 1)
	require.Equal(t, []workflows.ParentEnd{{OrderID: "ord_d"}}, *ends)
}
