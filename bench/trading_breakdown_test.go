package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/workflows"
)

// orderTimes is what a bench client saw of one market order: when it sent the request, when the answer
// came, and when a poll first saw the order filled.
type orderTimes struct {
	ID                   string
	Request, Answer, Saw time.Time
}

// orderMarks are the instants of one order's path, in order: the client's request and answer, the
// Temporal history's events of order/<id> and of its child wallettx/<swapTxId>, and the client's poll
// that saw it filled (before the workflow's last task completes it). A mark the histories lack is the zero time.
var orderMarks = []string{
	"request", "workflow started", "child started", "sign scheduled", "sign started", "signed", "broadcast started", "broadcast",
	"receipt wait started", "receipt seen", "tx finished", "child completed (order sees it)", "finish-order started", "order finished",
	"client saw filled", "workflow completed",
}

// breakdown reads each order's histories and logs, for each step from one mark to the next the order
// has (local activities leave no scheduled or started events), its mean across the orders that have it
// and its share of the orders, and the mean of the API's answer after the request.
func breakdown(b *testing.B, tc sdkclient.Client, orders []orderTimes) {
	b.Helper()
	steps := map[string][]time.Duration{}
	var labels []string
	var answers []time.Duration
	for _, o := range orders {
		at := map[string]time.Time{"request": o.Request, "client saw filled": o.Saw}
		historyMarks(b, tc, workflows.OrderWorkflowID(o.ID), true, at)
		historyMarks(b, tc, workflows.WalletTxWorkflowID(trading.SwapTxID(o.ID)), false, at)
		prev := "request"
		for _, m := range orderMarks[1:] {
			if at[m].IsZero() {
				continue
			}
			label := prev + " → " + m
			if _, ok := steps[label]; !ok {
				labels = append(labels, label)
			}
			steps[label] = append(steps[label], at[m].Sub(at[prev]))
			prev = m
		}
		answers = append(answers, o.Answer.Sub(o.Request))
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "where a market order's time goes (%d orders; mean, p50, orders with the step):\n", len(orders))
	fmt.Fprintf(&sb, "  %-62s %8s %8s\n", "(request → API answered, inside the steps below)", mean(answers).Round(time.Millisecond),
		percentile(answers, 50).Round(time.Millisecond))
	for _, l := range labels {
		ds := steps[l]
		fmt.Fprintf(&sb, "  %-62s %8s %8s %4d\n", l, mean(ds).Round(time.Millisecond), percentile(ds, 50).Round(time.Millisecond), len(ds))
	}
	b.Log(sb.String())
}

// historyMarks adds the marks of workflow id's history to at: its start and end, its child's start and
// end, and the scheduling, start and completion of its activities by name.
func historyMarks(b *testing.B, tc sdkclient.Client, id string, order bool, at map[string]time.Time) {
	b.Helper()
	names := map[int64]string{}
	it := tc.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(b, err)
		markEvent(e, order, names, at)
	}
}

// markEvent records e's mark in at (activities named through names, their scheduled events' names); order
// says whether e is in the order's history (else its wallet transaction's).
func markEvent(e *historypb.HistoryEvent, order bool, names map[int64]string, at map[string]time.Time) {
	t := e.GetEventTime().AsTime()
	set := func(mark string) {
		if _, ok := at[mark]; !ok {
			at[mark] = t
		}
	}
	switch e.GetEventType() {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
		if order {
			set("workflow started")
		} else {
			set("child started")
		}
	case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
		set("child completed (order sees it)")
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
		if order {
			set("workflow completed")
		}
	case enumspb.EVENT_TYPE_MARKER_RECORDED:
		markLocal(e, set)
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
		name := e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
		names[e.GetEventId()] = name
		if name == workflows.ActivitySignWalletTx {
			set("sign scheduled")
		}
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
		switch names[e.GetActivityTaskStartedEventAttributes().GetScheduledEventId()] {
		case workflows.ActivitySignWalletTx:
			set("sign started")
		case workflows.ActivityBroadcastWalletTx:
			set("broadcast started")
		case workflows.ActivityWaitWalletTxReceipt:
			set("receipt wait started")
		case workflows.ActivityFinishOrder:
			set("finish-order started")
		}
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
		switch names[e.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()] {
		case workflows.ActivitySignWalletTx:
			set("signed")
		case workflows.ActivityBroadcastWalletTx:
			set("broadcast")
		case workflows.ActivityWaitWalletTxReceipt:
			set("receipt seen")
		case workflows.ActivityFinishWalletTx:
			set("tx finished")
		case workflows.ActivityFinishOrder:
			set("order finished")
		}
	}
}

// localMarks are the marks of steps run as local activities: their markers are recorded when the
// workflow task that ran them completes.
var localMarks = map[string]string{
	workflows.ActivitySignWalletTx: "signed", workflows.ActivityBroadcastWalletTx: "broadcast",
	workflows.ActivityFinishWalletTx: "tx finished", workflows.ActivityFinishOrder: "order finished",
}

// markLocal sets the mark of the local activity whose marker e is.
func markLocal(e *historypb.HistoryEvent, set func(string)) {
	a := e.GetMarkerRecordedEventAttributes()
	if a.GetMarkerName() != "LocalActivity" {
		return
	}
	var data struct{ ActivityType string }
	for _, p := range a.GetDetails()["data"].GetPayloads() {
		if json.Unmarshal(p.GetData(), &data) == nil && localMarks[data.ActivityType] != "" {
			set(localMarks[data.ActivityType])
		}
	}
}

// mean is the mean of ds.
func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(1, len(ds)))
}
