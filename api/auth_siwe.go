package api

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/siwe"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// Seed 002's web sessions (sign-in with Ethereum) and the key flags checked while authenticating.

// sessionPrincipal authenticates a web session token on a route that accepts one.
func (s *Server) sessionPrincipal(c *gin.Context, r *Route, token string) (*Principal, error) {
	if s.siwe == nil {
		return nil, svcerr.New(svcerr.Unauthenticated, "web sessions are not configured on this server: send an API key")
	}
	ses, err := s.siwe.Authenticate(c.Request.Context(), token)
	if err != nil {
		return nil, err
	}
	if !r.Session {
		return nil, svcerr.New(svcerr.Forbidden, "%s %s does not accept a web session: send an API key (create one with POST /v1/api-keys through the session)", r.Method, r.Path)
	}
	owner := &schema.APIKey{AccountID: ses.AccountID}
	scope, archived, err := s.projectScope(c.Request.Context(), owner, c.GetHeader(headerProject))
	if err != nil {
		return nil, err
	}
	return &Principal{Session: ses, Scope: scope, ProjectArchived: archived}, nil
}

// checkClientIP refuses (401) a key used from outside its IP allowlist. The client IP is gin's: the
// connection's address, or X-Forwarded-For when the connection comes from SVC_TRUSTED_PROXIES.
func checkClientIP(key *schema.APIKey, ip string) error {
	if apikey.AllowsIP(key, ip) {
		return nil
	}
	return (&svcerr.Error{Code: svcerr.Unauthenticated, Param: "ipAllowlist",
		Message: "this API key may not be used from " + ip + ": the address is not on its ipAllowlist"}).WithDetails("clientIp", ip)
}

// readOnlyRefusal is the 403 of a read-only key on a route that may change something.
func readOnlyRefusal(r *Route) error {
	return (&svcerr.Error{Code: svcerr.Forbidden, Param: "readOnly",
		Message: "this API key is read-only: " + r.Method + " " + r.Path + " is a write"}).WithDetails("rule", "readOnly")
}

// ownerOnly refuses (403) agent-level keys on wallet-level controls: only a web session or a top-level
// key (one made by the account's owner through a credit token or a web session) may change them.
func ownerOnly(p *Principal) error {
	if p.Session != nil || (p.Key != nil && p.Key.ParentID == nil) {
		return nil
	}
	return (&svcerr.Error{Code: svcerr.Forbidden,
		Message: "wallet-level controls change only through a web session or a top-level key of the account's owner; this is an agent-level (child) key"}).
		WithDetails("rule", "ownerOnly")
}

// keyID is the id of the key that made the request; nil for a web session or a credit token.
func (p *Principal) keyID() *string {
	if p.Key == nil {
		return nil
	}
	return &p.Key.ID
}

// siweAPI serves sign-in with Ethereum.
type siweAPI struct {
	siwe *siwe.Service
}

func (a *siweAPI) service() (*siwe.Service, error) {
	if a.siwe == nil {
		return nil, svcerr.New(svcerr.Unavailable, "web sessions are not configured on this server")
	}
	return a.siwe, nil
}

type siweNonceInput struct{}

func (a *siweAPI) nonce(ctx context.Context, _ *siweNonceInput) (*Out[client.SIWENonce], error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	n, err := svc.NewNonce(ctx)
	if err != nil {
		return nil, err
	}
	return reply(client.SIWENonce{OK: true, Nonce: n.Nonce, ExpiresAt: n.ExpiresAt, Domain: svc.Domain(), ChainID: svc.ChainID()})
}

type siweInput struct {
	Body client.SIWERequest
}

func (a *siweAPI) verify(ctx context.Context, in *siweInput) (*Out[client.SIWESession], error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	ses, token, err := svc.SignIn(ctx, in.Body.Message, in.Body.Signature)
	if err != nil {
		return nil, err
	}
	return reply(client.SIWESession{OK: true, Token: token, ExpiresAt: ses.ExpiresAt, Address: ses.Address, AccountID: ses.AccountID})
}

func (a *siweAPI) link(ctx context.Context, in *siweInput) (*Out[client.SIWEAddress], error) {
	svc, err := a.service()
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	if err := ownerOnly(p); err != nil {
		return nil, err
	}
	keyID := ""
	if p.Key != nil {
		keyID = p.Key.ID
	}
	addr, err := svc.Link(ctx, p.Scope.AccountID, keyID, in.Body.Message, in.Body.Signature)
	if err != nil {
		return nil, err
	}
	return reply(client.SIWEAddress{OK: true, Address: addr.Hex(), AccountID: p.Scope.AccountID})
}

// routes are the sign-in routes at the host root (seed 002's /auth/siwe/…).
func (a *siweAPI) routes() []Route {
	const tag = "Web sessions"
	return []Route{
		handle(Route{Op: client.OpAuthSIWENonce, Method: http.MethodPost, Path: "/auth/siwe/nonce", Tag: tag, Auth: authNone,
			Summary: "Issue a single-use sign-in nonce (with the domain and chain id the message must name)"}, a.nonce),
		handle(Route{Op: client.OpAuthSIWEVerify, Method: http.MethodPost, Path: "/auth/siwe/verify", Tag: tag, Auth: authNone, FreeText: []string{"message"},
			Summary: "Sign in with a signed EIP-4361 message: a short-lived web session token"}, a.verify),
		handle(Route{Op: client.OpAuthSIWELink, Method: http.MethodPost, Path: "/auth/siwe/link", Tag: tag, Auth: authKey, FreeText: []string{"message"},
			Scope: client.ScopeAPIKeysManage, Idem: true, Session: true,
			Summary: "Link the address of a signed EIP-4361 message to the caller's account, so it can sign in"}, a.link),
	}
}

// keyAllowsRecipient applies the calling key's recipient allowlist to a quote or send of walletID: to,
// or, for a send by quote, the quote's recipient (a quote made by another key is judged again). The
// wallet's own permitted recipients are checked by the wallet's policy as well: both must pass.
func (wa *walletsAPI) keyAllowsRecipient(ctx context.Context, p *Principal, walletID, quoteID, to string) error {
	if p.Key == nil || p.Key.RecipientAllowlist == nil {
		return nil
	}
	if quoteID != "" && wa.db != nil {
		err := wa.db.NewSelect().Table("wallet_quotes").Column("to_address").
			Where("id = ? AND wallet_id = ? AND account_id = ?", quoteID, walletID, p.Scope.AccountID).Scan(ctx, &to)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // the send itself answers the unknown quote
		}
		if err != nil {
			return fmt.Errorf("read the recipient of quote %s: %w", quoteID, err)
		}
	}
	if to == "" {
		return nil // the send itself refuses a missing recipient
	}
	return apikey.CheckRecipient(p.Key, to)
}
