// Package api is the HTTP transport of svc: Gin for routing and middleware, Huma for typed handlers,
// validation and the OpenAPI 3.1 document. One route table (routes.go) drives registration, the
// middleware chain (auth, project, scope, service access, idempotency, audit) and the document, so
// they cannot drift apart.
package api

import (
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"sort"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humagin"
	"github.com/gin-gonic/gin"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/account"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/limit"
	"github.com/svcplatform/svc/internal/partner"
	"github.com/svcplatform/svc/internal/siwe"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Server serves the API: the middleware chain, over the route table of every capability.
type Server struct {
	db  *bun.DB
	log *slog.Logger

	// What the middleware needs: authentication, project lookups, service access, idempotency, audit
	// and limits.
	keyCache *apikey.Cache
	accounts *account.Service
	idem     *idempotency.Store
	audit    *audit.Writer
	catalog  *catalog.Catalog
	limiter  *limit.Limiter
	siwe     *siwe.Service
	partners *partner.Store

	engine *gin.Engine
	huma   huma.API
	routes map[string]*Route
}

// New builds the server and its route table from services already built.
func New(d Deps) (*Server, error) {
	gin.SetMode(gin.ReleaseMode)
	if d.Gateway == nil {
		d.Gateway = &gateway.Catalog{}
	}
	if d.Catalog == nil {
		d.Catalog = catalog.Builtin()
	}
	s := &Server{
		db: d.DB, log: d.Logger,
		keyCache: d.KeyCache, accounts: d.Accounts, idem: d.Idempotency, audit: d.Audit, catalog: d.Catalog,
		limiter: d.Limits, siwe: d.SIWE, partners: partner.NewStore(d.DB), routes: map[string]*Route{},
	}
	s.engine = gin.New()
	if err := s.engine.SetTrustedProxies(d.TrustedProxies); err != nil {
		return nil, fmt.Errorf("trusted proxies: %w", err)
	}
	s.engine.ContextWithFallback = true
	s.engine.HandleMethodNotAllowed = true
	s.engine.Use(s.requestID, s.deprecationHeaders, s.recoverPanics, s.strictHeaders, s.authenticate, s.audited, s.strictInput, s.authorize, s.idempotent, s.limited)
	s.engine.NoRoute(func(c *gin.Context) {
		s.fail(c, svcerr.NotFoundf("no route %s %s", c.Request.Method, c.Request.URL.Path))
	})
	s.engine.NoMethod(func(c *gin.Context) {
		s.fail(c, svcerr.New(svcerr.MethodNotAllowed, "%s is not allowed on %s", c.Request.Method, c.Request.URL.Path))
	})
	s.huma = humagin.New(s.engine, humaConfig(d.Version))
	for _, routes := range routeTable(d) {
		s.add(routes...)
	}
	mcpRoutes, err := s.mcpRoutes(d)
	if err != nil {
		return nil, err
	}
	s.add(mcpRoutes...)
	s.registerDocs()
	s.registerAppFront(&appFrontAPI{front: d.AppFront})
	s.engine.GET("/v1/openapi.json", func(c *gin.Context) { c.JSON(http.StatusOK, s.huma.OpenAPI()) })
	return s, nil
}

// APILicense and APILicenseID name the terms of the API in its OpenAPI document. The repository carries
// no open-source license, so the API is offered on its operator's terms: an SPDX LicenseRef (a license
// that is not on the SPDX list), as OpenAPI 3.1's license.identifier allows.
const (
	APILicense   = "Proprietary"
	APILicenseID = "LicenseRef-svc-proprietary"
)

func humaConfig(version string) huma.Config {
	cfg := huma.DefaultConfig("svc platform API", client.APIVersion+" ("+version+")")
	cfg.CreateHooks = nil // no $schema links in bodies: the envelope is the contract
	cfg.OpenAPIPath = "/openapi"
	cfg.DocsPath = "" // served from the binary by registerDocs, not from a CDN
	cfg.Info.Description = "Durable managed services: API keys, catalog, runs and more. Envelopes: " +
		"{ok: true, ...} on success, {ok: false, error: {code, message, requestId, param?, details?}} on failure."
	// Relative: the host serving the document (an API behind any address describes itself correctly).
	cfg.Servers = []*huma.Server{{URL: "/", Description: "The host serving this document (svcd dev: http://127.0.0.1:8080)."}}
	cfg.Info.License = &huma.License{Name: APILicense, Identifier: APILicenseID}
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"apiKey":       {Type: "http", Scheme: "bearer", Description: "Authorization: Bearer svc_sk_..."},
		"apiKeyHeader": {Type: "apiKey", In: "header", Name: "X-API-Key", Description: "The same API key in X-API-Key (seed 002's header); send one of the two."},
		"creditToken":  {Type: "apiKey", In: "header", Name: "X-Svc-Credit-Token", Description: "First-key credit token (JWT) from `svcd accounts create`."},
		"webSession": {Type: "http", Scheme: "bearer", Description: "Authorization: Bearer <web session token> from POST /auth/siwe/verify " +
			"(sign in with Ethereum); routes that accept it say so, and session-only routes (x-svc-session-only) refuse API keys."},
	}
	// A NullableUSD is a number (or null) on the wire; its Go type only remembers that it was sent.
	cfg.Components.Schemas.RegisterTypeAlias(reflect.TypeOf(client.NullableUSD{}), reflect.TypeOf(float64(0)))
	return cfg
}

// Handler is the http.Handler of the API.
func (s *Server) Handler() http.Handler { return s.engine }

// OpenAPI returns the generated document.
func (s *Server) OpenAPI() *huma.OpenAPI { return s.huma.OpenAPI() }

// Routes returns the route table, ordered by path and method.
func (s *Server) Routes() []Route {
	out := make([]Route, 0, len(s.routes))
	for _, r := range s.routes {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path+out[i].Method < out[j].Path+out[j].Method })
	return out
}
