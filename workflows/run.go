package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// MaxSleepSeconds bounds the sleep operation.
const MaxSleepSeconds = 86400

// Run error codes recorded on failed runs.
const (
	CodeInvalidInput     = "invalid_input"
	CodeUnknownOperation = "unknown_operation"
)

// RunParams is the input of RunWorkflow. Input is the run's JSON input.
type RunParams struct {
	RunID       string
	ServiceID   string
	OperationID string
	Input       json.RawMessage
}

// RunOutcome is what FinishRun records and RunWorkflow returns.
type RunOutcome struct {
	RunID        string
	Status       string // succeeded, failed or cancelled
	Output       json.RawMessage
	ErrorCode    string
	ErrorMessage string
}

// Run statuses written by the workflow (the API's client package names the same strings).
const (
	statusSucceeded = "succeeded"
	statusFailed    = "failed"
	statusCancelled = "cancelled"
)

// bookkeepingOptions apply to the local activities that keep the run row in step with the workflow.
var bookkeepingOptions = workflow.LocalActivityOptions{
	StartToCloseTimeout: 10 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
	},
}

// RunWorkflow executes one run of a managed-workflows operation: it marks the run running, performs the
// operation, and records the outcome. Cancellation during the operation ends the run cancelled.
func RunWorkflow(ctx workflow.Context, p RunParams) (RunOutcome, error) {
	ctx = workflow.WithLocalActivityOptions(ctx, bookkeepingOptions)
	err := workflow.ExecuteLocalActivity(ctx, ActivityMarkRunning, p.RunID).Get(ctx, nil)
	if err != nil && !temporal.IsCanceledError(err) {
		return RunOutcome{}, fmt.Errorf("mark run running: %w", err)
	}
	outcome := perform(ctx, p)
	if temporal.IsCanceledError(ctx.Err()) {
		outcome = RunOutcome{RunID: p.RunID, Status: statusCancelled, ErrorCode: "cancelled", ErrorMessage: "the run was cancelled"}
		ctx, _ = workflow.NewDisconnectedContext(ctx)
	}
	if err := workflow.ExecuteLocalActivity(ctx, ActivityFinishRun, outcome).Get(ctx, nil); err != nil {
		return RunOutcome{}, fmt.Errorf("finish run: %w", err)
	}
	if outcome.Status == statusCancelled {
		return outcome, temporal.NewCanceledError(outcome.ErrorMessage)
	}
	return outcome, nil
}

// perform executes the operation and returns its outcome; a cancelled context is handled by the caller.
func perform(ctx workflow.Context, p RunParams) RunOutcome {
	switch p.OperationID {
	case "echo":
		return RunOutcome{RunID: p.RunID, Status: statusSucceeded, Output: p.Input}
	case "sleep":
		return sleep(ctx, p)
	default:
		return failed(p.RunID, CodeUnknownOperation, fmt.Sprintf("operation %q of %q cannot run", p.OperationID, p.ServiceID))
	}
}

// SleepInput is the input of the sleep operation.
type SleepInput struct {
	Seconds *float64 `json:"seconds"`
}

func sleep(ctx workflow.Context, p RunParams) RunOutcome {
	d, err := SleepDuration(p.Input)
	if err != nil {
		return failed(p.RunID, CodeInvalidInput, err.Error())
	}
	if err := workflow.Sleep(ctx, d); err != nil {
		return failed(p.RunID, "sleep_failed", err.Error())
	}
	out := `{"sleptSeconds":` + strconv.FormatFloat(d.Seconds(), 'g', -1, 64) + `}`
	return RunOutcome{RunID: p.RunID, Status: statusSucceeded, Output: json.RawMessage(out)}
}

// SleepDuration validates a sleep input: {"seconds": n} with 0 <= n <= MaxSleepSeconds.
func SleepDuration(input json.RawMessage) (time.Duration, error) {
	var in SleepInput
	// Decoding into a struct depends only on the bytes; workflowcheck flags encoding/json because it
	// iterates maps internally, which cannot change this result.
	//workflowcheck:ignore
	err := json.Unmarshal(input, &in)
	if err != nil {
		return 0, errors.New(`sleep takes {"seconds": n}`)
	}
	if in.Seconds == nil || *in.Seconds < 0 || *in.Seconds > MaxSleepSeconds {
		return 0, fmt.Errorf("input.seconds must be a number from 0 to %d", MaxSleepSeconds)
	}
	return time.Duration(*in.Seconds * float64(time.Second)), nil
}

func failed(runID, code, msg string) RunOutcome {
	return RunOutcome{RunID: runID, Status: statusFailed, ErrorCode: code, ErrorMessage: msg}
}
