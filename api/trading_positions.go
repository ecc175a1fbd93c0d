package api

import (
	"context"
	"net/http"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/trading"
)

// tradingPositionsAPI serves the positions of managed trading: what the account's wallets hold, valued
// by the average-cost method over their filled orders.
type tradingPositionsAPI struct {
	trading *trading.Service
}

type positionsInput struct {
	WalletID string `query:"walletId" maxLength:"200" doc:"Only this wallet's positions (every wallet of the account when absent)."`
}

// positions answers the account's positions per wallet and token.
func (pa *tradingPositionsAPI) positions(ctx context.Context, in *positionsInput) (*Out[client.TradingPositionList], error) {
	if pa.trading == nil {
		return nil, errNoTrading
	}
	list, err := pa.trading.Positions(ctx, principalFrom(ctx).Scope, in.WalletID)
	if err != nil {
		return nil, err
	}
	return reply(list)
}

// routes is the positions route.
func (pa *tradingPositionsAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpTradingPositionsList, Method: http.MethodGet, Path: "/v1/trading/positions", Tag: "Trading", Auth: authKey,
			Scope: client.ScopeTradingRead, Service: client.ServiceManagedTrading,
			Summary: "Positions per wallet and token: quantity on the chain, average cost, cost basis, realised and unrealised P&L in USD (gas counted)"},
			pa.positions),
	}
}
