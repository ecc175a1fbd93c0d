package bench

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	svctemporal "github.com/svcplatform/svc/temporal"
)

// devServerWorkflows is how many workflows BenchmarkDevServerWorkflowSteps runs on each server, one at a time.
const devServerWorkflows = 30

// fourSteps is a workflow of four activities in a row, each a workflow step that the server records.
func fourSteps(ctx workflow.Context) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	for range 4 {
		if err := workflow.ExecuteActivity(ctx, noop).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

func noop(context.Context) error { return nil }

// BenchmarkDevServerWorkflowSteps runs four-activity workflows one at a time on the embedded dev server
// (the one `make run` starts, SQLite in a file) as it ships — write-ahead log, synchronous=NORMAL — and
// with SyncEachCommit (synchronous=FULL, every commit flushed to disk), and reports each one's p50
// workflow time and the speed-up.
func BenchmarkDevServerWorkflowSteps(b *testing.B) {
	iter := 0
	for b.Loop() {
		if iter++; iter > 1 {
			b.Fatal("run with -benchtime 1x")
		}
		normal := devServerP50(b, false)
		full := devServerP50(b, true)
		b.ReportMetric(float64(normal.Microseconds())/1000, "ms-p50-default")
		b.ReportMetric(float64(full.Microseconds())/1000, "ms-p50-sync-each-commit")
		b.ReportMetric(float64(full)/float64(normal), "speedup")
	}
}

// devServerP50 starts a dev server in a folder of its own and answers the median time of
// devServerWorkflows runs of fourSteps.
func devServerP50(b *testing.B, syncEachCommit bool) time.Duration {
	ctx, cancel := context.WithTimeout(b.Context(), 3*time.Minute)
	defer cancel()
	port := freeTCPPort(b)
	srv, err := svctemporal.StartDevServer(ctx, svctemporal.DevServerConfig{DataDir: b.TempDir(), FrontendPort: port,
		UIPort: -1, Logger: slog.New(slog.DiscardHandler), SyncEachCommit: syncEachCommit})
	require.NoError(b, err)
	defer func() { require.NoError(b, srv.Stop()) }()
	c, err := svctemporal.Dial(ctx, svctemporal.ClientConfig{Address: srv.FrontendAddress(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	defer c.Close()
	w := worker.New(c, "bench-devserver", worker.Options{})
	w.RegisterWorkflow(fourSteps)
	w.RegisterActivity(noop)
	require.NoError(b, w.Start())
	defer w.Stop()
	times := make([]time.Duration, 0, devServerWorkflows)
	for i := range devServerWorkflows {
		start := time.Now()
		run, err := c.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: fmt.Sprintf("bench-%d", i), TaskQueue: "bench-devserver"}, fourSteps)
		require.NoError(b, err)
		require.NoError(b, run.Get(ctx, nil))
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return times[len(times)/2]
}

// freeTCPPort is a port on 127.0.0.1 that was free a moment ago.
func freeTCPPort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
