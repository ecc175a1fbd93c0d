package client

import (
	"context"
	"net/http"
)

// Balance returns the account's credits (GET /v1/credits/balance).
func (c *Client) Balance(ctx context.Context) Response[BalanceEnvelope] {
	return send[BalanceEnvelope](ctx, c, call{method: http.MethodGet, path: "/credits/balance", auth: authKey})
}
