package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/connection"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Invocations perform runs of external services' operations. The activity input is only the run id:
// the input comes from the run row and the credential from the connection, so neither a secret nor a
// credential ever enters a workflow history.
type Invocations struct {
	Runs        *run.Store
	Gateway     *gateway.Catalog
	Invoker     *gateway.Invoker
	Connections *connection.Store
	// Payer holds each run's price for all its attempts and settles it with the run's answer.
	Payer *gateway.Payer
	// Artifacts keeps files services answer with (an image, audio); nil keeps them as JSON strings.
	Artifacts *artifact.Store
}

// InvokeService holds the operation's price, calls the service, and settles what it reports charging
// together with the answer in the run row. A retry after that finds the settled hold and answers the
// recorded result without calling again. 429 and 5xx answers, timeouts and unreachable services are
// retried (honouring Retry-After); a 4xx answer is final and charged what the service reported.
func (a *Invocations) InvokeService(ctx context.Context, runID string) (workflows.InvokeOutcome, error) {
	r, err := a.Runs.ByID(ctx, runID)
	if err != nil {
		return workflows.InvokeOutcome{}, classify(err)
	}
	svc, op, err := a.operation(r)
	if err != nil {
		return workflows.InvokeOutcome{}, err
	}
	var cred gateway.Credential
	if svc.Connection != "" {
		if cred, err = a.credential(ctx, r, svc.Connection); err != nil {
			return workflows.InvokeOutcome{}, err
		}
	}
	pay, done, err := a.hold(ctx, r, op.Millicredits)
	if err != nil || done {
		return recorded(r), err
	}
	stop := heartbeat(ctx, workflows.InvokeHeartbeatTimeout/5, nil)
	res, err := a.Invoker.Invoke(ctx, gateway.InvokeRequest{Service: svc, Operation: op, Input: r.Input, Credential: cred,
		RequestID: runID, IdempotencyKey: runID})
	stop()
	if err != nil {
		return workflows.InvokeOutcome{}, callError(err)
	}
	if res.Status == http.StatusTooManyRequests || res.Status >= 500 {
		return workflows.InvokeOutcome{}, temporal.NewApplicationErrorWithOptions(
			fmt.Sprintf("service %s answered %d", svc.ID, res.Status), "upstream_status",
			temporal.ApplicationErrorOptions{NextRetryDelay: res.RetryAfter})
	}
	if res.Status >= 400 { // final: charge what the service reported with the run, record no answer
		refused := workflows.InvokeOutcome{UpstreamStatus: res.Status}
		if err := a.record(ctx, r, pay, &refused, res.ChargedMillicredits); err != nil {
			return workflows.InvokeOutcome{}, err
		}
		return workflows.InvokeOutcome{}, rejected(fmt.Sprintf("service %s refused the call with %d: %s", svc.ID, res.Status, res.Result))
	}
	out := workflows.InvokeOutcome{Output: res.Result, UpstreamStatus: res.Status}
	if res.IsFile() && a.Artifacts != nil {
		if out.Output, err = a.keepFile(ctx, r, res); err != nil {
			return workflows.InvokeOutcome{}, err
		}
	}
	if err := a.record(ctx, r, pay, &out, res.ChargedMillicredits); err != nil {
		return workflows.InvokeOutcome{}, err
	}
	return out, nil
}

func (a *Invocations) operation(r *schema.Run) (gateway.Service, gateway.Operation, error) {
	svc, ok := a.Gateway.Lookup(r.ServiceID)
	if !ok {
		return svc, gateway.Operation{}, temporal.NewNonRetryableApplicationError(
			"this worker has no service "+r.ServiceID+" in its services.yaml", workflows.ErrorTypeServiceUnavailable, nil)
	}
	op, ok := svc.Operation(r.OperationID)
	if !ok {
		return svc, op, temporal.NewNonRetryableApplicationError(
			"service "+r.ServiceID+" has no operation "+r.OperationID+" in this worker's services.yaml", workflows.ErrorTypeServiceUnavailable, nil)
	}
	return svc, op, nil
}

// hold reserves the run's price (see gateway.Payer.HoldRun); done reports that an earlier attempt
// already settled it.
func (a *Invocations) hold(ctx context.Context, r *schema.Run, price int64) (*gateway.Payment, bool, error) {
	pay, err := a.Payer.HoldRun(ctx, r.AccountID, r.ID, price)
	switch {
	case errors.Is(err, gateway.ErrRunSettled): // an earlier attempt finished: with an answer recorded, or refused
		if len(r.Output) == 0 {
			return nil, false, rejected("an earlier attempt of this run was refused by the service")
		}
		return nil, true, nil
	case errors.Is(err, gateway.ErrRunReleased):
		return nil, false, temporal.NewNonRetryableApplicationError("the run's held credits were released", workflows.ErrorTypeCreditsReleased, nil)
	case svcerr.Is(err, svcerr.InsufficientCredits):
		return nil, false, temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrorTypeInsufficientCredits, nil)
	case err != nil:
		return nil, false, err
	}
	return pay, false, nil
}

func (a *Invocations) credential(ctx context.Context, r *schema.Run, name string) (gateway.Credential, error) {
	c, err := a.Connections.CredentialNamed(ctx, tenant.Scope{AccountID: r.AccountID, ProjectID: r.ProjectID}, name)
	if svcerr.Is(err, svcerr.NotFound) || svcerr.Is(err, svcerr.Conflict) {
		return nil, temporal.NewNonRetryableApplicationError(
			"service "+r.ServiceID+" needs an active connection named "+name, workflows.ErrorTypeConnectionMissing, nil)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// record settles the run's payment for what the service reported and stores the answer in the run row,
// in one transaction.
func (a *Invocations) record(ctx context.Context, r *schema.Run, pay *gateway.Payment, out *workflows.InvokeOutcome, reported int64) error {
	q, charged := a.Payer.ChargeQuery(pay, reported)
	out.ChargedMillicredits = charged
	err := a.Runs.RecordInvocation(ctx, r.ID, out.Output, charged, pay.HoldID(), q)
	switch {
	case errors.Is(err, run.ErrHoldClosed):
		return temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrorTypeCreditsReleased, nil)
	case pg.Unstorable(err) && out.Output != nil:
		// The answer holds what PostgreSQL refuses (\u0000, say): the call was made, so it is charged what
		// the service reported, as a refused call is, and the run fails without the answer.
		unstorable := temporal.NewNonRetryableApplicationError("the service's answer cannot be stored: "+err.Error(),
			workflows.CodeOutputUnstorable, nil)
		out.Output = nil
		if err := a.record(ctx, r, pay, out, reported); err != nil {
			return err
		}
		return unstorable
	}
	return err
}

// keepFile stores a file answer as the run's artifact "result" (with an extension for its media type) and
// returns the run's output naming it.
func (a *Invocations) keepFile(ctx context.Context, r *schema.Run, res gateway.InvokeResult) (json.RawMessage, error) {
	name := "result" + extensionOf(res.ContentType)
	art, err := a.Artifacts.Save(ctx, artifact.NewArtifact{
		ID: ids.Derive(ids.Artifact, r.ID, name), AccountID: r.AccountID, ProjectID: r.ProjectID, RunID: r.ID,
		ServiceID: r.ServiceID, Name: name, ContentType: res.ContentType, Body: bytes.NewReader(res.Body),
	})
	if svcerr.Is(err, svcerr.PayloadTooLarge) {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrorTypeUpstreamInvalid, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("keep the answer of run %s: %w", r.ID, err)
	}
	out, err := json.Marshal(map[string]any{"artifact": map[string]any{
		"id": art.ID, "name": art.Name, "contentType": art.ContentType, "sizeBytes": art.SizeBytes, "sha256": art.SHA256}})
	if err != nil {
		return nil, fmt.Errorf("describe the answer of run %s: %w", r.ID, err)
	}
	return out, nil
}

// extensionOf is a file extension for a media type ("" when none is known).
func extensionOf(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
		return exts[0]
	}
	if _, sub, ok := strings.Cut(mt, "/"); ok && sub != "" && !strings.ContainsAny(sub, "+.;") {
		return "." + sub
	}
	return ""
}

func rejected(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, workflows.ErrorTypeUpstreamRejected, nil)
}

// recorded is the answer an earlier attempt stored.
func recorded(r *schema.Run) workflows.InvokeOutcome {
	return workflows.InvokeOutcome{Output: json.RawMessage(r.Output), ChargedMillicredits: r.ChargedMillicredits}
}

// callError makes a failed call retryable unless retrying cannot help (a blocked address, an invalid
// answer).
func callError(err error) error {
	e, ok := svcerr.As(err)
	if !ok {
		return err
	}
	switch e.Code {
	case svcerr.UpstreamBlocked:
		return temporal.NewNonRetryableApplicationError(e.Message, workflows.ErrorTypeUpstreamBlocked, nil)
	case svcerr.UpstreamInvalid:
		return temporal.NewNonRetryableApplicationError(e.Message, workflows.ErrorTypeUpstreamInvalid, nil)
	}
	return temporal.NewApplicationError(e.Message, e.Code)
}

// ReleaseRunHold frees the credits a run still holds (its call did not succeed); a settled or released
// hold is left as it is.
func (a *Invocations) ReleaseRunHold(ctx context.Context, runID string) error {
	r, err := a.Runs.ByID(ctx, runID)
	if err != nil {
		return classify(err)
	}
	return a.Payer.ReleaseRun(ctx, r.AccountID, r.ID) // an error is retried by Temporal, so the hold never stays open
}
