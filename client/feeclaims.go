package client

import (
	"context"
	"net/http"
	"net/url"
)

// Operation ids of managed-wallet fee claims (issue 20).
const (
	OpFeeClaimsCreate = "feeClaims.create"
	OpFeeClaimsRead   = "feeClaims.read"
)

// Statuses of a fee claim.
const (
	FeeClaimClaiming = "claiming"
	FeeClaimClaimed  = "claimed"
	FeeClaimFailed   = "failed"
)

// FeeClaimRequest is the body of POST /token-launches/{tokenAddress}/fees/claim: empty (the caller's
// managed wallet claims), or a wallet of the account's.
type FeeClaimRequest struct {
	WalletID string `json:"walletId,omitempty" maxLength:"100" doc:"The managed wallet that claims (default: the account's wallet)."`
}

// FeeClaimReceipt is seed 002's claim receipt.
type FeeClaimReceipt struct {
	TransactionHash string `json:"transactionHash" doc:"The collectFees transaction's hash (empty until it is signed)."`
	Status          string `json:"status" doc:"claiming, claimed or failed."`
	Signer          string `json:"signer" doc:"The managed wallet's address."`
	ChainID         int64  `json:"chainId"`
	Description     string `json:"description"`
	BlockNumber     *int64 `json:"blockNumber,omitempty"`
	GasUsed         *int64 `json:"gasUsed,omitempty"`
}

// FeeClaim is a managed wallet's claim of a launched token's fees, run by workflow feeclaim/<id>.
type FeeClaim struct {
	FeeClaimReceipt
	ID            string    `json:"id" doc:"The claim (fclm_…)."`
	WalletID      string    `json:"walletId"`
	TokenAddress  string    `json:"tokenAddress"`
	PoolID        string    `json:"poolId"`
	TransactionID string    `json:"transactionId" doc:"The wallet transaction that sends collectFees."`
	ApprovalID    *string   `json:"approvalId,omitempty" doc:"The approval (apr_…) the claim's wallet transaction waits (or waited) for, when the wallet's policy or screening asked for one; the claim stays claiming until it is decided."`
	Amount0       string    `json:"amount0,omitempty" doc:"Released of the pool's token0 (wei), once claimed."`
	Amount1       string    `json:"amount1,omitempty" doc:"Released of the pool's token1 (wei), once claimed."`
	WorkflowID    string    `json:"workflowId"`
	Error         *RunError `json:"error,omitempty"`
	CreatedAt     int64     `json:"createdAt"`
	ClaimedAt     *int64    `json:"claimedAt,omitempty"`
}

// FeeClaimEnvelope answers the fee claim routes.
type FeeClaimEnvelope struct {
	OK    bool     `json:"ok"`
	Claim FeeClaim `json:"claim"`
}

// ClaimFees claims token's fees with the caller's managed wallet, POST
// /token-launches/{tokenAddress}/fees/claim (202 while it is claiming).
func (c *Client) ClaimFees(ctx context.Context, tokenAddress string, r FeeClaimRequest, opts ...CallOption) Response[FeeClaimEnvelope] {
	return send[FeeClaimEnvelope](ctx, c, call{method: http.MethodPost, path: "/token-launches/" + url.PathEscape(tokenAddress) + "/fees/claim",
		body: r, auth: authKey, idem: true, opts: opts, root: true})
}

// FeeClaim reads one of the account's fee claims, GET /v1/fee-claims/{claimId}.
func (c *Client) FeeClaim(ctx context.Context, id string) Response[FeeClaimEnvelope] {
	return send[FeeClaimEnvelope](ctx, c, call{method: http.MethodGet, path: "/fee-claims/" + url.PathEscape(id), auth: authKey})
}
