package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// approvalJSON is an approval as the API shows it.
func approvalJSON(id, status string) map[string]any {
	a := map[string]any{
		"id": id, "kind": "run", "status": status, "serviceId": "managed-workflows", "operationId": "echo",
		"input": map[string]any{"x": 1.0}, "reason": nil, "runId": "run_1", "requestedByKeyId": "key_root",
		"decidedByKeyId": nil, "comment": nil, "expiresAt": "2026-01-02T00:00:00Z", "decidedAt": nil,
		"createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z",
	}
	if status != client.ApprovalPending {
		a["decidedByKeyId"], a["comment"], a["decidedAt"] = "key_approver", "fine", "2026-01-01T00:00:05Z"
	}
	return a
}

// TestListApprovalsSendsFiltersAndDecodesThePage: every filter travels under its documented query name,
// zero parameters send nothing, and the page decodes with its cursor.
func TestListApprovalsSendsFiltersAndDecodesThePage(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "approvals": []any{approvalJSON("apr_1", "pending")}, "nextCursor": "n/1"})
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	resp := c.ListApprovals(context.Background(), client.ListApprovalsParams{ListParams: client.ListParams{Limit: 3, Cursor: "c+1"},
		Status: client.ApprovalPending, ServiceID: client.ServiceManagedWorkflows, RunID: "run_1"})
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Len(t, resp.Body.Approvals, 1)
	got := resp.Body.Approvals[0]
	require.Equal(t, "apr_1", got.ID)
	require.Equal(t, "run_1", *got.RunID)
	require.Equal(t, "key_root", got.RequestedBy)
	require.Nil(t, got.DecidedBy)
	require.Equal(t, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), got.ExpiresAt)
	require.False(t, got.Decided())
	require.Equal(t, "n/1", *resp.Body.NextCursor)

	last := rec.last(t)
	require.Equal(t, http.MethodGet, last.Method)
	require.Equal(t, "/v1/approvals", last.Path)
	require.Empty(t, last.Header.Get(client.HeaderIdempotencyKey), "a list is not idempotent-keyed")
	require.Equal(t, "Bearer "+testKey, last.Header.Get(client.HeaderAuthorization))
	q, err := url.ParseQuery(last.Query)
	require.NoError(t, err)
	require.Equal(t, url.Values{"limit": {"3"}, "cursor": {"c+1"}, "status": {"pending"},
		"serviceId": {"managed-workflows"}, "runId": {"run_1"}}, q)

	_ = c.ListApprovals(context.Background(), client.ListApprovalsParams{})
	require.Empty(t, rec.last(t).Query, "zero parameters send nothing")
}

// TestDecideApproval posts the decision to the approval's escaped path with an Idempotency-Key, decodes
// the decided approval and a 409 conflict, and refuses an empty id without sending anything.
func TestDecideApproval(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.EscapedPath() != "/v1/approvals/apr_1" {
			writeJSON(w, http.StatusConflict, map[string]any{"ok": false, "error": map[string]any{
				"code": "conflict", "message": "approval apr/2 is already approved", "requestId": "req_c",
				"param": "approvalId", "details": map[string]any{"status": "approved"}}})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "approval": approvalJSON("apr_1", client.ApprovalApproved)})
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	ctx := context.Background()

	resp := c.DecideApproval(ctx, "apr_1", client.DecideApprovalRequest{Decision: client.DecisionApprove, Comment: "fine"},
		client.WithIdempotencyKey("decide-1"))
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Equal(t, client.ApprovalApproved, resp.Body.Approval.Status)
	require.True(t, resp.Body.Approval.Decided())
	require.Equal(t, "key_approver", *resp.Body.Approval.DecidedBy)
	require.Equal(t, "decide-1", resp.IdempotencyKey)
	got := rec.last(t)
	require.Equal(t, http.MethodPost, got.Method)
	require.Equal(t, "decide-1", got.Header.Get(client.HeaderIdempotencyKey))
	require.JSONEq(t, `{"decision":"approve","comment":"fine"}`, string(got.Body))

	reject := c.DecideApproval(ctx, "apr/2", client.DecideApprovalRequest{Decision: client.DecisionReject})
	require.False(t, reject.OK)
	require.Regexp(t, uuidRE, reject.IdempotencyKey, "a key is generated when none is given")
	require.Equal(t, http.StatusConflict, reject.StatusCode)
	require.Equal(t, "conflict", reject.Error.Code)
	require.Equal(t, "approvalId", reject.Error.Param)
	require.Equal(t, "approved", reject.Error.Details["status"])
	got = rec.last(t)
	require.Equal(t, "/v1/approvals/apr%2F2", got.RawPath)
	require.JSONEq(t, `{"decision":"reject"}`, string(got.Body), "an empty comment is left out")

	sent := func() int {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.reqs)
	}
	before := sent()
	empty := c.DecideApproval(ctx, "", client.DecideApprovalRequest{Decision: client.DecisionApprove})
	require.False(t, empty.OK)
	require.Equal(t, "invalid_request", empty.Error.Code)
	require.Equal(t, "approvalId", empty.Error.Param)
	require.Equal(t, before, sent(), "an empty id is never sent")
}

// TestRequestServiceAction posts the action with an Idempotency-Key, leaving out the optional fields it
// does not set, and decodes the pending approval.
func TestRequestServiceAction(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		a := approvalJSON("apr_sa", client.ApprovalPending)
		a["kind"], a["runId"], a["reason"] = "service_action", nil, "nightly"
		writeJSON(w, http.StatusCreated, map[string]any{"ok": true, "approval": a})
	})
	c := client.New(client.WithBaseURL(rec.srv.URL), client.WithAPIKey(testKey))
	ctx := context.Background()

	resp := c.RequestServiceAction(ctx, client.CreateServiceActionRequest{ServiceID: "managed-workflows", OperationID: "echo",
		Input: map[string]any{"y": 2}, Reason: "nightly", ExpiresInSeconds: 600}, client.WithIdempotencyKey("sa-1"))
	require.True(t, resp.OK, "%+v", resp.Error)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, "service_action", resp.Body.Approval.Kind)
	require.Nil(t, resp.Body.Approval.RunID)
	require.Equal(t, "nightly", *resp.Body.Approval.Reason)
	got := rec.last(t)
	require.Equal(t, http.MethodPost, got.Method)
	require.Equal(t, "/v1/approvals/service-actions", got.Path)
	require.Equal(t, "sa-1", got.Header.Get(client.HeaderIdempotencyKey))
	require.JSONEq(t, `{"serviceId":"managed-workflows","operationId":"echo","input":{"y":2},"reason":"nightly","expiresInSeconds":600}`,
		string(got.Body))

	_ = c.RequestServiceAction(ctx, client.CreateServiceActionRequest{ServiceID: "managed-workflows", OperationID: "echo"})
	got = rec.last(t)
	var body map[string]any
	require.NoError(t, json.Unmarshal(got.Body, &body))
	require.Equal(t, map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, body,
		"input, reason and expiresInSeconds are left out when not set (the server's defaults apply)")
	require.Regexp(t, uuidRE, got.Header.Get(client.HeaderIdempotencyKey))
}
