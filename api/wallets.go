package api

import (
	"context"
	"net/http"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// walletsAPI serves managed wallets (seed 000's table "Managed wallets"; service access managed-wallets).
type walletsAPI struct {
	// wallets is nil on a server without the encryption key's box: the routes answer 503.
	wallets *wallet.Store
	// chain reads balances; nil answers balances 503.
	chain *wallet.Chain
	// prices turn amounts into USD for the policy.
	prices wallet.Prices
	// starts hand sends to their workflows; nil answers sends 503.
	starts *wallet.Starts
	// db reads a quote's recipient for the calling key's recipient allowlist (keyAllowsRecipient).
	db bun.IDB
}

type sendInput struct {
	WalletID string `path:"walletId" maxLength:"200" doc:"The wallet id (wal_...)."`
	Body     client.CreateTransactionRequest
}

type transactionIDInput struct {
	WalletID      string `path:"walletId" maxLength:"200" doc:"The wallet id (wal_...)."`
	TransactionID string `path:"transactionId" maxLength:"200" doc:"The transaction id (tx_...)."`
}

type walletTxOut struct {
	Status int
	Body   client.WalletTransactionEnvelope
}

// sendTransaction judges, reserves and records a send, then starts its workflow wallettx/<id>.
func (wa *walletsAPI) sendTransaction(ctx context.Context, in *sendInput) (*walletTxOut, error) {
	if wa.wallets == nil || wa.starts == nil {
		return nil, errNoWallets
	}
	p := principalFrom(ctx)
	if err := wa.keyAllowsRecipient(ctx, p, in.WalletID, in.Body.QuoteID, in.Body.To); err != nil {
		return nil, err
	}
	t, err := wa.wallets.CreateTransaction(ctx, wa.chain, wa.prices, wallet.NewTransaction{Scope: p.Scope, KeyID: p.Key.ID,
		WalletID: in.WalletID, ID: newID(ctx, ids.WalletTransaction), Req: in.Body}, time.Now())
	if err != nil {
		return nil, err
	}
	if err := wa.starts.Start(ctx, t); err != nil {
		return nil, err
	}
	return &walletTxOut{Status: http.StatusAccepted, Body: client.WalletTransactionEnvelope{OK: true, Transaction: wallet.TransactionToWire(t)}}, nil
}

func (wa *walletsAPI) getTransaction(ctx context.Context, in *transactionIDInput) (*Out[client.WalletTransactionEnvelope], error) {
	if wa.wallets == nil {
		return nil, errNoWallets
	}
	t, err := wa.wallets.Transaction(ctx, principalFrom(ctx).Scope, in.WalletID, in.TransactionID)
	if err != nil {
		return nil, err
	}
	return reply(client.WalletTransactionEnvelope{OK: true, Transaction: wallet.TransactionToWire(t)})
}

type listTransactionsInput struct {
	WalletID string `path:"walletId" maxLength:"200" doc:"The wallet id (wal_...)."`
	PageQuery
}

func (wa *walletsAPI) listTransactions(ctx context.Context, in *listTransactionsInput) (*Out[client.WalletTransactionList], error) {
	if wa.wallets == nil {
		return nil, errNoWallets
	}
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	var after *time.Time
	afterID := ""
	if pg.After != nil {
		after, afterID = &pg.After.CreatedAt, pg.After.ID
	}
	rows, err := wa.wallets.Transactions(ctx, principalFrom(ctx).Scope, in.WalletID, pg.Limit+1, after, afterID)
	if err != nil {
		return nil, err
	}
	rows, next := page.Next(pg, rows, func(t schema.WalletTransaction) page.Cursor { return page.Cursor{CreatedAt: t.CreatedAt, ID: t.ID} })
	out := client.WalletTransactionList{OK: true, Transactions: make([]client.WalletTransaction, 0, len(rows)), NextCursor: next}
	for i := range rows {
		out.Transactions = append(out.Transactions, wallet.TransactionToWire(&rows[i]))
	}
	return reply(out)
}

type quoteInput struct {
	WalletID string `path:"walletId" maxLength:"200" doc:"The wallet id (wal_...)."`
	Body     client.TransactionQuoteRequest
}

// quoteTransaction prices a send and judges it by the wallet's policy, moving nothing.
func (wa *walletsAPI) quoteTransaction(ctx context.Context, in *quoteInput) (*Out[client.TransactionQuoteEnvelope], error) {
	if wa.wallets == nil {
		return nil, errNoWallets
	}
	if err := wa.keyAllowsRecipient(ctx, principalFrom(ctx), in.WalletID, "", in.Body.To); err != nil {
		return nil, err
	}
	q, err := wa.wallets.Quote(ctx, wa.chain, wa.prices, principalFrom(ctx).Scope, in.WalletID, newID(ctx, ids.Quote), in.Body, time.Now())
	if err != nil {
		return nil, err
	}
	return reply(client.TransactionQuoteEnvelope{OK: true, Quote: q})
}

// errNoWallets answers the wallet routes of a server that cannot keep wallets.
var errNoWallets = svcerr.New(svcerr.Unavailable, "managed wallets are not configured on this server")

type createWalletInput struct {
	Body client.CreateWalletRequest
}

type walletIDInput struct {
	WalletID string `path:"walletId" maxLength:"200" doc:"The wallet id (wal_...)."`
}

type updatePolicyInput struct {
	WalletID string `path:"walletId" maxLength:"200" doc:"The wallet id (wal_...)."`
	Body     client.UpdateWalletPolicyRequest
}

// walletOut is a wallet answer with the status the handler chooses.
type walletOut struct {
	Status int
	Body   client.WalletEnvelope
}

func walletAnswer(w *schema.Wallet, status int) (*walletOut, error) {
	wire, err := wallet.ToWire(w)
	if err != nil {
		return nil, err
	}
	return &walletOut{Status: status, Body: client.WalletEnvelope{OK: true, Wallet: wire}}, nil
}

// createWallet makes a wallet with a fresh key and the default policy.
func (wa *walletsAPI) createWallet(ctx context.Context, in *createWalletInput) (*walletOut, error) {
	if wa.wallets == nil {
		return nil, errNoWallets
	}
	w, err := wa.wallets.Create(ctx, principalFrom(ctx).Scope, newID(ctx, ids.Wallet), in.Body.Name, in.Body.Chain)
	if err != nil {
		return nil, err
	}
	return walletAnswer(w, http.StatusCreated)
}

func (wa *walletsAPI) listWallets(ctx context.Context, in *listInput) (*Out[client.WalletList], error) {
	if wa.wallets == nil {
		return nil, errNoWallets
	}
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	rows, next, err := wa.wallets.List(ctx, principalFrom(ctx).Scope, pg)
	if err != nil {
		return nil, err
	}
	out := client.WalletList{OK: true, Wallets: make([]client.Wallet, 0, len(rows)), NextCursor: next}
	for i := range rows {
		w, err := wallet.ToWire(&rows[i])
		if err != nil {
			return nil, err
		}
		out.Wallets = append(out.Wallets, w)
	}
	return reply(out)
}

func (wa *walletsAPI) getWallet(ctx context.Context, in *walletIDInput) (*walletOut, error) {
	if wa.wallets == nil {
		return nil, errNoWallets
	}
	w, err := wa.wallets.Get(ctx, principalFrom(ctx).Scope, in.WalletID)
	if err != nil {
		return nil, err
	}
	return walletAnswer(w, http.StatusOK)
}

// balances reads the wallet's native and USDC balances from the chain.
func (wa *walletsAPI) balances(ctx context.Context, in *walletIDInput) (*Out[client.WalletBalances], error) {
	if wa.wallets == nil {
		return nil, errNoWallets
	}
	w, err := wa.wallets.Get(ctx, principalFrom(ctx).Scope, in.WalletID)
	if err != nil {
		return nil, err
	}
	if wa.chain == nil {
		return nil, svcerr.New(svcerr.Unavailable, "this server reads no chain (SVC_CHAIN_RPC_URL)")
	}
	bal, block, err := wa.chain.Balances(ctx, wallet.Address(w))
	if err != nil {
		return nil, svcerr.New(svcerr.Unavailable, "the chain did not answer: %v", err)
	}
	return reply(client.WalletBalances{OK: true, WalletID: w.ID, Address: wallet.Address(w).Hex(), Chain: w.Chain, Balances: bal, Block: block})
}

// updatePolicy changes the wallet's policy under its row lock.
func (wa *walletsAPI) updatePolicy(ctx context.Context, in *updatePolicyInput) (*walletOut, error) {
	if wa.wallets == nil {
		return nil, errNoWallets
	}
	if err := ownerOnly(principalFrom(ctx)); err != nil {
		return nil, err
	}
	w, err := wa.wallets.UpdatePolicy(ctx, principalFrom(ctx).Scope, in.WalletID, in.Body, time.Now())
	if err != nil {
		return nil, err
	}
	return walletAnswer(w, http.StatusOK)
}

// routes are the wallet routes of this slice (sends and signatures come with their workflows).
func (wa *walletsAPI) routes() []Route {
	const tag = "Wallets"
	const one = "/v1/wallets/{walletId}"
	r := func(rt Route, scope client.Scope) Route {
		rt.Tag, rt.Auth, rt.Scope, rt.Service = tag, authKey, scope, client.ServiceManagedWallets
		return rt
	}
	return []Route{
		handle(r(Route{Op: client.OpWalletsCreate, Method: http.MethodPost, Path: "/v1/wallets", Summary: "Create a managed wallet with a fresh key",
			Idem: true, Status: http.StatusCreated}, client.ScopeWalletsCreate), wa.createWallet),
		handle(r(Route{Op: client.OpWalletsList, Method: http.MethodGet, Path: "/v1/wallets", Summary: "List wallets, newest first"},
			client.ScopeWalletsRead), wa.listWallets),
		handle(r(Route{Op: client.OpWalletsRead, Method: http.MethodGet, Path: one, Summary: "Read a wallet: address, chain, policy"},
			client.ScopeWalletsRead), wa.getWallet),
		handle(r(Route{Op: client.OpWalletsBalancesRead, Method: http.MethodGet, Path: one + "/balances",
			Summary: "Read a wallet's native and USDC balances from the chain"}, client.ScopeWalletsRead), wa.balances),
		handle(r(Route{Op: client.OpWalletsPolicyUpdate, Method: http.MethodPatch, Path: one + "/policy",
			Summary: "Change a wallet's policy (seed 002's controls): a web session or a top-level key", Idem: true, Session: true}, client.ScopeApprovalsWrite), wa.updatePolicy),
		handle(r(Route{Op: client.OpWalletsTransactionsQuote, Method: http.MethodPost, Path: one + "/transactions/quote",
			Summary: "Quote a send: amount, USD value, fee and the policy's verdict, moving nothing", Idem: true, Reads: true},
			client.ScopeWalletsTransact), wa.quoteTransaction),
		handle(r(Route{Op: client.OpWalletsTransactionsCreate, Method: http.MethodPost, Path: one + "/transactions",
			Summary: "Send from a wallet: policy, reservation, then the workflow wallettx/<id> signs, broadcasts and confirms", Idem: true,
			Lease: time.Minute}, client.ScopeWalletsTransact), wa.sendTransaction),
		handle(r(Route{Op: client.OpWalletsTransactionsList, Method: http.MethodGet, Path: one + "/transactions",
			Summary: "List a wallet's transactions, newest first"}, client.ScopeWalletsRead), wa.listTransactions),
		handle(r(Route{Op: client.OpWalletsTransactionsRead, Method: http.MethodGet, Path: one + "/transactions/{transactionId}",
			Summary: "Read a wallet transaction"}, client.ScopeWalletsRead), wa.getTransaction),
	}
}
