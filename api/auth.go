package api

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/project"
	"github.com/svcplatform/svc/internal/siwe"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// authenticate resolves the caller of routes that need one.
func (s *Server) authenticate(c *gin.Context) {
	r := s.route(c)
	if r == nil || r.Auth == authNone {
		c.Next()
		return
	}
	p, err := s.principal(c, r)
	if err != nil {
		s.fail(c, err)
		return
	}
	stateFrom(c.Request.Context()).principal = p
	c.Next()
}

func (s *Server) principal(c *gin.Context, r *Route) (*Principal, error) {
	ctx := c.Request.Context()
	if as, ok := ctx.Value(internalCallerKey{}).(llm.Caller); ok {
		return s.internalPrincipal(ctx, as)
	}
	authz := c.GetHeader("Authorization")
	if partnerKey := strings.TrimSpace(c.GetHeader(headerPartnerKey)); partnerKey != "" {
		return s.partnerPrincipal(ctx, r, partnerKey, authz != "" || c.GetHeader(headerAPIKey) != "")
	}
	if authz == "" && c.GetHeader(headerAPIKey) == "" && r.Auth == authKeyOrCreditToken && c.GetHeader(headerCreditToken) != "" {
		tok, err := s.accounts.VerifyToken(ctx, c.GetHeader(headerCreditToken))
		if err != nil {
			return nil, err
		}
		return &Principal{CreditToken: &tok, Scope: tenant.Scope{AccountID: tok.AccountID}}, nil
	}
	secret, err := keySecret(authz, c.GetHeader(headerAPIKey))
	if err != nil {
		return nil, err
	}
	if siwe.LooksLikeToken(secret) {
		return s.sessionPrincipal(c, r, secret)
	}
	caller, err := s.keyCache.Authenticate(ctx, secret)
	if err != nil {
		return nil, err
	}
	if r.SessionOnly {
		return nil, (&svcerr.Error{Code: svcerr.Forbidden, Message: sessionOnlyMessage + ": " + r.Method + " " + r.Path +
			" acts as the account's owner, so sign in (POST /auth/siwe/nonce, then POST /auth/siwe/verify) and send the session token in Authorization: Bearer"}).
			WithDetails("rule", "sessionOnly")
	}
	key := caller.Key
	if err := checkClientIP(key, c.ClientIP()); err != nil {
		return nil, err
	}
	scope, archived, err := s.projectScope(ctx, key, c.GetHeader(headerProject))
	if err != nil {
		return nil, err
	}
	return &Principal{Key: key, Ancestors: caller.Ancestors, Scope: scope, ProjectArchived: archived}, nil
}

// partnerPrincipal authenticates a partner key on a route that accepts one; a request that also sends an
// API key, or sends a partner key elsewhere, is refused.
func (s *Server) partnerPrincipal(ctx context.Context, r *Route, secret string, withKey bool) (*Principal, error) {
	switch {
	case !r.Partner:
		return nil, svcerr.New(svcerr.Unauthenticated, "this route does not accept %s: send an API key in Authorization: Bearer", headerPartnerKey)
	case withKey:
		return nil, svcerr.New(svcerr.Unauthenticated, "send either %s or an API key, not both", headerPartnerKey)
	}
	p, err := s.partners.Authenticate(ctx, secret)
	if err != nil {
		return nil, err
	}
	return &Principal{Partner: p, Scope: tenant.Scope{AccountID: p.AccountID}}, nil
}

// keySecret is the API key a request sends, in Authorization: Bearer or in X-API-Key (seed 002's
// header; CONTRACT.md). Both may be sent only when they carry the same key.
func keySecret(authz, apiKey string) (string, error) {
	bearer, isBearer := strings.CutPrefix(authz, "Bearer ")
	bearer, apiKey = strings.TrimSpace(bearer), strings.TrimSpace(apiKey)
	switch {
	case authz != "" && (!isBearer || bearer == ""):
		return "", svcerr.New(svcerr.Unauthenticated, "send Authorization: Bearer <API key> (or X-API-Key: <API key>)")
	case bearer != "" && apiKey != "" && bearer != apiKey:
		return "", svcerr.New(svcerr.Unauthenticated, "Authorization and X-API-Key carry different keys: send one")
	case bearer != "":
		return bearer, nil
	case apiKey != "":
		return apiKey, nil
	}
	return "", svcerr.New(svcerr.Unauthenticated, "send Authorization: Bearer <API key> (or X-API-Key: <API key>)")
}

// projectScope applies X-Svc-Project: a project-bound key stays in its project; an account-level key
// may select any project of its account. It also reports whether the project is archived.
func (s *Server) projectScope(ctx context.Context, key *schema.APIKey, header string) (tenant.Scope, bool, error) {
	scope := tenant.Scope{AccountID: key.AccountID, ProjectID: key.ProjectID}
	notFound := &svcerr.Error{Code: svcerr.NotFound, Param: headerProject, Message: "no project with that id"}
	if header != "" && key.ProjectID != nil && *key.ProjectID != header {
		return scope, false, notFound
	}
	if header != "" {
		scope.ProjectID = &header
	}
	if scope.ProjectID == nil {
		return scope, false, nil
	}
	var status string
	err := s.db.NewSelect().Model((*schema.Project)(nil)).Column("status").
		Where("id = ? AND account_id = ?", *scope.ProjectID, key.AccountID).Scan(ctx, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return scope, false, notFound
	}
	if err != nil {
		return scope, false, err
	}
	return scope, status == project.Archived, nil
}

// authorize checks the route's scope and service access for API keys.
func (s *Server) authorize(c *gin.Context) {
	r := s.route(c)
	p := principalFrom(c.Request.Context())
	if r == nil || p == nil || p.Key == nil {
		c.Next()
		return
	}
	if err := s.authorizeKey(r, p, c.Param); err != nil {
		s.fail(c, err)
		return
	}
	c.Next()
}

// keyMayUse reports whether key holds what route r needs before any request is made: its scope, write
// access for a route that changes something, and access to service (the route's, or the one a tool is
// bound to; "" for none). The MCP tool list and agent jobs' tool offer filter with it; authorizeKey
// enforces the same rules, with their refusals, on each request.
func keyMayUse(key *schema.APIKey, r *Route, service string) bool {
	grants := apikey.GrantsOf(key)
	switch {
	case r.Scope != "" && !grants.HasScope(r.Scope):
		return false
	case key.ReadOnly && r.Method != http.MethodGet && !r.Reads:
		return false
	case service != "" && !grants.HasService(service):
		return false
	}
	return true
}

// authorizeKey judges a request of r by p's API key: read-only keys, the route's scope, archived
// projects and service access (param answers the request's path parameters). It is authorize's rule, also
// applied by the MCP transport's direct reads (see mcpTools.direct).
func (s *Server) authorizeKey(r *Route, p *Principal, param func(string) string) error {
	if p.Key.ReadOnly && r.Method != http.MethodGet && !r.Reads {
		return readOnlyRefusal(r)
	}
	grants := apikey.GrantsOf(p.Key)
	if r.Scope != "" && !grants.HasScope(r.Scope) {
		return scopeMissing(r.Scope)
	}
	if p.ProjectArchived && r.Method != http.MethodGet {
		return svcerr.New(svcerr.Conflict, "project %s is archived: it can be read but not changed", p.Scope.Project())
	}
	if r.Service != "" {
		if err := serviceAccess(grants, r.Service); err != nil {
			return err
		}
	}
	if r.ServiceParam != "" {
		id := param(r.ServiceParam)
		if !s.catalog.Known(id) {
			return svcerr.NotFoundf("no service %q", id)
		}
		if err := serviceAccess(grants, id); err != nil {
			return err
		}
	}
	return nil
}
