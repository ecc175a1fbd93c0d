package connection

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/textproto"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/pgnotify"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
)

// row is the connections table. It holds the sealed secret and never leaves this package.
type row struct {
	bun.BaseModel `bun:"table:connections"`

	ID           string     `bun:"id,pk"`
	AccountID    string     `bun:"account_id"`
	ProjectID    *string    `bun:"project_id"`
	Name         string     `bun:"name"`
	AuthType     string     `bun:"auth_type"`
	HeaderName   *string    `bun:"header_name"`
	SecretSealed []byte     `bun:"secret_sealed"`
	Status       string     `bun:"status"`
	CreatedAt    time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt    time.Time  `bun:"updated_at,nullzero,default:now()"`
	RotatedAt    *time.Time `bun:"rotated_at"`
}

// String keeps the sealed bytes out of prints, should a row ever be printed.
func (r *row) String() string { return "connection row " + r.ID }

func (r *row) connection() Connection {
	c := Connection{
		ID: r.ID, AccountID: r.AccountID, ProjectID: r.ProjectID, Name: r.Name, AuthType: r.AuthType,
		Status: r.Status, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, RotatedAt: r.RotatedAt,
	}
	if r.HeaderName != nil {
		c.HeaderName = *r.HeaderName
	}
	return c
}

// ChangeChannel is the PostgreSQL NOTIFY channel on which changes to connections are announced, with
// the account id as payload, so every process drops that account's cached credentials.
const ChangeChannel = "svc_connections_changed"

// Store keeps connections in PostgreSQL, sealing their secrets with box.
type Store struct {
	db  bun.IDB
	box *secretbox.Box
	// named caches CredentialNamed's answers; nil when credentials are not cached.
	named *pgnotify.Cache[Credential]
}

// NewStore returns a Store on db that seals secrets with box.
func NewStore(db bun.IDB, box *secretbox.Box) *Store { return &Store{db: db, box: box} }

// CacheCredentials makes CredentialNamed answer repeated lookups from memory, for at most ttl and at
// most maxEntries credentials, while Listen runs (see pgnotify): a changed or deleted connection is
// dropped from every process's cache when its transaction commits. It returns s.
func (s *Store) CacheCredentials(ttl time.Duration, maxEntries int, log *slog.Logger) *Store {
	s.named = pgnotify.New[Credential]("connection credential", ttl, maxEntries, log)
	return s
}

// Listen follows changes announced on ChangeChannel until ctx ends; the credential cache serves from
// memory only while it runs. Run it in a goroutine. Without CacheCredentials it returns at once.
func (s *Store) Listen(ctx context.Context, db *bun.DB) {
	if s.named != nil {
		s.named.Listen(ctx, db, ChangeChannel)
	}
}

// changed announces, inside tx, that the account's connections changed; other processes drop their
// cached credentials when tx commits.
func (s *Store) changed(ctx context.Context, tx bun.IDB, accountID string) error {
	return pgnotify.Notify(ctx, tx, ChangeChannel, accountID)
}

// forget drops this process's cached credentials of the account, after a change committed.
func (s *Store) forget(accountID string) {
	if s.named != nil {
		s.named.Drop(accountID)
	}
}

// Create validates and stores a connection in the scope. Creating the same id again (a retried request)
// answers the row its first attempt made. A name already used in the scope is a conflict.
func (s *Store) Create(ctx context.Context, scope tenant.Scope, n NewConnection) (Connection, error) {
	if err := n.validate(); err != nil {
		return Connection{}, err
	}
	if !ids.HasPrefix(n.ID, IDPrefix) {
		return Connection{}, fmt.Errorf("create connection: id %q lacks the %s_ prefix", n.ID, IDPrefix)
	}
	r := &row{
		ID: n.ID, AccountID: scope.AccountID, ProjectID: scope.ProjectID, Name: n.Name, AuthType: n.AuthType,
		Status: StatusActive, SecretSealed: s.seal(n.ID, sealedSecret{Username: n.Username, Secret: n.Secret}),
	}
	if n.AuthType == AuthHeader {
		h := textproto.CanonicalMIMEHeaderKey(n.HeaderName)
		r.HeaderName = &h
	}
	res, err := s.db.NewInsert().Model(r).On("CONFLICT (id) DO NOTHING").
		Returning("created_at, updated_at").Exec(ctx)
	if err != nil {
		return Connection{}, insertError(err)
	}
	if inserted, _ := res.RowsAffected(); inserted == 0 {
		return s.Get(ctx, scope, n.ID) // a retried request: answer the row as it is now
	}
	return r.connection(), nil
}

// insertError names the field of a unique violation; anything else is internal.
func insertError(err error) error {
	if isUniqueViolation(err) {
		return &svcerr.Error{Code: svcerr.Conflict, Param: "name", Message: "a connection with this name already exists"}
	}
	return fmt.Errorf("write connection: %w", err)
}

// isUniqueViolation reports SQLSTATE 23505.
func isUniqueViolation(err error) bool {
	var pgErr interface{ Field(byte) string }
	return errors.As(err, &pgErr) && pgErr.Field('C') == "23505"
}

// Get returns the connection with the id in the scope, or not_found.
func (s *Store) Get(ctx context.Context, scope tenant.Scope, id string) (Connection, error) {
	r, err := s.load(ctx, s.db, scope, id, false)
	if err != nil {
		return Connection{}, err
	}
	return r.connection(), nil
}

// load reads the row with the id in the scope, locking it for update when forUpdate is set.
func (s *Store) load(ctx context.Context, db bun.IDB, scope tenant.Scope, id string, forUpdate bool) (*row, error) {
	return s.loadBy(ctx, db, scope, "id", id, forUpdate)
}

// loadBy reads the scope's connection whose column (id or name) has the value.
func (s *Store) loadBy(ctx context.Context, db bun.IDB, scope tenant.Scope, column, value string, forUpdate bool) (*row, error) {
	r := new(row)
	q := scope.Where(db.NewSelect().Model(r)).Where("? = ?", bun.Ident(column), value)
	if forUpdate {
		q = q.For("UPDATE")
	}
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("no connection with %s %q", column, value)
	}
	if err != nil {
		return nil, fmt.Errorf("load connection: %w", err)
	}
	return r, nil
}

// List returns the scope's connections, newest first, and the cursor of the next page.
func (s *Store) List(ctx context.Context, scope tenant.Scope, p page.Params) ([]Connection, *string, error) {
	var rows []row
	q := scope.Where(s.db.NewSelect().Model(&rows)).OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1))
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list connections: %w", err)
	}
	rows, next := page.Next(p, rows, func(r row) page.Cursor { return page.Cursor{CreatedAt: r.CreatedAt, ID: r.ID} })
	out := make([]Connection, len(rows))
	for i := range rows {
		out[i] = rows[i].connection()
	}
	return out, next, nil
}

// Update applies the patch to the connection in the scope: rename, rotate the secret (and, for basic,
// the username), disable or re-enable. An empty patch answers the connection unchanged.
func (s *Store) Update(ctx context.Context, scope tenant.Scope, id string, p Patch) (Connection, error) {
	var out Connection
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		r, err := s.load(ctx, tx, scope, id, true)
		if err != nil {
			return err
		}
		q, err := s.applyPatch(tx.NewUpdate().Model(r).WherePK(), r, p)
		if err != nil {
			return err
		}
		if q == nil {
			out = r.connection()
			return nil
		}
		if _, err := q.Set("updated_at = now()").Returning("updated_at, rotated_at").Exec(ctx); err != nil {
			return insertError(err)
		}
		out = r.connection()
		return s.changed(ctx, tx, r.AccountID)
	})
	if err == nil {
		s.forget(scope.AccountID)
	}
	return out, err
}

// applyPatch validates p, changes r to match, and adds the changed columns to q; it returns nil when
// nothing changes.
func (s *Store) applyPatch(q *bun.UpdateQuery, r *row, p Patch) (*bun.UpdateQuery, error) {
	changed := false
	if p.Name != nil {
		if err := validateName(*p.Name); err != nil {
			return nil, err
		}
		r.Name, changed = *p.Name, true
		q = q.Set("name = ?", r.Name)
	}
	if p.Secret != nil || p.Username != nil {
		sealed, err := s.rotate(r, p)
		if err != nil {
			return nil, err
		}
		r.SecretSealed, changed = sealed, true
		q = q.Set("secret_sealed = ?", sealed).Set("rotated_at = now()")
	}
	if p.Disabled != nil {
		r.Status, changed = StatusActive, true
		if *p.Disabled {
			r.Status = StatusDisabled
		}
		q = q.Set("status = ?", r.Status)
	}
	if !changed {
		return nil, nil
	}
	return q, nil
}

// rotate returns the new sealed secret; what p leaves out (the username, say) is kept from the old one.
func (s *Store) rotate(r *row, p Patch) ([]byte, error) {
	if p.Username != nil {
		if err := validateUsername(r.AuthType, *p.Username, true); err != nil {
			return nil, err
		}
	}
	if p.Secret != nil {
		if err := validateSecret(*p.Secret); err != nil {
			return nil, err
		}
	}
	old, err := s.open(r)
	if err != nil {
		return nil, err
	}
	if p.Username != nil {
		old.Username = *p.Username
	}
	if p.Secret != nil {
		old.Secret = *p.Secret
	}
	return s.seal(r.ID, old), nil
}

// Delete removes the connection in the scope and answers it as it was, or not_found.
func (s *Store) Delete(ctx context.Context, scope tenant.Scope, id string) (Connection, error) {
	r := new(row)
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewDelete().Model(r).Where("id = ?", id).Where("account_id = ?", scope.AccountID)
		if scope.ProjectID == nil {
			q = q.Where("project_id IS NULL")
		} else {
			q = q.Where("project_id = ?", *scope.ProjectID)
		}
		err := q.Returning("*").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return svcerr.NotFoundf("no connection %q", id)
		}
		if err != nil {
			return fmt.Errorf("delete connection: %w", err)
		}
		return s.changed(ctx, tx, scope.AccountID)
	})
	if err != nil {
		return Connection{}, err
	}
	s.forget(scope.AccountID)
	return r.connection(), nil
}

// Credential opens the secret of the connection in the scope for injection into an upstream request. A
// disabled connection answers conflict; an unknown or foreign id, not_found.
func (s *Store) Credential(ctx context.Context, scope tenant.Scope, id string) (Credential, error) {
	r, err := s.load(ctx, s.db, scope, id, false)
	if err != nil {
		return Credential{}, err
	}
	return s.credential(r)
}

// CredentialNamed opens the credential of the scope's connection with the name: the name a managed
// service in services.yaml asks for, which each account stores its own credential under.
func (s *Store) CredentialNamed(ctx context.Context, scope tenant.Scope, name string) (Credential, error) {
	load := func(ctx context.Context) (Credential, string, error) {
		r, err := s.loadBy(ctx, s.db, scope, "name", name, false)
		if err != nil {
			return Credential{}, "", err
		}
		c, err := s.credential(r)
		return c, r.AccountID, err
	}
	if s.named == nil {
		c, _, err := load(ctx)
		return c, err
	}
	return s.named.Load(ctx, scope.AccountID+"\x00"+scope.Project()+"\x00"+name, load)
}

func (s *Store) credential(r *row) (Credential, error) {
	id := r.ID
	if r.Status != StatusActive {
		return Credential{}, &svcerr.Error{Code: svcerr.Conflict, Param: "connectionId",
			Message: fmt.Sprintf("connection %q is disabled; enable it before use", id)}
	}
	sec, err := s.open(r)
	if err != nil {
		return Credential{}, err
	}
	c := Credential{id: r.ID, authType: r.AuthType, username: sec.Username, secret: sec.Secret}
	if r.HeaderName != nil {
		c.headerName = *r.HeaderName
	}
	return c, nil
}

// seal encrypts the secret bound to the connection id.
func (s *Store) seal(id string, sec sealedSecret) []byte {
	plain, _ := json.Marshal(sec) // two strings: cannot fail
	return s.box.Seal(plain, []byte(id))
}

// open decrypts a row's secret. Its errors never quote the plaintext.
func (s *Store) open(r *row) (sealedSecret, error) {
	plain, err := s.box.Open(r.SecretSealed, []byte(r.ID))
	if err != nil {
		return sealedSecret{}, fmt.Errorf("open connection %s: %w", r.ID, err)
	}
	var sec sealedSecret
	if err := json.Unmarshal(plain, &sec); err != nil || sec.Secret == "" {
		return sealedSecret{}, fmt.Errorf("open connection %s: sealed secret is malformed", r.ID)
	}
	return sec, nil
}
