package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/beneficiary"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// beneficiaryAPI serves managed wallets' beneficiary transfers (issue 20): POST
// /user/amm/execute-transfer-beneficiary at the host root (web sessions only) and GET
// /v1/beneficiary-transfers/{transferId}.
type beneficiaryAPI struct {
	transfers *beneficiary.Service
}

var errNoBeneficiaries = svcerr.New(svcerr.Unavailable,
	"beneficiary transfers are not configured here (managed wallets, the chain's fee reader and a workflow engine)")

type beneficiaryInput struct {
	Body client.BeneficiaryTransferRequest
}

type beneficiaryOut struct {
	Status int
	Body   client.BeneficiaryTransferEnvelope
}

// transfer records a transfer and starts its workflow beneficiary/<id>: 202 with the transfer
// transferring.
func (ba *beneficiaryAPI) transfer(ctx context.Context, in *beneficiaryInput) (*beneficiaryOut, error) {
	if ba.transfers == nil {
		return nil, errNoBeneficiaries
	}
	p := principalFrom(ctx)
	r := beneficiary.Request{Scope: p.Scope, ID: newID(ctx, ids.BeneficiaryTransfer), Body: in.Body}
	if p.Session != nil {
		r.Session = p.Session.Address
	}
	t, err := ba.transfers.Transfer(ctx, r, time.Now())
	if err != nil {
		return nil, err
	}
	return &beneficiaryOut{Status: http.StatusAccepted, Body: client.BeneficiaryTransferEnvelope{OK: true, Transfer: beneficiary.ToWire(t)}}, nil
}

type beneficiaryIDInput struct {
	TransferID string `path:"transferId" maxLength:"200" doc:"The transfer (bnt_…)."`
}

// get reads one of the account's transfers.
func (ba *beneficiaryAPI) get(ctx context.Context, in *beneficiaryIDInput) (*Out[client.BeneficiaryTransferEnvelope], error) {
	if ba.transfers == nil {
		return nil, errNoBeneficiaries
	}
	t, err := ba.transfers.Get(ctx, principalFrom(ctx).Scope, in.TransferID)
	if err != nil {
		return nil, err
	}
	return reply(client.BeneficiaryTransferEnvelope{OK: true, Transfer: beneficiary.ToWire(t)})
}

// routes are the beneficiary transfer routes.
func (ba *beneficiaryAPI) routes() []Route {
	const tag = "Token launches"
	return []Route{
		handle(Route{Op: client.OpBeneficiaryTransfersCreate, Method: http.MethodPost, Path: "/user/amm/execute-transfer-beneficiary", Tag: tag,
			Auth: authKey, Idem: true, Session: true, SessionOnly: true, Status: http.StatusAccepted,
			Lease: time.Minute,
			Summary: "Move a managed wallet's beneficiary share of a launched token's pool to another address (updateBeneficiary, gas sponsored, " +
				"pending fees paid to the wallet first) as workflow beneficiary/<id>"}, ba.transfer),
		handle(Route{Op: client.OpBeneficiaryTransfersRead, Method: http.MethodGet, Path: "/v1/beneficiary-transfers/{transferId}", Tag: tag,
			Auth: authKey, Scope: client.ScopeWalletsRead, Service: client.ServiceManagedWallets, Session: true,
			Summary: "Read one of the account's beneficiary transfers: its receipt, the shares moved and the fees paid to the old beneficiary"}, ba.get),
	}
}
