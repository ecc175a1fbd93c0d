package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/svcplatform/svc/internal/account"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/delivery"
	"github.com/svcplatform/svc/internal/devpg"
	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/schema"
	svctemporal "github.com/svcplatform/svc/temporal"
)

// shutdownTimeout bounds a graceful stop: in-flight requests finish within it.
const shutdownTimeout = 20 * time.Second

// Dev runs everything in one process on embedded defaults: PostgreSQL (discovered or private), an
// embedded Temporal server with its Web UI, the worker and the API. It returns when ctx ends, after a
// clean shutdown.
func Dev(ctx context.Context, cfg Config, progress io.Writer) error {
	log := cfg.Logger()
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	db, dbURL, stopPG, err := devDatabase(ctx, cfg, log, progress)
	if err != nil {
		return err
	}
	defer stopPG()
	defer db.Close()
	if _, err := cfg.Box(KeyFileOrCreate); err != nil {
		return err
	}

	fmt.Fprintln(progress, "temporal: starting embedded server")
	dev, err := svctemporal.StartDevServer(ctx, svctemporal.DevServerConfig{
		DataDir: filepath.Join(cfg.DataDir, "temporal"), FrontendPort: cfg.TemporalPort, UIPort: cfg.TemporalUIPort,
		Namespace: cfg.Temporal.Namespace, Logger: log,
	})
	if err != nil {
		return fmt.Errorf("start temporal: %w", err)
	}
	defer func() {
		if err := dev.Stop(); err != nil {
			log.Warn("stop temporal", "err", err)
		}
	}()
	cfg.Temporal.Address, cfg.Temporal.Namespace = dev.FrontendAddress(), dev.Namespace()
	cfg.TemporalUIURL = cmp.Or(cfg.TemporalUIURL, dev.UIAddress())
	fmt.Fprintf(progress, "temporal: frontend %s, Web UI %s\n", dev.FrontendAddress(), dev.UIAddress())
	stopChain, err := startDevChain(ctx, &cfg, log, progress)
	if err != nil {
		return err
	}
	defer stopChain()
	if err := moveOldArtifacts(cfg, progress); err != nil {
		return err
	}
	if err := recordDevSystem(cfg, dbURL, progress); err != nil {
		return err
	}
	defer removeDevRecord(cfg.DevRecord)
	cfg.DatabaseClusterURL = or(cfg.DatabaseClusterURL, dbURL)
	return serve(ctx, cfg, db, log, progress, KeyFileOrCreate, true)
}

// devDatabase finds or starts PostgreSQL and applies migrations; it returns the database and its URL.
func devDatabase(ctx context.Context, cfg Config, log *slog.Logger, progress io.Writer) (*bun.DB, string, func(), error) {
	res, err := devpg.Ensure(ctx, devpg.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir, AllowInstall: true,
		Logger: log, Progress: progress})
	if err != nil {
		return nil, "", nil, fmt.Errorf("postgres: %w", err)
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := res.Stop(sctx); err != nil {
			log.Warn("stop private postgres", "err", err)
		}
	}
	fmt.Fprintf(progress, "postgres: using %s database (%s)\n", res.Source, redactURL(res.URL))
	db, err := openAndMigrate(ctx, res.URL, cfg, progress)
	if err != nil {
		stop()
		return nil, "", nil, err
	}
	return db, res.URL, stop, nil
}

func openAndMigrate(ctx context.Context, url string, cfg Config, progress io.Writer) (*bun.DB, error) {
	db, err := pg.Open(ctx, url, pg.Options{MaxOpenConns: cfg.DBMaxConns})
	if err != nil {
		return nil, err
	}
	applied, err := schema.Migrate(ctx, db)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	if len(applied) > 0 {
		fmt.Fprintf(progress, "postgres: applied migrations %v\n", applied)
	}
	return db, nil
}

// API runs the HTTP API against external PostgreSQL and Temporal. It needs SVC_ENCRYPTION_KEY.
func API(ctx context.Context, cfg Config) error {
	if _, err := cfg.Box(KeyRequired); err != nil {
		return err
	}
	return runSplit(ctx, cfg, true)
}

// Worker runs the Temporal worker against external PostgreSQL and Temporal.
func Worker(ctx context.Context, cfg Config) error {
	return runSplit(ctx, cfg, false)
}

func runSplit(ctx context.Context, cfg Config, withAPI bool) error {
	if cfg.DatabaseURL == "" {
		return errors.New("DATABASE_URL is required (svcd dev discovers one; svcd api and svcd worker do not)")
	}
	log := cfg.Logger()
	db, err := pg.Open(ctx, cfg.DatabaseURL, pg.Options{MaxOpenConns: cfg.DBMaxConns})
	if err != nil {
		return err
	}
	defer db.Close()
	pending, err := schema.Pending(ctx, db)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("database schema is behind (pending %v): run `svcd migrate` first", pending)
	}
	if withAPI {
		return serve(ctx, cfg, db, log, os.Stderr, KeyRequired, false)
	}
	return serve(ctx, cfg, db, log, os.Stderr, -1, true)
}

// serve dials Temporal and runs the worker and/or the API until ctx ends, then stops them in order: the
// API stops accepting and finishes in-flight requests, audit events are flushed, the worker stops. A
// negative keyMode means no API.
func serve(ctx context.Context, cfg Config, db *bun.DB, log *slog.Logger, progress io.Writer, keyMode KeyMode, withWorker bool) error {
	cfg.Temporal.Logger = log
	tc, err := svctemporal.Dial(ctx, cfg.Temporal)
	if err != nil {
		return err
	}
	defer tc.Close()
	// Creates the namespace only when it is missing (a fresh cluster); then the search attributes.
	if err := svctemporal.EnsureNamespace(ctx, tc, namespaceOf(cfg), svctemporal.DevNamespaceRetention); err != nil {
		return err
	}
	if err := svctemporal.EnsureSearchAttributes(ctx, tc, namespaceOf(cfg)); err != nil {
		return err
	}
	blobs, err := cfg.Blobs(ctx)
	if err != nil {
		return err
	}
	defer closeBlobs(blobs, log)
	st := stores{blobs: blobs, artifacts: cfg.Artifacts(db, blobs), agentDispatch: &LateDispatcher{}}
	if st.databases, err = openCluster(cfg, db, log, keyMode); err != nil {
		return err
	}
	if st.databases != nil {
		defer closeCluster(st.databases, log)
	}
	if withWorker {
		if keyMode < 0 {
			// Bound before the worker polls, so an agent job's first tool call finds the engine.
			stop := bindAgentEngine(cfg, db, tc, log, st)
			defer stop()
		}
		deps, err := workerDeps(cfg, db, keyMode, st)
		if err != nil {
			return err
		}
		if deps.Chain, deps.Facilitator, deps.X402, err = cfg.Chain.workerChain(ctx); err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		if deps.Chain != nil {
			defer deps.Chain.Close()
		}
		deps.Fault = cfg.Chain.Fault
		if deps.GasSponsorKey, err = cfg.Launch.sponsorKey(); err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		lc, err := cfg.Launch.Launch()
		if err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		deps.FeesManager = lc.FeesManager
		deps.Trading = tradingOf(cfg.Trading)
		if xc, err := cfg.Chain.X402(); err == nil && xc != nil {
			deps.WalletNetwork, deps.WalletUSDC = xc.Network, xc.Asset
		}
		deps.NativeUSDPrice = nativePrice(cfg, keyMode)
		deps.AgentDispatch = st.agentDispatch
		deps.LLM = cfg.LLM
		if deps.Vault, err = openVault(cfg.Vault); err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		w := NewWorker(tc, deps, sdkworker.Options{})
		if err := w.Start(); err != nil {
			return fmt.Errorf("start worker: %w", err)
		}
		defer w.Stop()
		stopDispatcher := StartDispatcher(tc, db, delivery.DispatcherOptions{Log: log})
		defer stopDispatcher()
		stopWatcher := StartVaultWatcher(tc, deps, 0, log)
		defer stopWatcher()
		if deps.Chain != nil {
			ictx, stopIndexer := context.WithCancel(ctx)
			indexed := make(chan struct{})
			go func() {
				defer close(indexed)
				runFeeIndexer(ictx, db, cfg.Chain.RPCURL, deps.Chain.ChainID().Int64(), cfg.Fees, log)
			}()
			defer func() { stopIndexer(); <-indexed }()
		}
		fmt.Fprintln(progress, "worker: polling task queue svc; dispatching webhook deliveries"+watching(deps))
	}
	if keyMode < 0 {
		<-ctx.Done()
		return nil
	}
	return serveHTTP(ctx, cfg, db, tc, log, progress, keyMode, st)
}

// bindAgentEngine gives a worker that serves no API (svcd worker) an in-process API engine, never
// listening and running none of the API's background jobs, through which agent jobs' tools act as the
// job's key exactly like the equivalent REST request. Without it (no encryption key, say) the tools are
// refused saying so. The returned function releases the engine.
func bindAgentEngine(cfg Config, db *bun.DB, tc sdkclient.Client, log *slog.Logger, st stores) func() {
	if st.agentDispatch == nil {
		return func() {}
	}
	proc, err := newAPIProcess(cfg, db, tc, log, KeyRequired, st)
	if err != nil {
		log.Warn("agent jobs' tools are off in this worker: no API engine to act as their keys", "err", err)
		return func() {}
	}
	st.agentDispatch.Bind(proc.Server)
	return proc.Close
}

// closeBlobs releases a blob store that holds resources (a bucket's connections).
func closeBlobs(blobs blob.Store, log *slog.Logger) {
	if c, ok := blobs.(io.Closer); ok {
		if err := c.Close(); err != nil {
			log.Warn("close the blob store", "err", err)
		}
	}
}

// stores are the stores a process opens once and shares between its API and its worker.
type stores struct {
	blobs     blob.Store
	artifacts *artifact.Store
	// databases is the cluster of the accounts' managed databases; nil without one (or without the key
	// that seals their roles' passwords).
	databases *accountdb.Cluster
	// agentDispatch is bound to the API server once it is built, for the worker's agent tools.
	agentDispatch *LateDispatcher
}

// openCluster is the process's cluster of managed databases, when it has a cluster URL and the key
// (keyMode as serve takes it; a worker alone needs SVC_ENCRYPTION_KEY).
func openCluster(cfg Config, db *bun.DB, log *slog.Logger, keyMode KeyMode) (*accountdb.Cluster, error) {
	if keyMode < 0 {
		keyMode = KeyRequired
	}
	box, err := cfg.Box(keyMode)
	if err != nil {
		log.Warn("managed databases are off: no encryption key to seal their roles' passwords", "err", err)
		return nil, nil
	}
	return cfg.DatabaseCluster(db, box, log)
}

// closeCluster closes the pools of the managed databases.
func closeCluster(c *accountdb.Cluster, log *slog.Logger) {
	if err := c.Close(); err != nil {
		log.Warn("close the managed databases' pools", "err", err)
	}
}

// workerDeps are the worker's collaborators. A worker that performs runs of external services opens
// their connections' credentials, so it needs the same encryption key as the API.
func workerDeps(cfg Config, db *bun.DB, keyMode KeyMode, st stores) (WorkerDeps, error) {
	services, err := cfg.Services()
	if err != nil {
		return WorkerDeps{}, err
	}
	d := WorkerDeps{DB: db, Gateway: services, AllowLoopback: keyMode == KeyFileOrCreate, Artifacts: st.artifacts, Blobs: st.blobs,
		Files: cfg.FileOptions(), Databases: st.databases, WebhooksAllowLoopback: cfg.WebhooksAllowLoopback}
	mode := keyMode
	if mode < 0 {
		mode = KeyRequired
	}
	if d.Box, err = cfg.Box(mode); err != nil {
		if services == nil || len(services.Services) == 0 {
			// Webhook deliveries need the key too; without it their attempts fail saying so.
			return d, nil
		}
		return WorkerDeps{}, fmt.Errorf("worker: external services need their connections' key: %w", err)
	}
	return d, nil
}

// nativePrice is the native asset's USD price: SVC_NATIVE_USD_PRICE, or the dev price in dev mode.
func nativePrice(cfg Config, keyMode KeyMode) float64 {
	if cfg.NativeUSDPrice == 0 && keyMode == KeyFileOrCreate {
		return DevNativeUSDPrice
	}
	return cfg.NativeUSDPrice
}

// temporalUILink is the Web UI's address of the runs' namespace, "" without a UI.
func temporalUILink(cfg Config) string {
	if cfg.TemporalUIURL == "" {
		return ""
	}
	return cfg.TemporalUIURL + "/namespaces/" + url.PathEscape(namespaceOf(cfg))
}

func namespaceOf(cfg Config) string {
	if cfg.Temporal.Namespace == "" {
		return svctemporal.DefaultNamespace
	}
	return cfg.Temporal.Namespace
}

func serveHTTP(ctx context.Context, cfg Config, db *bun.DB, tc sdkclient.Client, log *slog.Logger, progress io.Writer, keyMode KeyMode,
	st stores) error {
	if services, err := cfg.Services(); err != nil {
		return err
	} else if services != nil {
		fmt.Fprintf(progress, "api: %d external service(s) from %s\n", len(services.Services), or(cfg.ServicesFile, "services.yaml"))
	}
	proc, err := newAPIProcess(cfg, db, tc, log, keyMode, st)
	if err != nil {
		return err
	}
	if st.agentDispatch != nil {
		st.agentDispatch.Bind(proc.Server)
	}
	bg, stopBG := context.WithCancel(ctx)
	defer func() { stopBG(); proc.Close() }()
	proc.Start(bg)
	return listenAndServe(ctx, cfg, proc, progress)
}

// newAPIProcess builds the API process of cfg (keyMode as serve takes it), not yet started.
func newAPIProcess(cfg Config, db *bun.DB, tc sdkclient.Client, log *slog.Logger, keyMode KeyMode, st stores) (*APIProcess, error) {
	box, err := cfg.Box(keyMode)
	if err != nil {
		return nil, err
	}
	services, err := cfg.Services()
	if err != nil {
		return nil, err
	}
	x402cfg, err := cfg.Chain.X402()
	if err != nil {
		return nil, err
	}
	handoffVault, err := openVault(cfg.Vault)
	if err != nil {
		return nil, err
	}
	return NewAPI(APIDeps{Vault: handoffVault, CodeProof: cfg.CodeProof, ProjectsFile: cfg.ProjectsFile, DB: db, Temporal: tc, Box: box, Logger: log, Version: cfg.Version,
		TrustedProxies: cfg.TrustedProxies, TemporalUI: temporalUILink(cfg), Gateway: services, AllowLoopback: keyMode == KeyFileOrCreate,
		Artifacts: st.artifacts, Blobs: st.blobs, Files: cfg.FileOptions(), X402: x402cfg, ChainRPCURL: cfg.Chain.RPCURL, AppInlineRuns: cfg.AppInlineRuns,
		NativeUSDPrice:  nativePrice(cfg, keyMode),
		WalletScreening: cfg.WalletScreening,
		Handles:         cfg.Handles,
		Fees:            cfg.Fees,
		Launch:          launchOf(cfg.Launch),
		Trading:         tradingOf(cfg.Trading),
		DevFaucet:       devFaucet(cfg, keyMode),
		SIWEDomain:      siweDomain(cfg.SIWEDomain, cfg.HTTPAddr),
		LLM:             cfg.LLM,
		SMTPURL:         cfg.SMTPURL,
		MailFrom:        cfg.MailFrom,
		Databases:       st.databases})
}

// listenAndServe serves proc's API on cfg.HTTPAddr until ctx ends, then shuts down gracefully.
func listenAndServe(ctx context.Context, cfg Config, proc *APIProcess, progress io.Writer) error {
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	hs := &http.Server{Handler: proc.Server.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	fmt.Fprintf(progress, "api: listening on http://%s (OpenAPI at /openapi.json)\n", ln.Addr())
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(progress, "shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down http: %w", err)
	}
	return nil
}

// Migrate applies pending migrations to the admin database (see openAdmin).
func Migrate(ctx context.Context, cfg Config, progress io.Writer) error {
	db, _, err := openAdmin(ctx, cfg, true, progress)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintln(progress, "migrations up to date")
	return nil
}

// CreateAccount creates an account and returns the JSON-line answer of `svcd accounts create`.
func CreateAccount(ctx context.Context, cfg Config, name string, credits int64, ttl time.Duration, progress io.Writer) (account.Created, error) {
	svc, db, err := adminAccounts(ctx, cfg, progress)
	if err != nil {
		return account.Created{}, err
	}
	defer db.Close()
	return svc.Create(ctx, name, credits, ttl)
}

// IssueToken signs a new first-key credit token for an existing account.
func IssueToken(ctx context.Context, cfg Config, accountID string, ttl time.Duration, progress io.Writer) (string, error) {
	svc, db, err := adminAccounts(ctx, cfg, progress)
	if err != nil {
		return "", err
	}
	defer db.Close()
	exists, err := svc.Exists(ctx, accountID)
	if err != nil {
		return "", err
	}
	if !exists {
		return "", fmt.Errorf("no account %q", accountID)
	}
	return svc.IssueToken(accountID, ttl)
}

// adminAccounts is the account service of the admin database, signing with its system's key.
func adminAccounts(ctx context.Context, cfg Config, progress io.Writer) (*account.Service, *bun.DB, error) {
	db, target, err := openAdmin(ctx, cfg, false, progress)
	if err != nil {
		return nil, nil, err
	}
	box, err := target.box()
	if err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	return account.New(db, box.Derive("credit-token")), db, nil
}

// redactURL hides a password in a database URL for display.
func redactURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return parsed.Redacted()
}

// DevDatabaseURL finds or starts the development PostgreSQL, creates the named database if missing, and
// returns its URL; a private cluster it starts keeps running for the commands that follow.
func DevDatabaseURL(ctx context.Context, cfg Config, database string, progress io.Writer) (string, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return "", fmt.Errorf("create data dir: %w", err)
	}
	res, err := devpg.Ensure(ctx, devpg.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir, Database: database,
		AllowInstall: true, Logger: cfg.Logger(), Progress: progress})
	if err != nil {
		return "", fmt.Errorf("postgres: %w", err)
	}
	return res.URL, nil
}
