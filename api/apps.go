package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apprun"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
)

// appsAPI serves apps (issue 26): create from a ZIP or JSON, read, list, write a file, share, delete, the
// public directory, and the owner's appKV. Scopes runs:read / runs:write and service access
// managed-agents, like the agent's routes; the directory needs no key.
type appsAPI struct {
	// apps is nil on a server without the files capability's blob store: the routes answer 503.
	apps *apps.Store
	// automations keep the manifests' schedule entries (apprun.SyncSchedules); nil keeps none.
	automations *automation.Service
}

var errNoApps = svcerr.New(svcerr.Unavailable, "apps are not configured on this server (no file store)")

// appToWire is an app as its owner sees it, with its files when files is not nil.
func appToWire(a *apps.App, files []apps.File) client.App {
	out := client.App{ID: a.ID, Slug: a.Slug, Sharing: a.Sharing, CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC()}
	if a.ProjectID != "" {
		p := a.ProjectID
		out.ProjectID = &p
	}
	out.Manifest = manifestToWire(a.Manifest)
	for _, f := range files {
		out.Files = append(out.Files, client.AppFile{Path: f.Path, FileID: f.FileID, MediaType: f.MediaType, Bytes: f.Bytes,
			SHA256: f.SHA256, UpdatedAt: f.UpdatedAt.UTC()})
	}
	return out
}

func manifestToWire(m apps.Manifest) client.AppManifest {
	out := client.AppManifest{Slug: m.Slug, Title: m.Title, Description: m.Description, Tags: m.Tags, Permissions: m.Permissions,
		Scripts: m.Scripts, Secrets: m.Secrets, PublicDataKeys: m.PublicDataKeys, FrontendIdentity: m.FrontendIdentity}
	for _, e := range m.Schedule {
		out.Schedule = append(out.Schedule, client.AppScheduleEntry{Script: e.Script, Cron: e.Cron, Enabled: e.Enabled})
	}
	if m.X402 != nil {
		out.X402 = &client.AppX402{MaxPaymentUsdPerCall: m.X402.MaxPaymentUsdPerCall, AllowedHosts: m.X402.AllowedHosts}
	}
	return out
}

// withFiles answers the app with its file list.
func (a *appsAPI) withFiles(ctx context.Context, app *apps.App) (*Out[client.AppEnvelope], error) {
	files, err := a.apps.Files(ctx, app)
	if err != nil {
		return nil, err
	}
	return reply(client.AppEnvelope{OK: true, App: appToWire(app, files)})
}

type createAppInput struct {
	ContentType string `header:"Content-Type" doc:"application/zip (a ZIP of the app folder) or application/json ({manifest, files})."`
}

// createApp reads the app folder from the body (a ZIP or the JSON form), validates all of it, and
// stores it; nothing is kept on a refusal.
func (a *appsAPI) createApp(ctx context.Context, in *createAppInput) (*Out[client.AppEnvelope], error) {
	if a.apps == nil {
		return nil, errNoApps
	}
	files, err := readFolderUpload(ctx, in.ContentType, apps.MaxUploadBytes, map[string]folderReader{
		client.MediaTypeZip: apps.ReadZip,
		"application/json":  apps.ReadJSON,
	}, "an app is sent as application/zip (its folder zipped) or application/json ({manifest, files})")
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	app, err := a.apps.Create(ctx, apps.NewApp{ID: newID(ctx, apps.IDPrefix), Scope: p.Scope, KeyID: p.keyID(), Files: files})
	if err != nil {
		return nil, err
	}
	if err := a.syncSchedules(ctx, app); err != nil {
		// Nothing is kept on a refusal: the app goes with the automations made so far.
		a.undoCreate(context.WithoutCancel(ctx), app)
		return nil, err
	}
	return a.withFiles(ctx, app)
}

// syncSchedules makes the app's automations match its manifest's schedule, as the caller's key.
func (a *appsAPI) syncSchedules(ctx context.Context, app *apps.App) error {
	keyID := ""
	if k := principalFrom(ctx).keyID(); k != nil {
		keyID = *k
	}
	return apprun.SyncSchedules(ctx, a.automations, app, keyID)
}

// undoCreate removes an app whose schedules could not be synced, with its automations (best effort:
// the create answers the sync's error).
func (a *appsAPI) undoCreate(ctx context.Context, app *apps.App) {
	_ = apprun.RemoveSchedules(ctx, a.automations, app)
	_, _ = a.apps.Delete(ctx, app.Scope(), app.Slug)
}

// readAppBody reads a raw body of at most limit bytes.
func readAppBody(ctx context.Context, limit int64) ([]byte, error) {
	body, length := rawBodyFrom(ctx)
	if body == nil {
		return nil, svcerr.Invalid("body", "the request has no body")
	}
	if length > limit {
		return nil, svcerr.New(svcerr.PayloadTooLarge, "the body has %d bytes, more than %d", length, limit)
	}
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, svcerr.Invalid("body", "the body could not be read: %v", err)
	}
	if int64(len(data)) > limit {
		return nil, svcerr.New(svcerr.PayloadTooLarge, "the body has more than %d bytes", limit)
	}
	return data, nil
}

func (a *appsAPI) listApps(ctx context.Context, in *PageQuery) (*Out[client.AppList], error) {
	if a.apps == nil {
		return nil, errNoApps
	}
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	list, next, err := a.apps.List(ctx, principalFrom(ctx).Scope, pg)
	if err != nil {
		return nil, err
	}
	out := client.AppList{OK: true, Apps: make([]client.App, 0, len(list)), NextCursor: next}
	for _, app := range list {
		out.Apps = append(out.Apps, appToWire(app, nil))
	}
	return reply(out)
}

func (a *appsAPI) listPublic(ctx context.Context, in *PageQuery) (*Out[client.PublicAppList], error) {
	if a.apps == nil {
		return nil, errNoApps
	}
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	list, next, err := a.apps.ListPublic(ctx, pg)
	if err != nil {
		return nil, err
	}
	out := client.PublicAppList{OK: true, Apps: make([]client.PublicApp, 0, len(list)), NextCursor: next}
	for _, app := range list {
		tags := app.Manifest.Tags
		if tags == nil {
			tags = []string{}
		}
		out.Apps = append(out.Apps, client.PublicApp{Owner: app.AccountID, Slug: app.Slug, Title: app.Manifest.Title,
			Description: app.Manifest.Description, Tags: tags, CreatedAt: app.CreatedAt.UTC()})
	}
	return reply(out)
}

type appSlugInput struct {
	Slug string `path:"slug" maxLength:"64" doc:"The app's slug."`
}

func (a *appsAPI) getApp(ctx context.Context, in *appSlugInput) (*Out[client.AppEnvelope], error) {
	if a.apps == nil {
		return nil, errNoApps
	}
	app, err := a.apps.Get(ctx, principalFrom(ctx).Scope, in.Slug)
	if err != nil {
		return nil, err
	}
	return a.withFiles(ctx, app)
}

type updateAppInput struct {
	Slug string `path:"slug" maxLength:"64" doc:"The app's slug."`
	Body client.UpdateAppRequest
}

func (a *appsAPI) updateApp(ctx context.Context, in *updateAppInput) (*Out[client.AppEnvelope], error) {
	if a.apps == nil {
		return nil, errNoApps
	}
	app, err := a.apps.SetSharing(ctx, principalFrom(ctx).Scope, in.Slug, in.Body.Sharing)
	if err != nil {
		return nil, err
	}
	return a.withFiles(ctx, app)
}

func (a *appsAPI) deleteApp(ctx context.Context, in *appSlugInput) (*Out[client.AppEnvelope], error) {
	if a.apps == nil {
		return nil, errNoApps
	}
	app, err := a.apps.Delete(ctx, principalFrom(ctx).Scope, in.Slug)
	if err != nil {
		return nil, err
	}
	if err := apprun.RemoveSchedules(ctx, a.automations, app); err != nil {
		return nil, err
	}
	return reply(client.AppEnvelope{OK: true, App: appToWire(app, nil)})
}

type appFileInput struct {
	Slug string `path:"slug" maxLength:"64" doc:"The app's slug."`
	Path string `path:"path" maxLength:"255" doc:"manifest.json or index.html, or the folder (scripts, data, designs) of a two-part path."`
	Name string `path:"name" maxLength:"255" doc:"The file's name in the folder (main.ts, <key>.json, ...)."`
}

type appTopFileInput struct {
	Slug string `path:"slug" maxLength:"64" doc:"The app's slug."`
	Path string `path:"path" maxLength:"255" doc:"manifest.json or index.html."`
}

// putFile writes a file of the app's folder from the raw body; a manifest.json is validated again.
func (a *appsAPI) putFile(ctx context.Context, in *appFileInput) (*Out[client.AppEnvelope], error) {
	if a.apps == nil {
		return nil, errNoApps
	}
	path := in.Path
	if in.Name != "" {
		path += "/" + in.Name
	}
	data, err := readAppBody(ctx, apps.MaxAppBytes)
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	app, err := a.apps.PutFile(ctx, p.Scope, p.keyID(), in.Slug, path, data)
	if err != nil {
		return nil, err
	}
	if path == apps.ManifestPath {
		if err := a.syncSchedules(ctx, app); err != nil {
			return nil, err
		}
	}
	return a.withFiles(ctx, app)
}

func (a *appsAPI) putTopFile(ctx context.Context, in *appTopFileInput) (*Out[client.AppEnvelope], error) {
	return a.putFile(ctx, &appFileInput{Slug: in.Slug, Path: in.Path})
}

// ownerApp answers the caller's app and the caller as its owner viewer.
func (a *appsAPI) ownerApp(ctx context.Context, slug string) (*apps.App, apps.Viewer, error) {
	if a.apps == nil {
		return nil, apps.Viewer{}, errNoApps
	}
	scope := principalFrom(ctx).Scope
	app, err := a.apps.Get(ctx, scope, slug)
	if err != nil {
		return nil, apps.Viewer{}, err
	}
	return app, apps.Viewer{AccountID: scope.AccountID, Owner: true}, nil
}

func (a *appsAPI) listKV(ctx context.Context, in *appSlugInput) (*Out[client.AppKVKeys], error) {
	app, v, err := a.ownerApp(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	keys, err := a.apps.KVList(ctx, app, v)
	if err != nil {
		return nil, err
	}
	return reply(client.AppKVKeys{OK: true, Keys: keys})
}

type appKVInput struct {
	Slug string `path:"slug" maxLength:"64" doc:"The app's slug."`
	Key  string `path:"key" maxLength:"128" doc:"The appKV key (record: keys are the caller's own records)."`
}

func (a *appsAPI) getKV(ctx context.Context, in *appKVInput) (*Out[client.AppKVValue], error) {
	app, v, err := a.ownerApp(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	value, err := a.apps.KVGet(ctx, app, v, in.Key)
	if err != nil {
		return nil, err
	}
	return reply(client.AppKVValue{OK: true, Key: in.Key, Value: value})
}

type setAppKVInput struct {
	Slug string `path:"slug" maxLength:"64" doc:"The app's slug."`
	Key  string `path:"key" maxLength:"128" doc:"The appKV key."`
	Body client.SetAppKVRequest
}

func (a *appsAPI) setKV(ctx context.Context, in *setAppKVInput) (*Out[client.AppKVValue], error) {
	app, v, err := a.ownerApp(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	if len(in.Body.Value) == 0 {
		return nil, svcerr.Invalid("value", "value is required: any JSON value")
	}
	if err := a.apps.KVSet(ctx, app, v, in.Key, in.Body.Value); err != nil {
		return nil, err
	}
	return reply(client.AppKVValue{OK: true, Key: in.Key, Value: json.RawMessage(in.Body.Value)})
}

func (a *appsAPI) deleteKV(ctx context.Context, in *appKVInput) (*Out[client.AppKVValue], error) {
	app, v, err := a.ownerApp(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	if err := a.apps.KVDelete(ctx, app, v, in.Key); err != nil {
		return nil, err
	}
	return reply(client.AppKVValue{OK: true, Key: in.Key})
}

// documentAppUpload states the two bodies of POST /v1/apps in the OpenAPI document.
func documentAppUpload(op *huma.Operation) {
	op.RequestBody = &huma.RequestBody{Required: true, Description: "The app folder: a ZIP of it, or {manifest, files: {path: content}}.",
		Content: map[string]*huma.MediaType{
			client.MediaTypeZip: {Schema: &huma.Schema{Type: "string", Format: "binary"}},
			"application/json":  {Schema: &huma.Schema{Type: "object", Description: "CreateAppRequest: manifest (manifest.json's document) and files by path."}},
		}}
}

// routes are the apps routes.
func (a *appsAPI) routes() []Route {
	r := func(rt Route, scope client.Scope) Route {
		rt.Tag, rt.Auth, rt.Scope, rt.Service = "Apps", authKey, scope, client.ServiceManagedAgents
		return rt
	}
	const one, kv = "/v1/apps/{slug}", "/v1/apps/{slug}/kv/{key}"
	return []Route{
		handle(r(Route{Op: client.OpAppsCreate, Method: http.MethodPost, Path: "/v1/apps", Idem: true, Status: http.StatusCreated, RawBody: true,
			Summary:  "Create an app from its folder: a ZIP (application/zip) or JSON {manifest, files}; every rule is checked before anything is stored",
			document: documentAppUpload}, client.ScopeRunsWrite), a.createApp),
		handle(r(Route{Op: client.OpAppsList, Method: http.MethodGet, Path: "/v1/apps", Summary: "List the apps, newest first"}, client.ScopeRunsRead), a.listApps),
		handle(Route{Op: client.OpAppsPublicList, Method: http.MethodGet, Path: "/v1/apps/public", Tag: "Apps", Auth: authNone,
			Summary: "The directory of public apps, newest first (no key needed)"}, a.listPublic),
		handle(r(Route{Op: client.OpAppsRead, Method: http.MethodGet, Path: one, Summary: "Read an app: manifest, sharing and files"}, client.ScopeRunsRead), a.getApp),
		handle(r(Route{Op: client.OpAppsUpdate, Method: http.MethodPatch, Path: one, Idem: true,
			Summary: "Set an app's sharing: private, unlisted or public"}, client.ScopeRunsWrite), a.updateApp),
		handle(r(Route{Op: client.OpAppsDelete, Method: http.MethodDelete, Path: one, Idem: true,
			Summary: "Delete an app with its files and records"}, client.ScopeRunsWrite), a.deleteApp),
		handle(r(Route{Op: client.OpAppsFilesWrite, Method: http.MethodPut, Path: one + "/files/{path}", RawBody: true, document: documentUpload,
			Summary: "Write manifest.json or index.html of an app (the raw body); a manifest is validated again"}, client.ScopeRunsWrite), a.putTopFile),
		handle(r(Route{Op: client.OpAppsFilesWrite + ".nested", Limit: client.OpAppsFilesWrite, Method: http.MethodPut, Path: one + "/files/{path}/{name}",
			RawBody: true, document: documentUpload,
			Summary: "Write scripts/<name>.ts, data/<key>.json or designs/<name> of an app (the raw body)"}, client.ScopeRunsWrite), a.putFile),
		handle(r(Route{Op: client.OpAppsKVList, Method: http.MethodGet, Path: one + "/kv", Summary: "List the app's appKV keys holding a value"}, client.ScopeRunsRead), a.listKV),
		handle(r(Route{Op: client.OpAppsKVRead, Method: http.MethodGet, Path: kv, Summary: "Read an appKV value"}, client.ScopeRunsRead), a.getKV),
		handle(r(Route{Op: client.OpAppsKVSet, Method: http.MethodPut, Path: kv, FreeText: []string{"value"},
			Summary: "Set an appKV value (plain keys: data/<key>.json; record: keys: the caller's records)"}, client.ScopeRunsWrite), a.setKV),
		handle(r(Route{Op: client.OpAppsKVDelete, Method: http.MethodDelete, Path: kv, Idem: true, Summary: "Delete an appKV value"}, client.ScopeRunsWrite), a.deleteKV),
	}
}
