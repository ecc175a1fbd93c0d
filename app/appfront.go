package app

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/appfront"
	"github.com/svcplatform/svc/internal/apppay"
	"github.com/svcplatform/svc/internal/apprun"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// App frontends (issue 26): the apps store as the frontend and script runs see it, and the frontend's
// viewer API service.

// appFrontService answers app frontends over the API's apps store: nil without a database or secret box.
func appFrontService(d APIDeps, store *apps.Store, runs *apprun.Service, wallets *wallet.Store) *appfront.Service {
	if d.DB == nil || d.Box == nil {
		return nil
	}
	s := &appfront.Service{Apps: frontApps{store: store, db: d.DB}, Signer: appfront.NewSigner(d.Box.Derive("app-viewer"), nil),
		Payments: appFrontPayments(d, wallets), Skills: frontSkillsOf(d)}
	if runs != nil {
		s.Runs = frontRuns{runs: runs, apps: store}
	}
	if wallets != nil {
		s.Wallets = frontWallets{wallets: wallets}
	}
	if d.Temporal != nil {
		s.Agent = frontAgent{agent: agentService(d), apps: store}
	}
	s.Transactions = frontTransactionsOf(d, store, wallets)
	return s
}

// frontTransactionsOf sends what app owners confirm from their managed wallets: nil (confirmTransaction
// answers not available) without wallets, Temporal or a chain.
func frontTransactionsOf(d APIDeps, store *apps.Store, wallets *wallet.Store) appfront.Transactions {
	if wallets == nil || d.Temporal == nil {
		return nil
	}
	chain := walletChain(d)
	if chain == nil {
		return nil
	}
	t := frontTransactions{wallets: wallets, chain: chain, starts: walletStarts(wallets, d), apps: store, keys: apikey.NewStore(d.DB),
		prices: wallet.Prices{NativeCents: int64(math.Round(d.NativeUSDPrice * 100))}}
	if d.X402 != nil {
		t.chainID = d.X402.ChainID
	}
	return t
}

// frontApps adapts apps.Store to appfront.Apps.
type frontApps struct {
	store *apps.Store
	db    *bun.DB
}

// Find reads owner's app: any sharing for its owner (the app's row names its project), unlisted or
// public for anyone else.
func (f frontApps) Find(ctx context.Context, owner, slug string, v appfront.Viewer) (*appfront.App, error) {
	if err := apps.ValidateSlug("slug", slug); err != nil {
		return nil, svcerr.NotFoundf("no app %q", slug).WithDetails("slug", slug)
	}
	var a *apps.App
	var err error
	if v.Owner && v.AccountID == owner {
		a, err = f.ownApp(ctx, owner, slug)
	} else {
		a, err = f.store.GetShared(ctx, owner, slug)
	}
	if err != nil {
		return nil, err
	}
	return frontApp(a), nil
}

// ownApp reads the owner's app in the project it was made in.
func (f frontApps) ownApp(ctx context.Context, owner, slug string) (*apps.App, error) {
	var project sql.NullString
	err := f.db.NewSelect().Table("apps").Column("project_id").Where("account_id = ? AND slug = ?", owner, slug).Scan(ctx, &project)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("no app %q", slug).WithDetails("slug", slug)
	}
	if err != nil {
		return nil, fmt.Errorf("read the project of app %s: %w", slug, err)
	}
	scope := tenant.Scope{AccountID: owner}
	if project.Valid {
		scope.ProjectID = &project.String
	}
	return f.store.Get(ctx, scope, slug)
}

func frontApp(a *apps.App) *appfront.App {
	m := a.Manifest
	out := &appfront.App{ID: a.ID, AccountID: a.AccountID, Scope: a.Scope(), Slug: a.Slug, Title: m.Title, Sharing: a.Sharing,
		FrontendIdentity: m.FrontendIdentity, Permissions: m.Permissions, Secrets: m.Secrets}
	if out.FrontendIdentity == "" {
		out.FrontendIdentity = appfront.IdentityOwner
	}
	if m.X402 != nil {
		out.X402 = &appfront.X402Config{MaxPaymentUsdPerCall: m.X402.MaxPaymentUsdPerCall, AllowedHosts: m.X402.AllowedHosts}
	}
	return out
}

// row reads the apps row again (the store's access rules take its own App).
func (f frontApps) row(ctx context.Context, a *appfront.App) (*apps.App, error) {
	return f.store.Get(ctx, a.Scope, a.Slug)
}

// Index reads the app's index.html.
func (f frontApps) Index(ctx context.Context, a *appfront.App) ([]byte, error) {
	row, err := f.row(ctx, a)
	if err != nil {
		return nil, err
	}
	return f.store.ReadFile(ctx, row, "index.html")
}

// KV performs an appKV operation under the apps capability's access rules.
func (f frontApps) KV(ctx context.Context, a *appfront.App, v appfront.Viewer, op, key string, value json.RawMessage) (json.RawMessage, error) {
	row, err := f.row(ctx, a)
	if err != nil {
		return nil, err
	}
	return kvOp(ctx, f.store, row, apps.Viewer{AccountID: v.AccountID, Owner: v.Owner, Anonymous: v.Anonymous}, op, key, value)
}

// kvOp performs one appKV operation and answers its JSON: get the value, set and delete {key}, list the keys.
func kvOp(ctx context.Context, store *apps.Store, a *apps.App, v apps.Viewer, op, key string, value json.RawMessage) (json.RawMessage, error) {
	switch op {
	case "get":
		return store.KVGet(ctx, a, v, key)
	case "set":
		if err := store.KVSet(ctx, a, v, key, value); err != nil {
			return nil, err
		}
	case "delete":
		if err := store.KVDelete(ctx, a, v, key); err != nil {
			return nil, err
		}
	case "list":
		keys, err := store.KVList(ctx, a, v)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"keys": keys})
	default:
		return nil, fmt.Errorf("appKV operation %q", op)
	}
	return json.Marshal(map[string]any{"key": key})
}

// frontRuns adapts apprun.Service to appfront.Runs: a frontend run of the signed-in viewer.
type frontRuns struct {
	runs *apprun.Service
	apps *apps.Store
}

// Run starts the script as trigger frontend and answers the run (finished, or still going after the
// service's wait).
// Its platform calls act as the app's key (apps.Store.ActingKey) within the manifest's permissions.
func (f frontRuns) Run(ctx context.Context, a *appfront.App, v appfront.Viewer, script string, args json.RawMessage) (json.RawMessage, error) {
	key, err := f.apps.ActingKey(ctx, a.Scope, a.Slug)
	if err != nil {
		return nil, err
	}
	r, _, err := f.runs.Start(ctx, apprun.StartRequest{Scope: a.Scope, RunID: ids.New(ids.AppScriptRun), Slug: a.Slug, Script: script,
		Trigger: schema.AppRunByFrontend, Viewer: v.AccountID, Anonymous: v.Anonymous, KeyID: key, Args: args})
	if err != nil {
		return nil, err
	}
	return json.Marshal(r)
}

// firstWallet is the scope's first managed wallet as the wallet list answers it (the one app scripts'
// wallet.identity reads): the wallet an app shows and pays from.
func firstWallet(ctx context.Context, wallets *wallet.Store, scope tenant.Scope) (*schema.Wallet, error) {
	list, _, err := wallets.List(ctx, scope, page.Params{Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, svcerr.NotFoundf("the account has no managed wallet (svc wallets create)")
	}
	return &list[0], nil
}

// frontWallets answers the frontend's wallet reads: the first managed wallet's id and address.
type frontWallets struct {
	wallets *wallet.Store
}

// Wallet answers {id, address} of scope's first managed wallet.
func (f frontWallets) Wallet(ctx context.Context, scope tenant.Scope) (json.RawMessage, error) {
	w, err := firstWallet(ctx, f.wallets, scope)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"id": w.ID, "address": w.Address})
}

// frontPayments adapts apppay.Service to appfront.Payments: the owner's first managed wallet pays,
// within the manifest's x402 bounds, counted per visitor (the viewer's account, or the anonymous hash).
type frontPayments struct {
	pay     *apppay.Service
	wallets *wallet.Store
}

// Fetch makes the app's x402 call.
func (f frontPayments) Fetch(ctx context.Context, a *appfront.App, v appfront.Viewer, r appfront.X402Request) (json.RawMessage, error) {
	w, err := firstWallet(ctx, f.wallets, a.Scope)
	if err != nil {
		return nil, err
	}
	res, err := f.pay.Fetch(ctx, apppay.Request{AccountID: a.AccountID, ProjectID: a.Scope.ProjectID, AppSlug: a.Slug,
		Visitor: cmp.Or(v.AccountID, v.Visitor), WalletID: w.ID, MaxPaymentUsdPerCall: a.X402.MaxPaymentUsdPerCall,
		AllowedHosts: a.X402.AllowedHosts, URL: r.URL, Method: cmp.Or(r.Method, http.MethodGet), Headers: r.Headers,
		Body: []byte(r.Body), MaxPaymentUsd: r.MaxPaymentUsd})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// appFrontPayments is apps' x402 pay-per-call from the owner's wallet: nil (x402.fetch answers not
// available) without managed wallets or an x402 configuration naming the chain and its USDC.
func appFrontPayments(d APIDeps, wallets *wallet.Store) appfront.Payments {
	if wallets == nil || d.X402 == nil {
		return nil
	}
	pay, err := apppay.New(apppay.Config{DB: d.DB, Wallets: wallets, Network: d.X402.Network, USDC: d.X402.Asset,
		AllowLoopback: d.AllowLoopback, Log: d.Logger})
	if err != nil {
		if d.Logger != nil {
			d.Logger.Warn("app x402 payments are off", "err", err)
		}
		return nil
	}
	return frontPayments{pay: pay, wallets: wallets}
}
