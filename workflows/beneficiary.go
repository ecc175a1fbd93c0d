package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// BeneficiaryParams is the input of BeneficiaryWorkflow.
type BeneficiaryParams struct {
	TransferID    string
	TransactionID string
	// ApprovalID and ApprovalExpiresAt are the wallet transaction's approval, when its policy asked for
	// one (passed on to wallettx/<transactionId>).
	ApprovalID        string
	ApprovalExpiresAt time.Time
}

// BeneficiaryWorkflowID is the workflow id of a managed wallet's beneficiary transfer.
func BeneficiaryWorkflowID(transferID string) string { return "beneficiary/" + transferID }

// BeneficiaryWorkflow (workflow id beneficiary/<transferId>) moves a managed wallet's beneficiary share of
// one pool to another address, exactly once, as fee claims are made: ActivitySponsorBeneficiaryGas tops
// the wallet up with the gas of the transfer's wallet transaction (updateBeneficiary(poolId,
// newBeneficiary), recorded by the request with an id derived from the transfer's), the child workflow
// wallettx/<transactionId> sends it, and ActivityFinishBeneficiary records the transfer transferred with
// the fees the contract paid the old beneficiary first (its Release event), or failed with the send's
// reason.
func BeneficiaryWorkflow(ctx workflow.Context, p BeneficiaryParams) error {
	return sponsoredSend(ctx, sponsoredStep{What: "beneficiary transfer", ID: p.TransferID, Sponsor: ActivitySponsorBeneficiaryGas,
		Finish: ActivityFinishBeneficiary}, WalletTxParams{TransactionID: p.TransactionID, ApprovalID: p.ApprovalID, ApprovalExpiresAt: p.ApprovalExpiresAt})
}
