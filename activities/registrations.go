package activities

import "github.com/svcplatform/svc/workflows"

// Set is every activity implementation, each built with its dependencies (by package worker).
type Set struct {
	Runs        *Runs
	Approvals   *Approvals
	Invocations *Invocations
	Deliveries  *Deliveries
	TopUps      *TopUps
	Files       *Files
	Databases   *Databases
	Transfers   *Transfers
	Automations *Automations
	Wallets     *Wallets
	Launches    *Launches
	FeeClaims   *FeeClaims
	// Beneficiaries are the beneficiary transfers' activities.
	Beneficiaries *Beneficiaries
	Trading       *Trading
	// Handoffs are the handoffs' activities (issue 22).
	Handoffs *Handoffs
	// Club renews Club subscriptions (issue 25).
	Club *Club
	// AgentJobs are the agent jobs' activities (issue 25).
	AgentJobs *AgentJobs
	// AutoTopUps convert launch fees to credits (workflow autotopup/<accountId>, issue 25).
	AutoTopUps *AutoTopUps
	// AppScripts are the app script runs' activities (issue 26).
	AppScripts *AppScripts
}

// Registration is one activity function and the type name (in workflows/names.go) it is registered
// under.
type Registration struct {
	Name string
	Func any
}

// Registrations lists every activity of s once, under its name; a name of workflows/names.go missing
// here fails TestEveryActivityIsRegistered.
func (s Set) Registrations() []Registration {
	return []Registration{
		{Name: workflows.ActivityMarkRunning, Func: s.Runs.MarkRunRunning},
		{Name: workflows.ActivityFinishRun, Func: s.Runs.FinishRun},
		{Name: workflows.ActivitySettleApproval, Func: s.Approvals.SettleApproval},
		{Name: workflows.ActivityCancelApproval, Func: s.Approvals.CancelApproval},
		{Name: workflows.ActivityStartApprovedRun, Func: s.Approvals.StartApprovedRun},
		{Name: workflows.ActivityInvokeService, Func: s.Invocations.InvokeService},
		{Name: workflows.ActivityReleaseRunHold, Func: s.Invocations.ReleaseRunHold},
		{Name: workflows.ActivityDeliverWebhook, Func: s.Deliveries.DeliverWebhook},
		{Name: workflows.ActivityFinishDelivery, Func: s.Deliveries.FinishDelivery},
		{Name: workflows.ActivityDeliverWebhookBatch, Func: s.Deliveries.DeliverWebhookBatch},
		{Name: workflows.ActivitySettleTopUp, Func: s.TopUps.SettleTopUp},
		{Name: workflows.ActivityCreditTopUp, Func: s.TopUps.CreditTopUp},
		{Name: workflows.ActivityPurgeFile, Func: s.Files.PurgeFile},
		{Name: workflows.ActivityProvisionDatabase, Func: s.Databases.ProvisionDatabase},
		{Name: workflows.ActivityDeprovisionDatabase, Func: s.Databases.DeprovisionDatabase},
		{Name: workflows.ActivityCloseTransferParts, Func: s.Transfers.CloseTransferParts},
		{Name: workflows.ActivityRunTransfer, Func: s.Transfers.RunTransfer},
		{Name: workflows.ActivityFinishTransfer, Func: s.Transfers.FinishTransfer},
		{Name: workflows.ActivityPrepareAutomationFire, Func: s.Automations.PrepareAutomationFire},
		{Name: workflows.ActivityPauseAutomationSchedule, Func: s.Automations.PauseAutomationSchedule},
		{Name: workflows.ActivitySignWalletTx, Func: s.Wallets.SignWalletTx},
		{Name: workflows.ActivityBroadcastWalletTx, Func: s.Wallets.BroadcastWalletTx},
		{Name: workflows.ActivityWaitWalletTxReceipt, Func: s.Wallets.WaitWalletTxReceipt},
		{Name: workflows.ActivityFinishWalletTx, Func: s.Wallets.FinishWalletTx},
		{Name: workflows.ActivitySignWalletSig, Func: s.Wallets.SignWalletSig},
		{Name: workflows.ActivityRejectWalletSig, Func: s.Wallets.RejectWalletSig},
		{Name: workflows.ActivitySponsorLaunchGas, Func: s.Launches.SponsorLaunchGas},
		{Name: workflows.ActivityFinishLaunch, Func: s.Launches.FinishLaunch},
		{Name: workflows.ActivityReadApprovalOutcome, Func: s.Launches.ReadApprovalOutcome},
		{Name: workflows.ActivitySponsorFeeClaimGas, Func: s.FeeClaims.SponsorFeeClaimGas},
		{Name: workflows.ActivityFinishFeeClaim, Func: s.FeeClaims.FinishFeeClaim},
		{Name: workflows.ActivitySponsorBeneficiaryGas, Func: s.Beneficiaries.SponsorBeneficiaryGas},
		{Name: workflows.ActivityFinishBeneficiary, Func: s.Beneficiaries.FinishBeneficiary},
		{Name: workflows.ActivityOrderApproveConfirmed, Func: s.Trading.OrderApproveConfirmed},
		{Name: workflows.ActivityFinishOrder, Func: s.Trading.FinishOrder},
		{Name: workflows.ActivityWatchOrder, Func: s.Trading.WatchOrder},
		{Name: workflows.ActivityFireOrder, Func: s.Trading.FireOrder},
		{Name: workflows.ActivityStopOrder, Func: s.Trading.StopOrder},
		{Name: workflows.ActivityPlaceSlice, Func: s.Trading.PlaceSlice},
		{Name: workflows.ActivityEndParent, Func: s.Trading.EndParent},
		{Name: workflows.ActivityWriteHandoffTransfer, Func: s.Handoffs.WriteHandoffTransfer},
		{Name: workflows.ActivityCheckHandoffAcks, Func: s.Handoffs.CheckHandoffAcks},
		{Name: workflows.ActivityFinishHandoff, Func: s.Handoffs.FinishHandoff},
		{Name: workflows.ActivityClubState, Func: s.Club.ClubState},
		{Name: workflows.ActivityRenewClub, Func: s.Club.RenewClub},
		{Name: workflows.ActivityAgentBegin, Func: s.AgentJobs.AgentBegin},
		{Name: workflows.ActivityAgentModel, Func: s.AgentJobs.AgentModel},
		{Name: workflows.ActivityAgentPropose, Func: s.AgentJobs.AgentPropose},
		{Name: workflows.ActivityAgentTool, Func: s.AgentJobs.AgentTool},
		{Name: workflows.ActivityAgentFinish, Func: s.AgentJobs.AgentFinish},
		{Name: workflows.ActivityAutoTopUpBegin, Func: s.AutoTopUps.AutoTopUpBegin},
		{Name: workflows.ActivityAutoTopUpClaim, Func: s.AutoTopUps.AutoTopUpClaim},
		{Name: workflows.ActivityAutoTopUpAwait, Func: s.AutoTopUps.AutoTopUpAwait},
		{Name: workflows.ActivityAutoTopUpCredit, Func: s.AutoTopUps.AutoTopUpCredit},
		{Name: workflows.ActivityRunAppScript, Func: s.AppScripts.RunAppScript},
		{Name: workflows.ActivityFailAppScript, Func: s.AppScripts.FailAppScript},
	}
}
