package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/launch"
	"github.com/svcplatform/svc/internal/svcerr"
)

// launchesAPI serves token launches (seed 002's "Token launch and fees"): POST /token-launches/deploy
// and the public GET /token-launches at the host root, and GET /v1/token-launches/{launchId}.
type launchesAPI struct {
	launches *launch.Service
}

var errNoLaunches = svcerr.New(svcerr.Unavailable, "token launches are not configured here (managed wallets and a workflow engine)")

type deployInput struct {
	Body client.TokenLaunchRequest
}

type launchOut struct {
	Status int
	Body   client.TokenLaunchEnvelope
}

// deploy records a launch and starts its workflow launch/<id>: 202 with the launch deploying.
func (la *launchesAPI) deploy(ctx context.Context, in *deployInput) (*launchOut, error) {
	if la.launches == nil {
		return nil, errNoLaunches
	}
	p := principalFrom(ctx)
	r := launch.Request{Scope: p.Scope, ID: newID(ctx, ids.TokenLaunch), Body: in.Body}
	if p.Key != nil {
		r.KeyID = p.Key.ID
		// The launch is a send to the FeesManager: a key's recipient allowlist must allow it.
		if err := apikey.CheckRecipient(p.Key, la.launches.Config.FeesManager.Hex()); err != nil {
			return nil, err
		}
	}
	if p.Partner != nil {
		r.PartnerID = p.Partner.ID
	}
	l, err := la.launches.Deploy(ctx, r, time.Now())
	if err != nil {
		return nil, err
	}
	return &launchOut{Status: http.StatusAccepted, Body: client.TokenLaunchEnvelope{OK: true, Launch: launch.ToWire(l)}}, nil
}

type launchIDInput struct {
	LaunchID string `path:"launchId" maxLength:"200" doc:"The launch (lnch_…)."`
}

// get reads one of the account's launches.
func (la *launchesAPI) get(ctx context.Context, in *launchIDInput) (*Out[client.TokenLaunchEnvelope], error) {
	if la.launches == nil {
		return nil, errNoLaunches
	}
	l, err := la.launches.Get(ctx, principalFrom(ctx).Scope, in.LaunchID)
	if err != nil {
		return nil, err
	}
	return reply(client.TokenLaunchEnvelope{OK: true, Launch: launch.ToWire(l)})
}

type listLaunchesInput struct{}

// list answers the 50 newest launches of every account, newest first, as seed 002's launch records.
func (la *launchesAPI) list(ctx context.Context, _ *listLaunchesInput) (*Out[client.LaunchList], error) {
	if la.launches == nil {
		return nil, errNoLaunches
	}
	rows, err := launch.List(ctx, la.launches.DB)
	if err != nil {
		return nil, err
	}
	out := client.LaunchList{OK: true, Launches: make([]client.LaunchRecord, 0, len(rows))}
	for i := range rows {
		out.Launches = append(out.Launches, launch.RecordOf(&rows[i]))
	}
	return reply(out)
}

// routes are the token launch routes.
func (la *launchesAPI) routes() []Route {
	const tag = "Token launches"
	return []Route{
		handle(Route{Op: client.OpTokenLaunchesDeploy, Method: http.MethodPost, Path: "/token-launches/deploy", Tag: tag, Auth: authKey,
			Scope: client.ScopeWalletsTransact, Service: client.ServiceManagedWallets, Partner: true, Idem: true, Status: http.StatusAccepted,
			Lease:   time.Minute,
			Summary: "Launch a token from the caller's managed wallet (seed 002): FeesManager.launch with the seed liquidity, gas sponsored, as workflow launch/<id>"},
			la.deploy),
		handle(Route{Op: client.OpTokenLaunchesList, Method: http.MethodGet, Path: "/token-launches", Tag: tag, Auth: authNone,
			Summary: "The 50 newest token launches, newest first (public; seed 002's launch records)"}, la.list),
		handle(Route{Op: client.OpTokenLaunchesRead, Method: http.MethodGet, Path: "/v1/token-launches/{launchId}", Tag: tag, Auth: authKey,
			Scope: client.ScopeWalletsRead, Service: client.ServiceManagedWallets,
			Summary: "Read one of the account's token launches: its status, token, pool and transactions"}, la.get),
	}
}
