package temporal_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/temporal"
)

const taskQueue = "devserver-test"

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// testLogger returns a logger that writes through t.Log.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// startDevServer starts a dev server on free ports in dataDir and stops it
// at the end of the test unless the test stopped it already.
func startDevServer(t *testing.T, dataDir string, frontendPort, uiPort int) *temporal.DevServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	srv, err := temporal.StartDevServer(ctx, temporal.DevServerConfig{
		DataDir:      dataDir,
		FrontendPort: frontendPort,
		UIPort:       uiPort,
		Logger:       testLogger(t),
	})
	require.NoError(t, err)
	t.Logf("dev server started in %s", time.Since(start))
	t.Cleanup(func() { require.NoError(t, srv.Stop()) })
	return srv
}

// dial connects a client to srv.
func dial(t *testing.T, srv *temporal.DevServer) client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := temporal.Dial(ctx, temporal.ClientConfig{Address: srv.FrontendAddress(), Logger: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// requireSearchAttributes checks the platform's attributes are registered.
func requireSearchAttributes(t *testing.T, ctx context.Context, c client.Client) {
	t.Helper()
	resp, err := c.OperatorService().ListSearchAttributes(ctx,
		&operatorservice.ListSearchAttributesRequest{Namespace: temporal.DefaultNamespace})
	require.NoError(t, err)
	for _, name := range []string{temporal.AttrAccountID, temporal.AttrProjectID, temporal.AttrServiceID, temporal.AttrOperationID} {
		require.Equal(t, enumspb.INDEXED_VALUE_TYPE_KEYWORD, resp.GetCustomAttributes()[name], name)
	}
}

// Greet is the trivial workflow the tests run.
func Greet(_ workflow.Context, name string) (string, error) {
	return "hello " + name, nil
}

// runGreet runs Greet to completion with a worker and returns its run.
func runGreet(t *testing.T, ctx context.Context, c client.Client) client.WorkflowRun {
	t.Helper()
	w := worker.New(c, taskQueue, worker.Options{})
	w.RegisterWorkflow(Greet)
	require.NoError(t, w.Start())
	defer w.Stop()

	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        "greet-1",
		TaskQueue: taskQueue,
		TypedSearchAttributes: sdktemporal.NewSearchAttributes(
			temporal.KeyAccountID.ValueSet("acc-1"),
			temporal.KeyOperationID.ValueSet("op-1"),
		),
	}, Greet, "world")
	require.NoError(t, err)
	var out string
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, "hello world", out)
	return run
}

func TestDevServerPersistsAcrossRestart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dataDir := t.TempDir()
	frontendPort, uiPort := freePort(t), freePort(t)

	srv := startDevServer(t, dataDir, frontendPort, uiPort)
	c := dial(t, srv)
	ns, err := c.WorkflowService().DescribeNamespace(ctx,
		&workflowservice.DescribeNamespaceRequest{Namespace: temporal.DefaultNamespace})
	require.NoError(t, err)
	require.Equal(t, temporal.DevNamespaceRetention, ns.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration())
	requireSearchAttributes(t, ctx, c)
	run := runGreet(t, ctx, c)
	c.Close()
	stopped := time.Now()
	require.NoError(t, srv.Stop())
	t.Logf("dev server stopped in %s", time.Since(stopped))

	srv = startDevServer(t, dataDir, frontendPort, uiPort)
	c = dial(t, srv)
	desc, err := c.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.GetWorkflowExecutionInfo().GetStatus())
	requireHistoryComplete(t, ctx, c, run)
	requireSearchAttributes(t, ctx, c)
	requireUIServes(t, ctx, srv.UIAddress())
}

// requireHistoryComplete checks the run's full history is still stored.
func requireHistoryComplete(t *testing.T, ctx context.Context, c client.Client, run client.WorkflowRun) {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var last enumspb.EventType
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		last = ev.GetEventType()
	}
	require.Equal(t, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, last)
}

// requireUIServes checks the Web UI answers 200 on its root page.
func requireUIServes(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "<html")
}

func TestEnsureSearchAttributesIdempotent(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := startDevServer(t, t.TempDir(), freePort(t), -1)
	require.Empty(t, srv.UIAddress())
	c := dial(t, srv)

	const ns = "ensure-test"
	require.NoError(t, temporal.EnsureNamespace(ctx, c, ns, 24*time.Hour))
	require.NoError(t, temporal.EnsureNamespace(ctx, c, ns, 24*time.Hour))
	require.NoError(t, temporal.EnsureSearchAttributes(ctx, c, ns))
	require.NoError(t, temporal.EnsureSearchAttributes(ctx, c, ns))

	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: ns})
	require.NoError(t, err)
	for _, name := range []string{temporal.AttrAccountID, temporal.AttrProjectID, temporal.AttrServiceID, temporal.AttrOperationID} {
		require.Equal(t, enumspb.INDEXED_VALUE_TYPE_KEYWORD, resp.GetCustomAttributes()[name], name)
	}
}

func TestStartDevServerFailsWhenUIPortBusy(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = temporal.StartDevServer(ctx, temporal.DevServerConfig{
		DataDir:      t.TempDir(),
		FrontendPort: freePort(t),
		UIPort:       l.Addr().(*net.TCPAddr).Port,
		Logger:       testLogger(t),
	})
	require.ErrorContains(t, err, "unavailable")
}

func TestDialRejectsIncompleteClientCertificate(t *testing.T) {
	t.Parallel()
	_, err := temporal.Dial(context.Background(), temporal.ClientConfig{TLSCertFile: "client.pem"})
	require.ErrorContains(t, err, "TLSKeyFile")
}
