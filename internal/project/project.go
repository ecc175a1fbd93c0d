// Package project manages an account's projects: create, read, list, update and archive. An archived
// project stays readable but refuses writes (409); a key bound to a project sees only that project.
package project

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// Statuses.
const (
	Active   = "active"
	Archived = "archived"
)

// Store keeps projects.
type Store struct {
	db bun.IDB
}

// NewStore returns a Store on db.
func NewStore(db bun.IDB) *Store { return &Store{db: db} }

// ToWire converts a project to the API's shape.
func ToWire(p *schema.Project) client.Project {
	return client.Project{ID: p.ID, Name: p.Name, Description: p.Description, Status: p.Status,
		CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(), ArchivedAt: p.ArchivedAt}
}

// Visibility says which projects a caller may see: all of the account's, or only one.
type Visibility struct {
	AccountID string
	// Only, when set, is the one project a project-bound key may see.
	Only *string
}

func (v Visibility) where(q *bun.SelectQuery) *bun.SelectQuery {
	q = q.Where("account_id = ?", v.AccountID)
	if v.Only != nil {
		q = q.Where("id = ?", *v.Only)
	}
	return q
}

// Fields are a project's editable fields; nil leaves a field as it is.
type Fields struct {
	Name        *string
	Description *string
}

func (f Fields) validate(creating bool) error {
	if f.Name != nil {
		n := strings.TrimSpace(*f.Name)
		if n == "" || len(n) > 200 {
			return svcerr.Invalid("name", "a project needs a name of 1 to 200 characters")
		}
		*f.Name = n
	} else if creating {
		return svcerr.Invalid("name", "a project needs a name")
	}
	if f.Description != nil && len(*f.Description) > 2000 {
		return svcerr.Invalid("description", "a description has at most 2000 characters")
	}
	return nil
}

// Create makes an active project with the given id (derived from the request's idempotency record).
func (s *Store) Create(ctx context.Context, accountID, id string, f Fields) (*schema.Project, error) {
	if err := f.validate(true); err != nil {
		return nil, err
	}
	p := &schema.Project{ID: id, AccountID: accountID, Name: *f.Name, Status: Active}
	if f.Description != nil {
		p.Description = *f.Description
	}
	if _, err := s.db.NewInsert().Model(p).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
		return nil, fmt.Errorf("insert project: %w", err)
	}
	return s.Get(ctx, Visibility{AccountID: accountID}, id)
}

// Get returns a visible project or not_found.
func (s *Store) Get(ctx context.Context, v Visibility, id string) (*schema.Project, error) {
	p := new(schema.Project)
	err := v.where(s.db.NewSelect().Model(p)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("no project %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("load project: %w", err)
	}
	return p, nil
}

// List returns visible projects, newest first.
func (s *Store) List(ctx context.Context, v Visibility, status string, p page.Params) ([]schema.Project, *string, error) {
	var out []schema.Project
	q := v.where(s.db.NewSelect().Model(&out)).OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1))
	if status != "" {
		q = q.Where("status = ?", status)
	}
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list projects: %w", err)
	}
	out, next := page.Next(p, out, func(pr schema.Project) page.Cursor { return page.Cursor{CreatedAt: pr.CreatedAt, ID: pr.ID} })
	return out, next, nil
}

// Update changes a visible, active project; an archived one answers conflict.
func (s *Store) Update(ctx context.Context, v Visibility, id string, f Fields) (*schema.Project, error) {
	if err := f.validate(false); err != nil {
		return nil, err
	}
	p, err := s.Get(ctx, v, id)
	if err != nil {
		return nil, err
	}
	if p.Status == Archived {
		return nil, svcerr.New(svcerr.Conflict, "project %s is archived and refuses changes", id)
	}
	q := s.db.NewUpdate().Model((*schema.Project)(nil)).Set("updated_at = now()").
		Where("id = ? AND account_id = ? AND status = ?", id, v.AccountID, Active)
	if f.Name != nil {
		q = q.Set("name = ?", *f.Name)
	}
	if f.Description != nil {
		q = q.Set("description = ?", *f.Description)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("update project: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 { // archived since we read it
		return nil, svcerr.New(svcerr.Conflict, "project %s is archived and refuses changes", id)
	}
	return s.Get(ctx, v, id)
}

// Archive archives a visible project; archiving an archived project answers it unchanged.
func (s *Store) Archive(ctx context.Context, v Visibility, id string, now time.Time) (*schema.Project, error) {
	if _, err := s.Get(ctx, v, id); err != nil {
		return nil, err
	}
	_, err := s.db.NewUpdate().Model((*schema.Project)(nil)).
		Set("status = ?", Archived).Set("archived_at = ?", now).Set("updated_at = ?", now).
		Where("id = ? AND account_id = ? AND status = ?", id, v.AccountID, Active).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("archive project: %w", err)
	}
	return s.Get(ctx, v, id)
}
