package client

import (
	"context"
	"net/http"
	"time"
)

// Operation ids of sign-in with Ethereum (seed 002's web sessions).
const (
	OpAuthSIWENonce  = "auth.siwe.nonce"
	OpAuthSIWEVerify = "auth.siwe.verify"
	OpAuthSIWELink   = "auth.siwe.link"
)

// SIWENonce answers POST /auth/siwe/nonce: a single-use nonce and what the message must name.
type SIWENonce struct {
	OK        bool      `json:"ok"`
	Nonce     string    `json:"nonce" doc:"Put it in the message's Nonce line; accepted once, until expiresAt."`
	ExpiresAt time.Time `json:"expiresAt"`
	Domain    string    `json:"domain" doc:"The domain the message must name (its first line)."`
	ChainID   int64     `json:"chainId" doc:"The chain id the message must name (the platform chain)."`
}

// SIWERequest is the body of POST /auth/siwe/verify and POST /auth/siwe/link: an EIP-4361 message and
// its EIP-191 signature.
type SIWERequest struct {
	Message   string `json:"message" minLength:"1" maxLength:"8192" doc:"The EIP-4361 message, as signed."`
	Signature string `json:"signature" minLength:"1" maxLength:"200" doc:"The 65-byte personal_sign signature, 0x hex."`
}

// SIWESession answers POST /auth/siwe/verify: a short-lived web session token, sent as
// Authorization: Bearer on the routes that accept web sessions.
type SIWESession struct {
	OK        bool      `json:"ok"`
	Token     string    `json:"token" doc:"The session JWT; send it as Authorization: Bearer."`
	ExpiresAt time.Time `json:"expiresAt"`
	Address   string    `json:"address" doc:"The EIP-55 address that signed in."`
	AccountID string    `json:"accountId"`
}

// SIWEAddress answers POST /auth/siwe/link: the address now linked to the account.
type SIWEAddress struct {
	OK        bool   `json:"ok"`
	Address   string `json:"address"`
	AccountID string `json:"accountId"`
}

// WithSessionToken makes the client send a web session token (from SIWEVerify) instead of an API key;
// it is accepted where seed 002 says web sessions apply (wallet policies, /user/… routes, key creation).
func WithSessionToken(token string) Option { return WithAPIKey(token) }

// SIWENonce asks for a single-use sign-in nonce (no authentication).
func (c *Client) SIWENonce(ctx context.Context) Response[SIWENonce] {
	return send[SIWENonce](ctx, c, call{method: http.MethodPost, path: "/auth/siwe/nonce", root: true})
}

// SIWEVerify signs in with a signed EIP-4361 message and answers a web session token.
func (c *Client) SIWEVerify(ctx context.Context, req SIWERequest) Response[SIWESession] {
	return send[SIWESession](ctx, c, call{method: http.MethodPost, path: "/auth/siwe/verify", body: req, root: true})
}

// SIWELink links the address of a signed EIP-4361 message to the caller's account (a top-level key with
// api_keys:manage, or a web session), so that address can sign in.
func (c *Client) SIWELink(ctx context.Context, req SIWERequest, opts ...CallOption) Response[SIWEAddress] {
	return send[SIWEAddress](ctx, c, call{method: http.MethodPost, path: "/auth/siwe/link", body: req, auth: authKey,
		idem: true, opts: opts, root: true})
}
