package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// walletSignaturesAPI serves wallets' message and transaction signatures (issue 19): a quote, the
// signature (made once by the workflow walletsig/<id>), and seed 002's POST /wallet/sign
// (wallet_sign.go). It shares walletsAPI's store, chain, prices and starts.
type walletSignaturesAPI struct {
	*walletsAPI
}

type signatureInput struct {
	WalletID string `path:"walletId" maxLength:"200" doc:"The wallet id (wal_...)."`
	Body     client.SignatureRequest
}

type signatureIDInput struct {
	WalletID    string `path:"walletId" maxLength:"200" doc:"The wallet id (wal_...)."`
	SignatureID string `path:"signatureId" maxLength:"200" doc:"The signature id (sig_...)."`
}

// signatureOut is a signature answer: 201 once made (or refused at signing), 202 while its workflow still
// runs or waits for its approval (pending_approval).
type signatureOut struct {
	Status int
	Body   client.WalletSignatureEnvelope
}

// quoteSignature shows what a signature would sign and the policy's verdict, signing nothing.
func (sa *walletSignaturesAPI) quoteSignature(ctx context.Context, in *signatureInput) (*Out[client.SignatureQuoteEnvelope], error) {
	if sa.wallets == nil {
		return nil, errNoWallets
	}
	q, err := sa.wallets.QuoteSignature(ctx, sa.chain, sa.prices, principalFrom(ctx).Scope, in.WalletID, in.Body, time.Now())
	if err != nil {
		return nil, err
	}
	return reply(client.SignatureQuoteEnvelope{OK: true, Quote: q})
}

// sign judges, reserves and records a signature, then runs its workflow walletsig/<id> and answers it.
func (sa *walletSignaturesAPI) sign(ctx context.Context, in *signatureInput) (*signatureOut, error) {
	return sa.signWith(ctx, in.WalletID, in.Body)
}

// signWith makes a signature of the caller's wallet walletID (both signature routes).
func (sa *walletSignaturesAPI) signWith(ctx context.Context, walletID string, r client.SignatureRequest) (*signatureOut, error) {
	if sa.wallets == nil || sa.starts == nil {
		return nil, errNoWallets
	}
	p := principalFrom(ctx)
	row, err := sa.wallets.CreateSignature(ctx, sa.chain, sa.prices, wallet.NewSignature{Scope: p.Scope, KeyID: p.Key.ID, WalletID: walletID,
		ID: newID(ctx, ids.WalletSignature), Req: r}, time.Now())
	if err != nil {
		return nil, err
	}
	if err := sa.starts.StartSignature(ctx, row); err != nil {
		return nil, err
	}
	if row, err = sa.wallets.Reload(ctx, row); err != nil {
		return nil, err
	}
	return sa.signatureAnswer(ctx, row)
}

func (sa *walletSignaturesAPI) signatureAnswer(ctx context.Context, row *schema.WalletSignature) (*signatureOut, error) {
	w, err := sa.wallets.Get(ctx, principalFrom(ctx).Scope, row.WalletID)
	if err != nil {
		return nil, err
	}
	status := http.StatusCreated
	if row.Status == schema.WalletSigQueued || row.Status == schema.WalletSigPendingApproval {
		status = http.StatusAccepted
	}
	return &signatureOut{Status: status, Body: client.WalletSignatureEnvelope{OK: true, Signature: wallet.SignatureToWire(row, w)}}, nil
}

func (sa *walletSignaturesAPI) getSignature(ctx context.Context, in *signatureIDInput) (*signatureOut, error) {
	if sa.wallets == nil {
		return nil, errNoWallets
	}
	row, err := sa.wallets.Signature(ctx, principalFrom(ctx).Scope, in.WalletID, in.SignatureID)
	if err != nil {
		return nil, err
	}
	out, err := sa.signatureAnswer(ctx, row)
	if err == nil {
		out.Status = http.StatusOK
	}
	return out, err
}

// routes are the signature routes under /v1/wallets/{walletId} and seed 002's POST /wallet/sign.
func (sa *walletSignaturesAPI) routes() []Route {
	const tag = "Wallets"
	const one = "/v1/wallets/{walletId}"
	r := func(rt Route, scope client.Scope) Route {
		rt.Tag, rt.Auth, rt.Scope, rt.Service = tag, authKey, scope, client.ServiceManagedWallets
		if rt.Method == http.MethodPost {
			// What is signed is the caller's own text: a message (an EIP-4361 one has line breaks) or typed data.
			rt.FreeText = []string{"message", "typedData"}
		}
		return rt
	}
	return []Route{
		handle(r(Route{Op: client.OpWalletsSignaturesQuote, Method: http.MethodPost, Path: one + "/signatures/quote",
			Summary: "Quote a signature: its digest, what is signed and the policy's verdict, signing nothing", Idem: true, Reads: true},
			client.ScopeWalletsSign), sa.quoteSignature),
		handle(r(Route{Op: client.OpWalletsSignaturesCreate, Method: http.MethodPost, Path: one + "/signatures",
			Summary: "Sign a message, typed data or a transaction: policy, reservation, then the workflow walletsig/<id> signs once",
			Idem:    true, Status: http.StatusCreated, Lease: time.Minute}, client.ScopeWalletsSign), sa.sign),
		handle(r(Route{Op: client.OpWalletsSignaturesRead, Method: http.MethodGet, Path: one + "/signatures/{signatureId}",
			Summary: "Read a wallet signature"}, client.ScopeWalletsRead), sa.getSignature),
		handle(r(Route{Op: client.OpWalletSign, Method: http.MethodPost, Path: "/wallet/sign",
			Summary: "Seed 002: sign with the account's wallet (personal_sign, eth_signTypedData_v4, eth_signTransaction)",
			Idem:    true, Status: http.StatusCreated, Lease: time.Minute}, client.ScopeWalletsSign), sa.rootSign),
	}
}
