// Package api is the HTTP transport of svc: Gin for routing and middleware, Huma for typed handlers,
// validation and the OpenAPI 3.1 document. One route table (routes.go) drives registration, the
// middleware chain (auth, project, scope, service access, idempotency, audit) and the document, so
// they cannot drift apart.
package api

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humagin"
	"github.com/gin-gonic/gin"
	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/account"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/connection"
	"github.com/svcplatform/svc/internal/delivery"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/limit"
	"github.com/svcplatform/svc/internal/project"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/topup"
	"github.com/svcplatform/svc/internal/webhook"
	"github.com/svcplatform/svc/internal/x402"
)

// Deps are the server's collaborators.
type Deps struct {
	DB       *bun.DB
	Temporal sdkclient.Client
	Box      *secretbox.Box
	Logger   *slog.Logger
	// Version is the build reported by /health.
	Version string
	// Idempotency tunes idempotency records (defaults: 1 min lease, 24 h retention).
	Idempotency idempotency.Options
	// CreditLeases tunes how invocations of busy accounts are paid from credit leases (see
	// ledger.LeaseOptions for the defaults); Log defaults to Logger.
	CreditLeases ledger.LeaseOptions
	// Audit tunes the background writer of read requests' audit events (defaults: batches of 256, at
	// most 50 ms apart); the events of other requests are stored before their answer regardless.
	Audit audit.Options
	// Gateway are the external services of services.yaml; nil means none.
	Gateway *gateway.Catalog
	// AllowLoopback lets invocations reach services on loopback addresses (dev mode).
	AllowLoopback bool
	// TrustedProxies are the proxy addresses or CIDRs whose X-Forwarded-For is believed for the client IP
	// recorded in audit events; none by default.
	TrustedProxies []string
	// Artifacts is the artifact store the worker saves into; nil means a store on DB with blobs in
	// .data/artifacts (artifact.DefaultDir).
	Artifacts *artifact.Store
	// X402 is what x402 top-ups are paid in and to; nil answers top-ups 503 (not configured).
	X402 *x402.Config
	// TopUpWait is how long a paid top-up waits for its settlement (default TopUpWait).
	TopUpWait time.Duration
	// DevFaucet, in dev mode only, funds addresses on the dev chain (POST /dev/faucet); nil leaves the
	// route out.
	DevFaucet Faucet
	// RunSweepInterval is how often the server reconciles runs a dying request left unstarted (default
	// RunSweepInterval; see run.Service.SweepStarts).
	RunSweepInterval time.Duration
}

// RunSweepInterval is how often, by default, the server looks for runs left unstarted.
const RunSweepInterval = 10 * time.Second

// Server serves the API.
type Server struct {
	db       *bun.DB
	temporal sdkclient.Client
	log      *slog.Logger
	version  string

	keys      *apikey.Store
	keyCache  *apikey.Cache
	accounts  *account.Service
	idem      *idempotency.Store
	audit     *audit.Writer
	runs      *run.Service
	approvals *approval.Service
	artifacts *artifact.Store
	projects  *project.Store
	catalog   *catalog.Catalog

	limiter     *limit.Limiter
	connections *connection.Store
	gateway     *gateway.Catalog
	invoker     *gateway.Invoker
	ledger      *ledger.Ledger
	// credits pays for invocations, from leases on busy accounts (see ledger.Leases).
	credits    *ledger.Leases
	webhooks   *webhook.Store
	deliveries *delivery.Store
	x402       *x402.Config
	topups     *topup.Service
	faucet     Faucet
	topUpWait  time.Duration
	runSweep   time.Duration

	engine *gin.Engine
	huma   huma.API
	routes map[string]*Route
	bg     sync.WaitGroup
}

// New builds the server and its route table.
func New(d Deps) (*Server, error) {
	gin.SetMode(gin.ReleaseMode)
	s := &Server{
		db: d.DB, temporal: d.Temporal, log: d.Logger, version: d.Version,
		keys:      apikey.NewStore(d.DB),
		accounts:  account.New(d.DB, d.Box.Derive("credit-token")),
		idem:      idempotency.NewStore(d.DB, d.Box, d.Idempotency),
		audit:     audit.NewWriter(d.DB, d.Logger, d.Audit),
		runs:      run.NewService(run.NewStore(d.DB), d.Temporal),
		approvals: approval.NewService(d.DB, d.Temporal),
		projects:  project.NewStore(d.DB),
		catalog:   catalog.Builtin(),

		limiter:     limit.New(d.DB, limit.Options{Log: d.Logger}),
		connections: connection.NewStore(d.DB, d.Box).CacheCredentials(time.Minute, 10000, d.Logger),
		gateway:     d.Gateway,
		invoker:     gateway.NewInvoker(gateway.Options{AllowLoopback: d.AllowLoopback}),
		ledger:      ledger.New(d.DB),
		webhooks:    webhook.NewStore(d.DB, d.Box, webhook.Options{AllowHTTP: d.AllowLoopback, AllowLoopback: d.AllowLoopback}),
		deliveries:  delivery.NewStore(d.DB, d.Temporal),
		x402:        d.X402,
		faucet:      d.DevFaucet,
		topUpWait:   cmp.Or(d.TopUpWait, TopUpWait),
		runSweep:    cmp.Or(d.RunSweepInterval, RunSweepInterval),
		topups:      topup.NewService(topup.NewStore(d.DB), d.Temporal),
		routes:      map[string]*Route{},
	}
	if s.gateway == nil {
		s.gateway = &gateway.Catalog{}
	}
	if s.artifacts = d.Artifacts; s.artifacts == nil {
		s.artifacts = artifact.NewStore(d.DB, artifact.NewLocalBlobs(artifact.DefaultDir), artifact.Options{})
	}
	cat, err := catalog.Builtin().With(s.gateway.ForCatalog()...)
	if err != nil {
		return nil, fmt.Errorf("services: %w", err)
	}
	s.catalog = cat
	s.runs.WithCatalog(cat)
	leases := d.CreditLeases
	leases.Log = cmp.Or(leases.Log, d.Logger)
	s.credits = ledger.NewLeases(s.ledger, leases)
	s.keyCache = apikey.NewCache(s.keys, time.Minute, 10000, d.Logger)
	s.engine = gin.New()
	if err := s.engine.SetTrustedProxies(d.TrustedProxies); err != nil {
		return nil, fmt.Errorf("trusted proxies: %w", err)
	}
	s.engine.ContextWithFallback = true
	s.engine.HandleMethodNotAllowed = true
	s.engine.Use(s.requestID, s.recoverPanics, s.strictHeaders, s.authenticate, s.audited, s.strictInput, s.authorize, s.idempotent, s.limited)
	s.engine.NoRoute(func(c *gin.Context) {
		s.fail(c, svcerr.NotFoundf("no route %s %s", c.Request.Method, c.Request.URL.Path))
	})
	s.engine.NoMethod(func(c *gin.Context) {
		s.fail(c, svcerr.New(svcerr.MethodNotAllowed, "%s is not allowed on %s", c.Request.Method, c.Request.URL.Path))
	})
	s.huma = humagin.New(s.engine, humaConfig(d.Version))
	s.registerRoutes()
	s.registerDev()
	s.registerDocs()
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
		"apiKey":      {Type: "http", Scheme: "bearer", Description: "Authorization: Bearer svc_sk_..."},
		"creditToken": {Type: "apiKey", In: "header", Name: "X-Svc-Credit-Token", Description: "First-key credit token (JWT) from `svcd accounts create`."},
	}
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

// Close waits for the background work started by Start (whose context must have ended) and flushes
// audit events. Call it after the HTTP server has stopped.
func (s *Server) Close() {
	s.bg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.limiter.Close(ctx); err != nil {
		s.log.Warn("return unused limit leases", "err", err)
	}
	if err := s.credits.Close(ctx); err != nil {
		s.log.Warn("close credit leases; the stale-hold sweep will", "err", err)
	}
	s.audit.Close()
	s.invoker.Close()
}

// Start runs the server's background work until ctx ends: the listeners that let authentication and
// connection credentials be served from memory, the purge of expired idempotency records, and the
// release of credit holds left open by processes that died mid-call.
func (s *Server) Start(ctx context.Context) {
	s.bg.Add(6)
	go func() { defer s.bg.Done(); every(ctx, 5*time.Minute, s.releaseStaleHolds) }()
	go func() { defer s.bg.Done(); every(ctx, s.runSweep, s.sweepRuns) }()
	go func() { defer s.bg.Done(); s.keyCache.Listen(ctx, s.db) }()
	go func() { defer s.bg.Done(); s.connections.Listen(ctx, s.db) }()
	go func() { defer s.bg.Done(); s.limiter.Run(ctx) }()
	go func() { defer s.bg.Done(); every(ctx, time.Hour, s.purgeIdempotency) }()
}

// Ages after which an open hold's call must have ended: an invocation lasts at most the longest service
// timeout (a credit lease admits calls for seconds, then waits for them); a run's attempts (six, each up
// to that timeout, with backoff) well under three hours.
const (
	staleInvokeHold = gateway.MaxTimeout + 5*time.Minute
	staleRunHold    = 3 * time.Hour
)

// every calls fn every interval until ctx ends.
func every(ctx context.Context, interval time.Duration, fn func(ctx context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn(ctx)
		}
	}
}

// releaseStaleHolds releases credit holds whose call must have ended. Several API processes may sweep
// at once: releasing a hold is a conditional update, so each is released once.
func (s *Server) releaseStaleHolds(ctx context.Context) {
	if n, err := s.ledger.ReleaseStale(ctx, staleInvokeHold, staleRunHold); err != nil {
		s.log.Warn("release stale credit holds", "err", err)
	} else if n > 0 {
		s.log.Info("released stale credit holds", "count", n)
	}
}

// sweepRuns reconciles runs left unstarted by a request that died (run.Service.SweepStarts).
func (s *Server) sweepRuns(ctx context.Context) {
	n, err := s.runs.SweepStarts(ctx)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("reconcile unstarted runs", "err", err)
	}
	if n > 0 {
		s.log.Info("reconciled unstarted runs", "count", n)
	}
}

// purgeIdempotency deletes expired idempotency records.
func (s *Server) purgeIdempotency(ctx context.Context) {
	if n, err := s.idem.Purge(ctx); err != nil {
		s.log.Warn("purge idempotency keys", "err", err)
	} else if n > 0 {
		s.log.Info("purged idempotency keys", "count", n)
	}
}
