// Package appfront is an app's frontend (issue 26, seed 002 "App surfaces"): the host page at
// /apps/{owner}/{slug}/, which loads the app's index.html in an iframe sandboxed with allow-scripts only
// (an opaque origin: no cookies, no storage, no access to the host page) under a Content-Security-Policy
// that forbids every network request, and the frontend SDK, the global `svc` injected into that iframe,
// which speaks to the host page over postMessage only. The host page checks each message (its source, the
// method against Methods, the shape of its params) and forwards the server methods to the viewer API,
// whose Service.Call applies the app's sharing, the viewer's identity and the manifest's permissions:
// the page only forwards, the server decides.
package appfront

import (
	"context"
	"encoding/json"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
)

// Sharing modes of an app (internal/apps).
const (
	SharingPrivate = "private"
	SharingPublic  = "public"
)

// Frontend identities of a manifest: whose account a viewer's script runs and payments act for.
const (
	IdentityOwner  = "owner"
	IdentityViewer = "viewer"
)

// App is what the frontend needs of an app (internal/apps.App, adapted in app/).
type App struct {
	ID        string
	AccountID string
	Scope     tenant.Scope
	Slug      string
	Title     string
	Sharing   string
	// FrontendIdentity is owner (the default) or viewer.
	FrontendIdentity string
	Permissions      []string
	Secrets          []string
	// X402 is the manifest's pay-per-call bounds (nil without pay:x402).
	X402 *X402Config
}

// X402Config is the manifest's x402 section.
type X402Config struct {
	MaxPaymentUsdPerCall float64
	AllowedHosts         []string
}

// Viewer is who looks at the app: its owner, another signed-in account, or an anonymous visitor.
type Viewer struct {
	// AccountID is the viewer's account, "" when Anonymous.
	AccountID string
	Owner     bool
	Anonymous bool
	// Visitor identifies an anonymous visitor for per-visitor limits (a hash of the client address).
	Visitor string
}

// Apps is what the frontend needs of the apps capability (internal/apps.Store, adapted in app/).
type Apps interface {
	// Find answers the app of account owner with slug as the viewer may see it: every sharing mode for
	// its owner, unlisted and public for anyone else (not_found for a private app).
	Find(ctx context.Context, owner, slug string, v Viewer) (*App, error)
	// Index answers the app's index.html.
	Index(ctx context.Context, app *App) ([]byte, error)
	// KV performs an appKV operation (get, set, list, delete) for the viewer under the apps capability's
	// access rules (anonymous viewers read publicDataKeys only, 403 naming the key).
	KV(ctx context.Context, app *App, v Viewer, op, key string, value json.RawMessage) (json.RawMessage, error)
}

// Runs starts a frontend-triggered script run (internal/apprun.Service, adapted in app/).
type Runs interface {
	Run(ctx context.Context, app *App, v Viewer, script string, args json.RawMessage) (json.RawMessage, error)
}

// Payments makes an app's x402 call (internal/apppay.Service, adapted in app/).
type Payments interface {
	Fetch(ctx context.Context, app *App, v Viewer, req X402Request) (json.RawMessage, error)
}

// Wallets answers the wallet an app's frontend shows: the owner's, or the viewer's under frontendIdentity
// viewer (nil: wallet reads answer not available).
type Wallets interface {
	Wallet(ctx context.Context, scope tenant.Scope) (json.RawMessage, error)
}

// Service answers the viewer API: what the host page forwards from the iframe.
type Service struct {
	Apps     Apps
	Runs     Runs
	Payments Payments
	Wallets  Wallets
	Signer   *Signer
	// Agent answers chat.prompt and the chat panel's job reads (nil: not available).
	Agent Agent
	// Transactions sends what the owner confirms (nil: confirmTransaction answers not available).
	Transactions Transactions
	// Skills installs public skills for the app's owner (nil: installSkill answers not available).
	Skills Skills
}

// notAvailable is the refusal of a method this server cannot perform for the viewer.
func notAvailable(method, why string) error {
	return svcerr.New(svcerr.Unavailable, "%s is not available in this app's frontend: %s", method, why).WithDetails("method", method)
}

// Resolve finds the app the viewer opened: the viewer comes from the cookie (anonymous without one).
func (s *Service) Resolve(ctx context.Context, owner, slug, cookie, visitor string) (*App, Viewer, error) {
	v := Viewer{Anonymous: true, Visitor: visitor}
	if cookie != "" && s.Signer != nil {
		acct, err := s.Signer.VerifyCookie(cookie, owner, slug)
		if err != nil {
			return nil, Viewer{}, err
		}
		v = Viewer{AccountID: acct, Owner: acct == owner, Visitor: acct}
	}
	if s.Apps == nil {
		return nil, Viewer{}, svcerr.New(svcerr.Unavailable, "app frontends are not configured on this server")
	}
	app, err := s.Apps.Find(ctx, owner, slug, v)
	if err != nil {
		return nil, Viewer{}, err
	}
	return app, v, nil
}

// actor is whose account the viewer's calls act for under the manifest's frontendIdentity: the owner
// (default), or the signed-in viewer.
func actor(app *App, v Viewer) tenant.Scope {
	if app.FrontendIdentity == IdentityViewer && !v.Anonymous && !v.Owner {
		return tenant.Scope{AccountID: v.AccountID}
	}
	return app.Scope
}
