package app

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/codeproof"
	"github.com/svcplatform/svc/internal/dbtransfer"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/handles"
	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/launch"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/internal/vault"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/internal/x402"
)

// APIDeps configure one API process: what its services are built on and how they are tuned.
type APIDeps struct {
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
	// AppInlineRuns executes app script runs that make no platform call in the request (Config.AppInlineRuns).
	AppInlineRuns bool
	// TrustedProxies are the proxy addresses or CIDRs whose X-Forwarded-For is believed for the client IP
	// recorded in audit events; none by default.
	TrustedProxies []string
	// TemporalUI is the Temporal Web UI's address of the runs' namespace, for MCP run links ("" for none).
	TemporalUI string
	// Artifacts is the artifact store the worker saves into; nil means a store on DB with blobs below
	// "artifacts/" of the local store in DefaultBlobDir.
	Artifacts *artifact.Store
	// Blobs is the platform's blob store, where files keep their bytes (below FilePrefix); nil keeps
	// a local store in DefaultBlobDir.
	Blobs blob.Store
	// Files tunes the files' storage rules and purge delay (zero fields: seed 002's defaults).
	Files file.Options
	// Transfers tunes database transfers (zero fields: dbtransfer's defaults).
	Transfers dbtransfer.Options
	// Automations tunes automations (a test-only fire interval).
	Automations automation.Options
	// X402 is what x402 top-ups are paid in and to; nil answers top-ups 503 (not configured). Its
	// network and token are also the chain and USDC of managed wallets.
	X402 *x402.Config
	// ChainRPCURL is the chain's JSON-RPC endpoint, read for wallets' balances ("" answers them 503).
	ChainRPCURL string
	// Fees is where token-launch fees are read (the public fee routes); an empty Manager answers them 503.
	Fees FeeConfig
	// NativeUSDPrice is the native asset's USD price for wallets' policies (0: unknown, so a send of it
	// is refused while a USD limit is on).
	NativeUSDPrice float64
	// WalletScreening configures the screening step of wallet sends (zero: wallet.DefaultScreening).
	WalletScreening wallet.ScreeningOptions
	// Handles is the handle resolver (Config.Handles; nil knows no name).
	Handles *handles.Resolver
	// Launch configures token launches (zero: the dev chain's FeesManager, vault and seed).
	Launch launch.Config
	// Trading configures managed trading's venue (zero: the dev chain's router and tokens).
	Trading trading.Config
	// TopUpWait is how long a paid top-up waits for its settlement (default api.TopUpWait).
	TopUpWait time.Duration
	// DevFaucet, in dev mode only, funds addresses on the dev chain (POST /dev/faucet); nil leaves the
	// route out.
	DevFaucet api.Faucet
	// Databases is the cluster of the accounts' managed databases (shared with the process's worker);
	// nil answers their routes 503.
	Databases *accountdb.Cluster
	// DatabaseConn, when set, opens the accounts' managed databases for queries, records and actions
	// (tests give their own); nil uses Databases, and without either those routes answer 503.
	DatabaseConn accountdb.Connector
	// RunSweepInterval is how often the process reconciles runs a dying request left unstarted (default
	// RunSweepInterval; see run.Service.SweepStarts).
	RunSweepInterval time.Duration
	// LimitClock is the clock that places requests in their limit windows (default time.Now); processes
	// sharing a database must share it.
	LimitClock func() time.Time
	// Vault is the platform's copy of the synced vault (SVC_VAULT), whose machine cards the handoff
	// planner reads; nil answers POST /api/handoff 503.
	Vault *vault.Vault
	// HandoffCheckEvery is the interval between a handoff's ack checks (default handoff.DefaultCheckEvery).
	HandoffCheckEvery time.Duration
	// CodeProof configures the code-proof routes (SVC_CODEPROOF_CLI, SVC_CODEPROOF_NODE_URL,
	// SVC_CODEPROOF_DIR; zero fields: codeproof's defaults).
	CodeProof codeproof.Config
	// ProjectsFile is the code-project registry used without a vault (SVC_PROJECTS_FILE; "":
	// codeprojects.DefaultFallback).
	ProjectsFile string
	// SIWEDomain is the domain sign-in-with-Ethereum messages must name (see Config.SIWEDomain); empty
	// uses DefaultSIWEDomain.
	SIWEDomain string
	// LLM is the LLM gateway's catalog (Config.LLM); nil uses the built-in llm.DefaultCatalog with no
	// provider configured (completions answer 503).
	LLM *llm.Catalog
	// SMTPURL is where sign-in mail goes (Config.SMTPURL); empty keeps it in the dev mailbox (PostgreSQL).
	SMTPURL string
	// MailFrom is the sender of sign-in mail (Config.MailFrom; empty: emailauth.DefaultFrom).
	MailFrom string
	// EmailNow is the clock of sign-in codes (default time.Now; tests move it past a code's expiry).
	EmailNow func() time.Time
}

// RunSweepInterval is how often, by default, an API process looks for runs left unstarted.
const RunSweepInterval = 10 * time.Second

// APIProcess is one API process: the HTTP server over services built once, and the background jobs those
// services need (Start) until Close.
type APIProcess struct {
	// Server serves the routes.
	Server *api.Server
	deps   api.Deps
	log    *slog.Logger
	sweep  time.Duration
	// blobs is the whole blob store, whose temporary files the orphan sweep removes.
	blobs blob.Store
	bg    sync.WaitGroup
}

// NewAPI builds every service an API process uses, once, and the server over them.
func NewAPI(d APIDeps) (*APIProcess, error) {
	deps, err := apiServices(d)
	if err != nil {
		return nil, err
	}
	srv, err := api.New(deps)
	if err != nil {
		deps.Invoker.Close()
		return nil, err
	}
	return &APIProcess{Server: srv, deps: deps, log: d.Logger, sweep: cmp.Or(d.RunSweepInterval, RunSweepInterval),
		blobs: platformBlobs(d)}, nil
}

// Start runs the process's background jobs until ctx ends: the listeners that let authentication and
// connection credentials be served from memory, the limiter's lease keeping, the purge of expired
// idempotency records, the release of credit holds left open by processes that died mid-call, the
// sweep of runs left unstarted, the storage housekeeping of files, the sweep of orphaned blobs and the
// start of wallet sends and handoffs a dying request left unstarted.
func (a *APIProcess) Start(ctx context.Context) {
	d := a.deps
	jobs := []func(context.Context){
		func(ctx context.Context) { d.KeyCache.Listen(ctx, d.DB) },
		func(ctx context.Context) { d.Connections.Listen(ctx, d.DB) },
		d.Limits.Run,
		func(ctx context.Context) { every(ctx, 5*time.Minute, a.releaseStaleHolds) },
		func(ctx context.Context) { every(ctx, a.sweep, a.sweepRuns) },
		func(ctx context.Context) { every(ctx, time.Hour, a.purgeIdempotency) },
		func(ctx context.Context) { every(ctx, time.Minute, a.releaseStorageReservations) },
		func(ctx context.Context) { every(ctx, time.Minute, a.sweepFilePurges) },
		func(ctx context.Context) { every(ctx, time.Hour, a.sweepOrphanedBlobs) },
		func(ctx context.Context) { every(ctx, time.Minute, a.sweepWalletSends) },
		func(ctx context.Context) { every(ctx, time.Minute, a.sweepHandoffs) },
		func(ctx context.Context) { every(ctx, time.Minute, a.sweepAgentJobs) },
	}
	if d.AutoTopUps != nil {
		jobs = append(jobs, d.AutoTopUps.Run)
	}
	a.bg.Add(len(jobs))
	for _, job := range jobs {
		go func() { defer a.bg.Done(); job(ctx) }()
	}
}

// Close waits for the background jobs started by Start (whose context must have ended), returns unused
// limit and credit leases and flushes audit events. Call it after the HTTP server has stopped.
func (a *APIProcess) Close() {
	a.bg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.deps.Limits.Close(ctx); err != nil {
		a.log.Warn("return unused limit leases", "err", err)
	}
	if err := a.deps.Payer.Close(ctx); err != nil {
		a.log.Warn("close credit leases; the stale-hold sweep will", "err", err)
	}
	if err := a.deps.LLM.Close(ctx); err != nil {
		a.log.Warn("close the LLM gateway's credit leases; the stale-hold sweep will", "err", err)
	}
	a.deps.Audit.Close()
	a.deps.Invoker.Close()
}
