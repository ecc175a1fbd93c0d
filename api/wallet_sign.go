package api

import (
	"context"

	"github.com/svcplatform/svc/client"
)

// rootSignInput is seed 002's POST /wallet/sign.
type rootSignInput struct {
	Body client.RootSignRequest
}

// rootSign is seed 002's POST /wallet/sign at the host root: the same signature, policy and workflow
// as POST /v1/wallets/{walletId}/signatures, of the wallet the body names or else the account's first
// wallet. It authenticates like every route (X-API-Key or Authorization: Bearer) and needs wallets:sign,
// so a read-only key gets 403.
func (sa *walletSignaturesAPI) rootSign(ctx context.Context, in *rootSignInput) (*signatureOut, error) {
	if sa.wallets == nil {
		return nil, errNoWallets
	}
	w, err := sa.wallets.Pick(ctx, principalFrom(ctx).Scope, in.Body.WalletID)
	if err != nil {
		return nil, err
	}
	return sa.signWith(ctx, w.ID, in.Body.SignatureRequest)
}
