package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// The app frontends' operations (issue 26): the owner's open link and the viewer API the host page
// forwards the frontend SDK's calls to.
const (
	OpAppsOpen         = "apps.open"
	OpAppsFrontCall    = "apps.front.call"
	OpAppsFrontSession = "apps.front.session"
	OpAppsX402Fetch    = "apps.x402.fetch"
	// OpAppsFrontHost is the host page's own actions (its chat panel's job reads, a transaction's Confirm).
	OpAppsFrontHost = "apps.front.host"
)

// AppX402FetchRequest is the body of POST /v1/apps/{slug}/x402/fetch (the owner's x402.fetch).
type AppX402FetchRequest struct {
	URL           string            `json:"url" maxLength:"2048" doc:"The x402 server's URL; its host must be one of the manifest's x402.allowedHosts."`
	Method        string            `json:"method,omitempty" enum:"GET,POST,PUT,DELETE" doc:"GET (default), POST, PUT or DELETE."`
	Body          string            `json:"body,omitempty" doc:"The request body."`
	Headers       map[string]string `json:"headers,omitempty" doc:"Request headers."`
	MaxPaymentUsd float64           `json:"maxPaymentUsd,omitempty" minimum:"0" doc:"The caller's own cap per call (0: the manifest's maxPaymentUsdPerCall)."`
}

// AppOpenLink answers POST /v1/apps/{slug}/open: a short-lived link that signs its follower in as the
// caller's account (an HttpOnly cookie for the app's pages) and opens the app's page.
type AppOpenLink struct {
	OK        bool      `json:"ok"`
	URL       string    `json:"url" doc:"The link: /apps/{owner}/{slug}/open?token=…, on the host that answered."`
	PageURL   string    `json:"pageUrl" doc:"The app's page the link redirects to (what anyone it is shared with opens)."`
	ExpiresAt time.Time `json:"expiresAt" doc:"The link works until then (2 minutes)."`
}

// AppFrontCall is one call of an app's frontend, forwarded by its host page: a method of the viewer
// API's allowlist and its params.
type AppFrontCall struct {
	Method string          `json:"method" maxLength:"64" doc:"A server method of the frontend SDK's allowlist (ctx, wallet, appKV.get, appKV.set, appKV.list, appKV.delete, scripts.run, x402.fetch, secrets.status, …)."`
	Params json.RawMessage `json:"params,omitempty" doc:"The method's params, an object (its fields are checked per method)."`
}

// AppFrontHostCall is one of the host page's own actions, never one the app's frame sends: chat.job
// (the chat panel reads its agent job) or transaction.confirm (the owner pressed Confirm).
type AppFrontHostCall struct {
	Method string          `json:"method" maxLength:"64" doc:"chat.job or transaction.confirm."`
	Params json.RawMessage `json:"params,omitempty" doc:"chat.job: {jobId}; transaction.confirm: {token}, the confirmation token confirmTransaction answered."`
}

// AppFrontResult answers a frontend call.
type AppFrontResult struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
}

// AppFrontSession answers POST /apps/{owner}/{slug}/api/session: the viewer cookie is set.
type AppFrontSession struct {
	OK        bool      `json:"ok"`
	AccountID string    `json:"accountId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// OpenApp asks for a short-lived link that opens the app's page signed in as the caller (svc apps open).
func (c *Client) OpenApp(ctx context.Context, slug string) Response[AppOpenLink] {
	return send[AppOpenLink](ctx, c, call{method: http.MethodPost, path: "/apps/" + url.PathEscape(slug) + "/open", auth: authKey})
}

// AppX402Fetch makes an app's x402.fetch as its owner, POST /v1/apps/{slug}/x402/fetch.
func (c *Client) AppX402Fetch(ctx context.Context, slug string, r AppX402FetchRequest, opts ...CallOption) Response[AppFrontResult] {
	return send[AppFrontResult](ctx, c, call{method: http.MethodPost, path: "/apps/" + url.PathEscape(slug) + "/x402/fetch", body: r, auth: authKey, idem: true, opts: opts})
}
