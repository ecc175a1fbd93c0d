package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// feeQuery is days=n, or nothing for the default window.
func feeQuery(days int) url.Values {
	if days == 0 {
		return nil
	}
	return url.Values{"days": {strconv.Itoa(days)}}
}

// TokenFees reads the fee snapshot of a launched token's creator beneficiary (GET
// /public/amm/token-fees/{tokenAddress}); days 0 means the default window (30).
func (c *Client) TokenFees(ctx context.Context, tokenAddress string, days int) Response[FeeSnapshot] {
	return send[FeeSnapshot](ctx, c, call{method: http.MethodGet, path: "/public/amm/token-fees/" + url.PathEscape(tokenAddress), query: feeQuery(days), root: true})
}

// ClaimableFees looks up what beneficiary may claim from a token's pool.
func (c *Client) ClaimableFees(ctx context.Context, tokenAddress, beneficiary string) Response[ClaimableFees] {
	return send[ClaimableFees](ctx, c, call{method: http.MethodGet, root: true,
		path: "/public/amm/claimable-fees/" + url.PathEscape(tokenAddress), query: url.Values{"beneficiary": {beneficiary}}})
}

// CreatorFees reads the summed snapshot of every token whose creator beneficiary is walletAddress.
func (c *Client) CreatorFees(ctx context.Context, walletAddress string, days int) Response[FeeSnapshot] {
	return send[FeeSnapshot](ctx, c, call{method: http.MethodGet, path: "/public/amm/creator-fees/" + url.PathEscape(walletAddress), query: feeQuery(days), root: true})
}

// BeneficiaryFees reads every beneficiary position of walletAddress.
func (c *Client) BeneficiaryFees(ctx context.Context, walletAddress string) Response[FeeSnapshot] {
	return send[FeeSnapshot](ctx, c, call{method: http.MethodGet, path: "/public/amm/beneficiary-fees/" + url.PathEscape(walletAddress), root: true})
}

// BuildClaim builds unsigned collectFees transactions for the beneficiary to sign.
func (c *Client) BuildClaim(ctx context.Context, req BuildClaimRequest) Response[BuildClaimResult] {
	return send[BuildClaimResult](ctx, c, call{method: http.MethodPost, path: "/public/amm/build-claim", body: req, root: true})
}

// BuildTransferBeneficiary builds an unsigned updateBeneficiary transaction for the current beneficiary.
func (c *Client) BuildTransferBeneficiary(ctx context.Context, req BuildTransferRequest) Response[BuildTransferResult] {
	return send[BuildTransferResult](ctx, c, call{method: http.MethodPost, path: "/public/amm/build-transfer-beneficiary", body: req, root: true})
}
