package workflows_test

import (
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
)

// deadlockTimeout replaces the SDK's one second for the test environments: on two cores beside the
// suite's CPU-heavy packages a workflow goroutine may well not run for a second, and twenty still catch
// a real deadlock.
const deadlockTimeout = 20 * time.Second

// newTestEnv is suite's test environment with the patient deadlock detector.
func newTestEnv(suite *testsuite.WorkflowTestSuite) *testsuite.TestWorkflowEnvironment {
	env := suite.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: deadlockTimeout})
	return env
}
