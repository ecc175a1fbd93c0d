package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/gateway"
)

// authKind says how a route authenticates.
type authKind int

const (
	authNone authKind = iota
	authKey
	authKeyOrCreditToken
)

// Route is one row of the route table: what the middleware enforces and the OpenAPI document states.
type Route struct {
	// Op is the OpenAPI operationId, and the limit operation id unless Limit is set.
	Op string
	// Limit is the limit operation id when several routes share one (capabilities.list).
	Limit   string
	Method  string
	Path    string // Huma form, e.g. /v1/runs/{runId}
	Summary string
	Tag     string
	Auth    authKind
	// Scope is the scope an API key needs ("" for public routes).
	Scope string
	// Idem marks routes that require an Idempotency-Key.
	Idem bool
	// ServiceParam names a path parameter holding a service id the key must be allowed to use.
	ServiceParam string
	// ServiceBody names a body field holding a service id the key must be allowed to use (the handler
	// checks it after decoding the body).
	ServiceBody string
	// Lease is how long an idempotent request of this route blocks its key (at least the store's
	// default): as long as its work may take, so a retry cannot start the same work beside it.
	Lease time.Duration
	// Seal encrypts the stored idempotent answer at rest because it carries a secret.
	Seal bool
	// Qualified routes also match the per-service and per-operation limit selectors of the service and
	// operation their request names.
	Qualified bool
	// Status is the success status (200 when zero).
	Status int
}

// LimitOp is the route's limit operation id.
func (r Route) LimitOp() string {
	if r.Limit != "" {
		return r.Limit
	}
	return r.Op
}

// ginPath converts {param} to :param.
func ginPath(p string) string {
	return strings.NewReplacer("{", ":", "}", "").Replace(p)
}

// Out is a handler's answer: Body is the success envelope.
type Out[T any] struct {
	Body T
}

func reply[T any](body T) (*Out[T], error) { return &Out[T]{Body: body}, nil }

// register adds a route to the table and to Huma, wrapping the handler so domain errors become envelopes.
func register[I, O any](s *Server, r Route, h func(context.Context, *I) (*O, error)) {
	route := r
	s.routes[r.Method+" "+ginPath(r.Path)] = &route
	huma.Register(s.huma, r.operation(), func(ctx context.Context, in *I) (*O, error) {
		out, err := h(ctx, in)
		if err != nil {
			return nil, s.toAPIError(ctx, err)
		}
		return out, nil
	})
	if r.Idem {
		documentRetryAfter(s.huma.OpenAPI(), r.Method, r.Path)
	}
}

// operationOf is the document's operation of method on path, or nil.
func operationOf(doc *huma.OpenAPI, method, path string) *huma.Operation {
	item := doc.Paths[path]
	if item == nil {
		return nil
	}
	switch method {
	case http.MethodGet:
		return item.Get
	case http.MethodPost:
		return item.Post
	case http.MethodPatch:
		return item.Patch
	case http.MethodPut:
		return item.Put
	case http.MethodDelete:
		return item.Delete
	}
	return nil
}

// documentRetryAfter declares the Retry-After header that a 409 idempotency_in_flight answer of the
// operation carries.
func documentRetryAfter(doc *huma.OpenAPI, method, path string) {
	op := operationOf(doc, method, path)
	if op == nil || op.Responses["409"] == nil {
		return
	}
	resp := op.Responses["409"]
	if resp.Headers == nil {
		resp.Headers = map[string]*huma.Header{}
	}
	resp.Headers["Retry-After"] = &huma.Header{
		Description: "Seconds to wait before retrying with the same Idempotency-Key; sent with idempotency_in_flight.",
		Schema:      &huma.Schema{Type: "integer", Minimum: ptr(0.0)},
	}
}

// operation is the OpenAPI operation of the route, with its security, scope, idempotency header and
// error answers.
func (r Route) operation() huma.Operation {
	op := huma.Operation{
		OperationID: r.Op, Method: r.Method, Path: r.Path, Summary: r.Summary, Tags: []string{r.Tag},
		DefaultStatus: r.Status, Errors: r.errors(), Extensions: map[string]any{"x-svc-idempotent": r.Idem},
	}
	switch r.Auth {
	case authNone:
		op.Security = []map[string][]string{} // public: no key, no limits
	case authKey:
		op.Security = []map[string][]string{{"apiKey": {}}}
		op.Extensions["x-svc-limit-operation"] = r.LimitOp()
	case authKeyOrCreditToken:
		op.Security = []map[string][]string{{"apiKey": {}}, {"creditToken": {}}}
		op.Extensions["x-svc-limit-operation"] = r.LimitOp()
	}
	if r.Scope != "" {
		op.Extensions["x-svc-scope"] = r.Scope
		op.Description = "Requires scope `" + r.Scope + "`."
	}
	switch {
	case r.ServiceParam != "":
		op.Extensions["x-svc-service-access"] = "path:" + r.ServiceParam
		op.Description += " The key must be allowed to use the service."
	case r.ServiceBody != "":
		op.Extensions["x-svc-service-access"] = "body:" + r.ServiceBody
		op.Description += " The key must be allowed to use the service named by `" + r.ServiceBody + "`."
	}
	if r.Auth != authNone {
		op.Parameters = append(op.Parameters, &huma.Param{Name: "X-Svc-Project", In: "header",
			Description: "Selects an active project for an account-level key.", Schema: &huma.Schema{Type: "string"}})
	}
	if r.Idem {
		op.Parameters = append(op.Parameters, &huma.Param{Name: "Idempotency-Key", In: "header", Required: true,
			Description: "1..255 visible ASCII characters; a retry with the same key and input replays the first answer.",
			Schema:      &huma.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(255)}})
	}
	return op
}

func (r Route) errors() []int {
	errs := []int{http.StatusBadRequest, http.StatusInternalServerError, http.StatusServiceUnavailable}
	if r.Auth != authNone {
		errs = append(errs, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusTooManyRequests)
	}
	if r.Idem {
		errs = append(errs, http.StatusConflict, http.StatusUnprocessableEntity)
	}
	return errs
}

func ptr[T any](v T) *T { return &v }

// registerRoutes is the route table.
func (s *Server) registerRoutes() {
	// Public.
	register(s, Route{Op: "health", Method: http.MethodGet, Path: "/health", Summary: "Service and API-version health", Tag: "Public"}, s.health)
	register(s, Route{Op: "health.v1", Method: http.MethodGet, Path: "/v1/health", Summary: "Service and API-version health", Tag: "Public"}, s.health)
	register(s, Route{Op: "pricing.read", Method: http.MethodGet, Path: "/v1/pricing", Summary: "Server-owned price and availability catalog", Tag: "Public"}, s.pricing)

	// API keys.
	register(s, Route{Op: client.OpAPIKeysList, Method: http.MethodGet, Path: "/v1/api-keys", Summary: "List this key and its descendants", Tag: "API keys",
		Auth: authKey, Scope: client.ScopeAPIKeysManage}, s.listKeys)
	register(s, Route{Op: client.OpAPIKeysCreate, Method: http.MethodPost, Path: "/v1/api-keys", Summary: "Create the first key (credit token) or a narrower child key", Tag: "API keys",
		Auth: authKeyOrCreditToken, Scope: client.ScopeAPIKeysManage, Idem: true, Seal: true, Status: http.StatusCreated}, s.createKey)
	register(s, Route{Op: client.OpAPIKeysRevoke, Method: http.MethodDelete, Path: "/v1/api-keys/{id}", Summary: "Revoke a key and all its descendants", Tag: "API keys",
		Auth: authKey, Scope: client.ScopeAPIKeysManage, Idem: true}, s.revokeKey)

	// Catalog.
	register(s, Route{Op: client.OpServicesList, Method: http.MethodGet, Path: "/v1/services", Summary: "List managed services visible to the key", Tag: "Services",
		Auth: authKey, Scope: client.ScopeServicesRead}, s.listServices)
	register(s, Route{Op: client.OpCapabilitiesList, Method: http.MethodGet, Path: "/v1/capabilities", Summary: "List capabilities of visible services", Tag: "Services",
		Auth: authKey, Scope: client.ScopeServicesRead}, s.listServices)
	register(s, Route{Op: "capabilities.read", Limit: client.OpCapabilitiesList, Method: http.MethodGet, Path: "/v1/capabilities/{serviceId}", Summary: "Capabilities of one service", Tag: "Services",
		Auth: authKey, Scope: client.ScopeServicesRead, ServiceParam: "serviceId"}, s.getCapabilities)
	register(s, Route{Op: client.OpActionsList, Method: http.MethodGet, Path: "/v1/actions", Summary: "List actions the key may start", Tag: "Services",
		Auth: authKey, Scope: client.ScopeServicesRead}, s.listActions)

	// Credits.
	register(s, Route{Op: client.OpCreditsBalanceRead, Method: http.MethodGet, Path: "/v1/credits/balance", Summary: "The account's credit balance", Tag: "Credits",
		Auth: authKey, Scope: client.ScopeCreditsRead}, s.balance)
	register(s, Route{Op: client.OpCreditsX402TopUp, Method: http.MethodPost, Path: "/v1/credits/x402/top-up", Summary: "Buy credits with an x402 payment (402 first, then pay)", Tag: "Credits",
		Auth: authKey, Scope: client.ScopeCreditsWrite, Idem: true, Lease: TopUpWait + time.Minute}, s.topUp)

	// Projects, usage, audit.
	register(s, Route{Op: client.OpProjectsList, Method: http.MethodGet, Path: "/v1/projects", Summary: "List projects", Tag: "Projects",
		Auth: authKey, Scope: client.ScopeProjectsRead}, s.listProjects)
	register(s, Route{Op: client.OpProjectsCreate, Method: http.MethodPost, Path: "/v1/projects", Summary: "Create a project", Tag: "Projects",
		Auth: authKey, Scope: client.ScopeProjectsWrite, Idem: true, Status: http.StatusCreated}, s.createProject)
	register(s, Route{Op: client.OpProjectsRead, Method: http.MethodGet, Path: "/v1/projects/{projectId}", Summary: "Read a project", Tag: "Projects",
		Auth: authKey, Scope: client.ScopeProjectsRead}, s.getProject)
	register(s, Route{Op: client.OpProjectsUpdate, Method: http.MethodPatch, Path: "/v1/projects/{projectId}", Summary: "Update a project", Tag: "Projects",
		Auth: authKey, Scope: client.ScopeProjectsWrite, Idem: true}, s.updateProject)
	register(s, Route{Op: client.OpProjectsArchive, Method: http.MethodDelete, Path: "/v1/projects/{projectId}", Summary: "Archive a project", Tag: "Projects",
		Auth: authKey, Scope: client.ScopeProjectsWrite, Idem: true}, s.archiveProject)
	register(s, Route{Op: client.OpUsageRead, Method: http.MethodGet, Path: "/v1/usage", Summary: "Requests and charged credits by project, day and operation", Tag: "Projects",
		Auth: authKey, Scope: client.ScopeUsageRead}, s.usage)
	register(s, Route{Op: client.OpAuditEventsList, Method: http.MethodGet, Path: "/v1/audit-events", Summary: "List audit events", Tag: "Projects",
		Auth: authKey, Scope: client.ScopeAuditRead}, s.listAuditEvents)

	// Connections and invocations.
	register(s, Route{Op: client.OpConnectionsList, Method: http.MethodGet, Path: "/v1/connections", Summary: "List protected connections", Tag: "Connections",
		Auth: authKey, Scope: client.ScopeConnectionsRead}, s.listConnections)
	register(s, Route{Op: client.OpConnectionsCreate, Method: http.MethodPost, Path: "/v1/connections", Summary: "Store an upstream credential", Tag: "Connections",
		Auth: authKey, Scope: client.ScopeConnectionsWrite, Idem: true, Status: http.StatusCreated}, s.createConnection)
	register(s, Route{Op: client.OpConnectionsRead, Method: http.MethodGet, Path: "/v1/connections/{connectionId}", Summary: "Read a connection's metadata", Tag: "Connections",
		Auth: authKey, Scope: client.ScopeConnectionsRead}, s.getConnection)
	register(s, Route{Op: client.OpConnectionsUpdate, Method: http.MethodPatch, Path: "/v1/connections/{connectionId}", Summary: "Rotate, rename, disable or enable a connection", Tag: "Connections",
		Auth: authKey, Scope: client.ScopeConnectionsWrite, Idem: true}, s.updateConnection)
	register(s, Route{Op: client.OpConnectionsDelete, Method: http.MethodDelete, Path: "/v1/connections/{connectionId}", Summary: "Delete a connection", Tag: "Connections",
		Auth: authKey, Scope: client.ScopeConnectionsWrite, Idem: true}, s.deleteConnection)
	register(s, Route{Op: client.OpServicesInvoke, Method: http.MethodPost, Path: "/v1/services/{serviceId}/invoke", Summary: "Invoke an external managed service", Tag: "Services",
		Auth: authKey, Scope: client.ScopeServicesInvoke, Idem: true, ServiceParam: "serviceId", Qualified: true,
		Lease: gateway.MaxTimeout + time.Minute}, s.invoke)

	// Runs.
	register(s, Route{Op: client.OpRunsCreate, Method: http.MethodPost, Path: "/v1/runs", Summary: "Start a durable run", Tag: "Runs",
		Auth: authKey, Scope: client.ScopeRunsWrite, Idem: true, Status: http.StatusCreated, Qualified: true, ServiceBody: "serviceId"}, s.createRun)
	register(s, Route{Op: client.OpRunsList, Method: http.MethodGet, Path: "/v1/runs", Summary: "List runs, newest first", Tag: "Runs",
		Auth: authKey, Scope: client.ScopeRunsRead}, s.listRuns)
	register(s, Route{Op: client.OpRunsRead, Method: http.MethodGet, Path: "/v1/runs/{runId}", Summary: "Read a run", Tag: "Runs",
		Auth: authKey, Scope: client.ScopeRunsRead}, s.getRun)
	register(s, Route{Op: client.OpRunsCancel, Method: http.MethodPost, Path: "/v1/runs/{runId}/cancel", Summary: "Request a run's cancellation", Tag: "Runs",
		Auth: authKey, Scope: client.ScopeRunsWrite, Idem: true}, s.cancelRun)

	// Approvals.
	register(s, Route{Op: client.OpApprovalsList, Method: http.MethodGet, Path: "/v1/approvals", Summary: "List approvals, newest first", Tag: "Approvals",
		Auth: authKey, Scope: client.ScopeApprovalsRead}, s.listApprovals)
	register(s, Route{Op: client.OpApprovalsCreate, Method: http.MethodPost, Path: "/v1/approvals/service-actions", Summary: "Ask for approval of a service action", Tag: "Approvals",
		Auth: authKey, Scope: client.ScopeApprovalsWrite, Idem: true, Status: http.StatusCreated, ServiceBody: "serviceId"}, s.createServiceAction)
	register(s, Route{Op: client.OpApprovalsDecide, Method: http.MethodPost, Path: "/v1/approvals/{approvalId}", Summary: "Approve or reject a pending approval", Tag: "Approvals",
		Auth: authKey, Scope: client.ScopeApprovalsWrite, Idem: true}, s.decideApproval)

	// Artifacts.
	register(s, Route{Op: client.OpArtifactsList, Method: http.MethodGet, Path: "/v1/artifacts", Summary: "List artifacts runs produced, newest first", Tag: "Artifacts",
		Auth: authKey, Scope: client.ScopeArtifactsRead}, s.listArtifacts)
	register(s, Route{Op: client.OpArtifactsContentRead, Method: http.MethodGet, Path: "/v1/artifacts/{artifactId}/content", Summary: "Download an artifact's bytes", Tag: "Artifacts",
		Auth: authKey, Scope: client.ScopeArtifactsRead}, s.artifactContent)
	s.documentArtifactContent("/v1/artifacts/{artifactId}/content")

	// Webhooks. Creation and rotation answer the secret: their stored idempotent answers are sealed.
	register(s, Route{Op: client.OpWebhooksList, Method: http.MethodGet, Path: "/v1/webhooks", Summary: "List webhook endpoints", Tag: "Webhooks",
		Auth: authKey, Scope: client.ScopeWebhooksRead}, s.listWebhooks)
	register(s, Route{Op: client.OpWebhooksCreate, Method: http.MethodPost, Path: "/v1/webhooks", Summary: "Register a webhook endpoint; answers its signing secret once", Tag: "Webhooks",
		Auth: authKey, Scope: client.ScopeWebhooksWrite, Idem: true, Seal: true, Status: http.StatusCreated}, s.createWebhook)
	register(s, Route{Op: client.OpWebhooksUpdate, Method: http.MethodPatch, Path: "/v1/webhooks/{webhookId}", Summary: "Change a webhook's url, events, description or enabled state", Tag: "Webhooks",
		Auth: authKey, Scope: client.ScopeWebhooksWrite, Idem: true}, s.updateWebhook)
	register(s, Route{Op: client.OpWebhooksRotate, Method: http.MethodPost, Path: "/v1/webhooks/{webhookId}/rotate-secret", Summary: "Rotate a webhook's signing secret; the old one signs for 24 h more", Tag: "Webhooks",
		Auth: authKey, Scope: client.ScopeWebhooksWrite, Idem: true, Seal: true}, s.rotateWebhookSecret)
	register(s, Route{Op: client.OpWebhooksDisable, Method: http.MethodDelete, Path: "/v1/webhooks/{webhookId}", Summary: "Disable a webhook endpoint", Tag: "Webhooks",
		Auth: authKey, Scope: client.ScopeWebhooksWrite, Idem: true}, s.deleteWebhook)
	register(s, Route{Op: client.OpWebhookDeliveriesList, Method: http.MethodGet, Path: "/v1/webhook-deliveries", Summary: "List webhook deliveries with their attempts", Tag: "Webhooks",
		Auth: authKey, Scope: client.ScopeWebhooksRead}, s.listWebhookDeliveries)
	register(s, Route{Op: client.OpWebhookDeliveriesReplay, Method: http.MethodPost, Path: "/v1/webhook-deliveries/{deliveryId}/replay", Summary: "Deliver a delivery's event again as a fresh delivery", Tag: "Webhooks",
		Auth: authKey, Scope: client.ScopeWebhooksWrite, Idem: true}, s.replayWebhookDelivery)
}
