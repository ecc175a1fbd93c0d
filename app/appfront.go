package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/appfront"
	"github.com/svcplatform/svc/internal/apprun"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// App frontends (issue 26): the apps store as the frontend and script runs see it, and the frontend's
// viewer API service.

// appsStore is the apps capability on the platform's files (nil blobs: the default local blob store).
func appsStore(db *bun.DB, blobs blob.Store, opts file.Options, log *slog.Logger) *apps.Store {
	if blobs == nil {
		blobs = blob.NewLocal(DefaultBlobDir)
	}
	return apps.NewStore(db, file.NewStore(db, opts), blob.WithPrefix(blobs, FilePrefix), nil, log)
}

// appFrontService answers app frontends: nil without a database or secret box.
func appFrontService(d APIDeps, runs *apprun.Service) *appfront.Service {
	if d.DB == nil || d.Box == nil {
		return nil
	}
	store := appsStore(d.DB, d.Blobs, d.Files, d.Logger)
	s := &appfront.Service{Apps: frontApps{store: store, db: d.DB}, Signer: appfront.NewSigner(d.Box.Derive("app-viewer"), nil)}
	if runs != nil {
		s.Runs = frontRuns{runs: runs}
	}
	return s
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
}

// Run starts the script as trigger frontend and answers the run (finished, or still going after the
// service's wait).
func (f frontRuns) Run(ctx context.Context, a *appfront.App, v appfront.Viewer, script string, args json.RawMessage) (json.RawMessage, error) {
	r, _, err := f.runs.Start(ctx, apprun.StartRequest{Scope: a.Scope, RunID: ids.New(ids.AppScriptRun), Slug: a.Slug, Script: script,
		Trigger: schema.AppRunByFrontend, Viewer: v.AccountID, Anonymous: v.Anonymous, Args: args})
	if err != nil {
		return nil, err
	}
	return json.Marshal(r)
}
