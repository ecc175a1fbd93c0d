package client

import (
	"context"
	"net/http"
	"net/url"
)

// ListServices lists the managed services the key may use (scope services:read).
func (c *Client) ListServices(ctx context.Context) Response[ServiceList] {
	return send[ServiceList](ctx, c, call{method: http.MethodGet, path: "/services", auth: authKey})
}

// ListCapabilities lists the capabilities (operations) of the services the key may use (scope
// services:read).
func (c *Client) ListCapabilities(ctx context.Context) Response[ServiceList] {
	return send[ServiceList](ctx, c, call{method: http.MethodGet, path: "/capabilities", auth: authKey})
}

// GetCapabilities reads one service's capabilities (scope services:read and access to the service).
func (c *Client) GetCapabilities(ctx context.Context, serviceID string) Response[ServiceEnvelope] {
	if serviceID == "" {
		return invalidArg[ServiceEnvelope]("serviceId", "the service id is empty")
	}
	return send[ServiceEnvelope](ctx, c, call{method: http.MethodGet, path: "/capabilities/" + url.PathEscape(serviceID), auth: authKey})
}

// ListActions lists the service operations the key may start (scope services:read).
func (c *Client) ListActions(ctx context.Context) Response[ActionList] {
	return send[ActionList](ctx, c, call{method: http.MethodGet, path: "/actions", auth: authKey})
}

// Pricing reads the price and availability catalog, GET {base_url}/pricing, optionally for one service
// (ServicePlatformAPI, ServiceManagedWorkflows, ...; "" for every service).
func (c *Client) Pricing(ctx context.Context, service string) Response[Pricing] {
	q := url.Values{}
	if service != "" {
		q.Set("service", service)
	}
	return send[Pricing](ctx, c, call{method: http.MethodGet, path: "/pricing", query: q})
}
