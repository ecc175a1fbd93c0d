// Package apikey issues, authenticates, lists and revokes API keys. Secrets are svc_sk_ strings with a
// checksum; only their SHA-256 is stored. A child key is never wider than its parent, and revoking a key
// revokes all its descendants in the same statement.
package apikey

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/pgnotify"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// Store keeps keys in PostgreSQL.
type Store struct {
	db bun.IDB
}

// NewStore returns a Store on db.
func NewStore(db bun.IDB) *Store { return &Store{db: db} }

// GrantsOf returns the key's scopes, services and limits.
func GrantsOf(k *schema.APIKey) Grants {
	return Grants{Scopes: k.Scopes, Services: k.Services, Limits: k.Limits, ReadOnly: k.ReadOnly,
		IPAllowlist: k.IPAllowlist, Recipients: k.RecipientAllowlist}
}

// ToWire converts a key to the API's shape; secret is set only in the answer that creates the key.
func ToWire(k *schema.APIKey, secret string) client.APIKey {
	out := client.APIKey{
		ID: k.ID, Name: k.Name, Secret: secret, Prefix: k.Prefix, Scopes: k.Scopes, Services: k.Services,
		Limits: make([]client.Limit, 0, len(k.Limits)), ParentID: k.ParentID, ProjectID: k.ProjectID,
		CreatedAt: k.CreatedAt.UTC(), RevokedAt: k.RevokedAt, ReadOnly: k.ReadOnly, IPAllowlist: k.IPAllowlist,
	}
	if r := k.RecipientAllowlist; r != nil {
		out.RecipientAllowlist = &client.RecipientAllowlist{EVM: r.EVM, Solana: r.Solana}
	}
	for _, l := range k.Limits {
		out.Limits = append(out.Limits, client.Limit(l))
	}
	return out
}

// NewKey is what Create needs besides the grants.
type NewKey struct {
	// ID is the key id; derived from the idempotency record so a retried request finds its key.
	ID        string
	AccountID string
	Name      string
	ProjectID *string
	Parent    *schema.APIKey
	Grants    Grants
	// CreditTokenID is the jti of the first-key credit token being spent, if any.
	CreditTokenID string
}

// Create stores the key and returns it with its secret, which exists nowhere else afterwards. Spending
// the credit token and creating the key happen in one transaction, which also holds the parent chain so a
// concurrent revocation of an ancestor either sees the new key or makes its creation fail.
//
// A retried request (same id, derived from its idempotency record) whose first attempt created the key but
// never delivered its answer gets a fresh secret for that same key: the first secret reached nobody.
func (s *Store) Create(ctx context.Context, nk NewKey) (*schema.APIKey, string, error) {
	secret := NewSecret()
	key := &schema.APIKey{
		ID: nk.ID, AccountID: nk.AccountID, ProjectID: nk.ProjectID, Name: nk.Name,
		Prefix: DisplayPrefix(secret), SecretHash: Hash(secret),
		Scopes: nk.Grants.Scopes, Services: nk.Grants.Services, Limits: nk.Grants.Limits, Ancestors: []string{},
		ReadOnly: nk.Grants.ReadOnly, IPAllowlist: nk.Grants.IPAllowlist, RecipientAllowlist: nk.Grants.Recipients,
	}
	if nk.Parent != nil {
		key.ParentID = &nk.Parent.ID
		key.Ancestors = append(slices.Clone(nk.Parent.Ancestors), nk.Parent.ID)
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := holdAncestors(ctx, tx, key.Ancestors); err != nil {
			return err
		}
		if err := checkProject(ctx, tx, nk.AccountID, nk.ProjectID); err != nil {
			return err
		}
		if err := insertOrReissue(ctx, tx, key); err != nil {
			return err
		}
		if nk.CreditTokenID == "" {
			return nil
		}
		return spendCreditToken(ctx, tx, nk.CreditTokenID, nk.AccountID, key.ID)
	})
	if err != nil {
		return nil, "", err
	}
	return key, secret, nil
}

// holdAncestors share-locks the new key's ancestors and fails if any of them was revoked. Revoke takes
// the revoked key's row lock first, so the two serialise.
func holdAncestors(ctx context.Context, tx bun.Tx, ancestors []string) error {
	if len(ancestors) == 0 {
		return nil
	}
	var live []string
	err := tx.NewSelect().Model((*schema.APIKey)(nil)).Column("id").
		Where("id IN (?) AND revoked_at IS NULL", bun.List(ancestors)).For("SHARE").Scan(ctx, &live)
	if err != nil {
		return fmt.Errorf("hold parent keys: %w", err)
	}
	if len(live) != len(ancestors) {
		return svcerr.New(svcerr.Unauthenticated, "the API key was revoked")
	}
	return nil
}

// insertOrReissue inserts the key, or, when a retried request finds the key its first attempt made,
// replaces that key's never-delivered secret.
func insertOrReissue(ctx context.Context, tx bun.Tx, key *schema.APIKey) error {
	res, err := tx.NewInsert().Model(key).
		On("CONFLICT (id) DO UPDATE").Set("secret_hash = EXCLUDED.secret_hash, prefix = EXCLUDED.prefix").
		Where("?TableAlias.account_id = EXCLUDED.account_id AND ?TableAlias.revoked_at IS NULL").
		Returning("created_at").Exec(ctx)
	if err != nil {
		return fmt.Errorf("insert api key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return svcerr.New(svcerr.Conflict, "the key this request created has since been revoked; use a new Idempotency-Key")
	}
	return nil
}

func checkProject(ctx context.Context, tx bun.Tx, accountID string, projectID *string) error {
	if projectID == nil {
		return nil
	}
	n, err := tx.NewSelect().Model((*schema.Project)(nil)).
		Where("id = ? AND account_id = ? AND status = 'active'", *projectID, accountID).Count(ctx)
	if err != nil {
		return fmt.Errorf("check project: %w", err)
	}
	if n == 0 {
		return (&svcerr.Error{Code: svcerr.NotFound, Param: "projectId", Message: "no active project with that id"})
	}
	return nil
}

func spendCreditToken(ctx context.Context, tx bun.Tx, jti, accountID, keyID string) error {
	res, err := tx.NewInsert().Model(&schema.CreditTokenUse{JTI: jti, AccountID: accountID, KeyID: keyID}).
		On("CONFLICT (jti) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("spend credit token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	// Spent already: by this very key on a retried request, or by another one.
	n, err := tx.NewSelect().Model((*schema.CreditTokenUse)(nil)).Where("jti = ? AND key_id = ?", jti, keyID).Count(ctx)
	if err != nil {
		return fmt.Errorf("check credit token: %w", err)
	}
	if n == 0 {
		return svcerr.New(svcerr.Unauthenticated, "this credit token was already used")
	}
	return nil
}

// Caller is an authenticated key with its ancestors, nearest first: the ancestors' limits apply to it.
type Caller struct {
	Key       *schema.APIKey
	Ancestors []*schema.APIKey
}

// Authenticate returns the live key whose secret this is, with its ancestors, or an unauthenticated
// error.
func (s *Store) Authenticate(ctx context.Context, secret string) (*Caller, error) {
	if !WellFormed(secret) {
		return nil, svcerr.New(svcerr.Unauthenticated, "the API key is malformed")
	}
	key := new(schema.APIKey)
	err := s.db.NewSelect().Model(key).Where("secret_hash = ?", Hash(secret)).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.New(svcerr.Unauthenticated, "the API key is unknown")
	}
	if err != nil {
		return nil, fmt.Errorf("look up api key: %w", err)
	}
	if key.RevokedAt != nil {
		return nil, svcerr.New(svcerr.Unauthenticated, "the API key was revoked")
	}
	ancestors, err := s.ancestors(ctx, key)
	if err != nil {
		return nil, err
	}
	return &Caller{Key: key, Ancestors: ancestors}, nil
}

// Holder returns the live key id with its ancestors, for work done on the key's behalf without a request
// (an automation's fires); a revoked or unknown key is an unauthenticated error.
func (s *Store) Holder(ctx context.Context, id string) (*Caller, error) {
	key := new(schema.APIKey)
	err := s.db.NewSelect().Model(key).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.New(svcerr.Unauthenticated, "the API key %s is unknown", id)
	}
	if err != nil {
		return nil, fmt.Errorf("look up api key %s: %w", id, err)
	}
	if key.RevokedAt != nil {
		return nil, svcerr.New(svcerr.Unauthenticated, "the API key %s was revoked", id)
	}
	ancestors, err := s.ancestors(ctx, key)
	if err != nil {
		return nil, err
	}
	for _, a := range ancestors {
		if a.RevokedAt != nil {
			return nil, svcerr.New(svcerr.Unauthenticated, "an ancestor of the API key %s was revoked", id)
		}
	}
	return &Caller{Key: key, Ancestors: ancestors}, nil
}

// ancestors loads the key's ancestors, nearest first.
func (s *Store) ancestors(ctx context.Context, key *schema.APIKey) ([]*schema.APIKey, error) {
	if len(key.Ancestors) == 0 {
		return nil, nil
	}
	var rows []schema.APIKey
	if err := s.db.NewSelect().Model(&rows).Where("id IN (?)", bun.List(key.Ancestors)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("load parent keys: %w", err)
	}
	byID := make(map[string]*schema.APIKey, len(rows))
	for i := range rows {
		byID[rows[i].ID] = &rows[i]
	}
	out := make([]*schema.APIKey, 0, len(key.Ancestors))
	for i := len(key.Ancestors) - 1; i >= 0; i-- {
		if a, ok := byID[key.Ancestors[i]]; ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// inTree restricts a query to the caller and its descendants.
func inTree(q *bun.SelectQuery, caller *schema.APIKey) *bun.SelectQuery {
	return q.Where("account_id = ?", caller.AccountID).
		Where("(id = ? OR ? = ANY(ancestors))", caller.ID, caller.ID)
}

// List returns the caller and its descendants, newest first.
func (s *Store) List(ctx context.Context, caller *schema.APIKey, p page.Params) ([]schema.APIKey, *string, error) {
	var keys []schema.APIKey
	q := inTree(s.db.NewSelect().Model(&keys), caller).OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1))
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list api keys: %w", err)
	}
	keys, next := page.Next(p, keys, func(k schema.APIKey) page.Cursor { return page.Cursor{CreatedAt: k.CreatedAt, ID: k.ID} })
	return keys, next, nil
}

// Revoke revokes the key id, which must be the caller or one of its descendants, and every descendant
// of it, at once. Revoking an already revoked key answers it unchanged. The revoked key's row is locked
// before its descendants are updated, so a child being created under it concurrently is either included
// or refused (see holdAncestors).
func (s *Store) Revoke(ctx context.Context, caller *schema.APIKey, id string, now time.Time) (*schema.APIKey, error) {
	target := new(schema.APIKey)
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		err := inTree(tx.NewSelect().Model(target), caller).Where("id = ?", id).For("UPDATE").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return svcerr.NotFoundf("no API key %q among this key and its descendants", id)
		}
		if err != nil {
			return fmt.Errorf("load api key: %w", err)
		}
		// A new statement sees children committed while we waited for the lock.
		_, err = tx.NewUpdate().Model((*schema.APIKey)(nil)).Set("revoked_at = ?", now).
			Where("account_id = ?", caller.AccountID).Where("(id = ? OR ? = ANY(ancestors))", id, id).
			Where("revoked_at IS NULL").Exec(ctx)
		if err != nil {
			return fmt.Errorf("revoke api key: %w", err)
		}
		// Delivered on commit to every process that caches keys.
		return pgnotify.Notify(ctx, tx, RevocationChannel, caller.AccountID)
	})
	if err != nil {
		return nil, err
	}
	if target.RevokedAt == nil {
		target.RevokedAt = &now
	}
	return target, nil
}

// NewID returns a fresh key id.
func NewID() string { return ids.New(ids.APIKey) }
