package api

import (
	"context"
	"net/http"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ledger"
)

func (cr *creditsAPI) balance(ctx context.Context, _ *struct{}) (*Out[client.BalanceEnvelope], error) {
	b, err := cr.ledger.Balance(ctx, principalFrom(ctx).Scope.AccountID)
	if err != nil {
		return nil, err
	}
	return reply(client.BalanceEnvelope{OK: true, Balance: ledger.BalanceToWire(b)})
}

// creditsAPI serves the account's credit balance.
type creditsAPI struct {
	ledger *ledger.Ledger
}

// routes are the credits routes.
func (cr *creditsAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpCreditsBalanceRead, Method: http.MethodGet, Path: "/v1/credits/balance", Summary: "The account's credit balance", Tag: "Credits",
			Auth: authKey, Scope: client.ScopeCreditsRead}, cr.balance),
	}
}
