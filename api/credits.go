package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
)

func usageRange(fromS, toS string, now time.Time) (time.Time, time.Time, error) {
	to := now.Truncate(24 * time.Hour)
	if toS != "" {
		t, err := time.Parse(time.DateOnly, toS)
		if err != nil {
			return to, to, svcerr.Invalid("to", "to must be a day such as 2026-01-31")
		}
		to = t
	}
	from := to.AddDate(0, 0, -29)
	if fromS != "" {
		f, err := time.Parse(time.DateOnly, fromS)
		if err != nil {
			return from, to, svcerr.Invalid("from", "from must be a day such as 2026-01-01")
		}
		from = f
	}
	switch {
	case from.After(to):
		return from, to, svcerr.Invalid("from", "from is after to")
	case to.Sub(from) >= maxUsageDays*24*time.Hour:
		return from, to, svcerr.Invalid("from", "one query covers at most %d days", maxUsageDays)
	}
	return from, to, nil
}

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
