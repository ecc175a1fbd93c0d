package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// RunList answers GET /v1/runs.
type RunList struct {
	OK         bool    `json:"ok"`
	Runs       []Run   `json:"runs"`
	NextCursor *string `json:"nextCursor"`
}

// ListRunsParams filter and page GET /v1/runs. Zero fields do not filter.
type ListRunsParams struct {
	ListParams
	// Status is one of the run statuses (RunQueued, RunRunning, ..., RunCancelled).
	Status      string
	ServiceID   string
	OperationID string
	// From (inclusive) and To (exclusive) bound the runs' creation time; they are sent to the
	// nanosecond.
	From, To time.Time
}

func (p ListRunsParams) values() url.Values {
	return setFilters(p.query(), p.From, p.To,
		[2]string{"status", p.Status}, [2]string{"serviceId", p.ServiceID}, [2]string{"operationId", p.OperationID})
}

// ListRuns lists the runs of the selected project (or of none), newest first (scope runs:read). Runs of
// services the key may not use are left out.
func (c *Client) ListRuns(ctx context.Context, p ListRunsParams) Response[RunList] {
	return send[RunList](ctx, c, call{method: http.MethodGet, path: "/runs", query: p.values(), auth: authKey})
}

// CancelRun requests the cancellation of a run (idempotent; scope runs:write and access to the run's
// service). The answer is the run as it was then, often still running: its workflow ends it cancelled
// shortly after, which GetRun or WaitRun show. A run that has already finished answers 409 conflict.
func (c *Client) CancelRun(ctx context.Context, runID string, opts ...CallOption) Response[RunEnvelope] {
	if runID == "" {
		return invalidArg[RunEnvelope]("runId", "the run id is empty")
	}
	return send[RunEnvelope](ctx, c, call{method: http.MethodPost, path: "/runs/" + url.PathEscape(runID) + "/cancel",
		auth: authKey, idem: true, opts: opts})
}
