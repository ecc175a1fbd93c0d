package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// appPath is the escaped path of the app slug, plus rest.
func appPath(slug, rest string) string { return "/apps/" + url.PathEscape(slug) + rest }

// CreateAppZip creates an app from a ZIP of its folder (manifest.json at the archive's root).
func (c *Client) CreateAppZip(ctx context.Context, zip []byte, opts ...CallOption) Response[AppEnvelope] {
	if len(zip) == 0 {
		return invalidArg[AppEnvelope]("zip", "the app archive is empty")
	}
	return send[AppEnvelope](ctx, c, call{method: http.MethodPost, path: "/apps", raw: bytes.NewReader(zip), rawLen: int64(len(zip)),
		rawType: MediaTypeZip, auth: authKey, idem: true, opts: opts})
}

// CreateApp creates an app from its manifest and files, as JSON.
func (c *Client) CreateApp(ctx context.Context, req CreateAppRequest, opts ...CallOption) Response[AppEnvelope] {
	body, err := json.Marshal(req)
	if err != nil {
		return invalidArg[AppEnvelope]("manifest", "encode the app: "+err.Error())
	}
	return send[AppEnvelope](ctx, c, call{method: http.MethodPost, path: "/apps", raw: bytes.NewReader(body), rawLen: int64(len(body)),
		rawType: "application/json", auth: authKey, idem: true, opts: opts})
}

// ListApps lists the apps of the key's scope, newest first.
func (c *Client) ListApps(ctx context.Context, p ListParams) Response[AppList] {
	return send[AppList](ctx, c, call{method: http.MethodGet, path: "/apps", query: p.query(), auth: authKey})
}

// ListPublicApps lists the directory of public apps, newest first (no key needed).
func (c *Client) ListPublicApps(ctx context.Context, p ListParams) Response[PublicAppList] {
	return send[PublicAppList](ctx, c, call{method: http.MethodGet, path: "/apps/public", query: p.query()})
}

// GetApp reads an app: manifest, sharing and files.
func (c *Client) GetApp(ctx context.Context, slug string) Response[AppEnvelope] {
	if slug == "" {
		return invalidArg[AppEnvelope]("slug", "the app slug is empty")
	}
	return send[AppEnvelope](ctx, c, call{method: http.MethodGet, path: appPath(slug, ""), auth: authKey})
}

// ShareApp sets an app's sharing mode (private, unlisted or public).
func (c *Client) ShareApp(ctx context.Context, slug, sharing string, opts ...CallOption) Response[AppEnvelope] {
	if slug == "" {
		return invalidArg[AppEnvelope]("slug", "the app slug is empty")
	}
	return send[AppEnvelope](ctx, c, call{method: http.MethodPatch, path: appPath(slug, ""), body: UpdateAppRequest{Sharing: sharing},
		auth: authKey, idem: true, opts: opts})
}

// DeleteApp deletes an app with its files and records.
func (c *Client) DeleteApp(ctx context.Context, slug string, opts ...CallOption) Response[AppEnvelope] {
	if slug == "" {
		return invalidArg[AppEnvelope]("slug", "the app slug is empty")
	}
	return send[AppEnvelope](ctx, c, call{method: http.MethodDelete, path: appPath(slug, ""), auth: authKey, idem: true, opts: opts})
}

// PutAppFile creates or replaces the file at path (such as scripts/main.ts) of an app's folder.
func (c *Client) PutAppFile(ctx context.Context, slug, path string, content []byte, opts ...CallOption) Response[AppEnvelope] {
	if slug == "" || path == "" {
		return invalidArg[AppEnvelope]("path", "the app slug or file path is empty")
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return send[AppEnvelope](ctx, c, call{method: http.MethodPut, path: appPath(slug, "/files/"+strings.Join(segs, "/")),
		raw: bytes.NewReader(content), rawLen: int64(len(content)), rawType: "application/octet-stream", auth: authKey, opts: opts})
}

// ListAppKV lists the keys of an app's appKV that hold a value (the owner's view).
func (c *Client) ListAppKV(ctx context.Context, slug string) Response[AppKVKeys] {
	return send[AppKVKeys](ctx, c, call{method: http.MethodGet, path: appPath(slug, "/kv"), auth: authKey})
}

// GetAppKV reads one appKV value.
func (c *Client) GetAppKV(ctx context.Context, slug, key string) Response[AppKVValue] {
	return send[AppKVValue](ctx, c, call{method: http.MethodGet, path: appPath(slug, "/kv/"+url.PathEscape(key)), auth: authKey})
}

// SetAppKV sets one appKV value (any JSON).
func (c *Client) SetAppKV(ctx context.Context, slug, key string, value json.RawMessage, opts ...CallOption) Response[AppKVValue] {
	return send[AppKVValue](ctx, c, call{method: http.MethodPut, path: appPath(slug, "/kv/"+url.PathEscape(key)),
		body: SetAppKVRequest{Value: value}, auth: authKey, opts: opts})
}

// DeleteAppKV deletes one appKV value.
func (c *Client) DeleteAppKV(ctx context.Context, slug, key string, opts ...CallOption) Response[AppKVValue] {
	return send[AppKVValue](ctx, c, call{method: http.MethodDelete, path: appPath(slug, "/kv/"+url.PathEscape(key)), auth: authKey, idem: true, opts: opts})
}
