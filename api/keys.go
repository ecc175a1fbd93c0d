package api

import (
	"context"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

func (s *Server) listKeys(ctx context.Context, in *listInput) (*Out[client.APIKeyList], error) {
	p, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	keys, next, err := s.keys.List(ctx, principalFrom(ctx).Key, p)
	if err != nil {
		return nil, err
	}
	out := client.APIKeyList{OK: true, APIKeys: make([]client.APIKey, 0, len(keys)), NextCursor: next}
	for i := range keys {
		k := keyToWire(&keys[i], "")
		k.Current = keys[i].ID == principalFrom(ctx).Key.ID
		out.APIKeys = append(out.APIKeys, k)
	}
	return reply(out)
}

type createKeyInput struct {
	Body client.CreateAPIKeyRequest
}

func (s *Server) createKey(ctx context.Context, in *createKeyInput) (*Out[client.APIKeyEnvelope], error) {
	p := principalFrom(ctx)
	req := in.Body
	nk := apikey.NewKey{ID: newID(ctx, ids.APIKey), AccountID: p.Scope.AccountID, Name: req.Name}
	limits := toSchemaLimits(req.Limits)
	if p.Key == nil { // first key, authorised by a credit token
		grants, err := apikey.Narrow(s.catalog, apikey.FullGrants(), apikey.Request{Scopes: req.Scopes, Services: req.Services, Limits: limits})
		if err != nil {
			return nil, err
		}
		nk.Grants, nk.CreditTokenID = grants, p.CreditToken.ID
	} else {
		grants, err := apikey.Narrow(s.catalog, apikey.GrantsOf(p.Key), apikey.Request{Scopes: req.Scopes, Services: req.Services, Limits: limits})
		if err != nil {
			return nil, err
		}
		nk.Grants, nk.Parent = grants, p.Key
		nk.ProjectID = p.Key.ProjectID
	}
	if err := bindProject(&nk, req.ProjectID, p); err != nil {
		return nil, err
	}
	key, secret, err := s.keys.Create(ctx, nk)
	if err != nil {
		return nil, err
	}
	return reply(client.APIKeyEnvelope{OK: true, APIKey: keyToWire(key, secret)})
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

func (s *Server) revokeKey(ctx context.Context, in *keyIDInput) (*Out[client.APIKeyEnvelope], error) {
	caller := principalFrom(ctx).Key
	key, err := s.keys.Revoke(ctx, caller, in.ID, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	s.keyCache.InvalidateAccount(caller.AccountID) // other processes learn it through NOTIFY
	return reply(client.APIKeyEnvelope{OK: true, APIKey: keyToWire(key, "")})
}

func keyToWire(k *schema.APIKey, secret string) client.APIKey {
	out := client.APIKey{
		ID: k.ID, Name: k.Name, Secret: secret, Prefix: k.Prefix, Scopes: k.Scopes, Services: k.Services,
		Limits: make([]client.Limit, 0, len(k.Limits)), ParentID: k.ParentID, ProjectID: k.ProjectID,
		CreatedAt: k.CreatedAt.UTC(), RevokedAt: k.RevokedAt,
	}
	for _, l := range k.Limits {
		out.Limits = append(out.Limits, client.Limit(l))
	}
	return out
}

func toSchemaLimits(in []client.Limit) []schema.Limit {
	if in == nil {
		return nil
	}
	out := make([]schema.Limit, len(in))
	for i, l := range in {
		out[i] = schema.Limit(l)
	}
	return out
}
