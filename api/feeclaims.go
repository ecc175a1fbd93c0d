package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/feeclaim"
	"github.com/svcplatform/svc/internal/feeread"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// feeClaimsAPI serves managed wallets' fee claims (issue 20): POST
// /token-launches/{tokenAddress}/fees/claim at the host root and GET /v1/fee-claims/{claimId}.
type feeClaimsAPI struct {
	claims *feeclaim.Service
}

var errNoFeeClaims = svcerr.New(svcerr.Unavailable, "fee claims are not configured here (managed wallets, the chain's fee reader and a workflow engine)")

type claimInput struct {
	TokenAddress string `path:"tokenAddress" maxLength:"100" doc:"The launched token whose fees the wallet claims."`
	Body         client.FeeClaimRequest
}

type claimOut struct {
	Status int
	Body   client.FeeClaimEnvelope
}

// claim records a claim and starts its workflow feeclaim/<id>: 202 with the claim claiming.
func (fa *feeClaimsAPI) claim(ctx context.Context, in *claimInput) (*claimOut, error) {
	if fa.claims == nil {
		return nil, errNoFeeClaims
	}
	token, err := feeread.ParseAddress("tokenAddress", in.TokenAddress)
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	r := feeclaim.Request{Scope: p.Scope, ID: newID(ctx, ids.FeeClaim), Token: token, Body: in.Body}
	if p.Key != nil {
		r.KeyID = p.Key.ID
		// The claim is a send to the FeesManager: a key's recipient allowlist must allow it.
		if err := apikey.CheckRecipient(p.Key, fa.claims.Fees.Manager().Hex()); err != nil {
			return nil, err
		}
	}
	c, err := fa.claims.Claim(ctx, r, time.Now())
	if err != nil {
		return nil, err
	}
	return &claimOut{Status: http.StatusAccepted, Body: client.FeeClaimEnvelope{OK: true, Claim: feeclaim.ToWire(c)}}, nil
}

type claimIDInput struct {
	ClaimID string `path:"claimId" maxLength:"200" doc:"The claim (fclm_…)."`
}

// get reads one of the account's claims.
func (fa *feeClaimsAPI) get(ctx context.Context, in *claimIDInput) (*Out[client.FeeClaimEnvelope], error) {
	if fa.claims == nil {
		return nil, errNoFeeClaims
	}
	c, err := fa.claims.Get(ctx, principalFrom(ctx).Scope, in.ClaimID)
	if err != nil {
		return nil, err
	}
	return reply(client.FeeClaimEnvelope{OK: true, Claim: feeclaim.ToWire(c)})
}

// routes are the fee claim routes.
func (fa *feeClaimsAPI) routes() []Route {
	const tag = "Token launches"
	return []Route{
		handle(Route{Op: client.OpFeeClaimsCreate, Method: http.MethodPost, Path: "/token-launches/{tokenAddress}/fees/claim", Tag: tag, Auth: authKey,
			Scope: client.ScopeWalletsTransact, Service: client.ServiceManagedWallets, Idem: true, Session: true, Status: http.StatusAccepted,
			Lease:   time.Minute,
			Summary: "Claim a launched token's fees with the caller's managed wallet (a beneficiary): collectFees, gas sponsored, as workflow feeclaim/<id>"},
			fa.claim),
		handle(Route{Op: client.OpFeeClaimsCreate + ".legacy", Limit: client.OpFeeClaimsCreate, Method: http.MethodPost,
			Path: "/token-launches/{tokenAddress}/claim", Tag: tag, Auth: authKey,
			Scope: client.ScopeWalletsTransact, Service: client.ServiceManagedWallets, Idem: true, Session: true, Status: http.StatusAccepted,
			Lease: time.Minute, Deprecated: legacyClaim("/token-launches/{tokenAddress}/fees/claim"),
			Summary: "Legacy claim (deprecated): the same as POST /token-launches/{tokenAddress}/fees/claim"}, fa.claim),
		handle(Route{Op: client.OpFeeClaimsRead, Method: http.MethodGet, Path: "/v1/fee-claims/{claimId}", Tag: tag, Auth: authKey,
			Scope: client.ScopeWalletsRead, Service: client.ServiceManagedWallets,
			Summary: "Read one of the account's fee claims: its claim receipt and the amounts released"}, fa.get),
	}
}
