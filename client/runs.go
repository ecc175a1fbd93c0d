package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// ListRunsParams filter and page GET /v1/runs. Zero fields do not filter.
type ListRunsParams struct {
	ListParams
	// Status is one of the run statuses (RunQueued, RunRunning, ..., RunCancelled).
	Status      string
	ServiceID   string
	OperationID string
	// AutomationID keeps the runs an automation started.
	AutomationID string
	// From (inclusive) and To (exclusive) bound the runs' creation time; they are sent to the
	// nanosecond.
	From, To time.Time
}

func (p ListRunsParams) values() url.Values {
	return setFilters(p.query(), p.From, p.To,
		[2]string{"status", p.Status}, [2]string{"serviceId", p.ServiceID}, [2]string{"operationId", p.OperationID},
		[2]string{"automationId", p.AutomationID})
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

// CreateRun starts a durable run (idempotent; scope runs:write and access to the service).
func (c *Client) CreateRun(ctx context.Context, req CreateRunRequest, opts ...CallOption) Response[RunEnvelope] {
	return send[RunEnvelope](ctx, c, call{method: http.MethodPost, path: "/runs", body: req, auth: authKey, idem: true, opts: opts})
}

// GetRun reads a run (scope runs:read and access to the run's service).
func (c *Client) GetRun(ctx context.Context, runID string) Response[RunEnvelope] {
	if runID == "" {
		return invalidArg[RunEnvelope]("runId", "the run id is empty")
	}
	return send[RunEnvelope](ctx, c, call{method: http.MethodGet, path: "/runs/" + url.PathEscape(runID), auth: authKey})
}

// WaitRun polls GetRun every interval (DefaultPollInterval when interval <= 0) until the run is finished
// (Run.Finished), the server answers a failure that waiting cannot cure, or ctx ends, and returns the last
// Response. Transient failures (transport errors, 429 limit_exceeded, 503 unavailable) are polled through,
// waiting at least Retry-After. When ctx ends the last Response may be an unfinished run or a
// transport_error: check Body.Run.Finished().
func (c *Client) WaitRun(ctx context.Context, runID string, interval time.Duration) Response[RunEnvelope] {
	return c.WatchRun(ctx, runID, interval, nil)
}

// WatchRun is WaitRun calling onPoll (when not nil) with every Response it receives, e.g. to show status
// changes as they happen.
func (c *Client) WatchRun(ctx context.Context, runID string, interval time.Duration, onPoll func(Response[RunEnvelope])) Response[RunEnvelope] {
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	if ctx == nil {
		ctx = context.Background()
	}
	for {
		r := c.GetRun(ctx, runID)
		if onPoll != nil {
			onPoll(r)
		}
		if r.OK && r.Body.Run.Finished() {
			return r
		}
		if !r.OK && !transient(r.Error) {
			return r
		}
		wait := interval
		if ra := r.RetryAfter(); ra > wait {
			wait = ra
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return r
		case <-t.C:
		}
	}
}

// transient reports whether a failure may go away by waiting.
func transient(e *Error) bool {
	if e == nil {
		return false
	}
	switch e.Code {
	case CodeTransportError, CodeUnavailable, CodeLimitExceeded:
		return true
	}
	return false
}
