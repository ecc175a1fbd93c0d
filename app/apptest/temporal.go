package apptest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/server/common/dynamicconfig"
	servertemporal "go.temporal.io/server/temporal"
	"go.temporal.io/server/temporaltest"
	"google.golang.org/protobuf/types/known/durationpb"

	svctemporal "github.com/svcplatform/svc/temporal"
)

// namespaceRetention is the workflow history retention of a test's namespace (the server's minimum).
const namespaceRetention = 24 * time.Hour

// sharedTemporal is the in-process Temporal server the tests of this process share, started by the first
// environment that needs it and never stopped (the process ends with the tests). Each environment works
// in a namespace of its own, so no test sees another's workflows or task queues.
var sharedTemporal = sync.OnceValue(NewTemporalServer)

// NewTemporalServer starts an in-process Temporal server (temporaltest, in-memory SQLite) with the
// platform's dynamic config: temporaltest's own setting plus svctemporal.HandoffDynamicConfig, without
// which every workflow task waits 40-50 ms before a worker gets it. The caller stops it.
func NewTemporalServer() *temporaltest.TestServer {
	dc := dynamicconfig.StaticClient{dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): true}
	maps.Copy(dc, svctemporal.HandoffDynamicConfig())
	return temporaltest.NewServer(temporaltest.WithBaseServerOptions(servertemporal.WithDynamicConfigClient(dc)))
}

// temporalServer is the shared server for a test; a benchmark gets a server of its own, stopped when it
// ends, so that what it measures (latencies, the heap) does not depend on the benchmarks run before it.
func temporalServer(t testing.TB) *temporaltest.TestServer {
	if _, bench := t.(*testing.B); !bench {
		return sharedTemporal()
	}
	ts := NewTemporalServer()
	t.Cleanup(ts.Stop)
	return ts
}

// temporalNamespace is a fresh namespace on the test's server, with the platform's search attributes.
type temporalNamespace struct {
	// Client works in the namespace; it is closed when the test ends.
	Client    sdkclient.Client
	HostPort  string
	Namespace string
}

// newNamespace registers a namespace of its own for one test on its server (see temporalServer), waits
// until the server serves it, adds the platform's search attributes, and dials a client working in it.
func newNamespace(t testing.TB) temporalNamespace {
	t.Helper()
	ts := temporalServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b [8]byte
	_, _ = rand.Read(b[:])
	ns := "apptest-" + hex.EncodeToString(b[:])
	require.NoError(t, registerNamespace(ctx, ts.GetDefaultClient().WorkflowService(), ns))
	c, err := sdkclient.DialContext(ctx, sdkclient.Options{HostPort: ts.GetFrontendHostPort(), Namespace: ns,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	require.NoError(t, err, "dial temporal namespace %s", ns)
	t.Cleanup(c.Close)
	require.NoError(t, svctemporal.EnsureSearchAttributes(ctx, c, ns), "search attributes of %s", ns)
	return temporalNamespace{Client: c, HostPort: ts.GetFrontendHostPort(), Namespace: ns}
}

// namespacePoll is how often registerNamespace asks whether the server serves a new namespace yet.
const namespacePoll = 5 * time.Millisecond

// registerNamespace registers ns and waits until the frontend describes it. It does not ask about ns
// before registering it: the server would remember the answer "not found" for a second.
func registerNamespace(ctx context.Context, svc workflowservice.WorkflowServiceClient, ns string) error {
	_, err := svc.RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: ns, WorkflowExecutionRetentionPeriod: durationpb.New(namespaceRetention)})
	if err != nil {
		return fmt.Errorf("register namespace %s: %w", ns, err)
	}
	tick := time.NewTicker(namespacePoll)
	defer tick.Stop()
	for {
		_, err := svc.DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: ns})
		var notFound *serviceerror.NamespaceNotFound
		if !errors.As(err, &notFound) {
			if err != nil {
				return fmt.Errorf("describe namespace %s: %w", ns, err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("namespace %s never served: %w", ns, ctx.Err())
		case <-tick.C:
		}
	}
}
