package api

import (
	"context"
	"net/http"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/autotopup"
	"github.com/svcplatform/svc/internal/club"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
)

// clubAPI serves Club subscriptions (seed 002, issue 25): subscribe, cancel, read. They act for the
// account (scope runs:write / runs:read, service access managed-agents).
type clubAPI struct {
	// club is nil on a server without Temporal: the routes answer 503.
	club   *club.Store
	engine club.Engine
	ledger *ledger.Ledger
	// db reads the last auto top-up round.
	db *bun.DB
}

var errNoClub = svcerr.New(svcerr.Unavailable, "Club is not configured on this server")

type subscribeClubInput struct {
	Body client.SubscribeClubRequest
}

func (a *clubAPI) answer(ctx context.Context, accountID string, sub *club.Subscription) (*Out[client.ClubEnvelope], error) {
	tier, err := a.club.Tier(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return reply(client.ClubEnvelope{OK: true, Club: club.ToWire(sub, tier)})
}

func (a *clubAPI) subscribe(ctx context.Context, in *subscribeClubInput) (*Out[client.ClubEnvelope], error) {
	if a.club == nil || a.engine == nil {
		return nil, errNoClub
	}
	accountID := principalFrom(ctx).Scope.AccountID
	sub, err := a.club.Subscribe(ctx, accountID, in.Body.Period, time.Now())
	if err != nil {
		return nil, err
	}
	if err := club.Start(ctx, a.engine, accountID); err != nil {
		return nil, err
	}
	return a.answer(ctx, accountID, sub)
}

func (a *clubAPI) cancel(ctx context.Context, _ *struct{}) (*Out[client.ClubEnvelope], error) {
	if a.club == nil {
		return nil, errNoClub
	}
	accountID := principalFrom(ctx).Scope.AccountID
	sub, err := a.club.Cancel(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if a.engine != nil {
		// Only wakes the workflow to show the new status; it finds the cancellation at the period's end
		// anyway, so a failure here changes nothing.
		_ = club.Notify(ctx, a.engine, accountID)
	}
	return a.answer(ctx, accountID, sub)
}

func (a *clubAPI) read(ctx context.Context, _ *struct{}) (*Out[client.ClubEnvelope], error) {
	if a.club == nil {
		return nil, errNoClub
	}
	accountID := principalFrom(ctx).Scope.AccountID
	sub, err := a.club.Get(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return a.answer(ctx, accountID, sub)
}

type autoTopUpInput struct {
	Body client.AutoTopUpRequest
}

func (a *clubAPI) autoTopUpAnswer(ctx context.Context, accountID string, at *club.AutoTopUp) (*Out[client.AutoTopUpEnvelope], error) {
	b, err := a.ledger.Balance(ctx, accountID)
	if err != nil {
		return nil, err
	}
	out := club.AutoTopUpToWire(at, b.Available)
	if a.db != nil {
		last, err := autotopup.Last(ctx, a.db, accountID)
		if err != nil {
			return nil, err
		}
		out.LastRound = autotopup.RoundToWire(last)
	}
	return reply(client.AutoTopUpEnvelope{OK: true, AutoTopUp: out})
}

func (a *clubAPI) setAutoTopUp(ctx context.Context, in *autoTopUpInput) (*Out[client.AutoTopUpEnvelope], error) {
	if a.club == nil || a.ledger == nil {
		return nil, errNoClub
	}
	accountID := principalFrom(ctx).Scope.AccountID
	at, err := a.club.SetAutoTopUp(ctx, accountID, in.Body)
	if err != nil {
		return nil, err
	}
	if err := a.wakeAutoTopUp(ctx, accountID, at.Enabled); err != nil {
		return nil, err
	}
	return a.autoTopUpAnswer(ctx, accountID, at)
}

// wakeAutoTopUp starts (enabled) or wakes (disabled: it ends) the account's workflow autotopup/<accountId>.
// Without Temporal the setting is only stored.
func (a *clubAPI) wakeAutoTopUp(ctx context.Context, accountID string, enabled bool) error {
	e, ok := a.engine.(autotopup.Engine)
	if !ok || e == nil {
		return nil
	}
	if enabled {
		return autotopup.Start(ctx, e, accountID)
	}
	return autotopup.Notify(ctx, e, accountID)
}

func (a *clubAPI) getAutoTopUp(ctx context.Context, _ *struct{}) (*Out[client.AutoTopUpEnvelope], error) {
	if a.club == nil || a.ledger == nil {
		return nil, errNoClub
	}
	accountID := principalFrom(ctx).Scope.AccountID
	at, err := a.club.GetAutoTopUp(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return a.autoTopUpAnswer(ctx, accountID, at)
}

// routes are the Club routes and the credits' auto top-up setting.
func (a *clubAPI) routes() []Route {
	r := func(rt Route, scope client.Scope) Route {
		rt.Tag, rt.Auth, rt.Scope, rt.Service = "Club", authKey, scope, client.ServiceManagedAgents
		return rt
	}
	return []Route{
		handle(r(Route{Op: client.OpClubSubscribe, Method: http.MethodPost, Path: "/v1/club/subscribe",
			Summary: "Subscribe to Club for a month (20 USD) or a year (198 USD), paid from credits; needs a managed wallet", Idem: true},
			client.ScopeRunsWrite), a.subscribe),
		handle(r(Route{Op: client.OpClubCancel, Method: http.MethodPost, Path: "/v1/club/cancel",
			Summary: "Stop the Club renewal at the end of the current period", Idem: true}, client.ScopeRunsWrite), a.cancel),
		handle(r(Route{Op: client.OpClubRead, Method: http.MethodGet, Path: "/v1/club",
			Summary: "Read the account's Club membership: status, period, renewsAt or endsAt"}, client.ScopeRunsRead), a.read),
		handle(Route{Op: client.OpCreditsAutoTopUpUpdate, Method: http.MethodPut, Path: "/v1/credits/auto-topup", Tag: "Credits",
			Summary: "Enable (below, target) or disable the credits' auto top-up from launch fees", Auth: authKey, Scope: client.ScopeCreditsWrite, Idem: true},
			a.setAutoTopUp),
		handle(Route{Op: client.OpCreditsAutoTopUpRead, Method: http.MethodGet, Path: "/v1/credits/auto-topup", Tag: "Credits",
			Summary: "Read the credits' auto top-up setting", Auth: authKey, Scope: client.ScopeCreditsRead}, a.getAutoTopUp),
	}
}
