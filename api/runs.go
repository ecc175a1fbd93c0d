package api

import (
	"context"
	"net/http"
	"slices"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

type createRunInput struct {
	Body client.CreateRunRequest
}

func (ra *runsAPI) createRun(ctx context.Context, in *createRunInput) (*Out[client.RunEnvelope], error) {
	p := principalFrom(ctx)
	_, op, err := run.Validate(ra.runs.Catalog(), in.Body.ServiceID, in.Body.OperationID, in.Body.Input)
	if err != nil {
		return nil, err // unknown services and operations are named before access is judged
	}
	if err := serviceAccess(apikey.GrantsOf(p.Key), in.Body.ServiceID); err != nil {
		return nil, err
	}
	params := run.CreateParams{
		ID: newID(ctx, ids.Run), Scope: p.Scope, KeyID: p.Key.ID,
		ServiceID: in.Body.ServiceID, OperationID: in.Body.OperationID, Input: in.Body.Input,
	}
	if in.Body.RequireApproval || op.RequiresApproval {
		ttl, err := approvalTTL("approvalExpiresInSeconds", in.Body.ApprovalExpiresInSeconds)
		if err != nil {
			return nil, err
		}
		params.ApprovalID, params.ApprovalTTL = newID(ctx, ids.Approval), ttl
	} else if in.Body.ApprovalExpiresInSeconds != 0 {
		return nil, svcerr.Invalid("approvalExpiresInSeconds", "approvalExpiresInSeconds applies only to a run that requires approval")
	}
	// A priced run's price counts against creditsPerDay when it is created; it is charged when it runs.
	daily, err := ra.daily.reserve(ctx, p, client.OpRunsCreate, in.Body.ServiceID, in.Body.OperationID, op.Millicredits)
	if err != nil {
		return nil, err
	}
	r, err := ra.runs.Create(ctx, params)
	if err != nil {
		ra.daily.release(ctx, daily, op.Millicredits)
		return nil, err
	}
	return reply(client.RunEnvelope{OK: true, Run: run.ToWire(r)})
}

type runIDInput struct {
	RunID string `path:"runId" doc:"The run id (run_...)."`
}

func (ra *runsAPI) getRun(ctx context.Context, in *runIDInput) (*Out[client.RunEnvelope], error) {
	env, err := ra.readRun(ctx, in.RunID)
	if err != nil {
		return nil, err
	}
	return reply(env)
}

// readRun is GET /v1/runs/{runId}'s answer: the caller's run, if its key may use the run's service. The
// MCP transport's get_run answers with it too (see mcpTools.direct).
func (ra *runsAPI) readRun(ctx context.Context, runID string) (client.RunEnvelope, error) {
	p := principalFrom(ctx)
	r, err := ra.runs.Store().Read(ctx, p.Scope, runID)
	if err != nil {
		return client.RunEnvelope{}, err
	}
	if err := serviceAccess(apikey.GrantsOf(p.Key), r.ServiceID); err != nil {
		return client.RunEnvelope{}, err
	}
	return client.RunEnvelope{OK: true, Run: r}, nil
}

type listRunsInput struct {
	PageQuery
	Status       string `query:"status" enum:"queued,running,awaiting_approval,succeeded,failed,cancelled" doc:"Only runs in this status."`
	ServiceID    string `query:"serviceId" maxLength:"200" doc:"Only runs of this service."`
	OperationID  string `query:"operationId" maxLength:"200" doc:"Only runs of this operation."`
	AutomationID string `query:"automationId" maxLength:"200" doc:"Only runs started by this automation."`
	From         string `query:"from" doc:"RFC 3339 time: runs created at or after it."`
	To           string `query:"to" doc:"RFC 3339 time: runs created before it."`
}

// listRuns lists the runs of the caller's scope, newest first. Runs of services the key may not use are
// left out, as if they did not exist.
func (ra *runsAPI) listRuns(ctx context.Context, in *listRunsInput) (*Out[client.RunList], error) {
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	f := run.ListFilter{Scope: p.Scope, Status: in.Status, ServiceID: in.ServiceID, OperationID: in.OperationID, AutomationID: in.AutomationID}
	if f.From, err = parseTime("from", in.From); err != nil {
		return nil, err
	}
	if f.To, err = parseTime("to", in.To); err != nil {
		return nil, err
	}
	if g := apikey.GrantsOf(p.Key); !slices.Contains(g.Services, apikey.AllServices) {
		f.Services = append([]string{}, g.Services...)
	}
	rows, next, err := ra.runs.Store().List(ctx, f, pg)
	if err != nil {
		return nil, err
	}
	out := client.RunList{OK: true, Runs: make([]client.Run, 0, len(rows)), NextCursor: next}
	for i := range rows {
		out.Runs = append(out.Runs, run.ToWire(&rows[i]))
	}
	return reply(out)
}

// cancelRun asks the run's workflow to stop and answers the run; the workflow then ends it cancelled.
func (ra *runsAPI) cancelRun(ctx context.Context, in *runIDInput) (*Out[client.RunEnvelope], error) {
	p := principalFrom(ctx)
	grants := apikey.GrantsOf(p.Key)
	r, err := ra.runs.Cancel(ctx, p.Scope, in.RunID, func(r *schema.Run) error { return serviceAccess(grants, r.ServiceID) })
	if err != nil {
		return nil, err
	}
	return reply(client.RunEnvelope{OK: true, Run: run.ToWire(r)})
}

// runsAPI serves durable runs.
type runsAPI struct {
	runs  *run.Service
	daily dailyCredits
}

// routes are the runs routes.
func (ra *runsAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpRunsCreate, Method: http.MethodPost, Path: "/v1/runs", Summary: "Start a durable run", Tag: "Runs",
			Auth: authKey, Scope: client.ScopeRunsWrite, Idem: true, Status: http.StatusCreated, Qualified: true, ServiceBody: "serviceId"}, ra.createRun),
		handle(Route{Op: client.OpRunsList, Method: http.MethodGet, Path: "/v1/runs", Summary: "List runs, newest first", Tag: "Runs",
			Auth: authKey, Scope: client.ScopeRunsRead}, ra.listRuns),
		handle(Route{Op: client.OpRunsRead, Method: http.MethodGet, Path: "/v1/runs/{runId}", Summary: "Read a run", Tag: "Runs",
			Auth: authKey, Scope: client.ScopeRunsRead}, ra.getRun),
		handle(Route{Op: client.OpRunsCancel, Method: http.MethodPost, Path: "/v1/runs/{runId}/cancel", Summary: "Request a run's cancellation", Tag: "Runs",
			Auth: authKey, Scope: client.ScopeRunsWrite, Idem: true}, ra.cancelRun),
	}
}
