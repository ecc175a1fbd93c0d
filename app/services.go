package app

import (
	"cmp"
	"crypto/ed25519"
	"fmt"
	"math"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/account"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/agentenv"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/autotopup"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/club"
	"github.com/svcplatform/svc/internal/codeproof"
	"github.com/svcplatform/svc/internal/connection"
	"github.com/svcplatform/svc/internal/dbarchive"
	"github.com/svcplatform/svc/internal/dbtransfer"
	"github.com/svcplatform/svc/internal/delivery"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/limit"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/project"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/skills"
	"github.com/svcplatform/svc/internal/topup"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/internal/webhook"
)

// Every service of a process is built here, once: apiServices for an API process, Activities for a
// worker. A new capability builds its service and its activities in this file.

// apiServices builds the services of one API process.
func apiServices(d APIDeps) (api.Deps, error) {
	gw := d.Gateway
	if gw == nil {
		gw = &gateway.Catalog{}
	}
	cat, err := serviceCatalog(gw)
	if err != nil {
		return api.Deps{}, err
	}
	emailAuth, err := emailAuthService(d, cat)
	if err != nil {
		return api.Deps{}, err
	}
	artifacts := d.Artifacts
	if artifacts == nil {
		artifacts = artifact.NewStore(d.DB, blob.WithPrefix(blob.NewLocal(DefaultBlobDir), ArtifactPrefix), artifact.Options{})
	}
	blobs := platformBlobs(d)
	files := file.NewStore(d.DB, d.Files)
	var purges *file.Purges
	if d.Temporal != nil {
		purges = &file.Purges{Store: files, Engine: d.Temporal}
	}
	appStore := apps.NewStore(d.DB, files, blob.WithPrefix(blobs, FilePrefix), purges, d.Logger)
	keys := apikey.NewStore(d.DB)
	wallets := walletStore(d)
	launches, fees := launchService(wallets, d), feeReader(d)
	book := ledger.New(d.DB)
	runs := appRunService(d, appStore)
	leases := d.CreditLeases
	leases.Log = cmp.Or(leases.Log, d.Logger)
	watcher := autoTopUpWatcher(d)
	return api.Deps{
		DB: d.DB, Temporal: d.Temporal, Logger: d.Logger, Version: d.Version, TrustedProxies: d.TrustedProxies, TemporalUI: d.TemporalUI,
		Keys:        keys,
		KeyCache:    apikey.NewCache(keys, time.Minute, 10000, d.Logger),
		Accounts:    account.New(d.DB, d.Box.Derive("credit-token")),
		Idempotency: idempotency.NewStore(d.DB, d.Box, d.Idempotency),
		Audit:       audit.NewWriter(d.DB, d.Logger, d.Audit),
		Runs:        run.NewService(run.NewStore(d.DB), d.Temporal).WithCatalog(cat),
		Approvals:   approval.NewService(d.DB, d.Temporal),
		Artifacts:   artifacts,
		Projects:    project.NewStore(d.DB),
		Catalog:     cat,
		Limits:      limit.New(d.DB, limit.Options{Log: d.Logger, Now: d.LimitClock}),
		Connections: connection.NewStore(d.DB, d.Box).CacheCredentials(time.Minute, 10000, d.Logger),
		Gateway:     gw,
		Invoker:     gateway.NewInvoker(gateway.Options{AllowLoopback: d.AllowLoopback}),
		Ledger:      book,
		LLM:         llmGateway(d, book, watcher),
		Payer:       gateway.NewPayer(book, leases, d.Logger),
		Webhooks:    webhook.NewStore(d.DB, d.Box, webhook.Options{AllowHTTP: d.AllowLoopback, AllowLoopback: d.AllowLoopback}),
		Deliveries:  delivery.NewStore(d.DB, d.Temporal),
		Files:       files,
		Blobs:       blob.WithPrefix(blobs, FilePrefix),
		FilePurges:  purges,
		TopUps: topup.NewService(topup.NewStore(d.DB), d.Temporal,
			topup.Options{X402: d.X402, Wait: cmp.Or(d.TopUpWait, api.TopUpWait)}),
		DevFaucet:     d.DevFaucet,
		Databases:     databaseService(d),
		Transfers:     transferService(d),
		Automations:   automationService(d, cat),
		Wallets:       wallets,
		WalletStarts:  walletStarts(wallets, d),
		WalletChain:   walletChain(d),
		WalletPrices:  wallet.Prices{NativeCents: int64(math.Round(d.NativeUSDPrice * 100))},
		Handles:       d.Handles,
		Launches:      launches,
		FeeClaims:     feeClaimService(launches, fees),
		Beneficiaries: beneficiaryService(launches, fees),
		DatabaseConn:  databaseConn(d),
		SIWE:          siweService(d),
		EmailAuth:     emailAuth,
		Fees:          fees,
		Trading:       tradingService(wallets, book, cat, d),
		Handoffs:      handoffService(d),
		Agent:         agentService(d),
		CodeProof:     codeproof.New(d.CodeProof),
		CodeProjects:  codeProjects(d),
		AgentEnv:      agentEnvStore(d),
		Club:          club.NewStore(d.DB),
		Apps:          appStore,
		AutoTopUps:    watcher,
		AppRuns:       runs,
		AppFront:      appFrontService(d, appStore, runs, wallets),
		Skills:        skills.NewStore(d.DB, files, blob.WithPrefix(blobs, FilePrefix), purges, d.Logger),
		Tokens:        tokenInfo(d),
	}, nil
}

// platformBlobs is the process's blob store: d.Blobs, or the local store in DefaultBlobDir.
func platformBlobs(d APIDeps) blob.Store {
	if d.Blobs == nil {
		return blob.NewLocal(DefaultBlobDir)
	}
	return d.Blobs
}

// serviceCatalog is the built-in services plus the external ones of services.yaml.
func serviceCatalog(gw *gateway.Catalog) (*catalog.Catalog, error) {
	if gw == nil {
		return catalog.Builtin(), nil
	}
	cat, err := catalog.Builtin().With(gw.ForCatalog()...)
	if err != nil {
		return nil, fmt.Errorf("services: %w", err)
	}
	return cat, nil
}

// Activities builds every activity implementation with its dependencies.
func Activities(d WorkerDeps) activities.Set {
	approvals := &activities.Approvals{Store: approval.NewStore(d.DB)}
	if d.Temporal != nil {
		approvals.Runs = run.NewService(run.NewWriteStore(d.DB), d.Temporal).WithCatalog(workerCatalog(d.Gateway))
	}
	launches := launchActivities(d)
	return activities.Set{
		Runs:          &activities.Runs{Store: run.NewWriteStore(d.DB), Artifacts: d.Artifacts},
		Approvals:     approvals,
		Invocations:   invocations(d),
		Deliveries:    deliveries(d),
		TopUps:        &activities.TopUps{Store: topup.NewStore(d.DB), Chain: d.Chain, Facilitator: d.Facilitator, X402: d.X402, Fault: d.Fault},
		Files:         &activities.Files{Purger: filePurger(d)},
		Databases:     databaseActivities(d),
		Transfers:     transferActivities(d),
		Wallets:       walletActivities(d),
		Launches:      launches,
		FeeClaims:     feeClaimActivities(launches),
		Beneficiaries: beneficiaryActivities(launches),
		Trading:       &activities.Trading{Worker: tradingActivities(d), Orders: workerTrading(d)},
		Handoffs:      &activities.Handoffs{Worker: handoffActivities(d)},
		Club:          &activities.Club{Store: clubStore(d)},
		AgentJobs:     agentActivities(d),
		AutoTopUps:    autoTopUpActivities(d, launches),
		AppScripts:    appScriptActivities(d),
		Automations: &activities.Automations{Schedules: d.Schedules, Firer: &automation.Firer{Store: automation.NewStore(d.DB),
			Catalog: workerCatalog(d.Gateway), Keys: apikey.NewStore(d.DB),
			// Leases of one: a fire takes exactly what it uses, so the worker holds no budget idle.
			Limiter:    limit.New(d.DB, limit.Options{Now: d.LimitClock, MaxLease: 1}),
			AppScripts: scheduledAppScripts(d)}},
	}
}

// workerCatalog is the built-in services plus the worker's external ones; services.yaml was validated
// when loaded, so a clash leaves the built-in services.
func workerCatalog(gw *gateway.Catalog) *catalog.Catalog {
	cat, err := serviceCatalog(gw)
	if err != nil {
		return catalog.Builtin()
	}
	return cat
}

// invocations is the activity that performs runs of external services; without the key that opens
// their connections' credentials it knows none.
func invocations(d WorkerDeps) *activities.Invocations {
	cat := d.Gateway
	if cat == nil || d.Box == nil {
		cat = &gateway.Catalog{}
	}
	inv := &activities.Invocations{
		Runs: run.NewWriteStore(d.DB), Gateway: cat, Payer: gateway.NewPayer(ledger.New(d.DB), ledger.LeaseOptions{}, nil),
		Invoker:   gateway.NewInvoker(gateway.Options{AllowLoopback: d.AllowLoopback}),
		Artifacts: d.Artifacts,
	}
	if d.Box != nil {
		inv.Connections = connection.NewStore(d.DB, d.Box)
	}
	return inv
}

// filePurger removes deleted files for good from the worker's blob store; nil without one.
func filePurger(d WorkerDeps) activities.FilePurger {
	if d.Blobs == nil {
		return nil
	}
	return &file.Purger{Store: file.NewStore(d.DB, d.Files), Blobs: blob.WithPrefix(d.Blobs, FilePrefix)}
}

// databaseService is the managed databases' service of an API process; nil without a cluster.
func databaseService(d APIDeps) *accountdb.Service {
	if d.Databases == nil {
		return nil
	}
	s := &accountdb.Service{Cluster: d.Databases}
	if d.Temporal != nil {
		s.Engine = d.Temporal
	}
	return s
}

// databaseActivities provision and deprovision managed databases in the worker's cluster (failing,
// retried, without one).
func databaseActivities(d WorkerDeps) *activities.Databases {
	if d.Databases == nil {
		return &activities.Databases{}
	}
	return &activities.Databases{Cluster: d.Databases}
}

// automationService is the automations of an API process (their routes answer 503 without Temporal).
func automationService(d APIDeps, cat *catalog.Catalog) *automation.Service {
	s := &automation.Service{Store: automation.NewStore(d.DB), Catalog: cat, Opts: d.Automations}
	if d.Temporal != nil {
		s.Schedules = d.Temporal.ScheduleClient()
	}
	return s
}

// walletActivities send wallet transactions on the worker's chain (failing, retried, without one or
// without the key's box).
func walletActivities(d WorkerDeps) *activities.Wallets {
	if d.Chain == nil || d.Box == nil {
		return &activities.Wallets{}
	}
	return &activities.Wallets{Sender: &wallet.Sender{DB: d.DB, Box: d.Box, RPC: d.Chain.Client(), ChainID: d.Chain.ChainID()},
		Fault: d.Fault}
}

// walletStore keeps managed wallets on the configured chain (the dev chain by default); nil without the
// encryption key's box.
func walletStore(d APIDeps) *wallet.Store {
	if d.Box == nil {
		return nil
	}
	chain := client.ChainDev
	if d.X402 != nil {
		chain = d.X402.Network
	}
	store := wallet.NewStore(d.DB, d.Box, chain)
	if d.WalletScreening != (wallet.ScreeningOptions{}) {
		store.WithScreening(d.WalletScreening)
	}
	return store
}

// walletStarts hand wallet sends to their workflows; nil without Temporal or wallets.
func walletStarts(w *wallet.Store, d APIDeps) *wallet.Starts {
	if w == nil || d.Temporal == nil {
		return nil
	}
	return &wallet.Starts{Store: w, Engine: d.Temporal}
}

// walletChain reads wallets' balances from ChainRPCURL; nil without a chain.
func walletChain(d APIDeps) *wallet.Chain {
	if d.ChainRPCURL == "" || d.X402 == nil {
		return nil
	}
	rpc, err := ethclient.Dial(d.ChainRPCURL) // an HTTP endpoint: nothing is sent until the first call
	if err != nil {
		d.Logger.Warn("wallets: cannot use the chain's RPC; balances answer 503", "err", err)
		return nil
	}
	return &wallet.Chain{RPC: rpc, USDC: d.X402.Asset}
}

// TransferPrefix is the part of the blob store that holds database transfers' parts and archives.
const TransferPrefix = "dbtransfers/"

// archiveSigner is the key that signs database archives, derived from the platform's encryption key.
func archiveSigner(box *secretbox.Box) ed25519.PrivateKey {
	return dbarchive.KeyFromSeed(box.Derive("database-archive"))
}

// transferService moves database transfers for an API process; nil without a cluster.
func transferService(d APIDeps) *dbtransfer.Service {
	if d.Databases == nil || d.Box == nil {
		return nil
	}
	store := dbtransfer.NewStore(d.DB, blob.WithPrefix(platformBlobs(d), TransferPrefix), d.Transfers)
	pub := archiveSigner(d.Box).Public().(ed25519.PublicKey)
	s := &dbtransfer.Service{Store: store, Databases: d.Databases, PublicKey: dbarchive.PublicKeyString(pub)}
	if d.Temporal != nil {
		s.Engine = d.Temporal
	}
	return s
}

// transferActivities run database transfers in the worker (failing, retried, without a cluster, a blob
// store or the key).
func transferActivities(d WorkerDeps) *activities.Transfers {
	if d.Databases == nil || d.Blobs == nil || d.Box == nil {
		return &activities.Transfers{}
	}
	store := dbtransfer.NewStore(d.DB, blob.WithPrefix(d.Blobs, TransferPrefix), d.Transfers)
	a := &activities.Transfers{Runner: &dbtransfer.Runner{Store: store, Cluster: d.Databases, Signer: archiveSigner(d.Box)}}
	if d.Temporal != nil {
		a.Signaler = d.Temporal
	}
	return a
}

// databaseConn opens the managed databases for queries, records and actions: d.DatabaseConn when given,
// else the cluster; nil without either.
func databaseConn(d APIDeps) accountdb.Connector {
	if d.DatabaseConn != nil {
		return d.DatabaseConn
	}
	if d.Databases != nil {
		return d.Databases
	}
	return nil
}

// deliveries are the webhook delivery activities: loopback endpoints over http only in dev mode or
// with SVC_WEBHOOKS_ALLOW_LOOPBACK.
func deliveries(d WorkerDeps) *activities.Deliveries {
	loop := d.AllowLoopback || d.WebhooksAllowLoopback
	return &activities.Deliveries{Store: delivery.NewStore(d.DB, nil), DB: d.DB, CanSign: d.Box != nil,
		Webhooks: webhook.NewStore(d.DB, d.Box, webhook.Options{AllowHTTP: loop, AllowLoopback: loop}),
		Sender:   delivery.NewSender(delivery.SenderOptions{AllowHTTP: loop, AllowLoopback: loop})}
}

// llmGateway is the LLM gateway over the ledger, on the configured catalog (the built-in one, with no
// provider configured, when none is given).
func llmGateway(d APIDeps, book *ledger.Ledger, watcher *autotopup.Watcher) *llm.Gateway {
	cat := d.LLM
	if cat == nil {
		var err error
		if cat, err = llm.LoadCatalog("", func(string) string { return "" }); err != nil {
			panic("the built-in llm.yaml does not load: " + err.Error())
		}
	}
	leases := d.CreditLeases
	leases.Log = cmp.Or(leases.Log, d.Logger)
	o := llm.Options{Catalog: cat, Ledger: book, Leases: ledger.NewLeases(book, leases), Logger: d.Logger}
	if watcher != nil {
		o.OnCharge = watcher.Charged
	}
	return llm.New(o)
}

// agentEnvStore keeps the agent's environment variables and MCP servers; nil without the master key.
// MCP servers' URLs pass the outbound guard, which admits http:// and loopback servers only in dev mode.
func agentEnvStore(d APIDeps) *agentenv.Store {
	if d.Box == nil {
		return nil
	}
	return agentenv.NewStore(d.DB, d.Box, AgentURLGuard(d.AllowLoopback))
}

// AgentURLGuard is the outbound guard of user MCP servers: public https only, plus http:// and loopback
// in dev mode (allowLoopback).
func AgentURLGuard(allowLoopback bool) agentenv.URLGuard {
	return agentenv.URLGuard{AllowHTTP: allowLoopback, AllowLoopback: allowLoopback}
}

// clubStore is the worker's Club store, stalling after a renewal's charge under the crash test's fault.
func clubStore(d WorkerDeps) *club.Store {
	s := club.NewStore(d.DB)
	if d.Fault == activities.FaultClubStallAfterCharge {
		s.WithAfterCharge(activities.StallAfterCharge)
	}
	return s
}
