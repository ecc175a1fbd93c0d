package webhook

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// Store keeps webhook endpoints in PostgreSQL, sealing their secrets with box.
type Store struct {
	db   bun.IDB
	box  *secretbox.Box
	opts Options
}

// NewStore returns a Store on db that seals secrets with box.
func NewStore(db bun.IDB, box *secretbox.Box, opts Options) *Store {
	return &Store{db: db, box: box, opts: opts}
}

// FromRow is the endpoint a row holds, without its secrets.
func FromRow(r *schema.Webhook) Webhook {
	w := Webhook{
		ID: r.ID, AccountID: r.AccountID, ProjectID: r.ProjectID, URL: r.URL,
		Events: append([]string(nil), r.Events...), Description: r.Description, Enabled: r.Enabled,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, PreviousSecretExpiresAt: r.PreviousSecretExpiresAt,
	}
	if r.DisabledReason != nil {
		w.DisabledReason = *r.DisabledReason
	}
	return w
}

// Create validates and stores an endpoint in the scope with a fresh secret, and answers it with the
// secret. Creating the same id again (a retried request) answers the row its first attempt made, with
// its current secret. Nothing is stored on bad input.
func (s *Store) Create(ctx context.Context, scope tenant.Scope, n NewWebhook) (Webhook, error) {
	if err := s.opts.validate(ctx, n); err != nil {
		return Webhook{}, err
	}
	secret, err := newSecret()
	if err != nil {
		return Webhook{}, err
	}
	r := &schema.Webhook{
		ID: n.ID, AccountID: scope.AccountID, ProjectID: scope.ProjectID, URL: n.URL,
		Events: append([]string(nil), n.Events...), Description: n.Description, Enabled: true,
		SecretSealed: s.box.Seal([]byte(secret), []byte(n.ID)),
	}
	res, err := s.db.NewInsert().Model(r).On("CONFLICT (id) DO NOTHING").
		Returning("created_at, updated_at").Exec(ctx)
	if err != nil {
		return Webhook{}, fmt.Errorf("create webhook: %w", err)
	}
	if inserted, _ := res.RowsAffected(); inserted == 0 {
		// A retried request: answer the row as it is now, with its current secret.
		r, err = s.Load(ctx, scope, n.ID)
		if err != nil {
			return Webhook{}, err
		}
		if secret, err = s.open(r.ID, r.SecretSealed); err != nil {
			return Webhook{}, err
		}
	}
	w := FromRow(r)
	w.Secret = secret
	return w, nil
}

// Load returns the stored row (with its sealed secrets) of the endpoint with the id in the scope, or
// not_found; the dispatcher passes it to Secrets.
func (s *Store) Load(ctx context.Context, scope tenant.Scope, id string) (*schema.Webhook, error) {
	return s.load(ctx, s.db, scope, id, false)
}

func (s *Store) load(ctx context.Context, db bun.IDB, scope tenant.Scope, id string, forUpdate bool) (*schema.Webhook, error) {
	r := new(schema.Webhook)
	q := scope.Where(db.NewSelect().Model(r)).Where("id = ?", id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("no webhook %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("load webhook: %w", err)
	}
	return r, nil
}

// Get returns the endpoint with the id in the scope, without its secret, or not_found.
func (s *Store) Get(ctx context.Context, scope tenant.Scope, id string) (Webhook, error) {
	r, err := s.Load(ctx, scope, id)
	if err != nil {
		return Webhook{}, err
	}
	return FromRow(r), nil
}

// List returns the scope's endpoints, newest first, without secrets, and the cursor of the next page.
func (s *Store) List(ctx context.Context, scope tenant.Scope, p page.Params) ([]Webhook, *string, error) {
	var rows []schema.Webhook
	q := scope.Where(s.db.NewSelect().Model(&rows)).OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1))
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list webhooks: %w", err)
	}
	rows, next := page.Next(p, rows, func(r schema.Webhook) page.Cursor { return page.Cursor{CreatedAt: r.CreatedAt, ID: r.ID} })
	out := make([]Webhook, len(rows))
	for i := range rows {
		out[i] = FromRow(&rows[i])
	}
	return out, next, nil
}

// Update applies the patch to the endpoint in the scope: url, events, description, enabled. Enabling
// clears the disabled reason. Nothing changes on bad input; an empty patch answers the endpoint as it is.
func (s *Store) Update(ctx context.Context, scope tenant.Scope, id string, p Patch) (Webhook, error) {
	if err := s.validatePatch(ctx, p); err != nil {
		return Webhook{}, err
	}
	return s.change(ctx, scope, id, func(r *schema.Webhook, q *bun.UpdateQuery) (*bun.UpdateQuery, error) {
		changed := false
		if p.URL != nil {
			r.URL, changed = *p.URL, true
			q = q.Set("url = ?", r.URL)
		}
		if p.Events != nil {
			r.Events, changed = append([]string(nil), (*p.Events)...), true
			q = q.Set("events = ?", pgdialect.Array(r.Events))
		}
		if p.Description != nil {
			r.Description, changed = *p.Description, true
			q = q.Set("description = ?", r.Description)
		}
		if p.Enabled != nil {
			q, changed = setEnabled(r, q, *p.Enabled), true
		}
		if !changed {
			return nil, nil
		}
		return q, nil
	})
}

func (s *Store) validatePatch(ctx context.Context, p Patch) error {
	if p.URL != nil {
		if err := s.opts.validateURL(ctx, *p.URL); err != nil {
			return err
		}
	}
	if p.Events != nil {
		if err := validateEvents(*p.Events); err != nil {
			return err
		}
	}
	if p.Description != nil {
		return validateDescription(*p.Description)
	}
	return nil
}

// setEnabled enables r (clearing its disabled reason and failing streak) or disables it by request.
func setEnabled(r *schema.Webhook, q *bun.UpdateQuery, enabled bool) *bun.UpdateQuery {
	r.Enabled, r.DisabledReason = enabled, nil
	if !enabled {
		reason := DisabledByRequest
		r.DisabledReason = &reason
	} else {
		r.FailingSince = nil
		q = q.Set("failing_since = NULL")
	}
	return q.Set("enabled = ?", r.Enabled).Set("disabled_reason = ?", r.DisabledReason)
}

// Disable disables the endpoint in the scope (DELETE /v1/webhooks/{id}) and answers it. Disabling a
// disabled endpoint answers it unchanged.
func (s *Store) Disable(ctx context.Context, scope tenant.Scope, id string) (Webhook, error) {
	return s.change(ctx, scope, id, func(r *schema.Webhook, q *bun.UpdateQuery) (*bun.UpdateQuery, error) {
		if !r.Enabled {
			return nil, nil
		}
		return setEnabled(r, q, false), nil
	})
}

// RotateSecret gives the endpoint in the scope a fresh secret and answers it with that secret. The
// replaced secret keeps signing for PreviousSecretTTL; a still-unexpired older one stops at once.
func (s *Store) RotateSecret(ctx context.Context, scope tenant.Scope, id string) (Webhook, error) {
	secret, err := newSecret()
	if err != nil {
		return Webhook{}, err
	}
	w, err := s.change(ctx, scope, id, func(r *schema.Webhook, q *bun.UpdateQuery) (*bun.UpdateQuery, error) {
		expires := s.opts.now().Add(PreviousSecretTTL).UTC()
		r.PreviousSecretSealed, r.PreviousSecretExpiresAt = r.SecretSealed, &expires
		r.SecretSealed = s.box.Seal([]byte(secret), []byte(r.ID))
		return q.Set("previous_secret_sealed = ?", r.PreviousSecretSealed).
			Set("previous_secret_expires_at = ?", expires).
			Set("secret_sealed = ?", r.SecretSealed), nil
	})
	if err != nil {
		return Webhook{}, err
	}
	w.Secret = secret
	return w, nil
}

// change locks the endpoint in the scope, lets apply change the row and add the changed columns to q
// (nil: nothing changes), writes it and answers it.
func (s *Store) change(ctx context.Context, scope tenant.Scope, id string,
	apply func(*schema.Webhook, *bun.UpdateQuery) (*bun.UpdateQuery, error)) (Webhook, error) {
	var out Webhook
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		r, err := s.load(ctx, tx, scope, id, true)
		if err != nil {
			return err
		}
		q, err := apply(r, tx.NewUpdate().Model(r).WherePK())
		if err != nil {
			return err
		}
		if q != nil {
			if _, err := q.Set("updated_at = now()").Returning("updated_at").Exec(ctx); err != nil {
				return fmt.Errorf("update webhook %s: %w", id, err)
			}
		}
		out = FromRow(r)
		return nil
	})
	return out, err
}

// Secrets returns the secrets deliveries of the endpoint are signed with at now, newest first: the
// current one, and the one a rotation replaced while it has not expired.
func (s *Store) Secrets(w *schema.Webhook, now time.Time) ([]string, error) {
	cur, err := s.open(w.ID, w.SecretSealed)
	if err != nil {
		return nil, err
	}
	out := []string{cur}
	if w.PreviousSecretSealed != nil && w.PreviousSecretExpiresAt != nil && now.Before(*w.PreviousSecretExpiresAt) {
		prev, err := s.open(w.ID, w.PreviousSecretSealed)
		if err != nil {
			return nil, err
		}
		out = append(out, prev)
	}
	return out, nil
}

// open decrypts a sealed secret of the webhook. Its errors never quote the plaintext.
func (s *Store) open(id string, sealed []byte) (string, error) {
	plain, err := s.box.Open(sealed, []byte(id))
	if err != nil {
		return "", fmt.Errorf("open webhook %s secret: %w", id, err)
	}
	return string(plain), nil
}
