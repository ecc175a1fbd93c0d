package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

func (k *keysAPI) listKeys(ctx context.Context, in *listInput) (*Out[client.APIKeyList], error) {
	p, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	keys, next, err := k.keys.List(ctx, principalFrom(ctx).Key, p)
	if err != nil {
		return nil, err
	}
	out := client.APIKeyList{OK: true, APIKeys: make([]client.APIKey, 0, len(keys)), NextCursor: next}
	for i := range keys {
		k := apikey.ToWire(&keys[i], "")
		k.Current = keys[i].ID == principalFrom(ctx).Key.ID
		out.APIKeys = append(out.APIKeys, k)
	}
	return reply(out)
}

type createKeyInput struct {
	Body client.CreateAPIKeyRequest
}

func (k *keysAPI) createKey(ctx context.Context, in *createKeyInput) (*Out[client.APIKeyEnvelope], error) {
	p := principalFrom(ctx)
	req := in.Body
	nk := apikey.NewKey{ID: newID(ctx, ids.APIKey), AccountID: p.Scope.AccountID, Name: req.Name}
	want := keyRequest(req)
	switch {
	case p.Session != nil: // a top-level key of the account's owner, made through a web session
		grants, err := apikey.Narrow(k.catalog, apikey.FullGrants(), want)
		if err != nil {
			return nil, err
		}
		nk.Grants = grants
	case p.Key == nil: // first key, authorised by a credit token
		grants, err := apikey.Narrow(k.catalog, apikey.FullGrants(), want)
		if err != nil {
			return nil, err
		}
		nk.Grants, nk.CreditTokenID = grants, p.CreditToken.ID
	default:
		grants, err := apikey.Narrow(k.catalog, apikey.GrantsOf(p.Key), want)
		if err != nil {
			return nil, err
		}
		nk.Grants, nk.Parent = grants, p.Key
		nk.ProjectID = p.Key.ProjectID
	}
	if err := bindProject(&nk, req.ProjectID, p); err != nil {
		return nil, err
	}
	key, secret, err := k.keys.Create(ctx, nk)
	if err != nil {
		return nil, err
	}
	return reply(client.APIKeyEnvelope{OK: true, APIKey: apikey.ToWire(key, secret)})
}

// keyRequest is what a key creation asks for, flags included.
func keyRequest(req client.CreateAPIKeyRequest) apikey.Request {
	out := apikey.Request{Scopes: req.Scopes, Services: req.Services, Limits: apikey.LimitsFromWire(req.Limits),
		ReadOnly: req.ReadOnly, IPAllowlist: req.IPAllowlist}
	if r := req.RecipientAllowlist; r != nil {
		out.Recipients = &schema.RecipientAllowlist{EVM: r.EVM, Solana: r.Solana}
	}
	return out
}

// bindProject sets the new key's project: a project-bound parent's children stay in its project.
func bindProject(nk *apikey.NewKey, projectID string, p *Principal) error {
	if projectID == "" {
		return nil
	}
	if nk.ProjectID != nil && *nk.ProjectID != projectID {
		return &svcerr.Error{Code: svcerr.NotFound, Param: "projectId", Message: "no active project with that id"}
	}
	if !ids.HasPrefix(projectID, ids.Project) {
		return svcerr.Invalid("projectId", "a project id starts with proj_")
	}
	nk.ProjectID = &projectID
	return nil
}

type keyIDInput struct {
	ID string `path:"id" doc:"The key id (key_...)."`
}

func (k *keysAPI) revokeKey(ctx context.Context, in *keyIDInput) (*Out[client.APIKeyEnvelope], error) {
	caller := principalFrom(ctx).Key
	key, err := k.keys.Revoke(ctx, caller, in.ID, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	k.keyCache.InvalidateAccount(caller.AccountID) // other processes learn it through NOTIFY
	return reply(client.APIKeyEnvelope{OK: true, APIKey: apikey.ToWire(key, "")})
}

// keysAPI serves API keys.
type keysAPI struct {
	keys     *apikey.Store
	keyCache *apikey.Cache
	catalog  *catalog.Catalog
}

// routes are the keys routes.
func (k *keysAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpAPIKeysList, Method: http.MethodGet, Path: "/v1/api-keys", Summary: "List this key and its descendants", Tag: "API keys",
			Auth: authKey, Scope: client.ScopeAPIKeysManage}, k.listKeys),
		handle(Route{Op: client.OpAPIKeysCreate, Method: http.MethodPost, Path: "/v1/api-keys", Summary: "Create the first key (credit token) or a narrower child key", Tag: "API keys",
			Auth: authKeyOrCreditToken, Scope: client.ScopeAPIKeysManage, Idem: true, Seal: true, Status: http.StatusCreated, Session: true}, k.createKey),
		handle(Route{Op: client.OpAPIKeysRevoke, Method: http.MethodDelete, Path: "/v1/api-keys/{id}", Summary: "Revoke a key and all its descendants", Tag: "API keys",
			Auth: authKey, Scope: client.ScopeAPIKeysManage, Idem: true}, k.revokeKey),
	}
}
