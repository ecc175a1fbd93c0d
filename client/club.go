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
