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
)

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
