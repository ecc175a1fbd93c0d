package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/cryptorail"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/topup"
	"github.com/svcplatform/svc/internal/wallet"
)

// cryptoAPI serves the payment rails of seed 001's tool server (issue 22): GET /api/crypto/capabilities
// lists them for the caller, POST selects one or prepares its request. Nothing here spends.
type cryptoAPI struct {
	ledger  *ledger.Ledger
	topups  *topup.Service
	wallets *wallet.Store
	// sends is nil when the server cannot send from wallets.
	sends *wallet.Starts
}

// walletsListed bounds the wallets one answer lists.
const walletsListed = page.MaxLimit

// facts gathers what the caller's key may see: the balance, the top-up offer and the wallets.
func (ca *cryptoAPI) facts(ctx context.Context) (cryptorail.Facts, error) {
	p := principalFrom(ctx)
	g := apikey.Grants{}
	if p.Key != nil {
		g = apikey.GrantsOf(p.Key)
	}
	f := cryptorail.Facts{CreditsPerUSD: topup.CreditsPerUSD, CanTopUp: g.HasScope(client.ScopeCreditsWrite),
		WalletsConfigured: ca.wallets != nil && ca.sends != nil,
		CanSend:           g.HasScope(client.ScopeWalletsTransact) && g.HasService(client.ServiceManagedWallets)}
	if o := ca.topups.Offer(); o != nil {
		f.X402 = &cryptorail.X402Offer{Network: o.Network, Asset: o.Asset.Hex(), PayTo: o.PayTo.Hex()}
	}
	if g.HasScope(client.ScopeCreditsRead) {
		b, err := ca.ledger.Balance(ctx, p.Scope.AccountID)
		if err != nil {
			return f, fmt.Errorf("read balance: %w", err)
		}
		credits := ledger.BalanceToWire(b).Credits
		f.Balance = &credits
	}
	if f.WalletsConfigured && f.CanSend {
		ws, err := ca.walletList(ctx)
		if err != nil {
			return f, err
		}
		f.Wallets = ws
	}
	return f, nil
}

// walletList is the caller's wallets as the wallet-send rail shows them.
func (ca *cryptoAPI) walletList(ctx context.Context) ([]client.CryptoWallet, error) {
	rows, _, err := ca.wallets.List(ctx, principalFrom(ctx).Scope, page.Params{Limit: walletsListed})
	if err != nil {
		return nil, err
	}
	out := make([]client.CryptoWallet, 0, len(rows))
	for i := range rows {
		w, err := wallet.ToWire(&rows[i])
		if err != nil {
			return nil, err
		}
		out = append(out, client.CryptoWallet{ID: w.ID, Name: w.Name, Address: w.Address, Chain: w.Chain, Paused: w.Policy.Paused,
			PerTransactionLimitUSD: w.Policy.PerTransactionLimitUSD, DailyLimitUSD: w.Policy.DailyLimitUSD})
	}
	return out, nil
}

// capabilities lists the rails and whether the caller can use each.
func (ca *cryptoAPI) capabilities(ctx context.Context, _ *struct{}) (*Out[client.CryptoCapabilities], error) {
	f, err := ca.facts(ctx)
	if err != nil {
		return nil, err
	}
	return reply(client.CryptoCapabilities{OK: true, CreditsPerUSD: f.CreditsPerUSD, Rails: cryptorail.Rails(f)})
}

type cryptoActionInput struct {
	Body client.CryptoActionRequest
}

// action selects a rail for an amount and a purpose and, for prepare, returns its request unsent.
func (ca *cryptoAPI) action(ctx context.Context, in *cryptoActionInput) (*Out[client.CryptoActionEnvelope], error) {
	purpose, err := cryptorail.CheckRequest(in.Body)
	if err != nil {
		return nil, err
	}
	f, err := ca.facts(ctx)
	if err != nil {
		return nil, err
	}
	sel, err := cryptorail.Select(f, in.Body, purpose)
	if err != nil {
		return nil, err
	}
	out := client.CryptoActionEnvelope{OK: true, Action: in.Body.Action, Selection: sel}
	if in.Body.Action == client.CryptoPrepare {
		out.Prepared, err = cryptorail.Prepare(f, in.Body, sel, stateFrom(ctx).origin, suggestedKey())
		if err != nil {
			return nil, err
		}
	}
	return reply(out)
}

// suggestedKey is a fresh Idempotency-Key for a prepared request.
func suggestedKey() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "prepared-" + hex.EncodeToString(b)
}

// routes are the payment-rail routes, at the host root beside /api/handoff and with its auth.
func (ca *cryptoAPI) routes() []Route {
	const tag = "Payment rails"
	return []Route{
		handle(Route{Op: client.OpCryptoCapabilitiesRead, Method: http.MethodGet, Path: "/api/crypto/capabilities", Tag: tag, Auth: authKey,
			Scope:   client.ScopeRunsWrite,
			Summary: "List the payment rails (credits, x402 top-up, managed wallet send) with what each needs, its limits and whether this key can use it"},
			ca.capabilities),
		handle(Route{Op: client.OpCryptoCapabilitiesSelect, Method: http.MethodPost, Path: "/api/crypto/capabilities", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsWrite, Reads: true,
			Summary: "Select a payment rail for an amount and a purpose, or prepare the exact request to make on it; never spends"},
			ca.action),
	}
}
