package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// MaxSleepSeconds bounds the sleep operation.
const MaxSleepSeconds = 86400

// Run error codes recorded on failed runs.
const (
	CodeInvalidInput      = "invalid_input"
	CodeUnknownOperation  = "unknown_operation"
	CodeApprovalRejected  = "approval_rejected"
	CodeApprovalExpired   = "approval_expired"
	CodeApprovalCancelled = "approval_cancelled"
	// CodeOutputUnstorable: the run's output holds what PostgreSQL refuses to store (\u0000 in a JSON
	// string, say), so the run ends failed without it.
	CodeOutputUnstorable = "output_unstorable"
	// CodeOutcomeUnstorable: the run's outcome (its error message, say) could not be stored, so the run
	// ends failed with this code and a fixed message instead.
	CodeOutcomeUnstorable = "outcome_unstorable"
	// CodeRunLost: the request that created the run ended before starting it, and nothing completed the
	// start in time (see internal/run's sweep).
	CodeRunLost = "run_lost"
)

// RunParams is the input of RunWorkflow. Input is the run's JSON input.
type RunParams struct {
	RunID       string
	ServiceID   string
	OperationID string
	Input       json.RawMessage
	// ApprovalID, when set, names the approval the run waits for before it does anything.
	ApprovalID string
	// ApprovalExpiresAt is when that approval expires. Should its outcome not arrive by a minute later
	// (its workflow never started, or was terminated), the run settles the approval itself.
	ApprovalExpiresAt time.Time
	// External marks an operation of an external service (services.yaml), performed by the
	// InvokeService activity.
	External bool
	// Lost, when set, says why the run can no longer start (its creating request died long ago): the
	// workflow records it failed with CodeRunLost at once, and cancels its pending approval. Failing a run
	// through its workflow lets Temporal's one workflow per run decide between starting it and failing
	// it, however many sweeps and retried requests race.
	Lost string
}

// RunStart is what MarkRunRunning answers. Final reports that the run's row had already ended (it was
// cancelled before its workflow got to it, say), with Outcome as stored: the run then ends with it and
// never performs its operation.
type RunStart struct {
	Final   bool
	Outcome RunOutcome
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

// RunWorkflow executes one run of a managed-workflows operation: it waits for its approval when it has
// one, marks the run running, performs the operation, and records the outcome. Cancellation while waiting
// or running ends the run cancelled (and cancels a pending approval).
func RunWorkflow(ctx workflow.Context, p RunParams) (RunOutcome, error) {
	ctx = workflow.WithLocalActivityOptions(ctx, bookkeepingOptions)
	var outcome RunOutcome
	refused, late := false, 0
	switch {
	case p.Lost != "":
		outcome, refused = lost(ctx, p), true
	case p.ApprovalID != "":
		outcome, refused, late = awaitApproval(ctx, p)
	}
	if !refused {
		stored, final, err := markRunning(ctx, p)
		if err != nil && !temporal.IsCanceledError(err) {
			return RunOutcome{}, fmt.Errorf("mark run running: %w", err)
		}
		if final { // the row ended before the run could start (cancelled meanwhile): never perform
			return closeRun(ctx, p, stored, late)
		}
		upsertRunStatus(ctx, "running")
		outcome = perform(ctx, p)
	}
	if temporal.IsCanceledError(ctx.Err()) {
		// A run that succeeded before the cancellation took effect keeps its outcome (and its charge).
		if outcome.Status != statusSucceeded || !p.External {
			outcome = RunOutcome{RunID: p.RunID, Status: statusCancelled, ErrorCode: "cancelled", ErrorMessage: "the run was cancelled"}
		}
		ctx, _ = workflow.NewDisconnectedContext(ctx)
	}
	outcome, err := finishRun(ctx, outcome)
	if err != nil {
		return RunOutcome{}, fmt.Errorf("finish run: %w", err)
	}
	return closeRun(ctx, p, outcome, late)
}

// closeRun ends the workflow with the run's recorded outcome: its memo status, the approval outcomes
// still on their way, and a cancelled run's cancellation error.
func closeRun(ctx workflow.Context, p RunParams, outcome RunOutcome, late int) (RunOutcome, error) {
	if ctx.Err() != nil {
		ctx, _ = workflow.NewDisconnectedContext(ctx)
	}
	upsertRunStatus(ctx, outcome.Status)
	receiveLateOutcomes(ctx, p, late)
	if outcome.Status == statusCancelled {
		return outcome, temporal.NewCanceledError(outcome.ErrorMessage)
	}
	return outcome, nil
}

// markRunning moves the run's row to running. It reports the stored outcome, and true, when the row is
// already final (the run was cancelled while no workflow of it had started, say): the run must then not
// perform its operation. Runs recorded before this check (no "mark-running-final" marker) replay without
// it.
func markRunning(ctx workflow.Context, p RunParams) (RunOutcome, bool, error) {
	if workflow.GetVersion(ctx, "mark-running-final", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return RunOutcome{}, false, workflow.ExecuteLocalActivity(ctx, ActivityMarkRunning, p.RunID).Get(ctx, nil)
	}
	var start RunStart
	err := workflow.ExecuteLocalActivity(ctx, ActivityMarkRunning, p.RunID).Get(ctx, &start)
	return start.Outcome, start.Final, err
}

// finishRun records the outcome and returns it as recorded. An outcome PostgreSQL refuses to store (the
// activity says so with ErrorTypeUnstorable, which it never retries) is replaced by a failure it can
// store, so the run ends failed with a clear code instead of staying running. Histories recorded before
// this check never hold such a failure, so they replay unchanged.
func finishRun(ctx workflow.Context, outcome RunOutcome) (RunOutcome, error) {
	err := workflow.ExecuteLocalActivity(ctx, ActivityFinishRun, outcome).Get(ctx, nil)
	var appErr *temporal.ApplicationError
	if err == nil || !errors.As(err, &appErr) || appErr.Type() != ErrorTypeUnstorable {
		return outcome, err
	}
	stored := failed(outcome.RunID, CodeOutcomeUnstorable, "the run's outcome could not be stored")
	if len(outcome.Output) > 0 {
		stored = failed(outcome.RunID, CodeOutputUnstorable,
			"the run's output could not be stored: it holds a value PostgreSQL refuses, such as a NUL character")
	}
	workflow.GetLogger(ctx).Warn("run outcome unstorable", "runId", outcome.RunID, "error", err)
	if err := workflow.ExecuteLocalActivity(ctx, ActivityFinishRun, stored).Get(ctx, nil); err != nil {
		return RunOutcome{}, err
	}
	return stored, nil
}

// lost is the outcome of a run started only to be failed (RunParams.Lost); a pending approval it waited
// for is cancelled, since no workflow of its own will ever settle it.
func lost(ctx workflow.Context, p RunParams) RunOutcome {
	if p.ApprovalID != "" {
		var ignored ApprovalOutcome
		if err := workflow.ExecuteLocalActivity(ctx, ActivityCancelApproval, p.ApprovalID).Get(ctx, &ignored); err != nil {
			workflow.GetLogger(ctx).Warn("cancel the approval of a lost run", "runId", p.RunID, "error", err)
		}
	}
	return failed(p.RunID, CodeRunLost, p.Lost)
}

// approvalGrace is how long past its approval's expiry a run waits for the outcome before settling the
// approval itself.
const approvalGrace = time.Minute

// upsertRunStatus keeps the run's status in its memo. Runs started before the memo carried a status
// (histories without the version marker) replay without it.
func upsertRunStatus(ctx workflow.Context, status string) {
	if workflow.GetVersion(ctx, "memo-status", workflow.DefaultVersion, 1) == 1 {
		upsertStatus(ctx, status)
	}
}

// awaitApproval waits for the outcome of the run's approval. It reports true with the run's final
// outcome when the run must not proceed: the approval was not granted, or the run was cancelled (its
// pending approval is then cancelled too). It also says how many more outcome signals are on their way
// (see receiveLateOutcomes): a decision comes twice, straight from the API (approval.Service.tellRun)
// and relayed by the approval's workflow, in either order; a cancelled run's pending approval answers
// its cancellation with the outcome cancelled.
func awaitApproval(ctx workflow.Context, p RunParams) (outcome RunOutcome, refused bool, late int) {
	deadline := !p.ApprovalExpiresAt.IsZero() && workflow.GetVersion(ctx, "approval-deadline", workflow.DefaultVersion, 1) == 1
	got, late := awaitApprovalOutcome(ctx, p.ApprovalID, p.ApprovalExpiresAt, deadline)
	if ctx.Err() != nil {
		return RunOutcome{}, true, late
	}
	switch got.Status {
	case ApprovalApproved:
		return RunOutcome{}, false, late
	case ApprovalRejected:
		return failed(p.RunID, CodeApprovalRejected, "the approval "+p.ApprovalID+" was rejected"), true, late
	case ApprovalExpired:
		return failed(p.RunID, CodeApprovalExpired, "the approval "+p.ApprovalID+" expired before anyone decided"), true, late
	default:
		return failed(p.RunID, CodeApprovalCancelled, "the approval "+p.ApprovalID+" was cancelled"), true, late
	}
}

// awaitApprovalOutcome waits for the outcome of approval approvalID, signalled to the gated workflow
// (a run, a wallet send) as SignalApprovalOutcome. With deadline, should no outcome arrive by
// approvalGrace past expiresAt, it settles the approval from here (expired, unless a decision
// committed). When the workflow is cancelled meanwhile it cancels the approval's workflow and answers a
// zero outcome. It also says how many more outcome signals are on their way (see receiveLateOutcomes).
func awaitApprovalOutcome(ctx workflow.Context, approvalID string, expiresAt time.Time, deadline bool) (got ApprovalOutcome, late int) {
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(workflow.GetSignalChannel(ctx, SignalApprovalOutcome), func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, &got)
	})
	sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
	timerCtx, stopTimer := workflow.WithCancel(ctx)
	defer stopTimer()
	if deadline {
		wait := max(expiresAt.Add(approvalGrace).Sub(workflow.Now(ctx)), time.Millisecond)
		sel.AddFuture(workflow.NewTimer(timerCtx, wait), func(f workflow.Future) {
			if f.Get(ctx, nil) != nil {
				return
			}
			// No outcome came: settle the approval from here (expired, unless a decision committed).
			if err := workflow.ExecuteLocalActivity(ctx, ActivitySettleApproval, approvalID, (*ApprovalDecision)(nil)).Get(ctx, &got); err != nil {
				got = ApprovalOutcome{ApprovalID: approvalID, Status: ApprovalCancelled}
			}
		})
	}
	sel.Select(ctx)
	if ctx.Err() != nil {
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		// The approval may have ended already; cancelling a closed workflow is harmless.
		_ = workflow.RequestCancelExternalWorkflow(dctx, ApprovalWorkflowID(approvalID), "").Get(dctx, nil)
		return ApprovalOutcome{}, 1
	}
	if got.Status == ApprovalApproved || got.Status == ApprovalRejected {
		return got, 1
	}
	return got, 0
}

// lateOutcomeWait bounds how long a finished run waits for an approval outcome still on its way (one
// that was lost, such as the API's when it died after committing the decision, never comes).
const lateOutcomeWait = 10 * time.Second

// receiveLateOutcomes receives the approval outcomes still on their way to a finished run (late of them)
// before it closes. They change nothing, but a run that closes with one unread makes the worker warn
// "Workflow has unhandled signals", and one arriving while it closes makes Temporal refuse the close
// (UnhandledCommand) and replay the run. Its run row is already final, so the wait is not seen. Runs
// recorded before this step replay without it.
func receiveLateOutcomes(ctx workflow.Context, p RunParams, late int) {
	if p.ApprovalID == "" || workflow.GetVersion(ctx, "late-approval-outcomes", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	drainLateOutcomes(ctx, late)
}

// drainLateOutcomes receives the late approval outcomes still on their way, waiting at most
// lateOutcomeWait for them.
func drainLateOutcomes(ctx workflow.Context, late int) {
	ch := workflow.GetSignalChannel(ctx, SignalApprovalOutcome)
	var ignored ApprovalOutcome
	for ch.ReceiveAsync(&ignored) {
		late--
	}
	if late <= 0 {
		return
	}
	_, _ = workflow.AwaitWithTimeout(ctx, lateOutcomeWait, func() bool { return ch.Len() > 0 })
	for ch.ReceiveAsync(&ignored) {
	}
}

// perform executes the operation and returns its outcome; a cancelled context is handled by the caller.
func perform(ctx workflow.Context, p RunParams) RunOutcome {
	if p.External {
		return invoke(ctx, p)
	}
	switch p.OperationID {
	case "echo":
		return RunOutcome{RunID: p.RunID, Status: statusSucceeded, Output: p.Input}
	case "sleep":
		return sleep(ctx, p)
	default:
		return failed(p.RunID, CodeUnknownOperation, fmt.Sprintf("operation %q of %q cannot run", p.OperationID, p.ServiceID))
	}
}

// InvokeOutcome is what InvokeService returns: the service's answer and the credits charged for it.
type InvokeOutcome struct {
	Output              json.RawMessage
	ChargedMillicredits int64
	UpstreamStatus      int
}

// InvokeHeartbeatTimeout is how long a silent InvokeService attempt is trusted before it is retried.
const InvokeHeartbeatTimeout = 5 * time.Second

// invokeErrorCodes are the failure types InvokeService gives that become a failed run's error code;
// anything else (an internal error that outlasted the retries) is reported as upstream_failed.
var invokeErrorCodes = append([]string{"upstream_status", "upstream_timeout", "upstream_unreachable", CodeOutputUnstorable},
	invokeRetry.NonRetryableErrorTypes...)

// invokeRetry retries timeouts, unreachable services, 429 and 5xx answers with backoff (the activity
// asks for a service's Retry-After through its error); 4xx answers and the errors below are final.
var invokeRetry = &temporal.RetryPolicy{
	InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 6,
	NonRetryableErrorTypes: []string{ErrorTypeUpstreamRejected, ErrorTypeInsufficientCredits, ErrorTypeServiceUnavailable,
		ErrorTypeConnectionMissing, ErrorTypeUpstreamBlocked, ErrorTypeUpstreamInvalid, ErrorTypeCreditsReleased, ErrorTypeRunMissing},
}

// invoke performs an external service's operation through InvokeService; when it cannot succeed, the
// run's held credits are released and the run fails with the reason.
func invoke(ctx workflow.Context, p RunParams) RunOutcome {
	// The activity heartbeats while the call is in flight, so a worker that dies mid-call is noticed
	// within the heartbeat timeout and the call is retried on another worker. An attempt may last as
	// long as the longest timeout services.yaml allows (10 minutes).
	// On cancellation the workflow waits for the attempt to end, so the hold is released only after it.
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 11 * time.Minute, HeartbeatTimeout: InvokeHeartbeatTimeout, RetryPolicy: invokeRetry,
		WaitForCancellation: true})
	var out InvokeOutcome
	err := workflow.ExecuteActivity(actx, ActivityInvokeService, p.RunID).Get(actx, &out)
	if err == nil {
		return RunOutcome{RunID: p.RunID, Status: statusSucceeded, Output: out.Output}
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	rctx := workflow.WithActivityOptions(dctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute}})
	if rerr := workflow.ExecuteActivity(rctx, ActivityReleaseRunHold, p.RunID).Get(rctx, nil); rerr != nil {
		workflow.GetLogger(ctx).Error("release run hold", "runId", p.RunID, "error", rerr)
	}
	code := "upstream_failed"
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && slices.Contains(invokeErrorCodes, appErr.Type()) {
		code = appErr.Type()
	}
	return failed(p.RunID, code, errorMessage(err))
}

// errorMessage is the innermost message of an activity failure.
func errorMessage(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
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
