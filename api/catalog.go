package api

import (
	"context"
	"net/http"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/connection"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/svcerr"
)

type pricingInput struct {
	Service string `query:"service" enum:"platform-api,managed-wallets,managed-trading,managed-agents,managed-workflows" doc:"Only this service's prices."`
}

func (c *catalogAPI) pricing(_ context.Context, in *pricingInput) (*Out[client.Pricing], error) {
	out := client.Pricing{OK: true, CreditsPerUSD: catalog.CreditsPerUSD, Prices: []client.Price{}}
	if in.Service == "" || in.Service == client.ServicePlatformAPI {
		out.Prices = append(out.Prices, client.Price{ServiceID: client.ServicePlatformAPI, OperationID: client.LimitAll,
			Credits: 0, Unit: "request", Available: true})
	}
	for _, svc := range c.catalog.Services() {
		if in.Service != "" && in.Service != svc.ID {
			continue
		}
		for _, op := range svc.Operations {
			out.Prices = append(out.Prices, catalog.PriceToWire(svc, op))
		}
	}
	return reply(out)
}

// visibleServices are the catalog services the caller's key may use.
func (c *catalogAPI) visibleServices(ctx context.Context) []catalog.Service {
	grants := apikey.GrantsOf(principalFrom(ctx).Key)
	var out []catalog.Service
	for _, svc := range c.catalog.Services() {
		if grants.HasService(svc.ID) {
			out = append(out, svc)
		}
	}
	return out
}

func (c *catalogAPI) listServices(ctx context.Context, _ *struct{}) (*Out[client.ServiceList], error) {
	out := client.ServiceList{OK: true, Services: []client.Service{}}
	for _, svc := range c.visibleServices(ctx) {
		out.Services = append(out.Services, catalog.ServiceToWire(svc))
	}
	return reply(out)
}

type serviceIDInput struct {
	ServiceID string `path:"serviceId" doc:"A service id, e.g. managed-workflows."`
}

func (c *catalogAPI) getCapabilities(ctx context.Context, in *serviceIDInput) (*Out[client.ServiceEnvelope], error) {
	svc, ok := c.catalog.Lookup(in.ServiceID)
	if !ok {
		return nil, svcerr.NotFoundf("no service %q", in.ServiceID)
	}
	out := client.ServiceEnvelope{OK: true, Service: catalog.ServiceToWire(svc)}
	if ext, ok := c.gateway.Lookup(in.ServiceID); ok && ext.Contract == gateway.ContractGeneration {
		out.Preflight = c.preflight(ctx, ext)
	}
	return reply(out)
}

// preflight checks a generation-style service with the caller's connection, when the caller has one.
func (c *catalogAPI) preflight(ctx context.Context, svc gateway.Service) *client.Preflight {
	var cred gateway.Credential
	if svc.Connection != "" {
		if c, err := c.connections.CredentialNamed(ctx, principalFrom(ctx).Scope, svc.Connection); err == nil {
			cred = c
		}
	}
	return gateway.PreflightToWire(c.invoker.Preflight(ctx, svc, cred))
}

func (c *catalogAPI) listActions(ctx context.Context, _ *struct{}) (*Out[client.ActionList], error) {
	out := client.ActionList{OK: true, Actions: []client.Action{}}
	for _, svc := range c.visibleServices(ctx) {
		for _, op := range svc.Operations {
			if !op.Available {
				continue
			}
			out.Actions = append(out.Actions, catalog.ActionToWire(svc, op))
		}
	}
	return reply(out)
}

// catalogAPI serves the service catalog: services, capabilities, actions and prices.
type catalogAPI struct {
	catalog     *catalog.Catalog
	gateway     *gateway.Catalog
	connections *connection.Store
	invoker     *gateway.Invoker
}

// routes are the catalog routes.
func (c *catalogAPI) routes() []Route {
	return []Route{
		handle(Route{Op: "pricing.read", Method: http.MethodGet, Path: "/v1/pricing", Summary: "Server-owned price and availability catalog", Tag: "Public"}, c.pricing),
		handle(Route{Op: client.OpServicesList, Method: http.MethodGet, Path: "/v1/services", Summary: "List managed services visible to the key", Tag: "Services",
			Auth: authKey, Scope: client.ScopeServicesRead}, c.listServices),
		handle(Route{Op: client.OpCapabilitiesList, Method: http.MethodGet, Path: "/v1/capabilities", Summary: "List capabilities of visible services", Tag: "Services",
			Auth: authKey, Scope: client.ScopeServicesRead}, c.listServices),
		handle(Route{Op: "capabilities.read", Limit: client.OpCapabilitiesList, Method: http.MethodGet, Path: "/v1/capabilities/{serviceId}", Summary: "Capabilities of one service", Tag: "Services",
			Auth: authKey, Scope: client.ScopeServicesRead, ServiceParam: "serviceId"}, c.getCapabilities),
		handle(Route{Op: client.OpActionsList, Method: http.MethodGet, Path: "/v1/actions", Summary: "List actions the key may start", Tag: "Services",
			Auth: authKey, Scope: client.ScopeServicesRead}, c.listActions),
	}
}
