package client

import (
	"context"
	"net/http"
	"net/url"
)

// Invoke calls an operation of an external managed service. Response.Header carries
// X-Svc-Credits-Charged and X-Svc-Upstream-Request-Id.
func (c *Client) Invoke(ctx context.Context, serviceID string, req InvokeRequest, opts ...CallOption) Response[InvokeResult] {
	if serviceID == "" {
		return invalidArg[InvokeResult]("serviceId", "the service id is empty")
	}
	return send[InvokeResult](ctx, c, call{method: http.MethodPost, path: "/services/" + url.PathEscape(serviceID) + "/invoke",
		body: req, auth: authKey, idem: true, opts: opts})
}
