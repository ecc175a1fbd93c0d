package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/handles"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/wallet"
)

// walletRootAPI serves seed 002's wallet routes at the host root: POST /wallet/transfer, POST
// /wallet/submit and GET /wallet/portfolio. A request names its wallet (walletId) or means the
// account's first wallet; transfer and submit become the send body of POST
// /v1/wallets/{walletId}/transactions and run through the same handler: the same policy, reservation
// and workflow wallettx/<id>.
type walletRootAPI struct {
	// sends is the /v1 wallets API whose send handler both write routes use.
	sends *walletsAPI
	// names is the handle resolver of transfer's to.
	names *handles.Resolver
}

type transferInput struct {
	Body client.WalletTransferRequest
}

// transfer sends an amount of the native asset or a token to an address or a known name.
func (ra *walletRootAPI) transfer(ctx context.Context, in *transferInput) (*walletTxOut, error) {
	if ra.sends.wallets == nil || ra.sends.starts == nil {
		return nil, errNoWallets
	}
	w, err := ra.sends.wallets.Pick(ctx, principalFrom(ctx).Scope, in.Body.WalletID)
	if err != nil {
		return nil, err
	}
	req, err := wallet.TransferRequest(w, ra.names, in.Body)
	if err != nil {
		return nil, err
	}
	return ra.sends.sendTransaction(ctx, &sendInput{WalletID: w.ID, Body: req})
}

type submitInput struct {
	Body client.WalletSubmitRequest
}

// submit sends a raw transaction's, or the given, recipient, value and call data.
func (ra *walletRootAPI) submit(ctx context.Context, in *submitInput) (*walletTxOut, error) {
	if ra.sends.wallets == nil || ra.sends.starts == nil {
		return nil, errNoWallets
	}
	w, err := ra.sends.wallets.Pick(ctx, principalFrom(ctx).Scope, in.Body.WalletID)
	if err != nil {
		return nil, err
	}
	req, err := ra.sends.chain.SubmitRequest(w, in.Body)
	if err != nil {
		return nil, err
	}
	return ra.sends.sendTransaction(ctx, &sendInput{WalletID: w.ID, Body: req})
}

type portfolioInput struct {
	WalletID string `query:"walletId" maxLength:"200" doc:"The wallet (wal_…); left out, the account's first wallet (the oldest)."`
	Chain    string `query:"chain" maxLength:"100" doc:"The wallet's chain (CAIP-2 or numeric id); another chain is refused."`
}

// portfolio reads the wallet's balances from the chain with their USD values.
func (ra *walletRootAPI) portfolio(ctx context.Context, in *portfolioInput) (*Out[client.WalletPortfolioEnvelope], error) {
	if ra.sends.wallets == nil {
		return nil, errNoWallets
	}
	w, err := ra.sends.wallets.Pick(ctx, principalFrom(ctx).Scope, in.WalletID)
	if err != nil {
		return nil, err
	}
	if err := wallet.CheckChain("chain", in.Chain, w); err != nil {
		return nil, err
	}
	if ra.sends.chain == nil {
		return nil, svcerr.New(svcerr.Unavailable, "this server reads no chain (SVC_CHAIN_RPC_URL)")
	}
	p, err := ra.sends.chain.Portfolio(ctx, ra.sends.prices, w)
	if err != nil {
		return nil, svcerr.New(svcerr.Unavailable, "the chain did not answer: %v", err)
	}
	return reply(client.WalletPortfolioEnvelope{OK: true, Portfolio: p})
}

// routes are seed 002's wallet routes at the host root; their limit operations are the /v1 routes'
// (wallets.transactions.create, wallets.balances.read).
func (ra *walletRootAPI) routes() []Route {
	r := func(rt Route, scope client.Scope) Route {
		rt.Tag, rt.Auth, rt.Scope, rt.Service = "Wallets", authKey, scope, client.ServiceManagedWallets
		return rt
	}
	return []Route{
		handle(r(Route{Op: client.OpWalletTransfer, Limit: client.OpWalletsTransactionsCreate, Method: http.MethodPost, Path: "/wallet/transfer",
			Summary: "Transfer from the key's wallet (seed 002): the same policy and workflow as POST /v1/wallets/{walletId}/transactions",
			Idem:    true, Status: http.StatusAccepted, Lease: time.Minute}, client.ScopeWalletsTransact), ra.transfer),
		handle(r(Route{Op: client.OpWalletSubmit, Limit: client.OpWalletsTransactionsCreate, Method: http.MethodPost, Path: "/wallet/submit",
			Summary: "Submit a transaction from the key's wallet (seed 002): refused under disableContractCalls when it calls a contract",
			Idem:    true, Status: http.StatusAccepted, Lease: time.Minute}, client.ScopeWalletsTransact), ra.submit),
		handle(r(Route{Op: client.OpWalletPortfolio, Limit: client.OpWalletsBalancesRead, Method: http.MethodGet, Path: "/wallet/portfolio",
			Summary: "Read the key's wallet's balances with their USD values"}, client.ScopeWalletsRead), ra.portfolio),
	}
}
