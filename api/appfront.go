package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/appfront"
	"github.com/svcplatform/svc/internal/svcerr"
)

// App frontends (issue 26): the host page, the app's sandboxed frame, the owner's open link and the
// viewer API the host page forwards the frontend SDK's calls to (internal/appfront).

// appCookie is the viewer cookie: an HS256 token naming the viewer's account and the one app it is for,
// HttpOnly, SameSite=Lax, its path the app's pages.
const appCookie = "svc_app"

// appFrontAPI serves app frontends.
type appFrontAPI struct {
	front *appfront.Service
}

func (af *appFrontAPI) service() (*appfront.Service, error) {
	if af.front == nil || af.front.Apps == nil || af.front.Signer == nil {
		return nil, svcerr.New(svcerr.Unavailable, "app frontends are not configured on this server")
	}
	return af.front, nil
}

// visitor identifies an anonymous visitor by a hash of the client address (never the address itself).
func visitor(ip string) string {
	sum := sha256.Sum256([]byte("app-visitor:" + ip))
	return "anonymous:" + hex.EncodeToString(sum[:8])
}

// resolve finds the app of a page request and its viewer (the cookie's account, or anonymous).
func (af *appFrontAPI) resolve(ctx context.Context, owner, slug, cookie string) (*appfront.App, appfront.Viewer, error) {
	svc, err := af.service()
	if err != nil {
		return nil, appfront.Viewer{}, err
	}
	return svc.Resolve(ctx, owner, slug, cookie, visitor(stateFrom(ctx).clientIP))
}

func cookieOf(c *gin.Context) string {
	v, err := c.Cookie(appCookie)
	if err != nil {
		return ""
	}
	return v
}

// pageHeaders are the headers of both pages: never cached, never sniffed, no referrer beyond this host.
func pageHeaders(c *gin.Context, csp string) {
	c.Header("Content-Security-Policy", csp)
	c.Header("Cache-Control", "no-store")
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Referrer-Policy", "same-origin")
}

// host serves GET /apps/{owner}/{slug}/: the host page.
func (s *Server) appHost(af *appFrontAPI) gin.HandlerFunc {
	return func(c *gin.Context) {
		app, _, err := af.resolve(c.Request.Context(), c.Param("owner"), c.Param("slug"), cookieOf(c))
		if err != nil {
			s.fail(c, err)
			return
		}
		page, err := appfront.HostPage(c.Param("owner"), app)
		if err != nil {
			s.fail(c, err)
			return
		}
		pageHeaders(c, appfront.HostCSP())
		c.Data(http.StatusOK, "text/html; charset=utf-8", page)
	}
}

// appFrame serves GET /apps/{owner}/{slug}/frame: the app's index.html, the SDK its first script.
func (s *Server) appFrame(af *appFrontAPI) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx := c.Request.Context()
		app, _, err := af.resolve(ctx, c.Param("owner"), c.Param("slug"), cookieOf(c))
		if err != nil {
			s.fail(c, err)
			return
		}
		index, err := af.front.Apps.Index(ctx, app)
		if err != nil {
			s.fail(c, err)
			return
		}
		pageHeaders(c, appfront.FrameCSP)
		c.Data(http.StatusOK, "text/html; charset=utf-8", appfront.Frame(index))
	}
}

// appOpen serves GET /apps/{owner}/{slug}/open?token=…: a valid open link sets the viewer cookie and
// redirects to the app's page.
func (s *Server) appOpen(af *appFrontAPI) gin.HandlerFunc {
	return func(c *gin.Context) {
		svc, err := af.service()
		if err != nil {
			s.fail(c, err)
			return
		}
		owner, slug := c.Param("owner"), c.Param("slug")
		acct, err := svc.Signer.VerifyLink(c.Query("token"), owner, slug)
		if err != nil {
			s.fail(c, err)
			return
		}
		cookie, exp, err := svc.Signer.IssueCookie(owner, slug, acct)
		if err != nil {
			s.fail(c, err)
			return
		}
		http.SetCookie(c.Writer, viewerCookie(c.Request, owner, slug, cookie, exp))
		c.Header("Cache-Control", "no-store")
		c.Redirect(http.StatusSeeOther, appfront.Base(owner, slug))
	}
}

// viewerCookie is the viewer cookie of the app owner/slug: its pages only, HttpOnly, SameSite=Lax (the
// open link is followed from elsewhere), Secure behind TLS.
func viewerCookie(r *http.Request, owner, slug, value string, exp time.Time) *http.Cookie {
	return &http.Cookie{Name: appCookie, Value: value, Path: appfront.Base(owner, slug), Expires: exp, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")}
}

// registerAppFront serves the app pages, which are HTML, beside the route table's JSON routes.
func (s *Server) registerAppFront(af *appFrontAPI) {
	s.engine.GET("/apps/:owner/:slug/", s.appHost(af))
	s.engine.GET("/apps/:owner/:slug/frame", s.appFrame(af))
	s.engine.GET("/apps/:owner/:slug/open", s.appOpen(af))
}

type appFrontCallInput struct {
	Owner  string `path:"owner" maxLength:"64" doc:"The app owner's account id."`
	Slug   string `path:"slug" maxLength:"64" doc:"The app's slug."`
	Cookie string `cookie:"svc_app" doc:"The viewer cookie (absent: an anonymous viewer)."`
	Body   client.AppFrontCall
}

// call performs one forwarded SDK call as the cookie's viewer.
func (af *appFrontAPI) call(ctx context.Context, in *appFrontCallInput) (*Out[client.AppFrontResult], error) {
	app, v, err := af.resolve(ctx, in.Owner, in.Slug, in.Cookie)
	if err != nil {
		return nil, err
	}
	res, err := af.front.Call(ctx, app, v, in.Body.Method, in.Body.Params)
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = []byte("null")
	}
	return reply(client.AppFrontResult{OK: true, Result: res})
}

type appFrontHostInput struct {
	Owner  string `path:"owner" maxLength:"64" doc:"The app owner's account id."`
	Slug   string `path:"slug" maxLength:"64" doc:"The app's slug."`
	Cookie string `cookie:"svc_app" doc:"The viewer cookie (absent: an anonymous viewer)."`
	Body   client.AppFrontHostCall
}

// host performs one of the host page's own actions as the cookie's viewer.
func (af *appFrontAPI) host(ctx context.Context, in *appFrontHostInput) (*Out[client.AppFrontResult], error) {
	app, v, err := af.resolve(ctx, in.Owner, in.Slug, in.Cookie)
	if err != nil {
		return nil, err
	}
	res, err := af.front.HostCall(ctx, app, v, in.Body.Method, in.Body.Params)
	if err != nil {
		return nil, err
	}
	return reply(client.AppFrontResult{OK: true, Result: res})
}

type appFrontSessionInput struct {
	Owner string `path:"owner" maxLength:"64" doc:"The app owner's account id."`
	Slug  string `path:"slug" maxLength:"64" doc:"The app's slug."`
}

type appFrontSessionOut struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
	Body      client.AppFrontSession
}

// session turns a web session (SIWE, the host page's sign-in) into the app's viewer cookie.
func (af *appFrontAPI) session(ctx context.Context, in *appFrontSessionInput) (*appFrontSessionOut, error) {
	svc, err := af.service()
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	if p.Session == nil {
		return nil, svcerr.New(svcerr.Forbidden, "an app's viewer signs in with a web session (sign in with Ethereum)")
	}
	v := appfront.Viewer{AccountID: p.Session.AccountID, Owner: p.Session.AccountID == in.Owner}
	if _, err := svc.Apps.Find(ctx, in.Owner, in.Slug, v); err != nil {
		return nil, err
	}
	token, exp, err := svc.Signer.IssueCookie(in.Owner, in.Slug, v.AccountID)
	if err != nil {
		return nil, err
	}
	r := &http.Request{Header: http.Header{}}
	if strings.HasPrefix(stateFrom(ctx).origin, "https:") {
		r.Header.Set("X-Forwarded-Proto", "https")
	}
	return &appFrontSessionOut{SetCookie: *viewerCookie(r, in.Owner, in.Slug, token, exp),
		Body: client.AppFrontSession{OK: true, AccountID: v.AccountID, ExpiresAt: exp}}, nil
}

type appOpenInput struct {
	Slug string `path:"slug" maxLength:"64" doc:"The app's slug."`
}

// open signs a short-lived link that opens the caller's app signed in as its owner.
func (af *appFrontAPI) open(ctx context.Context, in *appOpenInput) (*Out[client.AppOpenLink], error) {
	svc, err := af.service()
	if err != nil {
		return nil, err
	}
	owner := principalFrom(ctx).Scope.AccountID
	if _, err := svc.Apps.Find(ctx, owner, in.Slug, appfront.Viewer{AccountID: owner, Owner: true}); err != nil {
		return nil, err
	}
	token, exp, err := svc.Signer.IssueLink(owner, in.Slug, owner)
	if err != nil {
		return nil, err
	}
	origin := stateFrom(ctx).origin
	base := appfront.Base(owner, in.Slug)
	return reply(client.AppOpenLink{OK: true, URL: origin + base + "open?token=" + url.QueryEscape(token), PageURL: origin + base, ExpiresAt: exp})
}

type appX402Input struct {
	Slug string `path:"slug" maxLength:"64" doc:"The app's slug."`
	Body client.AppX402FetchRequest
}

// x402 makes the app's x402.fetch as its owner (the frontend's call, with the owner as visitor).
func (af *appFrontAPI) x402(ctx context.Context, in *appX402Input) (*Out[client.AppFrontResult], error) {
	svc, err := af.service()
	if err != nil {
		return nil, err
	}
	owner := principalFrom(ctx).Scope.AccountID
	v := appfront.Viewer{AccountID: owner, Owner: true, Visitor: owner}
	app, err := svc.Apps.Find(ctx, owner, in.Slug, v)
	if err != nil {
		return nil, err
	}
	params, err := json.Marshal(in.Body)
	if err != nil {
		return nil, fmt.Errorf("encode the x402 call of app %s: %w", in.Slug, err)
	}
	res, err := svc.Call(ctx, app, v, "x402.fetch", params)
	if err != nil {
		return nil, err
	}
	return reply(client.AppFrontResult{OK: true, Result: res})
}

// routes are the app frontends' JSON routes; the pages are registered by registerAppFront.
func (af *appFrontAPI) routes() []Route {
	const tag = "App frontends"
	return []Route{
		handle(Route{Op: client.OpAppsOpen, Method: http.MethodPost, Path: "/v1/apps/{slug}/open", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsRead, Service: client.ServiceManagedAgents, Reads: true,
			Summary: "A 2-minute link that opens the app's page signed in as its owner (an HttpOnly cookie for /apps/{owner}/{slug}/), for svc apps open"},
			af.open),
		handle(Route{Op: client.OpAppsX402Fetch, Method: http.MethodPost, Path: "/v1/apps/{slug}/x402/fetch", Tag: tag, Auth: authKey,
			Scope: client.ScopeRunsWrite, Service: client.ServiceManagedAgents, Idem: true, Lease: time.Minute, FreeText: []string{"body"},
			Summary: "Make the app's x402.fetch as its owner: pays an x402 server in allowedHosts from the owner's first managed wallet, within maxPaymentUsdPerCall and the per-visitor limits (needs pay:x402)"},
			af.x402),
		handle(Route{Op: client.OpAppsFrontCall, Method: http.MethodPost, Path: "/apps/{owner}/{slug}/api/call", Tag: tag, Auth: authNone,
			FreeText: []string{"params"},
			Summary: "The viewer API: one call of the app's frontend SDK, forwarded by its host page, as the viewer of the svc_app cookie (anonymous without one): " +
				"the method must be on the allowlist, the manifest must declare its permission, and the app's sharing and appKV rules apply"},
			af.call),
		handle(Route{Op: client.OpAppsFrontHost, Method: http.MethodPost, Path: "/apps/{owner}/{slug}/api/host", Tag: tag, Auth: authNone,
			Summary: "The host page's own actions, never the app frame's: chat.job reads an agent job its chat panel started; transaction.confirm " +
				"sends, from the owner's managed wallet through the wallet's policy and approvals, the transaction the owner confirmed (once per confirmation)"},
			af.host),
		handle(Route{Op: client.OpAppsFrontSession, Method: http.MethodPost, Path: "/apps/{owner}/{slug}/api/session", Tag: tag, Auth: authKey,
			Session: true, SessionOnly: true,
			Summary: "Sign a viewer in to an app's pages with a web session (SIWE): sets the svc_app viewer cookie"},
			af.session),
	}
}
