package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

type listApprovalsInput struct {
	PageQuery
	Status    string `query:"status" enum:"pending,approved,rejected,expired,cancelled" doc:"Only approvals in this status."`
	ServiceID string `query:"serviceId" maxLength:"200" doc:"Only approvals of this service."`
	RunID     string `query:"runId" maxLength:"200" doc:"Only the approval of this run."`
}

// listApprovals lists the approvals of the caller's scope, newest first; approvals of services the key
// may not use are left out.
func (ap *approvalsAPI) listApprovals(ctx context.Context, in *listApprovalsInput) (*Out[client.ApprovalList], error) {
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	f := approval.Filter{Status: in.Status, ServiceID: in.ServiceID, RunID: in.RunID}
	if g := apikey.GrantsOf(p.Key); !slices.Contains(g.Services, apikey.AllServices) {
		f.Services = append([]string{}, g.Services...)
	}
	rows, next, err := ap.approvals.Store().List(ctx, p.Scope, f, pg)
	if err != nil {
		return nil, err
	}
	out := client.ApprovalList{OK: true, Approvals: make([]client.Approval, 0, len(rows)), NextCursor: next}
	for _, a := range rows {
		out.Approvals = append(out.Approvals, approval.ToWire(a))
	}
	return reply(out)
}

type createServiceActionInput struct {
	Body client.CreateServiceActionRequest
}

// createServiceAction asks for approval of an action; once approved it runs as a run.
func (ap *approvalsAPI) createServiceAction(ctx context.Context, in *createServiceActionInput) (*Out[client.ApprovalEnvelope], error) {
	p := principalFrom(ctx)
	input, op, err := run.Validate(ap.runs.Catalog(), in.Body.ServiceID, in.Body.OperationID, in.Body.Input)
	if err != nil {
		return nil, err
	}
	grants := apikey.GrantsOf(p.Key)
	if err := serviceAccess(grants, in.Body.ServiceID); err != nil {
		return nil, err
	}
	if !grants.HasScope(client.ScopeRunsWrite) { // once approved, the action runs as a run of this key
		return nil, svcerr.New(svcerr.ScopeMissing, "a service action runs as a run of the asking key, which needs %s", client.ScopeRunsWrite).
			WithDetails("requiredScope", client.ScopeRunsWrite)
	}
	ttl, err := approvalTTL("expiresInSeconds", in.Body.ExpiresInSeconds)
	if err != nil {
		return nil, err
	}
	id := newID(ctx, ids.Approval)
	a := &schema.Approval{
		ID: id, AccountID: p.Scope.AccountID, ProjectID: p.Scope.ProjectID, KeyID: p.Key.ID, Kind: approval.KindServiceAction,
		ServiceID: in.Body.ServiceID, OperationID: in.Body.OperationID, Input: json.RawMessage(input),
		Status: client.ApprovalPending, WorkflowID: workflows.ApprovalWorkflowID(id), ExpiresAt: time.Now().Add(ttl).UTC(),
	}
	if in.Body.Reason != "" {
		a.Reason = &in.Body.Reason
	}
	// The run it becomes counts against creditsPerDay of runs.create now, as a run created directly does.
	daily, err := ap.daily.reserve(ctx, p, client.OpRunsCreate, in.Body.ServiceID, in.Body.OperationID, op.Millicredits)
	if err != nil {
		return nil, err
	}
	created, err := ap.approvals.Create(ctx, a)
	if err != nil {
		ap.daily.release(ctx, daily, op.Millicredits)
		return nil, err
	}
	return reply(client.ApprovalEnvelope{OK: true, Approval: approval.ToWire(created)})
}

type decideApprovalInput struct {
	ApprovalID string `path:"approvalId" doc:"The approval id (apr_...)."`
	Body       client.DecideApprovalRequest
}

// decideApproval approves or rejects a pending approval; the decision reaches its workflow as a signal.
func (ap *approvalsAPI) decideApproval(ctx context.Context, in *decideApprovalInput) (*Out[client.ApprovalEnvelope], error) {
	p := principalFrom(ctx)
	status := map[string]string{client.DecisionApprove: client.ApprovalApproved, client.DecisionReject: client.ApprovalRejected}[in.Body.Decision]
	if status == "" {
		return nil, svcerr.Invalid("decision", `decision must be "approve" or "reject"`)
	}
	current, err := ap.approvals.Store().Get(ctx, p.Scope, in.ApprovalID)
	if err != nil {
		return nil, err
	}
	if err := serviceAccess(apikey.GrantsOf(p.Key), current.ServiceID); err != nil {
		return nil, err
	}
	if status == client.ApprovalApproved && current.KeyID == p.Key.ID {
		return nil, &svcerr.Error{Code: svcerr.Forbidden, Param: "approvalId",
			Message: "the key that asked for an action cannot approve it; approve with another key holding approvals:write; the asking key may only reject it"}
	}
	a, err := ap.approvals.Decide(ctx, p.Scope, in.ApprovalID, approval.Decision{Status: status, KeyID: p.Key.ID, Comment: in.Body.Comment})
	if err != nil {
		return nil, err
	}
	return reply(client.ApprovalEnvelope{OK: true, Approval: approval.ToWire(a)})
}

// approvalsAPI serves approvals and the service actions that wait for them.
type approvalsAPI struct {
	approvals *approval.Service
	runs      *run.Service
	daily     dailyCredits
}

// routes are the approvals routes.
func (ap *approvalsAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpApprovalsList, Method: http.MethodGet, Path: "/v1/approvals", Summary: "List approvals, newest first", Tag: "Approvals",
			Auth: authKey, Scope: client.ScopeApprovalsRead}, ap.listApprovals),
		handle(Route{Op: client.OpApprovalsCreate, Method: http.MethodPost, Path: "/v1/approvals/service-actions", Summary: "Ask for approval of a service action", Tag: "Approvals",
			Auth: authKey, Scope: client.ScopeApprovalsWrite, Idem: true, Status: http.StatusCreated, ServiceBody: "serviceId"}, ap.createServiceAction),
		handle(Route{Op: client.OpApprovalsDecide, Method: http.MethodPost, Path: "/v1/approvals/{approvalId}", Summary: "Approve or reject a pending approval", Tag: "Approvals",
			Auth: authKey, Scope: client.ScopeApprovalsWrite, Idem: true}, ap.decideApproval),
	}
}
