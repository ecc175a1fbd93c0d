// Package partner keeps partner keys: organisation-level keys (seed 002's X-Partner-Key) that act for
// an account on the routes that accept them (token launch deploys). An operator makes them with
// `svcd partners create`; the secret is shown once and only its SHA-256 is kept.
package partner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// SecretPrefix starts every partner key secret (svc_pk_, the length of an API key's svc_sk_).
const SecretPrefix = "svc_pk_"

// Store keeps partner keys in PostgreSQL.
type Store struct{ db bun.IDB }

// NewStore returns a Store on db.
func NewStore(db bun.IDB) *Store { return &Store{db: db} }

// Created is a new partner key with its secret, which is never shown again.
type Created struct {
	Partner *schema.Partner
	Secret  string
}

// Create makes a partner key named name for accountID (which must exist).
func (s *Store) Create(ctx context.Context, accountID, name string) (Created, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return Created{}, svcerr.Invalid("name", "name must be 1 to 100 characters")
	}
	var exists bool
	if err := s.db.NewRaw("SELECT EXISTS (SELECT 1 FROM accounts WHERE id = ?)", accountID).Scan(ctx, &exists); err != nil {
		return Created{}, fmt.Errorf("look up account %s: %w", accountID, err)
	}
	if !exists {
		return Created{}, svcerr.NotFoundf("no account %s", accountID)
	}
	secret := apikey.NewSecretWith(SecretPrefix)
	p := &schema.Partner{ID: ids.New(ids.Partner), AccountID: accountID, Name: name, Prefix: apikey.DisplayPrefix(secret),
		SecretHash: apikey.Hash(secret)}
	if _, err := s.db.NewInsert().Model(p).Returning("created_at").Exec(ctx); err != nil {
		return Created{}, fmt.Errorf("create partner key: %w", err)
	}
	return Created{Partner: p, Secret: secret}, nil
}

// Authenticate answers the live partner key whose secret is secret; anything else is 401.
func (s *Store) Authenticate(ctx context.Context, secret string) (*schema.Partner, error) {
	unknown := svcerr.New(svcerr.Unauthenticated, "X-Partner-Key is not a valid partner key")
	if !apikey.WellFormedWith(SecretPrefix, secret) {
		return nil, unknown
	}
	p := new(schema.Partner)
	err := s.db.NewSelect().Model(p).Where("secret_hash = ?", apikey.Hash(secret)).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unknown
	}
	if err != nil {
		return nil, fmt.Errorf("look up partner key: %w", err)
	}
	if p.RevokedAt != nil {
		return nil, svcerr.New(svcerr.Unauthenticated, "this partner key was revoked at %s", p.RevokedAt.UTC().Format(time.RFC3339))
	}
	return p, nil
}

// List answers every partner key, newest first, of accountID ("" for every account).
func (s *Store) List(ctx context.Context, accountID string) ([]schema.Partner, error) {
	var out []schema.Partner
	q := s.db.NewSelect().Model(&out).OrderExpr("created_at DESC, id")
	if accountID != "" {
		q = q.Where("account_id = ?", accountID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("list partner keys: %w", err)
	}
	return out, nil
}

// Revoke revokes partner key id; revoking it again changes nothing.
func (s *Store) Revoke(ctx context.Context, id string) (*schema.Partner, error) {
	p := new(schema.Partner)
	err := s.db.NewRaw("UPDATE partners SET revoked_at = coalesce(revoked_at, now()) WHERE id = ? RETURNING *", id).Scan(ctx, p)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("no partner key %s", id)
	}
	if err != nil {
		return nil, fmt.Errorf("revoke partner key %s: %w", id, err)
	}
	return p, nil
}
