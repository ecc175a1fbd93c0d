package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/workflows"
)

// runAsWorkerEnv, set to 1, makes this test binary run as the platform's worker process (`svcd worker`:
// the Temporal worker and the webhook dispatcher) instead of running benchmarks; see startWorkerProcess.
const runAsWorkerEnv = "SVC_BENCH_RUN_AS_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(runAsWorkerEnv) == "1" {
		os.Exit(runWorker())
	}
	os.Exit(m.Run())
}

// runWorker is `svcd worker` configured from the environment, until SIGTERM.
func runWorker() int {
	cfg, err := app.FromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	app.TuneGC(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := app.Worker(ctx, cfg); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

// startWorkerProcess runs the platform's worker as a process of its own, as `svcd worker` is deployed
// beside `svcd api`, against env's database and Temporal server (env must be built with NoWorker), at
// niceness nice (0: the API's priority), with extra environment variables (NAME=value). It returns
// once the worker polls its task queue; the process is stopped when the benchmark ends.
func startWorkerProcess(b *testing.B, env *apptest.Env, nice int, extra ...string) {
	b.Helper()
	bin, err := os.Executable()
	require.NoError(b, err)
	cmd := exec.Command("nice", "-n", strconv.Itoa(nice), bin)
	cmd.Env = append(append(os.Environ(), runAsWorkerEnv+"=1",
		"DATABASE_URL="+env.DatabaseURL, "TEMPORAL_ADDRESS="+env.TemporalAddress, "TEMPORAL_NAMESPACE="+env.Namespace,
		"SVC_ENCRYPTION_KEY="+env.EncryptionKey, "SVC_DATA_DIR="+b.TempDir(), "SVC_LOG_LEVEL=warn"), extra...)
	log := &apptest.Buffer{}
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(b, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	ctx := context.Background()
	require.Eventually(b, func() bool {
		select {
		case <-exited:
			b.Fatalf("the worker process ended:\n%s", log)
		default:
		}
		d, err := env.Temporal.DescribeTaskQueue(ctx, workflows.TaskQueue, enumspb.TASK_QUEUE_TYPE_ACTIVITY)
		return err == nil && len(d.GetPollers()) > 0
	}, 2*time.Minute, 50*time.Millisecond, "the worker process never polled its task queue:\n%s", log)
}
