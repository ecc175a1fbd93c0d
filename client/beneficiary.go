package client

import (
	"context"
	"net/http"
	"net/url"
)

// Operation ids of managed-wallet beneficiary transfers (issue 20).
const (
	OpBeneficiaryTransfersCreate = "beneficiaryTransfers.create"
	OpBeneficiaryTransfersRead   = "beneficiaryTransfers.read"
)

// Statuses of a beneficiary transfer.
const (
	BeneficiaryTransferring = "transferring"
	BeneficiaryTransferred  = "transferred"
	BeneficiaryFailed       = "failed"
)

// BeneficiaryTransferRequest is the body of POST /user/amm/execute-transfer-beneficiary: the token whose
// beneficiary share moves, where it goes, and which of the account's managed wallets holds it (default:
// the account's wallet, as fee claims pick it).
type BeneficiaryTransferRequest struct {
	TokenAddress   string `json:"tokenAddress" maxLength:"100" doc:"The launched token whose pool's beneficiary share moves."`
	NewBeneficiary string `json:"newBeneficiary" maxLength:"100" doc:"The address that receives the share (not the zero address, not the wallet itself)."`
	WalletID       string `json:"walletId,omitempty" maxLength:"100" doc:"The managed wallet that holds the share (default: the account's wallet)."`
}

// BeneficiaryTransfer is a managed wallet's transfer of its beneficiary share, run by workflow
// beneficiary/<id>: its receipt and its record.
type BeneficiaryTransfer struct {
	ID              string    `json:"id" doc:"The transfer (bnt_…)."`
	Status          string    `json:"status" doc:"transferring, transferred or failed."`
	WalletID        string    `json:"walletId"`
	From            string    `json:"from" doc:"The managed wallet's address: the old beneficiary."`
	To              string    `json:"to" doc:"The new beneficiary."`
	TokenAddress    string    `json:"tokenAddress"`
	PoolID          string    `json:"poolId"`
	Shares          string    `json:"shares" doc:"The shares that move (WAD: 1e18 is the whole pool's fees)."`
	SharePercent    string    `json:"sharePercent" doc:"The same shares as a percent of the pool's fees."`
	ChainID         int64     `json:"chainId"`
	TransactionID   string    `json:"transactionId" doc:"The wallet transaction that sends updateBeneficiary."`
	TransactionHash string    `json:"transactionHash" doc:"The updateBeneficiary transaction's hash (empty until it is signed)."`
	ApprovalID      *string   `json:"approvalId,omitempty" doc:"The approval (apr_…) the transfer's wallet transaction waits (or waited) for, when the wallet's policy or screening asked for one; the transfer stays transferring until it is decided."`
	BlockNumber     *int64    `json:"blockNumber,omitempty"`
	GasUsed         *int64    `json:"gasUsed,omitempty"`
	Released0       string    `json:"released0,omitempty" doc:"Pending fees of the pool's token0 paid to the old beneficiary first (wei), once transferred."`
	Released1       string    `json:"released1,omitempty" doc:"Pending fees of the pool's token1 paid to the old beneficiary first (wei), once transferred."`
	Description     string    `json:"description"`
	WorkflowID      string    `json:"workflowId"`
	Error           *RunError `json:"error,omitempty"`
	CreatedAt       int64     `json:"createdAt"`
	TransferredAt   *int64    `json:"transferredAt,omitempty"`
}

// BeneficiaryTransferEnvelope answers the beneficiary transfer routes.
type BeneficiaryTransferEnvelope struct {
	OK       bool                `json:"ok"`
	Transfer BeneficiaryTransfer `json:"transfer"`
}

// TransferBeneficiary moves the beneficiary share of a managed wallet to another address, POST
// /user/amm/execute-transfer-beneficiary (202 while it is transferring). The route takes a web session
// token (sign in with Ethereum) as the client's key, never an API key.
func (c *Client) TransferBeneficiary(ctx context.Context, r BeneficiaryTransferRequest, opts ...CallOption) Response[BeneficiaryTransferEnvelope] {
	return send[BeneficiaryTransferEnvelope](ctx, c, call{method: http.MethodPost, path: "/user/amm/execute-transfer-beneficiary",
		body: r, auth: authKey, idem: true, opts: opts, root: true})
}

// BeneficiaryTransfer reads one of the account's beneficiary transfers, GET /v1/beneficiary-transfers/{id}.
func (c *Client) BeneficiaryTransfer(ctx context.Context, id string) Response[BeneficiaryTransferEnvelope] {
	return send[BeneficiaryTransferEnvelope](ctx, c, call{method: http.MethodGet, path: "/beneficiary-transfers/" + url.PathEscape(id), auth: authKey})
}
