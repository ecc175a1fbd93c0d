package client

import (
	"context"
	"net/http"
)

// The payment rails of GET /api/crypto/capabilities (CryptoRail.ID).
const (
	// RailX402TopUp buys credits with an x402 USDC payment (POST /v1/credits/x402/top-up).
	RailX402TopUp = "x402-topup"
	// RailWalletSend pays an address from a managed wallet (POST /v1/wallets/{walletId}/transactions).
	RailWalletSend = "wallet-send"
	// RailCredits spends the account's credit balance (the paid call draws them).
	RailCredits = "credits"
)

// The purposes of POST /api/crypto/capabilities (CryptoActionRequest.Purpose).
const (
	// PurposePlatform pays for the platform's own services (service calls, runs).
	PurposePlatform = "platform"
	// PurposeTopUp adds credits to the account.
	PurposeTopUp = "topup"
	// PurposeTransfer pays an address outside the platform.
	PurposeTransfer = "transfer"
)

// The actions of POST /api/crypto/capabilities.
const (
	// CryptoSelect picks a rail for an amount and a purpose, with the reason.
	CryptoSelect = "select"
	// CryptoPrepare picks a rail (or takes the one named) and returns the request to make; it sends
	// nothing.
	CryptoPrepare = "prepare"
)

// CryptoEndpoint is the route a rail is used through.
type CryptoEndpoint struct {
	Method string `json:"method"`
	Path   string `json:"path"`
}

// CryptoLimits are a rail's bounds in US dollars (null: none the platform knows of).
type CryptoLimits struct {
	MinUSD *float64 `json:"minUsd" doc:"The smallest amount, in US dollars (null: none)."`
	MaxUSD *float64 `json:"maxUsd" doc:"The largest amount, in US dollars (null: none; for wallet sends, the largest per-transaction limit of the usable wallets)."`
}

// CryptoWallet is a managed wallet as the wallet-send rail lists it.
type CryptoWallet struct {
	ID                     string   `json:"id"`
	Name                   string   `json:"name"`
	Address                string   `json:"address"`
	Chain                  string   `json:"chain"`
	Paused                 bool     `json:"paused"`
	PerTransactionLimitUSD *float64 `json:"perTransactionLimitUsd"`
	DailyLimitUSD          *float64 `json:"dailyLimitUsd"`
}

// CryptoRail is one payment rail and whether the caller can use it.
type CryptoRail struct {
	ID          string `json:"id" enum:"x402-topup,wallet-send,credits"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Available says whether the caller can use the rail now; UnavailableReason says why not.
	Available         bool           `json:"available"`
	UnavailableReason string         `json:"unavailableReason,omitempty"`
	Needs             []string       `json:"needs" doc:"What using the rail takes: scopes, service access, a client, a wallet."`
	Limits            CryptoLimits   `json:"limits"`
	Endpoint          CryptoEndpoint `json:"endpoint" doc:"The route the rail is used through."`
	// Network, Asset and PayTo are what an x402 top-up is paid in and to.
	Network string `json:"network,omitempty" doc:"x402-topup: the CAIP-2 network paid on."`
	Asset   string `json:"asset,omitempty" doc:"x402-topup: the USDC contract paid with."`
	PayTo   string `json:"payTo,omitempty" doc:"x402-topup: the address paid."`
	// BalanceCredits is the account's balance (credits rail; null when the key may not read it).
	BalanceCredits *float64 `json:"balanceCredits,omitempty" doc:"credits: the spendable balance (absent when the key lacks credits:read)."`
	// Wallets are the account's managed wallets (wallet-send rail).
	Wallets []CryptoWallet `json:"wallets,omitempty" doc:"wallet-send: the account's managed wallets."`
}

// CryptoCapabilities answers GET /api/crypto/capabilities.
type CryptoCapabilities struct {
	OK            bool         `json:"ok"`
	CreditsPerUSD int          `json:"creditsPerUsd" doc:"What one US dollar buys in credits."`
	Rails         []CryptoRail `json:"rails"`
}

// CryptoActionRequest is the body of POST /api/crypto/capabilities.
type CryptoActionRequest struct {
	Action    string  `json:"action" enum:"select,prepare" doc:"select: pick a rail with the reason; prepare: also return the HTTP request to make (nothing is sent)."`
	AmountUSD float64 `json:"amountUsd" maximum:"1000000" doc:"The amount in US dollars (more than 0, at most two decimal places)."`
	Purpose   string  `json:"purpose,omitempty" enum:"platform,topup,transfer" doc:"platform: pay for the platform's services; topup: add credits; transfer: pay the address in to. Default: transfer when to is set, else platform."`
	Rail      string  `json:"rail,omitempty" enum:"x402-topup,wallet-send,credits" doc:"prepare only: use this rail instead of the one select would pick."`
	To        string  `json:"to,omitempty" maxLength:"200" doc:"The recipient address (0x…) of a transfer."`
	WalletID  string  `json:"walletId,omitempty" maxLength:"200" doc:"The managed wallet to send from (default: the first usable one whose limit fits)."`
}

// CryptoVerdict is what select thought of one rail.
type CryptoVerdict struct {
	Rail   string `json:"rail"`
	Fits   bool   `json:"fits"`
	Reason string `json:"reason"`
}

// CryptoSelection is the rail chosen for an amount and a purpose.
type CryptoSelection struct {
	Rail      string          `json:"rail"`
	Purpose   string          `json:"purpose"`
	AmountUSD float64         `json:"amountUsd"`
	Reason    string          `json:"reason"`
	WalletID  string          `json:"walletId,omitempty" doc:"wallet-send: the wallet chosen."`
	Verdicts  []CryptoVerdict `json:"considered" doc:"Every rail and why it fits or not."`
}

// PreparedRequest is an HTTP request for the caller to make (the platform never makes it).
type PreparedRequest struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	URL     string            `json:"url" doc:"The absolute URL on the host that answered."`
	Headers map[string]string `json:"headers" doc:"Headers to send besides Authorization (the caller's own key)."`
	Body    map[string]any    `json:"body,omitempty"`
}

// CryptoPrepared is what prepare returns: the request that would spend, and what happens then.
type CryptoPrepared struct {
	// Preflight is a request that checks without spending (a wallet quote, the balance), when useful.
	Preflight *PreparedRequest `json:"preflight,omitempty" doc:"A request that checks without spending (a wallet quote), to make first."`
	Request   PreparedRequest  `json:"request" doc:"The request that pays, to make yourself."`
	Then      string           `json:"then" doc:"What the answer will be and what to do with it."`
	Executed  bool             `json:"executed" doc:"Always false: the platform sent nothing."`
}

// CryptoActionEnvelope answers POST /api/crypto/capabilities.
type CryptoActionEnvelope struct {
	OK        bool            `json:"ok"`
	Action    string          `json:"action"`
	Selection CryptoSelection `json:"selection"`
	Prepared  *CryptoPrepared `json:"prepared,omitempty" doc:"prepare only."`
}

// HandoffMachineCard is a machine card of the platform's vault, as GET /api/handoff/machines lists it.
type HandoffMachineCard struct {
	MachineID     string         `json:"machineId"`
	Host          string         `json:"host,omitempty"`
	Runtimes      []string       `json:"runtimes"`
	Agents        []HandoffAgent `json:"agents"`
	FileTransfers bool           `json:"fileTransfers" doc:"The machine's collector serves transfers."`
	LastSeen      string         `json:"lastSeen"`
}

// HandoffMachines answers GET /api/handoff/machines.
type HandoffMachines struct {
	OK       bool                 `json:"ok"`
	Machines []HandoffMachineCard `json:"machines"`
}

// CryptoCapabilities lists the payment rails and what the caller can use, GET /api/crypto/capabilities
// at the host root (scope runs:write, like /api/handoff).
func (c *Client) CryptoCapabilities(ctx context.Context) Response[CryptoCapabilities] {
	return send[CryptoCapabilities](ctx, c, call{method: http.MethodGet, path: "/api/crypto/capabilities", auth: authKey, root: true})
}

// CryptoAction selects a rail or prepares its request, POST /api/crypto/capabilities (scope runs:write);
// it never spends.
func (c *Client) CryptoAction(ctx context.Context, r CryptoActionRequest) Response[CryptoActionEnvelope] {
	return send[CryptoActionEnvelope](ctx, c, call{method: http.MethodPost, path: "/api/crypto/capabilities", body: r, auth: authKey, root: true})
}

// HandoffMachineCards lists the machine cards of the platform's vault, GET /api/handoff/machines
// (scope runs:read).
func (c *Client) HandoffMachineCards(ctx context.Context) Response[HandoffMachines] {
	return send[HandoffMachines](ctx, c, call{method: http.MethodGet, path: "/api/handoff/machines", auth: authKey, root: true})
}
