// Package workflows holds the platform's deterministic Temporal code: workflow functions, and every
// workflow, activity, signal, update, query and task-queue name. It imports no I/O packages; side effects
// live in package activities, which this package names only by string.
package workflows

// TaskQueue is the task queue every svc worker polls.
const TaskQueue = "svc"

// Workflow type names.
const (
	// RunWorkflowName executes one durable run (workflow id run/<runId>).
	RunWorkflowName = "RunWorkflow"
)

// Activity type names (implemented in package activities).
const (
	// ActivityMarkRunning moves a run from queued to running.
	ActivityMarkRunning = "MarkRunRunning"
	// ActivityFinishRun records a run's final status, output or error.
	ActivityFinishRun = "FinishRun"
)

// RunWorkflowID is the workflow id of a run, so operators find it in the Web UI by resource id.
func RunWorkflowID(runID string) string { return "run/" + runID }

// ErrorTypeRunMissing is the application error type of a bookkeeping activity whose run row does not
// exist in the worker's database.
const ErrorTypeRunMissing = "RunMissing"
