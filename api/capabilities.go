package api

import (
	"log/slog"

	"github.com/svcplatform/svc/internal/account"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/agentenv"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/appfront"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/apprun"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/autotopup"
	"github.com/svcplatform/svc/internal/beneficiary"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/club"
	"github.com/svcplatform/svc/internal/codeprojects"
	"github.com/svcplatform/svc/internal/codeproof"
	"github.com/svcplatform/svc/internal/connection"
	"github.com/svcplatform/svc/internal/dbtransfer"
	"github.com/svcplatform/svc/internal/delivery"
	"github.com/svcplatform/svc/internal/emailauth"
	"github.com/svcplatform/svc/internal/feeclaim"
	"github.com/svcplatform/svc/internal/feeread"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/handles"
	"github.com/svcplatform/svc/internal/handoff"
	"github.com/svcplatform/svc/internal/idempotency"
	"github.com/svcplatform/svc/internal/launch"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/limit"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/project"
	"github.com/svcplatform/svc/internal/run"
	"github.com/svcplatform/svc/internal/siwe"
	"github.com/svcplatform/svc/internal/skills"
	"github.com/svcplatform/svc/internal/tokeninfo"
	"github.com/svcplatform/svc/internal/topup"
	"github.com/svcplatform/svc/internal/trading"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/internal/webhook"
	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"
)

// Deps are the server's collaborators, built once by the composition root (app/): the server constructs
// no domain service of its own and runs no background job.
type Deps struct {
	// DB answers health checks and the queries of audit events and usage.
	DB *bun.DB
	// Temporal answers health checks.
	Temporal sdkclient.Client
	// TemporalUI is the Temporal Web UI's address of the runs' namespace
	// (http://127.0.0.1:8233/namespaces/default), for the links MCP run tools answer; "" for none.
	TemporalUI string
	Logger     *slog.Logger
	// Version is the build reported by /health.
	Version string
	// TrustedProxies are the proxy addresses or CIDRs whose X-Forwarded-For is believed for the client IP
	// recorded in audit events; none by default.
	TrustedProxies []string

	Keys        *apikey.Store
	KeyCache    *apikey.Cache
	Accounts    *account.Service
	Idempotency *idempotency.Store
	Audit       *audit.Writer
	Runs        *run.Service
	Approvals   *approval.Service
	Artifacts   *artifact.Store
	Projects    *project.Store
	// Catalog is every service the platform offers: the built-in ones and Gateway's.
	Catalog *catalog.Catalog
	Limits  *limit.Limiter
	// Connections are the stored upstream credentials.
	Connections *connection.Store
	// Gateway are the external services of services.yaml (an empty catalog when none).
	Gateway *gateway.Catalog
	Invoker *gateway.Invoker
	Ledger  *ledger.Ledger
	// Payer pays for invocations, from leases on busy accounts (see gateway.Payer).
	Payer      *gateway.Payer
	Webhooks   *webhook.Store
	Deliveries *delivery.Store
	// TopUps sells credits for x402 payments (topup.Options say what they are paid in; without it they
	// are answered 503, not configured).
	TopUps *topup.Service
	// Files are the stored files and their storage accounting (their routes come with issue 16).
	Files *file.Store
	// Blobs holds the files' bytes: the platform's blob store below app.FilePrefix (nil answers uploads
	// and downloads 503).
	Blobs blob.Store
	// FilePurges start the purge timers of deleted files; nil starts none.
	FilePurges *file.Purges
	// Databases are the accounts' managed databases; nil answers their routes 503.
	Databases *accountdb.Service
	// DatabaseConn opens connections to the accounts' managed databases (queries, records, actions); nil
	// answers those routes 503, not configured.
	DatabaseConn accountdb.Connector
	// DatabaseLimits bound each query, records page and action (zero fields: accountdb's defaults).
	DatabaseLimits accountdb.Limits
	// Wallets are the managed wallets; nil answers their routes 503.
	Wallets *wallet.Store
	// WalletChain reads wallets' balances; nil answers balances 503.
	WalletChain *wallet.Chain
	// WalletStarts hand wallet sends to their workflows; nil answers sends 503.
	WalletStarts *wallet.Starts
	// WalletPrices turn amounts into USD for wallets' policies.
	WalletPrices wallet.Prices
	// Handles is the handle resolver (SVC_WALLET_NAMES and SVC_HANDLE_RESOLVER_FILE): POST
	// /wallet/transfer's to, token launches' feeRecipient.
	Handles *handles.Resolver
	// Launches are the token launches; nil answers their routes 503.
	Launches *launch.Service
	// FeeClaims are managed wallets' fee claims; nil answers their routes 503.
	FeeClaims *feeclaim.Service
	// Beneficiaries are managed wallets' beneficiary transfers; nil answers their routes 503.
	Beneficiaries *beneficiary.Service
	// Trading quotes trades and places orders; nil answers its routes 503.
	Trading *trading.Service
	// Automations are the cron-driven runs on Temporal Schedules.
	Automations *automation.Service
	// Transfers move portable copies of the accounts' databases; nil answers their routes 503.
	Transfers *dbtransfer.Service
	// DevFaucet, in dev mode only, funds addresses on the dev chain (POST /dev/faucet); nil leaves the
	// route out.
	DevFaucet Faucet
	// SIWE signs in with Ethereum (seed 002's web sessions); nil answers its routes 503 and refuses
	// session tokens.
	SIWE *siwe.Service
	// EmailAuth signs in by email with one-time codes (issue 27); nil answers its routes 503.
	EmailAuth *emailauth.Service
	// Fees answers the public token-fee routes (seed 002); nil answers them 503.
	Fees *feeread.Reader
	// Handoffs plan and send handoffs through the vault (seed 001); nil (no SVC_VAULT) answers 503.
	Handoffs *handoff.Service
	// Agent records prompts and reads, cancels and confirms agent jobs (issue 25); nil answers 503.
	Agent *agent.Service
	// CodeProof answers the code-proof dashboard routes (seed 001); nil answers them 503.
	CodeProof *codeproof.Service
	// CodeProjects is the code-project registry (seed 001); nil answers its routes 503.
	CodeProjects *codeprojects.Registry
	// LLM is the OpenAI-compatible LLM gateway (/llm/v1); nil answers its completions 503.
	LLM *llm.Gateway
	// AgentEnv keeps the agent's environment variables and user MCP servers (issue 25); nil answers
	// their routes 503.
	AgentEnv *agentenv.Store
	// Club keeps Club subscriptions (issue 25); nil, or Temporal nil, answers their routes 503.
	Club *club.Store
	// Apps keeps apps and their appKV (issue 26); nil answers their routes 503.
	Apps *apps.Store
	// AutoTopUps is told of charges (the LLM gateway's) to wake accounts' auto top-up; nil wakes none.
	AutoTopUps *autotopup.Watcher
	// AppRuns run apps' scripts (issue 26); nil answers their routes 503.
	AppRuns *apprun.Service
	// AppFront answers apps' frontends: host pages, frames and the viewer API (issue 26); nil answers 503.
	AppFront *appfront.Service
	// Skills keeps skills (issue 27); nil answers their routes 503.
	Skills *skills.Store
	// Tokens answers the public token searches and reads (issue 27); nil answers them 503.
	Tokens *tokeninfo.Service
}

// archiveKey is the database archives' public key that /health publishes ("" without transfers).
func archiveKey(t *dbtransfer.Service) string {
	if t == nil {
		return ""
	}
	return t.PublicKey
}

// routeTable is the route table: every capability's route list, in order. It drives Huma (and so the
// OpenAPI document) and the middleware, which looks each request's route up in it. A new capability adds
// its list here.
func routeTable(d Deps) [][]Route {
	daily := dailyCredits{limiter: d.Limits, log: d.Logger}
	wallets := &walletsAPI{wallets: d.Wallets, chain: d.WalletChain, prices: d.WalletPrices, starts: d.WalletStarts, db: d.DB}
	return [][]Route{
		(&healthAPI{db: d.DB, temporal: d.Temporal, version: d.Version, archiveKey: archiveKey(d.Transfers)}).routes(),
		(&catalogAPI{catalog: d.Catalog, gateway: d.Gateway, connections: d.Connections, invoker: d.Invoker}).routes(),
		(&keysAPI{keys: d.Keys, keyCache: d.KeyCache, catalog: d.Catalog}).routes(),
		(&creditsAPI{ledger: d.Ledger}).routes(),
		(&topUpAPI{ledger: d.Ledger, topups: d.TopUps}).routes(),
		(&projectsAPI{projects: d.Projects}).routes(),
		(&usageAPI{db: d.DB}).routes(),
		(&auditAPI{db: d.DB}).routes(),
		(&databaseQueryAPI{conn: d.DatabaseConn, limits: d.DatabaseLimits}).routes(),
		(&filesAPI{files: d.Files, blobs: d.Blobs, purges: d.FilePurges, log: d.Logger}).routes(),
		(&connectionsAPI{connections: d.Connections}).routes(),
		(&gatewayAPI{gateway: d.Gateway, connections: d.Connections, invoker: d.Invoker, payer: d.Payer, daily: daily, log: d.Logger}).routes(),
		(&runsAPI{runs: d.Runs, daily: daily}).routes(),
		(&approvalsAPI{approvals: d.Approvals, runs: d.Runs, daily: daily}).routes(),
		(&artifactsAPI{artifacts: d.Artifacts, log: d.Logger}).routes(),
		(&webhooksAPI{webhooks: d.Webhooks, deliveries: d.Deliveries}).routes(),
		(&databasesAPI{databases: d.Databases}).routes(),
		(&databaseTransfersAPI{transfers: d.Transfers, log: d.Logger}).routes(),
		(&automationsAPI{automations: d.Automations}).routes(),
		wallets.routes(),
		(&walletSignaturesAPI{wallets}).routes(),
		(&walletRootAPI{sends: wallets, names: d.Handles}).routes(),
		(&launchesAPI{launches: d.Launches}).routes(),
		(&feeClaimsAPI{claims: d.FeeClaims}).routes(),
		(&beneficiaryAPI{transfers: d.Beneficiaries}).routes(),
		(&tradingAPI{trading: d.Trading, daily: daily}).routes(),
		(&tradingPositionsAPI{trading: d.Trading}).routes(),
		(&devAPI{faucet: d.DevFaucet}).routes(),
		(&siweAPI{siwe: d.SIWE}).routes(),
		(&emailAuthAPI{auth: d.EmailAuth}).routes(),
		(&feesAPI{fees: d.Fees}).routes(),
		(&handoffsAPI{handoffs: d.Handoffs}).routes(),
		(&agentAPI{agent: d.Agent}).routes(),
		(&codeProofAPI{codeproof: d.CodeProof, projects: d.CodeProjects}).routes(),
		(&cryptoAPI{ledger: d.Ledger, topups: d.TopUps, wallets: d.Wallets, sends: d.WalletStarts}).routes(),
		(&llmAPI{gw: d.LLM}).routes(),
		(&agentEnvAPI{env: d.AgentEnv}).routes(),
		(&appsAPI{apps: d.Apps, automations: d.Automations}).routes(),
		(&clubAPI{club: d.Club, engine: clubEngine(d.Temporal), ledger: d.Ledger, db: d.DB}).routes(),
		(&appRunsAPI{runs: d.AppRuns}).routes(),
		(&appFrontAPI{front: d.AppFront}).routes(),
		(&skillsAPI{skills: d.Skills}).routes(),
		(&tokensAPI{tokens: d.Tokens}).routes(),
	}
}

// clubEngine is the Temporal client as Club's engine, nil without one.
func clubEngine(c sdkclient.Client) club.Engine {
	if c == nil {
		return nil
	}
	return c
}
