package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// FeeClaimParams is the input of FeeClaimWorkflow.
type FeeClaimParams struct {
	ClaimID       string
	TransactionID string
	// ApprovalID and ApprovalExpiresAt are the wallet transaction's approval, when its policy asked for
	// one (passed on to wallettx/<transactionId>).
	ApprovalID        string
	ApprovalExpiresAt time.Time
}

// FeeClaimWorkflowID is the workflow id of a managed wallet's fee claim.
func FeeClaimWorkflowID(claimID string) string { return "feeclaim/" + claimID }

// FeeClaimWorkflow (workflow id feeclaim/<claimId>) claims one token's fees, exactly once, as token
// launches are deployed: ActivitySponsorFeeClaimGas tops the wallet up with the gas of the claim's wallet
// transaction (collectFees(poolId), recorded by the request with an id derived from the claim's), the
// child workflow wallettx/<transactionId> sends it, and ActivityFinishFeeClaim records the claim claimed
// with the receipt's Release amounts, or failed with the send's reason.
func FeeClaimWorkflow(ctx workflow.Context, p FeeClaimParams) error {
	return sponsoredSend(ctx, sponsoredStep{What: "fee claim", ID: p.ClaimID, Sponsor: ActivitySponsorFeeClaimGas, Finish: ActivityFinishFeeClaim},
		WalletTxParams{TransactionID: p.TransactionID, ApprovalID: p.ApprovalID, ApprovalExpiresAt: p.ApprovalExpiresAt})
}
