package client

import (
	"context"
	"net/http"
	"time"
)

// Operation ids of sign-in by email (seed 002's one-time codes).
const (
	OpAuthEmailStart  = "auth.email.start"
	OpAuthEmailVerify = "auth.email.verify"
)

// KeyFlags are seed 002's key flags as a sign-in asks for them. An absent flag takes the default of a new
// CLI key: wallet API on, agent API off, token-launch API on, LLM gateway off, read-only on.
type KeyFlags struct {
	WalletAPI      *bool `json:"walletApi,omitempty" doc:"Wallet API (scopes wallets:transact and wallets:sign); default true."`
	AgentAPI       *bool `json:"agentApi,omitempty" doc:"Agent API (service access managed-agents, scope runs:write); default false."`
	TokenLaunchAPI *bool `json:"tokenLaunchApi,omitempty" doc:"Token-launch API (wallets:transact and service access managed-wallets); default true."`
	LLMGateway     *bool `json:"llmGateway,omitempty" doc:"LLM gateway (service access managed-agents, scope services:invoke); default false."`
	ReadOnly       *bool `json:"readOnly,omitempty" doc:"Every request but a GET answers 403; default true."`
}

// EmailStartRequest is the body of POST /auth/email/start.
type EmailStartRequest struct {
	Email string `json:"email" minLength:"3" maxLength:"254" doc:"The address the one-time code is sent to."`
}

// EmailStart answers POST /auth/email/start: a code was sent (the code itself is never in an answer).
type EmailStart struct {
	OK          bool      `json:"ok"`
	AttemptID   string    `json:"attemptId" doc:"The sign-in attempt (otp_…)."`
	Email       string    `json:"email" doc:"The address, normalised (lower case, trimmed)."`
	ExpiresAt   time.Time `json:"expiresAt" doc:"The code is refused after this instant (10 minutes)."`
	ResendAfter time.Time `json:"resendAfter" doc:"Another code for this address is not sent before this instant."`
}

// EmailVerifyRequest is the body of POST /auth/email/verify.
type EmailVerifyRequest struct {
	Email       string    `json:"email" minLength:"3" maxLength:"254"`
	Code        string    `json:"code" minLength:"6" maxLength:"6" doc:"The 6-digit code of the message."`
	AcceptTerms bool      `json:"acceptTerms,omitempty" doc:"Required (true) on the first sign-in, which creates the account."`
	KeyName     string    `json:"keyName,omitempty" maxLength:"200" doc:"The new key's name (default CLI-<date>)."`
	Flags       *KeyFlags `json:"flags,omitempty" doc:"The new key's flags; absent ones take the CLI defaults."`
}

// EmailSignIn answers POST /auth/email/verify: the account (created on first sign-in) and a new API key
// whose secret is shown this once.
type EmailSignIn struct {
	OK         bool   `json:"ok"`
	AccountID  string `json:"accountId"`
	Email      string `json:"email"`
	NewAccount bool   `json:"newAccount" doc:"True when this sign-in created the account."`
	APIKey     APIKey `json:"apiKey" doc:"The new key, with its secret (shown once)."`
}

// EmailStart sends a one-time sign-in code to an address (no authentication).
func (c *Client) EmailStart(ctx context.Context, req EmailStartRequest) Response[EmailStart] {
	return send[EmailStart](ctx, c, call{method: http.MethodPost, path: "/auth/email/start", body: req, root: true})
}

// EmailVerify checks a one-time code and answers the account and a new API key (no authentication).
func (c *Client) EmailVerify(ctx context.Context, req EmailVerifyRequest) Response[EmailSignIn] {
	return send[EmailSignIn](ctx, c, call{method: http.MethodPost, path: "/auth/email/verify", body: req, root: true})
}
