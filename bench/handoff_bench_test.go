package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.temporal.io/server/temporaltest"

	"github.com/svcplatform/svc/app/apptest"
)

// Sizes of BenchmarkTemporalHandoff.
const (
	// handoffActivities is how many no-op activities each workflow runs one after another.
	handoffActivities = 5
	// handoffWorkflows is how many workflows the benchmark runs, one at a time.
	handoffWorkflows = 30
	// handoffQueue is the benchmark's task queue.
	handoffQueue = "handoff-bench"
)

// handoffNoop is the benchmark's activity: it does nothing, so a workflow's wall time is all hand-offs.
func handoffNoop(context.Context) error { return nil }

// handoffWorkflow runs handoffActivities no-op activities one after another.
func handoffWorkflow(ctx workflow.Context) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	for i := range handoffActivities {
		if err := workflow.ExecuteActivity(ctx, handoffNoop).Get(ctx, nil); err != nil {
			return fmt.Errorf("activity %d: %w", i, err)
		}
	}
	return nil
}

// BenchmarkTemporalHandoff runs workflows of five sequential no-op activities one at a time on an
// in-process Temporal server (temporaltest, in-memory SQLite), with a worker in this process, and reports
// the wall time per workflow and per hand-off (a workflow of n activities has n+1 workflow tasks and n
// activity tasks), on a server with temporaltest's defaults and on one with the platform's dynamic config
// (apptest.NewTemporalServer). It logs the event gaps of the last workflow's history, which show where the
// time goes, and how many workflows took over a second to report their result.
func BenchmarkTemporalHandoff(b *testing.B) {
	b.Run("server-defaults", func(b *testing.B) { benchHandoff(b, temporaltest.NewServer()) })
	b.Run("platform", func(b *testing.B) { benchHandoff(b, apptest.NewTemporalServer()) })
}

// benchHandoff runs handoffWorkflows workflows one at a time on ts and reports their wall times.
func benchHandoff(b *testing.B, ts *temporaltest.TestServer) {
	b.Cleanup(ts.Stop)
	c := ts.GetDefaultClient()
	w := ts.NewWorker(handoffQueue, func(r worker.Registry) {
		r.RegisterWorkflow(handoffWorkflow)
		r.RegisterActivity(handoffNoop)
	})
	b.Cleanup(w.Stop)
	ctx := context.Background()
	runHandoffWorkflow(b, ctx, c, "warm-up")
	iter := 0
	for b.Loop() {
		if iter++; iter > 1 {
			b.Fatal("run with -benchtime 1x")
		}
		walls := make([]time.Duration, 0, handoffWorkflows)
		var last string
		slow := 0
		for i := range handoffWorkflows {
			last = fmt.Sprintf("handoff-%d", i)
			wall := runHandoffWorkflow(b, ctx, c, last)
			if wall > time.Second {
				slow++
			}
			walls = append(walls, wall)
		}
		slices.Sort(walls)
		p50 := walls[len(walls)/2]
		handoffs := 2*handoffActivities + 1
		b.ReportMetric(float64(p50.Microseconds())/1000, "workflow-p50-ms")
		b.ReportMetric(float64(p50.Microseconds())/1000/float64(handoffs), "handoff-ms")
		b.Logf("%d workflows of %d no-op activities: p50 %v, min %v, max %v (%v per hand-off at p50); %d over 1 s",
			handoffWorkflows, handoffActivities, p50, walls[0], walls[len(walls)-1], p50/time.Duration(handoffs), slow)
		b.Logf("event gaps of %s:\n%s", last, historyGaps(b, ctx, c, last))
	}
}

// runHandoffWorkflow starts one handoffWorkflow and waits for its result; it returns the wall time.
func runHandoffWorkflow(b *testing.B, ctx context.Context, c sdkclient.Client, id string) time.Duration {
	start := time.Now()
	run, err := c.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: id, TaskQueue: handoffQueue}, handoffWorkflow)
	require.NoError(b, err, "start workflow %s", id)
	require.NoError(b, run.Get(ctx, nil), "workflow %s", id)
	return time.Since(start)
}

// historyGaps lists a workflow's events with the time since the previous event.
func historyGaps(b *testing.B, ctx context.Context, c sdkclient.Client, id string) string {
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var sb strings.Builder
	var prev *historypb.HistoryEvent
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(b, err, "history of %s", id)
		gap := time.Duration(0)
		if prev != nil {
			gap = ev.GetEventTime().AsTime().Sub(prev.GetEventTime().AsTime())
		}
		fmt.Fprintf(&sb, "  %3d %-40s +%v\n", ev.GetEventId(), ev.GetEventType(), gap)
		prev = ev
	}
	return sb.String()
}
