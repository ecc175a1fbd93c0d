package apprun

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
)

// AppsStore is the apps capability (internal/apps.Store) as runs' Apps.
type AppsStore struct {
	Store *apps.Store
}

// App implements Apps.
func (s AppsStore) App(ctx context.Context, scope tenant.Scope, slug string) (*App, error) {
	a, err := s.Store.Get(ctx, scope, slug)
	if err != nil {
		return nil, err
	}
	return &App{ID: a.ID, Slug: a.Slug, Scope: a.Scope(), Permissions: a.Manifest.Permissions, Scripts: a.Manifest.Scripts,
		Secrets: a.Manifest.Secrets, source: a}, nil
}

// Script implements Apps: the script of the app App read (no second read of the app).
func (s AppsStore) Script(ctx context.Context, app *App, name string) (string, error) {
	a, ok := app.source.(*apps.App)
	if !ok {
		return "", fmt.Errorf("app %s was not read from the apps store", app.Slug)
	}
	return s.Store.Script(ctx, a, name)
}

// KV implements Apps: appKV.get(key), set(key, value), delete(key), list().
func (s AppsStore) KV(ctx context.Context, app *App, v Viewer, op string, args []json.RawMessage) (json.RawMessage, error) {
	a, ok := app.source.(*apps.App)
	if !ok {
		return nil, fmt.Errorf("app %s was not read from the apps store", app.Slug)
	}
	viewer := apps.Viewer{AccountID: v.AccountID, Owner: v.Owner}
	if op == "list" {
		keys, err := s.Store.KVList(ctx, a, viewer)
		if err != nil {
			return nil, err
		}
		return json.Marshal(keys)
	}
	key, err := stringArg(args, 0, "key")
	if err != nil {
		return nil, err
	}
	switch op {
	case "get":
		val, err := s.Store.KVGet(ctx, a, viewer, key)
		if svcerr.Is(err, svcerr.NotFound) {
			return json.RawMessage(`null`), nil // an unset key reads as null in a script
		}
		return val, err
	case "set":
		if len(args) < 2 {
			return nil, fmt.Errorf("argument 2 (value) is required")
		}
		return json.RawMessage(`true`), s.Store.KVSet(ctx, a, viewer, key, args[1])
	case "delete":
		return json.RawMessage(`true`), s.Store.KVDelete(ctx, a, viewer, key)
	}
	return nil, fmt.Errorf("appKV.%s is not a method", op)
}
