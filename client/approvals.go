package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Approval statuses.
const (
	ApprovalPending   = "pending"
	ApprovalApproved  = "approved"
	ApprovalRejected  = "rejected"
	ApprovalExpired   = "expired"
	ApprovalCancelled = "cancelled"
)

// Approval decisions.
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"
)

// Approval is a decision awaited before an action runs: a run created with requireApproval (kind
// "run"), or a service action requested through POST /v1/approvals/service-actions (kind
// "service_action", which runs as a run once approved), or a wallet send above its policy's approval
// threshold or flagged by screening (kind "wallet_transaction", whose workflow wallettx/<id> waits for
// it), or a wallet signature whose policy verdict is needs_approval (kind "wallet_signature", whose
// workflow walletsig/<id> waits for it). Each is a Temporal workflow approval/<id>.
type Approval struct {
	ID          string         `json:"id" doc:"Approval id (apr_...)."`
	Kind        string         `json:"kind" enum:"run,service_action,wallet_transaction,wallet_signature"`
	Status      string         `json:"status" enum:"pending,approved,rejected,expired,cancelled"`
	ServiceID   string         `json:"serviceId"`
	OperationID string         `json:"operationId"`
	Input       map[string]any `json:"input"`
	Reason      *string        `json:"reason"`
	RunID       *string        `json:"runId" doc:"The run the approval gates, or the run an approved service action started."`
	// TransactionID is the wallet transaction a wallet_transaction approval gates.
	TransactionID *string `json:"transactionId,omitempty" doc:"The wallet transaction (tx_...) a wallet_transaction approval gates."`
	// SignatureID is the wallet signature a wallet_signature approval gates.
	SignatureID *string    `json:"signatureId,omitempty" doc:"The wallet signature (sig_...) a wallet_signature approval gates."`
	RequestedBy string     `json:"requestedByKeyId" doc:"The key that asked for the action."`
	DecidedBy   *string    `json:"decidedByKeyId" doc:"The key that approved or rejected it."`
	Comment     *string    `json:"comment"`
	ExpiresAt   time.Time  `json:"expiresAt"`
	DecidedAt   *time.Time `json:"decidedAt"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
}

// Decided reports whether the approval reached a final status.
func (a Approval) Decided() bool { return a.Status != ApprovalPending }

// ApprovalEnvelope answers one approval.
type ApprovalEnvelope struct {
	OK       bool     `json:"ok"`
	Approval Approval `json:"approval"`
}

// ApprovalList answers GET /v1/approvals.
type ApprovalList struct {
	OK         bool       `json:"ok"`
	Approvals  []Approval `json:"approvals"`
	NextCursor *string    `json:"nextCursor"`
}

// CreateServiceActionRequest is the body of POST /v1/approvals/service-actions.
type CreateServiceActionRequest struct {
	ServiceID        string         `json:"serviceId" minLength:"1" doc:"The service whose operation should run."`
	OperationID      string         `json:"operationId" minLength:"1" doc:"The operation to run once approved."`
	Input            map[string]any `json:"input,omitempty" doc:"Operation input; {} when omitted."`
	Reason           string         `json:"reason,omitempty" maxLength:"1000" doc:"Why the action is needed, shown to approvers."`
	ExpiresInSeconds int            `json:"expiresInSeconds,omitempty" minimum:"0" doc:"How long the approval waits (default 86400, at most 604800)."`
}

// DecideApprovalRequest is the body of POST /v1/approvals/{approvalId}.
type DecideApprovalRequest struct {
	Decision string `json:"decision" enum:"approve,reject" doc:"approve or reject."`
	Comment  string `json:"comment,omitempty" maxLength:"1000" doc:"Shown with the decision."`
}

// ListApprovalsParams filters GET /v1/approvals.
type ListApprovalsParams struct {
	ListParams
	Status    string
	ServiceID string
	RunID     string
}

func (p ListApprovalsParams) query() url.Values {
	return setFilters(p.ListParams.query(), time.Time{}, time.Time{},
		[2]string{"status", p.Status}, [2]string{"serviceId", p.ServiceID}, [2]string{"runId", p.RunID})
}

// ListApprovals lists approvals visible to the key (scope approvals:read), newest first.
func (c *Client) ListApprovals(ctx context.Context, p ListApprovalsParams) Response[ApprovalList] {
	return send[ApprovalList](ctx, c, call{method: http.MethodGet, path: "/approvals", query: p.query(), auth: authKey})
}

// RequestServiceAction asks for approval of a service action (idempotent; scope approvals:write and
// access to the service). Once approved, the action runs as a run whose id the approval carries.
func (c *Client) RequestServiceAction(ctx context.Context, req CreateServiceActionRequest, opts ...CallOption) Response[ApprovalEnvelope] {
	return send[ApprovalEnvelope](ctx, c, call{method: http.MethodPost, path: "/approvals/service-actions", body: req, auth: authKey, idem: true, opts: opts})
}

// DecideApproval approves or rejects a pending approval (idempotent; scope approvals:write). Deciding
// one already decided or expired answers 409 conflict.
func (c *Client) DecideApproval(ctx context.Context, approvalID string, req DecideApprovalRequest, opts ...CallOption) Response[ApprovalEnvelope] {
	if approvalID == "" {
		return invalidArg[ApprovalEnvelope]("approvalId", "the approval id is empty")
	}
	return send[ApprovalEnvelope](ctx, c, call{method: http.MethodPost, path: "/approvals/" + url.PathEscape(approvalID), body: req, auth: authKey, idem: true, opts: opts})
}
