package appfront

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/svcplatform/svc/internal/svcerr"
)

// Context is the SDK's svc.ctx (seed 002) and what the host page shows of the viewer.
type Context struct {
	Slug             string   `json:"slug"`
	Title            string   `json:"title"`
	WalletAddress    *string  `json:"walletAddress"`
	Theme            string   `json:"theme"`
	IsPublic         bool     `json:"isPublic"`
	IsCompact        bool     `json:"isCompact"`
	IsAuthenticated  bool     `json:"isAuthenticated"`
	IsOwner          bool     `json:"isOwner"`
	FrontendIdentity string   `json:"frontendIdentity"`
	Permissions      []string `json:"permissions"`
}

// ViewContext answers the viewer's context of the app.
func (s *Service) ViewContext(ctx context.Context, app *App, v Viewer) Context {
	c := Context{Slug: app.Slug, Title: app.Title, Theme: "light", IsPublic: app.Sharing == SharingPublic,
		IsAuthenticated: !v.Anonymous, IsOwner: v.Owner, FrontendIdentity: app.FrontendIdentity, Permissions: app.Permissions}
	if c.Permissions == nil {
		c.Permissions = []string{}
	}
	if s.Wallets != nil && slices.Contains(app.Permissions, "read:wallet") {
		if raw, err := s.Wallets.Wallet(ctx, actor(app, v)); err == nil {
			var w struct {
				Address string `json:"address"`
			}
			if json.Unmarshal(raw, &w) == nil && w.Address != "" {
				c.WalletAddress = &w.Address
			}
		}
	}
	return c
}

func ctxMethod(ctx context.Context, s *Service, c call) (json.RawMessage, error) {
	var p struct{}
	if err := decode(c.params, &p); err != nil {
		return nil, err
	}
	return marshal(s.ViewContext(ctx, c.app, c.viewer))
}

func walletMethod(ctx context.Context, s *Service, c call) (json.RawMessage, error) {
	var p struct{}
	if err := decode(c.params, &p); err != nil {
		return nil, err
	}
	if s.Wallets == nil {
		return nil, notAvailable(c.method, "managed wallets are not configured on this server")
	}
	return s.Wallets.Wallet(ctx, actor(c.app, c.viewer))
}

// kvParams are appKV calls' params.
type kvParams struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

func kvMethod(op string) handler {
	return func(ctx context.Context, s *Service, c call) (json.RawMessage, error) {
		var p kvParams
		if err := decode(c.params, &p); err != nil {
			return nil, err
		}
		switch {
		case op != "list" && p.Key == "":
			return nil, required("key", p.Key)
		case op == "list" && p.Key != "":
			return nil, svcerr.Invalid("params.key", "appKV.list takes no key")
		case op == "set" && len(p.Value) == 0:
			return nil, svcerr.Invalid("params.value", "appKV.set needs a value")
		case op != "set" && len(p.Value) > 0:
			return nil, svcerr.Invalid("params.value", "appKV.%s takes no value", op)
		}
		return s.Apps.KV(ctx, c.app, c.viewer, op, p.Key, p.Value)
	}
}

// runParams are a script call's params (invokeScript, runScript, run, scripts.run, scripts.invoke).
type runParams struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

func runMethod(ctx context.Context, s *Service, c call) (json.RawMessage, error) {
	var p runParams
	if err := decode(c.params, &p); err != nil {
		return nil, err
	}
	if err := required("name", p.Name); err != nil {
		return nil, err
	}
	if c.viewer.Anonymous {
		return nil, svcerr.New(svcerr.Forbidden, "anonymous viewers cannot run scripts: sign in (svc.auth.requireSignIn())").WithDetails("rule", "anonymous")
	}
	if s.Runs == nil {
		return nil, notAvailable(c.method, "script runs are not configured on this server")
	}
	return s.Runs.Run(ctx, c.app, c.viewer, p.Name, p.Args)
}

// X402Request is an x402.fetch call (seed 002): {url, method, body, headers, maxPaymentUsd}.
type X402Request struct {
	URL           string            `json:"url"`
	Method        string            `json:"method"`
	Body          string            `json:"body"`
	Headers       map[string]string `json:"headers"`
	MaxPaymentUsd float64           `json:"maxPaymentUsd"`
}

func x402Method(ctx context.Context, s *Service, c call) (json.RawMessage, error) {
	var p X402Request
	if err := decode(c.params, &p); err != nil {
		return nil, err
	}
	if err := required("url", p.URL); err != nil {
		return nil, err
	}
	if c.app.X402 == nil {
		return nil, svcerr.Invalid("x402", "app %s's manifest has no x402 section", c.app.Slug)
	}
	if s.Payments == nil {
		return nil, notAvailable(c.method, "x402 payments are not configured on this server")
	}
	return s.Payments.Fetch(ctx, c.app, c.viewer, p)
}

// secretsStatus answers the manifest's declared secret names; values never reach a frontend.
func secretsStatus(_ context.Context, _ *Service, c call) (json.RawMessage, error) {
	var p struct{}
	if err := decode(c.params, &p); err != nil {
		return nil, err
	}
	names := c.app.Secrets
	if names == nil {
		names = []string{}
	}
	return marshal(map[string]any{"declared": names})
}

// secretsSetup answers how the owner sets a declared secret (an environment variable of the account).
func secretsSetup(_ context.Context, _ *Service, c call) (json.RawMessage, error) {
	var p struct {
		Key string `json:"key"`
	}
	if err := decode(c.params, &p); err != nil {
		return nil, err
	}
	if !slices.Contains(c.app.Secrets, p.Key) {
		return nil, (&svcerr.Error{Code: svcerr.InvalidRequest, Param: "params.key",
			Message: "secret " + p.Key + " is not declared in the app's manifest secrets"}).WithDetails("key", p.Key)
	}
	return marshal(map[string]any{"key": p.Key, "setup": "the app's owner sets it as an environment variable: svc env set " + p.Key})
}
