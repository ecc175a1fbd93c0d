package app

import (
	"context"
	"crypto/ecdsa"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/dbtransfer"
	"github.com/svcplatform/svc/internal/delivery"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/internal/vault"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/worker"
)

// WorkerDeps configure a worker process: what its activities are built on.
type WorkerDeps struct {
	DB *bun.DB
	// Temporal lets activities start workflows (the run of an approved service action); NewWorker sets it
	// to the worker's own client when nil.
	Temporal run.Engine
	// Gateway are the external services (services.yaml) whose runs this worker performs; nil means none.
	Gateway *gateway.Catalog
	// Box opens connection credentials (needed when Gateway has services) and webhook secrets (without
	// it, webhook delivery attempts fail saying so).
	Box *secretbox.Box
	// AllowLoopback lets runs call services, and webhook deliveries reach endpoints, on loopback
	// addresses and over http (dev mode).
	AllowLoopback bool
	// WebhooksAllowLoopback lets webhook deliveries (only) reach endpoints on loopback addresses and
	// over http (SVC_WEBHOOKS_ALLOW_LOOPBACK).
	WebhooksAllowLoopback bool
	// Artifacts keeps runs' outputs; the API must serve from the same store. Nil keeps none.
	Artifacts *artifact.Store
	// Blobs is the platform's blob store, where files keep their bytes (below FilePrefix); nil leaves
	// purges of deleted files failing, saying so, until a worker has one.
	Blobs blob.Store
	// Files tunes the files' storage rules (zero fields: seed 002's defaults).
	Files file.Options
	// Transfers tunes database transfers (zero fields: dbtransfer's defaults).
	Transfers dbtransfer.Options
	// Chain is where x402 top-ups settle; nil fails their settlement attempts saying so (retried).
	Chain *evm.Chain
	// Facilitator, when set, settles top-ups through an external x402 facilitator; X402 describes what
	// payments are made in (both only needed with an external facilitator).
	Facilitator *x402.HTTPFacilitator
	X402        *x402.Config
	// Databases is the cluster of the accounts' managed databases; nil fails their provisioning and
	// deprovisioning saying so (retried until a worker has one).
	Databases *accountdb.Cluster
	// Fault injects a test fault into top-up settlement (activities.FaultStallAfterSettle) or wallet
	// sends (activities.FaultStallAfterSign, activities.FaultStallAfterBroadcast), Club renewals or
	// agent jobs (activities.FaultAgentStallAfterModel, activities.FaultAgentStallAfterTool); never in
	// production.
	Fault string
	// GasSponsorKey pays the gas of sponsored wallet transactions (token launches); nil on the dev chain
	// means devchain.SponsorKey. FeesManager is the launches' fee manager (zero: the dev chain's).
	GasSponsorKey *ecdsa.PrivateKey
	FeesManager   common.Address
	// Trading is managed trading's venue, where orders' fills are read (zero: the dev chain's).
	Trading trading.Config
	// WalletNetwork and WalletUSDC name the managed wallets' chain and its USDC, for limit and stop
	// orders fired by the worker (zero: the dev chain's); NativeUSDPrice prices its native asset.
	WalletNetwork  string
	WalletUSDC     common.Address
	NativeUSDPrice float64
	// Vault is the worker's copy of the synced vault (SVC_VAULT), where handoffs' transfers are written;
	// nil fails those activities saying so (retried until a worker has it).
	Vault *vault.Vault
	// Schedules pauses automations' schedules; NewWorker sets it to its client's when nil.
	Schedules sdkclient.ScheduleClient
	// AgentModel is the LLM gateway agent jobs call (the gateway's Complete); nil fails their model calls
	// saying so (retried). AgentDispatch runs their tools as the job's key through the API's engine (a
	// *LateDispatcher bound to the process's api.Server); nil fails their tool calls saying so.
	// AgentEnv and AgentMCP are the accounts' environment variables and MCP servers (nil: none).
	AgentModel agent.Model
	// LLM is the LLM gateway's catalog agent jobs' model calls use when AgentModel is nil (the worker
	// builds its own gateway over the ledger; nil: the built-in catalog).
	LLM           *llm.Catalog
	AgentDispatch agent.Dispatcher
	AgentEnv      agent.EnvValues
	AgentMCP      agent.MCPServers
	// LimitClock places automations' fires in the creating keys' limit windows (default time.Now); it
	// must be the API processes' clock.
	LimitClock func() time.Time
}

// NewWorker builds every activity once and returns a worker on the svc task queue with them and every
// workflow registered; the caller starts and stops it.
func NewWorker(c sdkclient.Client, d WorkerDeps, opts sdkworker.Options) sdkworker.Worker {
	if d.Temporal == nil {
		d.Temporal = c
	}
	if d.Schedules == nil && c != nil {
		d.Schedules = c.ScheduleClient()
	}
	return worker.New(c, Activities(d), opts)
}

// StartDispatcher runs the webhook dispatcher (see internal/delivery) beside a worker, starting delivery
// workflows with c, until the returned stop is called; stop waits for it to end.
func StartDispatcher(c delivery.Engine, db *bun.DB, opts delivery.DispatcherOptions) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	d := delivery.NewDispatcher(db, c, opts)
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	return func() { cancel(); <-done }
}
