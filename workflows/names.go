// Package workflows holds the platform's deterministic Temporal code: workflow functions, and every
// workflow, activity, signal, update, query and task-queue name. It imports no I/O packages; side effects
// live in package activities, which this package names only by string.
package workflows

// TaskQueue is the task queue every svc worker polls.
const TaskQueue = "svc"

// Workflow type names.
const (
	// RunWorkflowName executes one durable run (workflow id run/<runId>).
	RunWorkflowName = "RunWorkflow"
	// ApprovalWorkflowName waits for one approval's decision (workflow id approval/<approvalId>).
	ApprovalWorkflowName = "ApprovalWorkflow"
	// DeliveryWorkflowName delivers one event to one webhook endpoint (workflow id delivery/<deliveryId>).
	DeliveryWorkflowName = "DeliveryWorkflow"
	// WebhookLoopWorkflowName is the durable delivery loop of one webhook endpoint (workflow id
	// webhook/<webhookId>): it sends the endpoint's due deliveries in batches and sleeps until the next.
	WebhookLoopWorkflowName = "WebhookLoopWorkflow"
	// TopUpWorkflowName settles and credits one x402 credit top-up (workflow id topup/<topUpId>).
	TopUpWorkflowName = "TopUpWorkflow"
	// FilePurgeWorkflowName removes a soft-deleted file for good once its grace period has passed
	// (workflow id file-purge/<fileId>).
	FilePurgeWorkflowName = "FilePurgeWorkflow"
	// DatabaseWorkflowName provisions or deprovisions an account's managed database (workflow id
	// database/<accountId>).
	DatabaseWorkflowName = "DatabaseWorkflow"
	// DatabaseTransferWorkflowName runs one export or import of an account's managed database (workflow
	// id dbtransfer/<transferId>).
	DatabaseTransferWorkflowName = "DatabaseTransferWorkflow"
	// AutomationFireWorkflowName performs one fire of an automation's schedule (workflow id
	// automation-fire/<automationId>-<scheduled time>).
	AutomationFireWorkflowName = "AutomationFireWorkflow"
	// WalletTxWorkflowName sends one outbound wallet transaction (workflow id wallettx/<transactionId>).
	WalletTxWorkflowName = "WalletTxWorkflow"
	// WalletSigWorkflowName makes one message or transaction signature of a wallet (workflow id
	// walletsig/<signatureId>).
	WalletSigWorkflowName = "WalletSigWorkflow"
	// LaunchWorkflowName deploys one token launch (workflow id launch/<launchId>).
	LaunchWorkflowName = "LaunchWorkflow"
	// FeeClaimWorkflowName claims one token's fees from a managed wallet (workflow id feeclaim/<claimId>).
	FeeClaimWorkflowName = "FeeClaimWorkflow"
	// BeneficiaryWorkflowName moves a managed wallet's beneficiary share of a pool to another address
	// (workflow id beneficiary/<transferId>).
	BeneficiaryWorkflowName = "BeneficiaryWorkflow"
	// OrderWorkflowName runs one trading order (workflow id order/<orderId>).
	OrderWorkflowName = "OrderWorkflow"
	// TriggerOrderWorkflowName runs one limit or stop order (workflow id order/<orderId>): it watches the
	// pool's price with a durable timer until the order fires, expires or is cancelled.
	TriggerOrderWorkflowName = "TriggerOrderWorkflow"
	// TwapOrderWorkflowName runs one twap order (workflow id order/<orderId>): its slices, each a child
	// order, at even intervals on a durable timer.
	TwapOrderWorkflowName = "TwapOrderWorkflow"
	// DcaFireWorkflowName places one slice of a dca order at a fire of its schedule (workflow id
	// order-fire/<orderId>-<scheduled time>).
	DcaFireWorkflowName = "DcaFireWorkflow"
	// HandoffWorkflowName writes one handoff's vault transfer and waits for its ack (workflow id
	// handoff/<handoffId>).
	HandoffWorkflowName = "HandoffWorkflow"
	// ClubWorkflowName renews one account's Club subscription at the end of each period on a durable
	// timer (workflow id club/<accountId>, issue 25).
	ClubWorkflowName = "ClubWorkflow"
	// AutoTopUpWorkflowName converts one account's launch fees to credits when its balance falls under
	// its auto top-up threshold (workflow id autotopup/<accountId>, issue 25).
	AutoTopUpWorkflowName = "AutoTopUpWorkflow"
)

// Registrations lists every workflow once. Workers and the replay tests register exactly these (see
// RegisterWorkflows); a workflow name above that is missing here fails TestEveryWorkflowIsRegistered.
var Registrations = []Registration{
	{Name: RunWorkflowName, Func: RunWorkflow},
	{Name: ApprovalWorkflowName, Func: ApprovalWorkflow},
	{Name: DeliveryWorkflowName, Func: DeliveryWorkflow},
	{Name: WebhookLoopWorkflowName, Func: WebhookLoopWorkflow},
	{Name: TopUpWorkflowName, Func: TopUpWorkflow},
	{Name: FilePurgeWorkflowName, Func: FilePurgeWorkflow},
	{Name: DatabaseWorkflowName, Func: DatabaseWorkflow},
	{Name: DatabaseTransferWorkflowName, Func: DatabaseTransferWorkflow},
	{Name: AutomationFireWorkflowName, Func: AutomationFireWorkflow},
	{Name: WalletTxWorkflowName, Func: WalletTxWorkflow},
	{Name: WalletSigWorkflowName, Func: WalletSigWorkflow},
	{Name: LaunchWorkflowName, Func: LaunchWorkflow},
	{Name: FeeClaimWorkflowName, Func: FeeClaimWorkflow},
	{Name: BeneficiaryWorkflowName, Func: BeneficiaryWorkflow},
	{Name: OrderWorkflowName, Func: OrderWorkflow},
	{Name: TriggerOrderWorkflowName, Func: TriggerOrderWorkflow},
	{Name: TwapOrderWorkflowName, Func: TwapOrderWorkflow},
	{Name: DcaFireWorkflowName, Func: DcaFireWorkflow},
	{Name: HandoffWorkflowName, Func: HandoffWorkflow},
	{Name: ClubWorkflowName, Func: ClubWorkflow},
	{Name: AutoTopUpWorkflowName, Func: AutoTopUpWorkflow},
	{Name: AgentJobWorkflowName, Func: AgentJobWorkflow},
	// App script runs (issue 26, workflows/appscript.go).
	{Name: AppScriptWorkflowName, Func: AppScriptWorkflow},
}

// Signal names.
const (
	// SignalApprovalDecision carries an ApprovalDecision to ApprovalWorkflow. A signal is kept in the
	// workflow's history even while no worker runs, so a decision is never lost.
	SignalApprovalDecision = "approval-decision"
	// SignalApprovalOutcome carries the ApprovalOutcome from ApprovalWorkflow to the run it gates.
	SignalApprovalOutcome = "approval-outcome"
	// SignalDatabaseOp carries the operation (DatabaseOpProvision or DatabaseOpDeprovision) a request
	// asks of DatabaseWorkflow, sent with SignalWithStart.
	SignalDatabaseOp = "database-op"
	// SignalTransferCancel asks DatabaseTransferWorkflow to stop and clean up (DELETE of the transfer).
	SignalTransferCancel = "transfer-cancel"
	// SignalTransferProgress carries a TransferProgress from the transfer's activity to its workflow's
	// memo.
	SignalTransferProgress = "transfer-progress"
	// SignalHandoffAck wakes HandoffWorkflow to check its transfer's acks at once (the worker's vault
	// watcher, handoff.Watcher, sends it when it sees an ack file; without it the workflow checks on its
	// timer).
	SignalHandoffAck = "handoff-ack"
)

// Update names.
const (
	// UpdateTransferComplete closes an import's part list (POST …/complete); its error, a gap in the
	// parts say, answers the request.
	UpdateTransferComplete = "transfer-complete"
)

// Activity type names (implemented in package activities).
const (
	// ActivityMarkRunning moves a run from queued to running.
	ActivityMarkRunning = "MarkRunRunning"
	// ActivityFinishRun records a run's final status, output or error.
	ActivityFinishRun = "FinishRun"
	// ActivitySettleApproval makes the approval row final: the decision received, or expired.
	ActivitySettleApproval = "SettleApproval"
	// ActivityCancelApproval marks a pending approval cancelled.
	ActivityCancelApproval = "CancelApproval"
	// ActivityStartApprovedRun starts the run of an approved service action.
	ActivityStartApprovedRun = "StartApprovedRun"
	// ActivityInvokeService performs a run of an external service's operation: hold, call, settle.
	ActivityInvokeService = "InvokeService"
	// ActivityReleaseRunHold frees the credits held for a run whose call did not succeed.
	ActivityReleaseRunHold = "ReleaseRunHold"
	// ActivityDeliverWebhook makes one attempt of a webhook delivery: one signed HTTP call, recorded.
	ActivityDeliverWebhook = "DeliverWebhook"
	// ActivityDeliverWebhookBatch sends one batch of an endpoint's due deliveries and records their
	// attempts.
	ActivityDeliverWebhookBatch = "DeliverWebhookBatch"
	// ActivityFinishDelivery records a delivery's final status.
	ActivityFinishDelivery = "FinishDelivery"
	// ActivitySettleTopUp makes sure a top-up's payment is on chain: it reconciles from the chain first
	// and sends the transferWithAuthorization only when the authorization is unused.
	ActivitySettleTopUp = "SettleTopUp"
	// ActivityCreditTopUp posts a settled top-up's credits with its credits.topped_up event.
	ActivityCreditTopUp = "CreditTopUp"
	// ActivityPurgeFile removes a soft-deleted file's bytes and row for good (idempotent).
	ActivityPurgeFile = "PurgeFile"
	// ActivityProvisionDatabase creates an account's database and roles and marks it ready (idempotent).
	ActivityProvisionDatabase = "ProvisionDatabase"
	// ActivityDeprovisionDatabase drops an account's database and roles and marks it deleted (idempotent).
	ActivityDeprovisionDatabase = "DeprovisionDatabase"
	// ActivityCloseTransferParts closes an import's part list: parts 1..N without a gap (idempotent).
	ActivityCloseTransferParts = "CloseTransferParts"
	// ActivityRunTransfer exports the database into the blob store, or verifies and restores an import's
	// archive, reporting progress (retried after a crash; an import restores at most once).
	ActivityRunTransfer = "RunTransfer"
	// ActivityFinishTransfer records a transfer's end with its event and deletes its parts and, unless
	// it is a completed export, its archive (idempotent).
	ActivityFinishTransfer = "FinishTransfer"
	// ActivityPrepareAutomationFire decides one fire under the automation's lock and the limits, and
	// records its run (idempotent: the run's id derives from the fire).
	ActivityPrepareAutomationFire = "PrepareAutomationFire"
	// ActivityPauseAutomationSchedule pauses an automation's schedule with a note (idempotent).
	ActivityPauseAutomationSchedule = "PauseAutomationSchedule"
	// ActivitySignWalletTx re-checks the wallet's pause, takes a nonce and stores the signed transaction
	// (idempotent: a transaction signed before answers its hash).
	ActivitySignWalletTx = "SignWalletTx"
	// ActivityBroadcastWalletTx sends a wallet transaction's stored bytes to the chain (idempotent).
	ActivityBroadcastWalletTx = "BroadcastWalletTx"
	// ActivityWaitWalletTxReceipt waits for a broadcast transaction's receipt; true when it succeeded.
	ActivityWaitWalletTxReceipt = "WaitWalletTxReceipt"
	// ActivityFinishWalletTx records a wallet transaction's end with its event (idempotent).
	ActivityFinishWalletTx = "FinishWalletTx"
	// ActivitySignWalletSig re-checks the wallet's pause, opens its key and stores one signature
	// (idempotent).
	ActivitySignWalletSig = "SignWalletSig"
	// ActivityRejectWalletSig records a wallet signature rejected (its approval was not granted),
	// releasing its reserved spend (idempotent).
	ActivityRejectWalletSig = "RejectWalletSig"
	// ActivitySponsorLaunchGas tops a launch's wallet up with its transaction's gas from the platform's
	// sponsor and waits for the top-up (idempotent: once per transaction).
	ActivitySponsorLaunchGas = "SponsorLaunchGas"
	// ActivityFinishLaunch waits for a launch's wallet transaction to end and records the launch deployed
	// (from the receipt's Launch event) or failed (idempotent).
	ActivityFinishLaunch = "FinishLaunch"
	// ActivitySponsorFeeClaimGas tops a fee claim's wallet up with its transaction's gas from the
	// platform's sponsor (idempotent: once per transaction).
	ActivitySponsorFeeClaimGas = "SponsorFeeClaimGas"
	// ActivityFinishFeeClaim waits for a fee claim's wallet transaction to end and records the claim
	// claimed (from the receipt's Release event) or failed (idempotent).
	ActivityFinishFeeClaim = "FinishFeeClaim"
	// ActivitySponsorBeneficiaryGas tops a beneficiary transfer's wallet up with its transaction's gas
	// from the platform's sponsor (idempotent: once per transaction).
	ActivitySponsorBeneficiaryGas = "SponsorBeneficiaryGas"
	// ActivityFinishBeneficiary waits for a beneficiary transfer's wallet transaction to end and records
	// the transfer transferred (with the old beneficiary's Release amounts) or failed (idempotent).
	ActivityFinishBeneficiary = "FinishBeneficiary"
	// ActivityReadApprovalOutcome reads an approval's outcome: its final status, or "" while it is pending.
	ActivityReadApprovalOutcome = "ReadApprovalOutcome"
	// ActivityOrderApproveConfirmed reads whether a trading order's ERC-20 approve confirmed (true) or
	// failed (false); retried until it has ended.
	ActivityOrderApproveConfirmed = "OrderApproveConfirmed"
	// ActivityFinishOrder waits for a trading order's swap to end and records the order filled (its
	// fills from the receipt's Swap events, gas, the fee charged once) or failed with its reason
	// (idempotent).
	ActivityFinishOrder = "FinishOrder"
	// ActivityWatchOrder reads whether a limit or stop order's trigger is reached at the pool's price now
	// (one read: the workflow's timer spaces the reads).
	ActivityWatchOrder = "WatchOrder"
	// ActivityFireOrder records a reached limit or stop order's wallet transactions, priced afresh, and
	// answers the market path's parameters (idempotent; a policy refusal ends the order failed).
	ActivityFireOrder = "FireOrder"
	// ActivityStopOrder records a limit or stop order that never fired cancelled or expired, releasing its
	// fee's hold (idempotent).
	ActivityStopOrder = "StopOrder"
	// ActivityPlaceSlice records one slice of a twap or dca order, a child market order priced afresh
	// with its wallet transactions, and answers its market path (idempotent on the child's id, derived
	// from the parent's and the slice; not placed once the parent has ended or every slice is placed).
	ActivityPlaceSlice = "PlaceSlice"
	// ActivityEndParent records a twap or dca order filled, failed or cancelled once its child orders
	// have ended (retried until then; idempotent).
	ActivityEndParent = "EndParent"
	// ActivityWriteHandoffTransfer writes a handoff's vault transfer (its files and, for a task, its task
	// file) and records the transfer id; it answers the id recorded before when retried.
	ActivityWriteHandoffTransfer = "WriteHandoffTransfer"
	// ActivityCheckHandoffAcks counts the ack files of a handoff's transfer (one check, no waiting).
	ActivityCheckHandoffAcks = "CheckHandoffAcks"
	// ActivityFinishHandoff records a handoff's end (with the acks read from the vault) and its event
	// (idempotent).
	ActivityFinishHandoff = "FinishHandoff"
	// ActivityClubState reads the Club subscription ClubWorkflow renews: its generation, status and
	// period end (a read, safe to repeat).
	ActivityClubState = "ClubState"
	// ActivityRenewClub ends one Club period: the renewal's charge (ledger reference per generation and
	// period: posted once) with its row and event, or the lapse or the end (idempotent).
	ActivityRenewClub = "RenewClub"
	// ActivityAutoTopUpBegin reads an account's auto top-up setting and balance and, under the
	// threshold, records a round (once per round key).
	ActivityAutoTopUpBegin = "AutoTopUpBegin"
	// ActivityAutoTopUpClaim starts a round's fee claims (ids derived from account, token and round).
	ActivityAutoTopUpClaim = "AutoTopUpClaim"
	// ActivityAutoTopUpAwait checks that a round's fee claims have ended (retried until then).
	ActivityAutoTopUpAwait = "AutoTopUpAwait"
	// ActivityAutoTopUpCredit credits a round's claimed claims (reference autotopup:<claimId>) and
	// records the round's end, in one transaction.
	ActivityAutoTopUpCredit = "AutoTopUpCredit"
)

// Error types of InvokeService failures that retrying cannot cure (the run fails with the type as its
// error code).
const (
	ErrorTypeUpstreamRejected    = "upstream_rejected"
	ErrorTypeInsufficientCredits = "insufficient_credits"
	ErrorTypeServiceUnavailable  = "service_unavailable"
	ErrorTypeConnectionMissing   = "connection_missing"
	ErrorTypeUpstreamBlocked     = "upstream_blocked"
	ErrorTypeUpstreamInvalid     = "upstream_invalid_response"
	// ErrorTypeCreditsReleased: the run's hold was released (the run was cancelled or gave up) before
	// the call's answer could be recorded; nothing is charged.
	ErrorTypeCreditsReleased = "credits_released"
)

// RunWorkflowID is the workflow id of a run, so operators find it in the Web UI by resource id.
func RunWorkflowID(runID string) string { return "run/" + runID }

// ApprovalWorkflowID is the workflow id of an approval.
func ApprovalWorkflowID(approvalID string) string { return "approval/" + approvalID }

// DeliveryWorkflowID is the workflow id of a webhook delivery.
func DeliveryWorkflowID(deliveryID string) string { return "delivery/" + deliveryID }

// TopUpWorkflowID is the workflow id of an x402 top-up.
func TopUpWorkflowID(topUpID string) string { return "topup/" + topUpID }

// ClubWorkflowID is the workflow id of an account's Club renewals.
func ClubWorkflowID(accountID string) string { return "club/" + accountID }

// AutoTopUpWorkflowID is the workflow id of an account's credit auto top-up.
func AutoTopUpWorkflowID(accountID string) string { return "autotopup/" + accountID }

// ErrorTypeUnstorable is the application error type of a bookkeeping activity whose values PostgreSQL
// refuses (SQLSTATE class 22 or 54): retrying cannot store them.
const ErrorTypeUnstorable = "Unstorable"

// ErrorTypeRunMissing is the application error type of a bookkeeping activity whose run row does not
// exist in the worker's database.
const ErrorTypeRunMissing = "RunMissing"

// The agent jobs' names (issue 25).

// AgentJobWorkflowName runs one agent job (workflow id agentjob/<jobId>): model calls and tool calls as
// activities until the model answers.
const AgentJobWorkflowName = "AgentJobWorkflow"

// SignalAgentConfirm carries an AgentConfirmation to AgentJobWorkflow: the user's decision on a
// money-moving or signing tool call (POST /agent/job/{jobId}/confirm, recorded before it is sent).
const SignalAgentConfirm = "agent-confirm"

// The agent job's activities.
const (
	// ActivityAgentBegin marks the job running and handles a slash command (answering without the model).
	ActivityAgentBegin = "AgentBegin"
	// ActivityAgentModel makes model call n of a job (gateway reference agentjob/<id>/model/<n>), storing
	// its reply before returning so a retry reuses it.
	ActivityAgentModel = "AgentModel"
	// ActivityAgentPropose records a confirmation step for a money-moving or signing tool call and moves
	// the job to awaiting_confirmation (event agent.job.awaiting_confirmation).
	ActivityAgentPropose = "AgentPropose"
	// ActivityAgentTool runs tool call n of a job as the job's key (Idempotency-Key agentjob/<id>/tool/<n>),
	// storing its result before returning so a retry reuses it; a rejected call is recorded as refused.
	ActivityAgentTool = "AgentTool"
	// ActivityAgentFinish records the job's end and its event.
	ActivityAgentFinish = "AgentFinish"
)

// The app script runs' names (issue 26, workflows/appscript.go).

// AppScriptWorkflowName runs one app script run (workflow id appscript/<runId>, issue 26).
const AppScriptWorkflowName = "AppScriptWorkflow"

// The app script run's activities.
const (
	// ActivityRunAppScript loads a run, its app's manifest and script, executes the script in the
	// sandboxed engine with the platform Host, and records result, log and error with the status in one
	// transaction (with event app.script.failed on failure). A finished run answers its stored outcome.
	ActivityRunAppScript = "RunAppScript"
	// ActivityFailAppScript records a run failed with a message when ActivityRunAppScript gave up
	// (idempotent: a finished run is left as it is).
	ActivityFailAppScript = "FailAppScript"
)
