package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/connection"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
)

type invokeInput struct {
	ServiceID string `path:"serviceId" doc:"An external service of services.yaml."`
	Body      client.InvokeRequest
}

type invokeOutput struct {
	CreditsCharged    string `header:"X-Svc-Credits-Charged" doc:"What the owning service charged, in credits."`
	UpstreamRequestID string `header:"X-Svc-Upstream-Request-Id" doc:"The owning service's request id, when it gave one."`
	Body              client.InvokeResult
}

// invoke calls an external service's operation: the operation's price is held before the call (so an
// unaffordable call never reaches the service), what the service reports charging is settled after it
// (at most the price), and the rest is released.
func (g *gatewayAPI) invoke(ctx context.Context, in *invokeInput) (*invokeOutput, error) {
	p, commit := principalFrom(ctx), answerCommit(ctx)
	svc, op, err := g.invocable(in.ServiceID, in.Body.OperationID)
	if err != nil {
		return nil, err
	}
	input, err := json.Marshal(orEmpty(in.Body.Input))
	if err != nil {
		return nil, svcerr.Invalid("input", "input is not valid JSON")
	}
	var cred gateway.Credential
	if svc.Connection != "" {
		c, err := g.connections.CredentialNamed(ctx, p.Scope, svc.Connection)
		if svcerr.Is(err, svcerr.NotFound) {
			return nil, (&svcerr.Error{Code: svcerr.Conflict, Param: "connection",
				Message: "service " + svc.ID + " needs a connection named " + svc.Connection + " holding your credential; create it with POST /v1/connections"})
		}
		if err != nil {
			return nil, err
		}
		cred = c
	}
	daily, err := g.daily.reserve(ctx, p, client.OpServicesInvoke, svc.ID, op.ID, op.Millicredits)
	if err != nil {
		return nil, err
	}
	pay, err := g.payer.Reserve(ctx, p.Scope.AccountID, op.Millicredits, newID(ctx, "inv"))
	if err != nil {
		g.daily.release(ctx, daily, op.Millicredits)
		return nil, err
	}
	res, err := g.invoker.Invoke(ctx, gateway.InvokeRequest{Service: svc, Operation: op, Input: input, Credential: cred,
		RequestID: requestIDFrom(ctx), IdempotencyKey: newID(ctx, "inv")})
	if err != nil {
		g.payer.Release(ctx, pay)
		g.daily.release(ctx, daily, op.Millicredits)
		return nil, err
	}
	charged, err := g.charge(ctx, pay, res, commit)
	if err != nil {
		return nil, err
	}
	g.daily.release(ctx, daily, op.Millicredits-charged)
	stateFrom(ctx).charged = charged
	g.log.Debug("invoked service", "requestId", requestIDFrom(ctx), "serviceId", svc.ID, "operationId", op.ID,
		"status", res.Status, "chargedMillicredits", charged, "upstreamRequestId", res.UpstreamRequestID)
	return &invokeOutput{CreditsCharged: ledger.FormatCredits(charged), UpstreamRequestID: res.UpstreamRequestID,
		Body: client.InvokeResult{OK: true, ServiceID: svc.ID, OperationID: op.ID, Status: res.Status, Result: res.Result,
			ChargedCredits: catalog.Credits(charged)}}, nil
}

func (g *gatewayAPI) invocable(serviceID, operationID string) (gateway.Service, gateway.Operation, error) {
	svc, ok := g.gateway.Lookup(serviceID)
	if !ok {
		return svc, gateway.Operation{}, svcerr.NotFoundf("no invocable service %q (built-in services run through their own routes)", serviceID)
	}
	op, ok := svc.Operation(operationID)
	if !ok {
		return svc, op, svcerr.Invalid("operationId", "service %q has no operation %q", serviceID, operationID)
	}
	if op.RequiresApproval {
		return svc, op, (&svcerr.Error{Code: svcerr.Forbidden, Param: "operationId",
			Message: fmt.Sprintf("operation %q of %q needs an approval: start it as a run with POST /v1/runs, which waits for one", operationID, serviceID)})
	}
	return svc, op, nil
}

// charge charges what the service reported (nothing when it reported nothing), at most the reserved
// price; the charge commits through commit, together with the answer that reports it.
func (g *gatewayAPI) charge(ctx context.Context, pay *gateway.Payment, res gateway.InvokeResult, commit idempotency.Commit) (int64, error) {
	charged, err := g.payer.Charge(ctx, pay, res.ChargedMillicredits, commit)
	if err != nil {
		return 0, err
	}
	switch {
	case pay.Free() && res.ChargedMillicredits > 0:
		g.log.Warn("a free operation reported a charge; not charged", "requestId", requestIDFrom(ctx))
	case charged < res.ChargedMillicredits:
		g.log.Warn("service reported more than its price; capped", "requestId", requestIDFrom(ctx))
	}
	return charged, nil
}

func orEmpty(in map[string]any) map[string]any {
	if in == nil {
		return map[string]any{}
	}
	return in
}

// gatewayAPI invokes external services (services.yaml) for the caller, paid from credits.
type gatewayAPI struct {
	gateway     *gateway.Catalog
	connections *connection.Store
	invoker     *gateway.Invoker
	payer       *gateway.Payer
	daily       dailyCredits
	log         *slog.Logger
}

// routes are the gateway routes.
func (g *gatewayAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpServicesInvoke, Method: http.MethodPost, Path: "/v1/services/{serviceId}/invoke", Summary: "Invoke an external managed service", Tag: "Services",
			Auth: authKey, Scope: client.ScopeServicesInvoke, Idem: true, ServiceParam: "serviceId", Qualified: true,
			Lease: gateway.MaxTimeout + time.Minute}, g.invoke),
	}
}
