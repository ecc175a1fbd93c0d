package client

import (
	"context"
	"net/http"
	"net/url"
)

// Operation ids of seed 002's wallet routes at the host root. Their limit operations are the /v1 ones
// they share a path with: wallets.transactions.create for transfer and submit, wallets.balances.read for
// the portfolio.
const (
	OpWalletTransfer  = "wallet.transfer"
	OpWalletSubmit    = "wallet.submit"
	OpWalletPortfolio = "wallet.portfolio"
)

// WalletTransferRequest is the body of POST /wallet/transfer (seed 002): send an amount of the native
// asset or a token from the key's wallet.
type WalletTransferRequest struct {
	// WalletID picks the wallet; left out, the account's first wallet (the oldest).
	WalletID string `json:"walletId,omitempty" maxLength:"200" doc:"The wallet (wal_…); left out, the account's first wallet (the oldest)."`
	To       string `json:"to" minLength:"1" maxLength:"255" doc:"The recipient: an address (0x…), or an ENS-style name (alice.eth) the handle resolver knows."`
	Amount   string `json:"amount" minLength:"1" maxLength:"100" doc:"A decimal string in whole units of the asset (e.g. 12.5)."`
	Token    string `json:"token,omitempty" maxLength:"100" doc:"usdc or a known token's address; exactly one of token and native."`
	Native   bool   `json:"native,omitempty" doc:"Send the chain's native asset; exactly one of token and native."`
	Chain    string `json:"chain,omitempty" maxLength:"100" doc:"The wallet's chain, as CAIP-2 (eip155:1337) or its numeric id; left out, the wallet's."`
}

// WalletSubmitRequest is the body of POST /wallet/submit (seed 002): a transaction from the key's wallet,
// as a raw transaction (the 0x RLP/EIP-2718 encoding eth_signTransaction answers) or as its fields. The
// platform sends to, value and data through the wallet's workflow with its own nonce and fees.
type WalletSubmitRequest struct {
	WalletID    string `json:"walletId,omitempty" maxLength:"200" doc:"The wallet (wal_…); left out, the account's first wallet (the oldest)."`
	Transaction string `json:"transaction,omitempty" maxLength:"262144" doc:"A raw transaction (0x…, signed by this wallet, e.g. by POST /wallet/sign eth_signTransaction); or give to, chainId, value and data."`
	To          string `json:"to,omitempty" maxLength:"100" doc:"The recipient or contract (0x address)."`
	ChainID     *int64 `json:"chainId,omitempty" doc:"The wallet's chain id (1337 on the dev chain); refused when it is another chain."`
	Value       string `json:"value,omitempty" maxLength:"100" doc:"Wei, decimal or 0x hex; 0 when left out."`
	Data        string `json:"data,omitempty" maxLength:"262144" doc:"Hex call data (0x…): a contract call, refused while the wallet's policy has disableContractCalls (a USDC transfer(to, amount) is a token transfer)."`
}

// PortfolioBalance is one balance of a portfolio with its USD value.
type PortfolioBalance struct {
	WalletBalance
	// USDPrice is one whole unit's price in USD, nil when no price is known.
	USDPrice *float64 `json:"usdPrice"`
	// USDValue is the balance's value in USD (two decimals), nil when no price is known.
	USDValue *float64 `json:"usdValue"`
}

// WalletPortfolio is a wallet's balances with their USD values, read at one block.
type WalletPortfolio struct {
	WalletID string             `json:"walletId"`
	Name     string             `json:"name"`
	Address  string             `json:"address"`
	Chain    string             `json:"chain"`
	Block    uint64             `json:"block"`
	Balances []PortfolioBalance `json:"balances"`
	// TotalUSD sums the balances whose price is known.
	TotalUSD float64 `json:"totalUsd"`
}

// WalletPortfolioEnvelope answers GET /wallet/portfolio.
type WalletPortfolioEnvelope struct {
	OK        bool            `json:"ok"`
	Portfolio WalletPortfolio `json:"portfolio"`
}

// PortfolioParams pick the wallet of GET /wallet/portfolio.
type PortfolioParams struct {
	// WalletID picks the wallet; "" is the account's first wallet (the oldest).
	WalletID string
	// Chain, when set, must be the wallet's chain (CAIP-2 or numeric id).
	Chain string
}

// Transfer sends an amount from the key's wallet, POST /wallet/transfer (seed 002; scope
// wallets:transact): the same policy, reservation and workflow wallettx/<id> as SendTransaction. It
// answers 202; poll GetWalletTransaction for the outcome.
func (c *Client) Transfer(ctx context.Context, r WalletTransferRequest, opts ...CallOption) Response[WalletTransactionEnvelope] {
	return send[WalletTransactionEnvelope](ctx, c, call{method: http.MethodPost, path: "/wallet/transfer", body: r, auth: authKey, idem: true,
		opts: opts, root: true})
}

// Submit sends a transaction from the key's wallet, POST /wallet/submit (seed 002; scope
// wallets:transact): refused while the wallet's policy has disableContractCalls and it is a contract
// call; otherwise like SendTransaction.
func (c *Client) Submit(ctx context.Context, r WalletSubmitRequest, opts ...CallOption) Response[WalletTransactionEnvelope] {
	return send[WalletTransactionEnvelope](ctx, c, call{method: http.MethodPost, path: "/wallet/submit", body: r, auth: authKey, idem: true,
		opts: opts, root: true})
}

// Portfolio reads the key's wallet's balances with their USD values, GET /wallet/portfolio (scope
// wallets:read).
func (c *Client) Portfolio(ctx context.Context, p PortfolioParams) Response[WalletPortfolioEnvelope] {
	q := url.Values{}
	if p.WalletID != "" {
		q.Set("walletId", p.WalletID)
	}
	if p.Chain != "" {
		q.Set("chain", p.Chain)
	}
	return send[WalletPortfolioEnvelope](ctx, c, call{method: http.MethodGet, path: "/wallet/portfolio", query: q, auth: authKey, root: true})
}
