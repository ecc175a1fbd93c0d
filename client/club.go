package client

import (
	"context"
	"net/http"
)

// SubscribeClub subscribes the account to Club for a month or a year, paid from credits; it needs a
// managed (embedded) wallet.
func (c *Client) SubscribeClub(ctx context.Context, req SubscribeClubRequest, opts ...CallOption) Response[ClubEnvelope] {
	return send[ClubEnvelope](ctx, c, call{method: http.MethodPost, path: "/club/subscribe", body: req, auth: authKey, idem: true, opts: opts})
}

// CancelClub stops the Club renewal at the end of the current period.
func (c *Client) CancelClub(ctx context.Context, opts ...CallOption) Response[ClubEnvelope] {
	return send[ClubEnvelope](ctx, c, call{method: http.MethodPost, path: "/club/cancel", auth: authKey, idem: true, opts: opts})
}

// GetClub reads the account's Club membership.
func (c *Client) GetClub(ctx context.Context) Response[ClubEnvelope] {
	return send[ClubEnvelope](ctx, c, call{method: http.MethodGet, path: "/club", auth: authKey})
}

// SetAutoTopUp enables or disables the account's credit auto top-up (svc llm credits auto).
func (c *Client) SetAutoTopUp(ctx context.Context, req AutoTopUpRequest, opts ...CallOption) Response[AutoTopUpEnvelope] {
	return send[AutoTopUpEnvelope](ctx, c, call{method: http.MethodPut, path: "/credits/auto-topup", body: req, auth: authKey, idem: true, opts: opts})
}

// GetAutoTopUp reads the account's credit auto top-up setting.
func (c *Client) GetAutoTopUp(ctx context.Context) Response[AutoTopUpEnvelope] {
	return send[AutoTopUpEnvelope](ctx, c, call{method: http.MethodGet, path: "/credits/auto-topup", auth: authKey})
}
