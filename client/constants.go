package client

import "strings"

// Addresses and versions of the hosted API. A self-hosted deployment passes its own base URL to New.
const (
	// DefaultHostURL is the host root of a local `svcd dev` (make run).
	DefaultHostURL = "http://127.0.0.1:8080"
	// APIVersion is the path segment that versions the API.
	APIVersion = "v1"
	// DefaultBaseURL is DefaultHostURL with the version segment: every route lives below it.
	DefaultBaseURL = DefaultHostURL + "/" + APIVersion
	// DefaultMCPURL is the Streamable HTTP MCP endpoint of a local `svcd dev`.
	DefaultMCPURL = DefaultHostURL + "/mcp"
)

// Scope names a permission an API key may hold. The 28 scopes are exactly those of the platform API.
type Scope = string

// The scopes, in the order of the specification.
const (
	ScopeServicesRead     Scope = "services:read"
	ScopeServicesInvoke   Scope = "services:invoke"
	ScopeCreditsRead      Scope = "credits:read"
	ScopeCreditsWrite     Scope = "credits:write"
	ScopeProjectsRead     Scope = "projects:read"
	ScopeProjectsWrite    Scope = "projects:write"
	ScopeUsageRead        Scope = "usage:read"
	ScopeAuditRead        Scope = "audit:read"
	ScopeFilesRead        Scope = "files:read"
	ScopeFilesWrite       Scope = "files:write"
	ScopeConnectionsRead  Scope = "connections:read"
	ScopeConnectionsWrite Scope = "connections:write"
	ScopeDatabasesRead    Scope = "databases:read"
	ScopeDatabasesWrite   Scope = "databases:write"
	ScopeWalletsRead      Scope = "wallets:read"
	ScopeWalletsCreate    Scope = "wallets:create"
	ScopeWalletsSign      Scope = "wallets:sign"
	ScopeWalletsTransact  Scope = "wallets:transact"
	ScopeTradingRead      Scope = "trading:read"
	ScopeTradingExecute   Scope = "trading:execute"
	ScopeRunsRead         Scope = "runs:read"
	ScopeRunsWrite        Scope = "runs:write"
	ScopeApprovalsRead    Scope = "approvals:read"
	ScopeApprovalsWrite   Scope = "approvals:write"
	ScopeArtifactsRead    Scope = "artifacts:read"
	ScopeWebhooksRead     Scope = "webhooks:read"
	ScopeWebhooksWrite    Scope = "webhooks:write"
	ScopeAPIKeysManage    Scope = "api_keys:manage"
)

// AllScopes lists every scope once, in the order of the specification.
var AllScopes = []Scope{
	ScopeServicesRead, ScopeServicesInvoke, ScopeCreditsRead, ScopeCreditsWrite,
	ScopeProjectsRead, ScopeProjectsWrite, ScopeUsageRead, ScopeAuditRead,
	ScopeFilesRead, ScopeFilesWrite, ScopeConnectionsRead, ScopeConnectionsWrite,
	ScopeDatabasesRead, ScopeDatabasesWrite, ScopeWalletsRead, ScopeWalletsCreate,
	ScopeWalletsSign, ScopeWalletsTransact, ScopeTradingRead, ScopeTradingExecute,
	ScopeRunsRead, ScopeRunsWrite, ScopeApprovalsRead, ScopeApprovalsWrite,
	ScopeArtifactsRead, ScopeWebhooksRead, ScopeWebhooksWrite, ScopeAPIKeysManage,
}

// Service ids of the managed services and the pricing catalog.
const (
	ServicePlatformAPI      = "platform-api"
	ServiceDatabase         = "svc-database"
	ServiceManagedWallets   = "managed-wallets"
	ServiceManagedTrading   = "managed-trading"
	ServiceManagedAgents    = "managed-agents"
	ServiceManagedWorkflows = "managed-workflows"
)

// Operation ids of the built-in managed-workflows service.
const (
	// OperationEcho completes with its input as output.
	OperationEcho = "echo"
	// OperationSleep waits {"seconds": n} (0..86400) on a durable timer; it can be cancelled.
	OperationSleep = "sleep"
)

// Limit operation ids: the selectors of per-key limits, one per route of the API.
const (
	OpAPIKeysList        = "apiKeys.list"
	OpAPIKeysCreate      = "apiKeys.create"
	OpAPIKeysRevoke      = "apiKeys.revoke"
	OpServicesList       = "services.list"
	OpCapabilitiesList   = "capabilities.list"
	OpActionsList        = "actions.list"
	OpServicesInvoke     = "services.invoke"
	OpCreditsBalanceRead = "credits.balance.read"
	OpCreditsX402TopUp   = "credits.x402.topUp"
	OpProjectsList       = "projects.list"
	OpProjectsCreate     = "projects.create"
	OpProjectsRead       = "projects.read"
	OpProjectsUpdate     = "projects.update"
	OpProjectsArchive    = "projects.archive"
	OpUsageRead          = "usage.read"
	OpAuditEventsList    = "auditEvents.list"
	OpFilesList          = "files.list"
	OpFilesCreate        = "files.create"
	OpFilesRead          = "files.read"
	OpFilesDelete        = "files.delete"
	// OpFilesContentRead is the operation id of GET /v1/files/{fileId}/content; its limit operation is
	// files.read (seed 000's table lists no route of its own for the bytes).
	OpFilesContentRead             = "files.content.read"
	OpConnectionsList              = "connections.list"
	OpConnectionsCreate            = "connections.create"
	OpConnectionsRead              = "connections.read"
	OpConnectionsUpdate            = "connections.update"
	OpConnectionsDelete            = "connections.delete"
	OpDatabasesAccountRead         = "databases.account.read"
	OpDatabasesAccountProvision    = "databases.account.provision"
	OpDatabasesAccountDeprovision  = "databases.account.deprovision"
	OpDatabasesQuery               = "databases.query"
	OpDatabasesActions             = "databases.actions"
	OpDatabasesTransfersCreate     = "databases.transfers.create"
	OpDatabasesTransfersPartUpload = "databases.transfers.part.upload"
	OpDatabasesTransfersComplete   = "databases.transfers.complete"
	OpDatabasesTransfersArchive    = "databases.transfers.archive"
	OpDatabasesTransfersRead       = "databases.transfers.read"
	OpDatabasesTransfersCancel     = "databases.transfers.cancel"
	OpWalletsList                  = "wallets.list"
	OpWalletsCreate                = "wallets.create"
	OpWalletsRead                  = "wallets.read"
	OpWalletsBalancesRead          = "wallets.balances.read"
	OpWalletsPolicyUpdate          = "wallets.policy.update"
	OpWalletsTransactionsQuote     = "wallets.transactions.quote"
	OpWalletsTransactionsCreate    = "wallets.transactions.create"
	OpWalletsTransactionsList      = "wallets.transactions.list"
	OpWalletsTransactionsRead      = "wallets.transactions.read"
	OpWalletsSignaturesQuote       = "wallets.signatures.quote"
	OpWalletsSignaturesCreate      = "wallets.signatures.create"
	OpTradingQuotesCreate          = "trading.quotes.create"
	OpTradingOrdersCreate          = "trading.orders.create"
	OpTradingOrdersList            = "trading.orders.list"
	OpTradingOrdersRead            = "trading.orders.read"
	OpTradingOrdersCancel          = "trading.orders.cancel"
	OpTradingOrdersPause           = "trading.orders.pause"
	OpTradingOrdersResume          = "trading.orders.resume"
	OpTradingPositionsList         = "trading.positions.list"
	OpRunsList                     = "runs.list"
	OpRunsCreate                   = "runs.create"
	OpRunsRead                     = "runs.read"
	OpRunsCancel                   = "runs.cancel"
	OpApprovalsList                = "approvals.list"
	OpApprovalsCreate              = "approvals.create"
	OpApprovalsDecide              = "approvals.decide"
	OpArtifactsList                = "artifacts.list"
	OpArtifactsContentRead         = "artifacts.content.read"
	OpWebhooksList                 = "webhooks.list"
	OpWebhooksCreate               = "webhooks.create"
	OpWebhooksUpdate               = "webhooks.update"
	OpWebhooksRotate               = "webhooks.rotate"
	OpWebhooksDisable              = "webhooks.disable"
	OpWebhookDeliveriesList        = "webhookDeliveries.list"
	OpWebhookDeliveriesReplay      = "webhookDeliveries.replay"
	// The automations' operations (ours: seed 000 lists none; seed 002's /user/automation routes share
	// them).
	OpAutomationsList    = "automations.list"
	OpAutomationsCreate  = "automations.create"
	OpAutomationsRead    = "automations.read"
	OpAutomationsUpdate  = "automations.update"
	OpAutomationsPause   = "automations.pause"
	OpAutomationsResume  = "automations.resume"
	OpAutomationsTrigger = "automations.trigger"
	OpAutomationsCancel  = "automations.cancel"
	OpAutomationsDelete  = "automations.delete"
	// OpWalletsSignaturesRead reads one wallet signature (ours: seed 000 lists none).
	OpWalletsSignaturesRead = "wallets.signatures.read"
	// OpWalletSign is seed 002's POST /wallet/sign.
	OpWalletSign = "wallet.sign"
	// The handoffs' operations (issue 22: seed 001's planner at POST /api/handoff, and its records).
	OpHandoffsCreate = "handoffs.create"
	OpHandoffsList   = "handoffs.list"
	OpHandoffsRead   = "handoffs.read"
	// OpHandoffMachinesList lists the vault's machine cards (issue 22: the tool server's
	// list_svc_machines).
	OpHandoffMachinesList = "handoffs.machines.list"
	// The payment-rail operations of GET and POST /api/crypto/capabilities (issue 22).
	OpCryptoCapabilitiesRead   = "crypto.capabilities.read"
	OpCryptoCapabilitiesSelect = "crypto.capabilities.select"
	// The LLM gateway's operations (issue 25): POST /llm/v1/chat/completions and GET /llm/v1/models.
	OpLLMChatCompletions = "llm.chat.completions"
	OpLLMModelsList      = "llm.models.list"
)

// LimitOperations lists every route's limit operation id, in the order of the specification.
var LimitOperations = []string{
	OpAPIKeysList, OpAPIKeysCreate, OpAPIKeysRevoke, OpServicesList, OpCapabilitiesList, OpActionsList,
	OpServicesInvoke, OpCreditsBalanceRead, OpCreditsX402TopUp,
	OpProjectsList, OpProjectsCreate, OpProjectsRead, OpProjectsUpdate, OpProjectsArchive,
	OpUsageRead, OpAuditEventsList, OpFilesList, OpFilesCreate, OpFilesRead, OpFilesDelete,
	OpConnectionsList, OpConnectionsCreate, OpConnectionsRead, OpConnectionsUpdate, OpConnectionsDelete,
	OpDatabasesAccountRead, OpDatabasesAccountProvision, OpDatabasesAccountDeprovision, OpDatabasesQuery,
	OpDatabasesActions, OpDatabasesTransfersCreate, OpDatabasesTransfersPartUpload, OpDatabasesTransfersComplete,
	OpDatabasesTransfersArchive, OpDatabasesTransfersRead, OpDatabasesTransfersCancel,
	OpWalletsList, OpWalletsCreate, OpWalletsRead, OpWalletsBalancesRead, OpWalletsPolicyUpdate,
	OpWalletsTransactionsQuote, OpWalletsTransactionsCreate, OpWalletsTransactionsList, OpWalletsTransactionsRead,
	OpWalletsSignaturesQuote, OpWalletsSignaturesCreate,
	OpTradingQuotesCreate, OpTradingOrdersCreate, OpTradingOrdersList, OpTradingOrdersRead, OpTradingOrdersCancel,
	OpTradingOrdersPause, OpTradingOrdersResume, OpTradingPositionsList, OpRunsList, OpRunsCreate, OpRunsRead, OpRunsCancel, OpApprovalsList, OpApprovalsCreate, OpApprovalsDecide,
	OpArtifactsList, OpArtifactsContentRead, OpWebhooksList, OpWebhooksCreate, OpWebhooksUpdate, OpWebhooksRotate,
	OpWebhooksDisable, OpWebhookDeliveriesList, OpWebhookDeliveriesReplay,
	OpAutomationsList, OpAutomationsCreate, OpAutomationsRead, OpAutomationsUpdate, OpAutomationsPause,
	OpAutomationsResume, OpAutomationsTrigger, OpAutomationsCancel, OpAutomationsDelete,
	OpWalletsSignaturesRead, OpWalletSign,
	OpAuthSIWENonce, OpAuthSIWEVerify, OpAuthSIWELink,
	OpTokenLaunchesDeploy, OpTokenLaunchesRead, OpFeeClaimsCreate, OpFeeClaimsRead,
	OpBeneficiaryTransfersCreate, OpBeneficiaryTransfersRead,
	OpHandoffsCreate, OpHandoffsList, OpHandoffsRead, OpHandoffMachinesList,
	OpCodeProofStatus, OpCodeProofSetupCLI, OpCodeProofIdentity, OpCodeProofNodeSetup,
	OpCodeProjectsList, OpCodeProjectsSave, OpCodeProjectsLinkNode,
	OpCryptoCapabilitiesRead, OpCryptoCapabilitiesSelect,
	OpLLMChatCompletions, OpLLMModelsList,
	// Issue 25's environment variables, MCP servers, Club and auto top-up (client/agentenv_types.go).
	OpAgentEnvSet, OpAgentEnvList, OpAgentEnvDelete, OpAgentMCPServersCreate, OpAgentMCPServersList, OpAgentMCPServersRead,
	OpAgentMCPServersDelete, OpClubSubscribe, OpClubCancel, OpClubRead, OpCreditsAutoTopUpRead, OpCreditsAutoTopUpUpdate,
	OpAgentPrompt, OpAgentJobsRead, OpAgentJobsCancel, OpAgentJobsConfirm, OpAgentThreadsList, OpAgentThreadsRead,
	// Issue 26's app script runs (client/appruns.go).
	OpAppsScriptsRun, OpAppsRunsList, OpAppsRunsRead,
	// Issue 26's app frontends (client/appfront.go).
	OpAppsOpen, OpAppsFrontCall, OpAppsFrontSession, OpAppsX402Fetch,
	OpAppsFrontHost,
	// Issue 27's skills (client/skills.go).
	OpSkillsCreate, OpSkillsList, OpSkillsRead, OpSkillsResourcesRead, OpSkillsDelete, OpSkillsInstall,
}

// CreditMeteredOperations are the operations that accept a creditsPerDay limit.
var CreditMeteredOperations = []string{
	OpServicesInvoke, OpRunsCreate, OpWalletsTransactionsCreate, OpTradingOrdersCreate,
}

// LimitAll is the selector that matches every authenticated operation.
const LimitAll = "*"

// RunCreateOperation builds the per-operation run limit selector runs.create.<serviceId>.<operationId>;
// with an empty operationID it builds the per-service selector runs.create.<serviceId>.
func RunCreateOperation(serviceID, operationID string) string {
	return qualified(OpRunsCreate, serviceID, operationID)
}

// ServiceInvokeOperation builds services.invoke.<serviceId>.<operationId>; with an empty operationID it
// builds the per-service selector services.invoke.<serviceId>.
func ServiceInvokeOperation(serviceID, operationID string) string {
	return qualified(OpServicesInvoke, serviceID, operationID)
}

func qualified(base, serviceID, operationID string) string {
	parts := []string{base, serviceID}
	if operationID != "" {
		parts = append(parts, operationID)
	}
	return strings.Join(parts, ".")
}
