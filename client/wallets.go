package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// ChainDev is the embedded dev chain's CAIP-2 id, the default chain of a wallet.
const ChainDev = "eip155:1337"

// Defaults of a new wallet's policy (seed 002).
const (
	DefaultDailyLimitUSD          = 500
	DefaultPerTransactionLimitUSD = 500
	DefaultRecipientCooldownHours = 24
	// MinLimitUSD and MaxLimitUSD bound every USD limit of a policy (send null to disable one).
	MinLimitUSD = 1
	MaxLimitUSD = 1_000_000
	// MaxCooldownHours bounds permittedRecipients.cooldownHours.
	MaxCooldownHours = 168
)

// NullableUSD is a USD amount in a policy update that can be left out (no change), null (disable the
// limit) or a number. Its zero value is "left out".
type NullableUSD struct {
	// Set is true when the field was sent, as a number or null.
	Set bool
	// Value is the amount, nil for null.
	Value *float64
}

// USD is a NullableUSD holding v.
func USD(v float64) NullableUSD { return NullableUSD{Set: true, Value: &v} }

// DisableUSD is a NullableUSD holding null: the limit is turned off.
func DisableUSD() NullableUSD { return NullableUSD{Set: true} }

// IsZero reports whether the field is left out (omitzero).
func (n NullableUSD) IsZero() bool { return !n.Set }

// MarshalJSON writes the amount or null.
func (n NullableUSD) MarshalJSON() ([]byte, error) {
	if n.Value == nil {
		return []byte("null"), nil
	}
	return json.Marshal(*n.Value)
}

// UnmarshalJSON reads a number or null, noting that the field was sent.
func (n *NullableUSD) UnmarshalJSON(b []byte) error {
	n.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		n.Value = nil
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	n.Value = &v
	return nil
}

// PermittedRecipient is one entry of a wallet's permitted recipients.
type PermittedRecipient struct {
	Address string    `json:"address" doc:"EIP-55 address."`
	AddedAt time.Time `json:"addedAt"`
	// UsableAt is when the cooldown ends and sends to the address are allowed.
	UsableAt time.Time `json:"usableAt" doc:"addedAt plus the cooldown: sends to the address are refused before it."`
}

// PermittedRecipients restricts a wallet's sends to listed addresses, each usable after a cooldown.
type PermittedRecipients struct {
	Enabled       bool                 `json:"enabled"`
	CooldownHours int                  `json:"cooldownHours" doc:"0..168 (default 24): how long a newly added address waits before it may receive."`
	Entries       []PermittedRecipient `json:"entries"`
}

// WalletPolicy is seed 002's wallet-level security controls.
type WalletPolicy struct {
	// Paused blocks every outbound transaction, including approved ones not yet broadcast.
	Paused bool `json:"paused"`
	// DailyLimitUSD caps the USD value sent in any rolling 24 hours (null: no limit).
	DailyLimitUSD *float64 `json:"dailyLimitUsd" doc:"USD sent in any rolling 24 hours, at most (default 500; null: no limit)."`
	// PerTransactionLimitUSD caps one transaction's USD value (null: no limit).
	PerTransactionLimitUSD *float64            `json:"perTransactionLimitUsd" doc:"USD value of one transaction, at most (default 500; null: no limit)."`
	PermittedRecipients    PermittedRecipients `json:"permittedRecipients"`
	// DisableContractCalls allows only native and known-token transfers.
	DisableContractCalls bool `json:"disableContractCalls"`
	// ApprovalAboveUSD makes a transaction above it wait for an approval instead of being refused.
	ApprovalAboveUSD *float64 `json:"approvalAboveUsd" doc:"A transaction above this USD value waits for an approval (null: none)."`
}

// Wallet is a managed wallet.
type Wallet struct {
	ID        string       `json:"id" doc:"wal_…"`
	Name      string       `json:"name"`
	Address   string       `json:"address" doc:"EIP-55 address."`
	Chain     string       `json:"chain" doc:"CAIP-2 chain id (eip155:1337 is the dev chain)."`
	Policy    WalletPolicy `json:"policy"`
	ProjectID *string      `json:"projectId"`
	CreatedAt time.Time    `json:"createdAt"`
}

// CreateWalletRequest is the body of POST /v1/wallets.
type CreateWalletRequest struct {
	Name  string `json:"name,omitempty" maxLength:"100"`
	Chain string `json:"chain,omitempty" doc:"CAIP-2 chain id; default eip155:1337, the platform's chain."`
}

// PermittedRecipientsUpdate changes a wallet's permitted recipients: Add (re-adding an address restarts
// its cooldown), Remove, and the switches.
type PermittedRecipientsUpdate struct {
	Enabled       *bool    `json:"enabled,omitempty"`
	CooldownHours *int     `json:"cooldownHours,omitempty" minimum:"0" maximum:"168"`
	Add           []string `json:"add,omitempty" maxItems:"1000" doc:"Addresses to permit (re-adding one restarts its cooldown)."`
	Remove        []string `json:"remove,omitempty" maxItems:"1000" doc:"Addresses to drop."`
}

// UpdateWalletPolicyRequest is the body of PATCH /v1/wallets/{walletId}/policy: fields left out keep
// their value; a USD limit sent as null is turned off.
type UpdateWalletPolicyRequest struct {
	Paused                 *bool                      `json:"paused,omitempty"`
	DailyLimitUSD          NullableUSD                `json:"dailyLimitUsd,omitzero" nullable:"true" doc:"1..1,000,000 USD, or null to turn it off."`
	PerTransactionLimitUSD NullableUSD                `json:"perTransactionLimitUsd,omitzero" nullable:"true" doc:"1..1,000,000 USD, or null to turn it off."`
	ApprovalAboveUSD       NullableUSD                `json:"approvalAboveUsd,omitzero" nullable:"true" doc:"1..1,000,000 USD, or null to turn it off."`
	DisableContractCalls   *bool                      `json:"disableContractCalls,omitempty"`
	PermittedRecipients    *PermittedRecipientsUpdate `json:"permittedRecipients,omitempty"`
}

// WalletEnvelope answers the routes of one wallet.
type WalletEnvelope struct {
	OK     bool   `json:"ok"`
	Wallet Wallet `json:"wallet"`
}

// WalletList answers GET /v1/wallets.
type WalletList struct {
	OK         bool     `json:"ok"`
	Wallets    []Wallet `json:"wallets"`
	NextCursor *string  `json:"nextCursor"`
}

// WalletBalance is one asset's balance, read from the chain.
type WalletBalance struct {
	Asset string `json:"asset" doc:"native, or usdc."`
	// Symbol is the asset's symbol (ETH, USDC).
	Symbol string `json:"symbol"`
	// Token is the token contract, absent for the native asset.
	Token *string `json:"token,omitempty"`
	// Amount is the balance as a decimal string in whole units; Atomic in the smallest unit.
	Amount   string `json:"amount" doc:"Decimal string in whole units (e.g. 12.5)."`
	Atomic   string `json:"atomic" doc:"Decimal string in the smallest unit (wei, or the token's)."`
	Decimals int    `json:"decimals"`
}

// WalletBalances answers GET /v1/wallets/{walletId}/balances.
type WalletBalances struct {
	OK       bool            `json:"ok"`
	WalletID string          `json:"walletId"`
	Address  string          `json:"address"`
	Chain    string          `json:"chain"`
	Balances []WalletBalance `json:"balances"`
	// Block is the chain block the balances were read at.
	Block uint64 `json:"block"`
}

// CreateWallet creates a managed wallet with a fresh key, POST /v1/wallets (scope wallets:create,
// service access managed-wallets).
func (c *Client) CreateWallet(ctx context.Context, r CreateWalletRequest, opts ...CallOption) Response[WalletEnvelope] {
	return send[WalletEnvelope](ctx, c, call{method: http.MethodPost, path: "/wallets", body: r, auth: authKey, idem: true, opts: opts})
}

// ListWallets lists the wallets of the selected project (or of none), newest first (scope wallets:read).
func (c *Client) ListWallets(ctx context.Context, p ListParams) Response[WalletList] {
	return send[WalletList](ctx, c, call{method: http.MethodGet, path: "/wallets", query: p.query(), auth: authKey})
}

// GetWallet reads a wallet: address, chain and policy (scope wallets:read).
func (c *Client) GetWallet(ctx context.Context, walletID string) Response[WalletEnvelope] {
	if walletID == "" {
		return invalidArg[WalletEnvelope]("walletId", "the wallet id is empty")
	}
	return send[WalletEnvelope](ctx, c, call{method: http.MethodGet, path: walletPath(walletID), auth: authKey})
}

// GetWalletBalances reads a wallet's native and dev USDC balances from the chain (scope wallets:read).
func (c *Client) GetWalletBalances(ctx context.Context, walletID string) Response[WalletBalances] {
	if walletID == "" {
		return invalidArg[WalletBalances]("walletId", "the wallet id is empty")
	}
	return send[WalletBalances](ctx, c, call{method: http.MethodGet, path: walletPath(walletID) + "/balances", auth: authKey})
}

// UpdateWalletPolicy changes a wallet's policy, PATCH /v1/wallets/{walletId}/policy (scope
// approvals:write).
func (c *Client) UpdateWalletPolicy(ctx context.Context, walletID string, r UpdateWalletPolicyRequest, opts ...CallOption) Response[WalletEnvelope] {
	if walletID == "" {
		return invalidArg[WalletEnvelope]("walletId", "the wallet id is empty")
	}
	return send[WalletEnvelope](ctx, c, call{method: http.MethodPatch, path: walletPath(walletID) + "/policy", body: r,
		auth: authKey, idem: true, opts: opts})
}

func walletPath(id string) string { return "/wallets/" + url.PathEscape(id) }

// Assets a wallet sends.
const (
	AssetNative = "native"
	AssetUSDC   = "usdc"
)

// Decisions of a policy verdict.
const (
	VerdictAllowed       = "allowed"
	VerdictNeedsApproval = "needs_approval"
	VerdictRefused       = "refused"
)

// TransactionQuoteRequest is the body of POST /v1/wallets/{walletId}/transactions/quote.
type TransactionQuoteRequest struct {
	To     string `json:"to" minLength:"1" doc:"The recipient's address."`
	Amount string `json:"amount" minLength:"1" doc:"A decimal string in whole units of the asset (e.g. 12.5)."`
	Asset  string `json:"asset" minLength:"1" doc:"native, usdc, or a known token's address."`
	// Data is hex call data (0x…): the transaction is then a contract call.
	Data string `json:"data,omitempty" doc:"Hex call data (0x…) of a contract call; only with asset native."`
}

// PolicyVerdict is what the wallet's policy says of a transaction.
type PolicyVerdict struct {
	Decision string `json:"decision" enum:"allowed,needs_approval,refused"`
	Rule     string `json:"rule,omitempty" doc:"The rule that decided (a policy field, or price)."`
	Message  string `json:"message,omitempty" doc:"Why: the amount and the limit, what was spent, the cooldown left."`
}

// TransactionFee is a quote's fee estimate.
type TransactionFee struct {
	GasLimit        uint64 `json:"gasLimit"`
	MaxFeePerGasWei string `json:"maxFeePerGasWei"`
	EstimateWei     string `json:"estimateWei"`
	Estimate        string `json:"estimate" doc:"The fee at most, in the native asset's whole units."`
}

// TransactionQuote is what a send would do, judged by the policy, without moving anything.
type TransactionQuote struct {
	ID       string  `json:"quoteId" doc:"quo_…; send it to POST …/transactions before expiresAt."`
	WalletID string  `json:"walletId"`
	To       string  `json:"to"`
	Asset    string  `json:"asset"`
	Token    *string `json:"token,omitempty"`
	Amount   string  `json:"amount"`
	Atomic   string  `json:"atomic"`
	Decimals int     `json:"decimals"`
	// USDValue is the amount's USD value, nil when no price is known.
	USDValue     *float64 `json:"usdValue"`
	ContractCall bool     `json:"contractCall"`
	// Fee is nil when the chain cannot estimate it (the send would revert, say); FeeError says why.
	Fee      *TransactionFee `json:"fee"`
	FeeError string          `json:"feeError,omitempty"`
	// SpentLast24hUSD is what the wallet sent (or holds reserved) in the last 24 hours.
	SpentLast24hUSD float64       `json:"spentLast24hUsd"`
	Verdict         PolicyVerdict `json:"verdict"`
	// Screening is what the screening step says of this send now (a send judges it again).
	Screening *Screening `json:"screening,omitempty"`
	ExpiresAt time.Time  `json:"expiresAt"`
}

// Screening verdicts.
const (
	ScreeningAllow         = "allow"
	ScreeningNeedsApproval = "needs_approval"
	ScreeningBlock         = "block"
)

// Screening is the screening step's verdict on a send (seed 002's security layer): a denylisted
// address, a first-time recipient above the threshold, a burst of sends, or an unlimited token
// allowance.
type Screening struct {
	Verdict string `json:"verdict" enum:"allow,needs_approval,block"`
	Rule    string `json:"rule,omitempty" doc:"The check that decided: denylist, firstTimeRecipient, burst or unlimitedAllowance."`
	Reason  string `json:"reason,omitempty" doc:"Why, with the address, the amount and the threshold, or the count and the window."`
}

// TransactionQuoteEnvelope answers POST …/transactions/quote.
type TransactionQuoteEnvelope struct {
	OK    bool             `json:"ok"`
	Quote TransactionQuote `json:"quote"`
}

// QuoteTransaction prices a send and judges it by the wallet's policy without moving anything, POST
// /v1/wallets/{walletId}/transactions/quote (scope wallets:transact). Quotes expire after 60 s.
func (c *Client) QuoteTransaction(ctx context.Context, walletID string, r TransactionQuoteRequest, opts ...CallOption) Response[TransactionQuoteEnvelope] {
	if walletID == "" {
		return invalidArg[TransactionQuoteEnvelope]("walletId", "the wallet id is empty")
	}
	return send[TransactionQuoteEnvelope](ctx, c, call{method: http.MethodPost, path: walletPath(walletID) + "/transactions/quote", body: r,
		auth: authKey, idem: true, opts: opts})
}

// Statuses of a wallet transaction.
const (
	WalletTxPendingApproval = "pending_approval"
	WalletTxQueued          = "queued"
	WalletTxBroadcast       = "broadcast"
	WalletTxConfirmed       = "confirmed"
	WalletTxFailed          = "failed"
	WalletTxRejected        = "rejected"
)

// CreateTransactionRequest is the body of POST /v1/wallets/{walletId}/transactions: a quote to execute,
// or the same fields as a quote.
type CreateTransactionRequest struct {
	QuoteID string `json:"quoteId,omitempty" doc:"A quote of this wallet (quo_…) that has not expired; or give to, amount and asset."`
	To      string `json:"to,omitempty"`
	Amount  string `json:"amount,omitempty"`
	Asset   string `json:"asset,omitempty"`
	Data    string `json:"data,omitempty"`
}

// WalletTransaction is an outbound transaction of a wallet, run by the workflow wallettx/<id>.
type WalletTransaction struct {
	ID       string   `json:"id" doc:"tx_…"`
	WalletID string   `json:"walletId"`
	Status   string   `json:"status" enum:"pending_approval,queued,broadcast,confirmed,failed,rejected"`
	To       string   `json:"to"`
	Asset    string   `json:"asset"`
	Token    *string  `json:"token,omitempty"`
	Amount   string   `json:"amount"`
	Atomic   string   `json:"atomic"`
	USDValue *float64 `json:"usdValue"`
	// Hash and Nonce are set once the transaction is signed.
	Hash       *string       `json:"hash"`
	Nonce      *int64        `json:"nonce"`
	ApprovalID *string       `json:"approvalId"`
	QuoteID    *string       `json:"quoteId"`
	Verdict    PolicyVerdict `json:"verdict"`
	// Screening is the screening step's verdict, judged when the send was recorded.
	Screening  *Screening `json:"screening,omitempty"`
	Error      *RunError  `json:"error"`
	WorkflowID string     `json:"workflowId" doc:"wallettx/<id>, as the Temporal Web UI lists it."`
	CreatedAt  time.Time  `json:"createdAt"`
	UpdatedAt  time.Time  `json:"updatedAt"`
	Confirmed  *time.Time `json:"confirmedAt"`
}

// WalletTransactionEnvelope answers the routes of one transaction.
type WalletTransactionEnvelope struct {
	OK          bool              `json:"ok"`
	Transaction WalletTransaction `json:"transaction"`
}

// WalletTransactionList answers GET /v1/wallets/{walletId}/transactions.
type WalletTransactionList struct {
	OK           bool                `json:"ok"`
	Transactions []WalletTransaction `json:"transactions"`
	NextCursor   *string             `json:"nextCursor"`
}

// Done reports whether the transaction reached a final status.
func (t WalletTransaction) Done() bool {
	return t.Status == WalletTxConfirmed || t.Status == WalletTxFailed || t.Status == WalletTxRejected
}

// SendTransaction starts a send from the wallet, POST /v1/wallets/{walletId}/transactions (scope
// wallets:transact): the policy is checked again and the amount reserved against the daily limit, then
// the workflow wallettx/<id> signs, broadcasts and waits for the receipt. It answers 202; poll
// GetWalletTransaction for the outcome.
func (c *Client) SendTransaction(ctx context.Context, walletID string, r CreateTransactionRequest, opts ...CallOption) Response[WalletTransactionEnvelope] {
	if walletID == "" {
		return invalidArg[WalletTransactionEnvelope]("walletId", "the wallet id is empty")
	}
	return send[WalletTransactionEnvelope](ctx, c, call{method: http.MethodPost, path: walletPath(walletID) + "/transactions", body: r,
		auth: authKey, idem: true, opts: opts})
}

// ListWalletTransactions lists a wallet's transactions, newest first (scope wallets:read).
func (c *Client) ListWalletTransactions(ctx context.Context, walletID string, p ListParams) Response[WalletTransactionList] {
	if walletID == "" {
		return invalidArg[WalletTransactionList]("walletId", "the wallet id is empty")
	}
	return send[WalletTransactionList](ctx, c, call{method: http.MethodGet, path: walletPath(walletID) + "/transactions", query: p.query(), auth: authKey})
}

// GetWalletTransaction reads one transaction of a wallet (scope wallets:read).
func (c *Client) GetWalletTransaction(ctx context.Context, walletID, transactionID string) Response[WalletTransactionEnvelope] {
	if walletID == "" || transactionID == "" {
		return invalidArg[WalletTransactionEnvelope]("transactionId", "the wallet or transaction id is empty")
	}
	return send[WalletTransactionEnvelope](ctx, c, call{method: http.MethodGet,
		path: walletPath(walletID) + "/transactions/" + url.PathEscape(transactionID), auth: authKey})
}
