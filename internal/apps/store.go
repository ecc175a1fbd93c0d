package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/folder"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// IDPrefix starts apps' ids (app_...).
const IDPrefix = "app"

// Sharing modes: private (the default; only the owner), unlisted (anyone with the URL) and public (also
// listed in the directory).
const (
	SharingPrivate  = "private"
	SharingUnlisted = "unlisted"
	SharingPublic   = "public"
)

// App is an app's row: its owner's scope, slug, sharing mode and validated manifest.
type App struct {
	ID        string
	AccountID string
	// ProjectID is the project the app was made in, "" for the account's project-less scope.
	ProjectID string
	Slug      string
	Sharing   string
	Manifest  Manifest
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Scope is the owner's scope of the app, the scope its files live in.
func (a *App) Scope() tenant.Scope {
	s := tenant.Scope{AccountID: a.AccountID}
	if a.ProjectID != "" {
		p := a.ProjectID
		s.ProjectID = &p
	}
	return s
}

// appRow is the apps table as scanned.
type appRow struct {
	ID        string          `bun:"id"`
	AccountID string          `bun:"account_id"`
	ProjectID *string         `bun:"project_id"`
	Slug      string          `bun:"slug"`
	Sharing   string          `bun:"sharing"`
	Manifest  json.RawMessage `bun:"manifest,type:jsonb"`
	CreatedAt time.Time       `bun:"created_at"`
	UpdatedAt time.Time       `bun:"updated_at"`
}

const appColumns = "id, account_id, project_id, slug, sharing, manifest, created_at, updated_at"

func (r appRow) app() (*App, error) {
	a := &App{ID: r.ID, AccountID: r.AccountID, Slug: r.Slug, Sharing: r.Sharing, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.ProjectID != nil {
		a.ProjectID = *r.ProjectID
	}
	if err := json.Unmarshal(r.Manifest, &a.Manifest); err != nil {
		return nil, fmt.Errorf("manifest of app %s: %w", r.Slug, err)
	}
	return a, nil
}

// Store keeps apps: their rows and record store in PostgreSQL, their folders in the files capability.
type Store struct {
	db     bun.IDB
	folder *folder.Store
	log    *slog.Logger
}

// NewStore returns a Store on db keeping app folders in files (bytes in blobs); purges may be nil.
func NewStore(db bun.IDB, files *file.Store, blobs blob.Store, purges *file.Purges, log *slog.Logger) *Store {
	if log == nil {
		log = slog.Default()
	}
	return &Store{db: db, folder: folder.NewStore(db, files, blobs, purges, log), log: log}
}

// NewApp is what Create stores: an app folder, every path relative to it.
type NewApp struct {
	// ID is the app id (app_...); derive it from the request's idempotency key.
	ID    string
	Scope tenant.Scope
	// KeyID is the creating key, recorded on the files (nil for the platform).
	KeyID *string
	Files map[string][]byte
}

// Validate checks a new app's folder against every rule before anything is stored, and answers its
// manifest: paths valid, manifest.json present and valid, index.html present, scripts present and
// checked, data files JSON, within the bounds of files and bytes.
func (n NewApp) Validate() (*Manifest, error) {
	if len(n.Files) > MaxFiles {
		return nil, svcerr.Invalid("files", "an app has at most %d files, not %d", MaxFiles, len(n.Files))
	}
	total := 0
	for _, p := range sortedPaths(n.Files) {
		if err := ValidatePath("files["+p+"]", p); err != nil {
			return nil, err
		}
		total += len(n.Files[p])
	}
	if total > MaxAppBytes {
		return nil, svcerr.New(svcerr.PayloadTooLarge, "the app's files hold %d bytes, more than %d", total, MaxAppBytes)
	}
	raw, ok := n.Files[ManifestPath]
	if !ok {
		return nil, svcerr.Invalid("manifest", "an app folder has a manifest.json")
	}
	if _, ok := n.Files[IndexPath]; !ok {
		return nil, svcerr.Invalid("files[index.html]", "an app folder has an index.html")
	}
	m, err := ParseManifest(raw)
	if err != nil {
		return nil, err
	}
	if err := m.CheckFiles(func(p string) bool { _, ok := n.Files[p]; return ok }); err != nil {
		return nil, err
	}
	for _, p := range sortedPaths(n.Files) {
		if err := checkContent(p, n.Files[p]); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// checkContent checks a file's bytes for its path: scripts pass checkScript, data files are JSON.
func checkContent(p string, data []byte) error {
	param := "files[" + p + "]"
	switch {
	case len(p) > len(scriptsDir) && p[:len(scriptsDir)] == scriptsDir:
		return checkScript(param, string(data))
	case len(p) > len(dataDir) && p[:len(dataDir)] == dataDir:
		return checkValue(param, data)
	}
	return nil
}

func sortedPaths(files map[string][]byte) []string {
	out := make([]string, 0, len(files))
	for p := range files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Create validates the folder, records the app (a slug the account already has is 409 naming slug)
// and stores its files. Nothing is left half-written: a failure deletes the files written and the row.
func (s *Store) Create(ctx context.Context, n NewApp) (*App, error) {
	m, err := n.Validate()
	if err != nil {
		return nil, err
	}
	a, err := s.insert(ctx, n, m)
	if err != nil {
		return nil, err
	}
	w := folder.Writer{Scope: n.Scope, KeyID: n.KeyID}
	var written []string
	for _, p := range sortedPaths(n.Files) {
		f, err := s.writeFile(ctx, w, a.Slug, p, n.Files[p])
		if err != nil {
			s.abandon(ctx, a, written)
			return nil, err
		}
		written = append(written, f.ID)
	}
	return a, nil
}

// abandon undoes a create that failed part way: the files written and the app's row.
func (s *Store) abandon(ctx context.Context, a *App, written []string) {
	ctx = context.WithoutCancel(ctx)
	if err := s.deleteFiles(ctx, a.Scope(), written); err != nil {
		s.log.Error("delete the files of a failed app create", slog.String("app", a.ID), slog.Any("err", err))
	}
	if _, err := s.db.NewRaw("DELETE FROM apps WHERE id = ?", a.ID).Exec(ctx); err != nil {
		s.log.Error("delete the row of a failed app create", slog.String("app", a.ID), slog.Any("err", err))
	}
}

func (s *Store) insert(ctx context.Context, n NewApp, m *Manifest) (*App, error) {
	doc, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode manifest of app %s: %w", m.Slug, err)
	}
	var r appRow
	err = s.db.NewRaw(`INSERT INTO apps (id, account_id, project_id, slug, title, description, tags, manifest)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+appColumns,
		n.ID, n.Scope.AccountID, n.Scope.ProjectID, m.Slug, m.Title, m.Description, pgTags(m.Tags), string(doc)).Scan(ctx, &r)
	if isUniqueViolation(err) {
		return nil, (&svcerr.Error{Code: svcerr.Conflict, Param: "slug", Message: fmt.Sprintf("this account already has an app %q", m.Slug)}).
			WithDetails("slug", m.Slug)
	}
	if err != nil {
		return nil, fmt.Errorf("record app %s: %w", m.Slug, err)
	}
	return r.app()
}

// Get answers the app with the slug in the scope; not_found when it is absent or another scope's.
func (s *Store) Get(ctx context.Context, scope tenant.Scope, slug string) (*App, error) {
	var r appRow
	err := scope.Where(s.db.NewSelect().Table("apps").ColumnExpr(appColumns)).Where("slug = ?", slug).Scan(ctx, &r)
	if isNoRows(err) {
		return nil, svcerr.NotFoundf("no app %q", slug).WithDetails("slug", slug)
	}
	if err != nil {
		return nil, fmt.Errorf("read app %s: %w", slug, err)
	}
	return r.app()
}

// GetShared answers the app with the slug of the account for a viewer who is not its owner: only an
// unlisted or public app, not_found otherwise (a private app is not revealed).
func (s *Store) GetShared(ctx context.Context, accountID, slug string) (*App, error) {
	var r appRow
	err := s.db.NewSelect().Table("apps").ColumnExpr(appColumns).
		Where("account_id = ? AND slug = ? AND sharing IN (?, ?)", accountID, slug, SharingUnlisted, SharingPublic).Scan(ctx, &r)
	if isNoRows(err) {
		return nil, svcerr.NotFoundf("no app %q", slug).WithDetails("slug", slug)
	}
	if err != nil {
		return nil, fmt.Errorf("read app %s: %w", slug, err)
	}
	return r.app()
}

// List answers the scope's apps, newest first, a page at a time, and the next page's cursor.
func (s *Store) List(ctx context.Context, scope tenant.Scope, p page.Params) ([]*App, *string, error) {
	return s.list(ctx, scope.Where(s.db.NewSelect().Table("apps").ColumnExpr(appColumns)), p)
}

// ListPublic answers the directory: every account's public apps, newest first, a page at a time.
func (s *Store) ListPublic(ctx context.Context, p page.Params) ([]*App, *string, error) {
	return s.list(ctx, s.db.NewSelect().Table("apps").ColumnExpr(appColumns).Where("sharing = ?", SharingPublic), p)
}

func (s *Store) list(ctx context.Context, q *bun.SelectQuery, p page.Params) ([]*App, *string, error) {
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	var rows []appRow
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit+1)).Scan(ctx, &rows); err != nil && !isNoRows(err) {
		return nil, nil, fmt.Errorf("list apps: %w", err)
	}
	rows, next := page.Next(p, rows, func(r appRow) page.Cursor { return page.Cursor{CreatedAt: r.CreatedAt, ID: r.ID} })
	out := make([]*App, 0, len(rows))
	for _, r := range rows {
		a, err := r.app()
		if err != nil {
			return nil, nil, err
		}
		out = append(out, a)
	}
	return out, next, nil
}

// SetSharing sets the sharing mode of the scope's app and answers it.
func (s *Store) SetSharing(ctx context.Context, scope tenant.Scope, slug, sharing string) (*App, error) {
	if sharing != SharingPrivate && sharing != SharingUnlisted && sharing != SharingPublic {
		return nil, svcerr.Invalid("sharing", "sharing is private, unlisted or public, not %q", sharing)
	}
	a, err := s.Get(ctx, scope, slug)
	if err != nil {
		return nil, err
	}
	var r appRow
	if err := s.db.NewRaw("UPDATE apps SET sharing = ?, updated_at = now() WHERE id = ? RETURNING "+appColumns, sharing, a.ID).
		Scan(ctx, &r); err != nil {
		return nil, fmt.Errorf("set sharing of app %s: %w", slug, err)
	}
	return r.app()
}

// Delete removes the scope's app: its row and records, then its files (soft-deleted, purged later).
func (s *Store) Delete(ctx context.Context, scope tenant.Scope, slug string) (*App, error) {
	a, err := s.Get(ctx, scope, slug)
	if err != nil {
		return nil, err
	}
	if _, err := s.db.NewRaw("DELETE FROM apps WHERE id = ?", a.ID).Exec(ctx); err != nil {
		return nil, fmt.Errorf("delete app %s: %w", slug, err)
	}
	rows, err := s.folder.LiveIDs(ctx, folderOf(scope, slug))
	if err != nil {
		return nil, err
	}
	if err := s.deleteFiles(ctx, scope, rows); err != nil {
		return nil, fmt.Errorf("delete files of app %s: %w", slug, err)
	}
	return a, nil
}

// Files answers the files of the app's folder by path.
func (s *Store) Files(ctx context.Context, a *App) ([]File, error) {
	rows, err := s.folderFiles(ctx, a.Scope(), a.Slug)
	if err != nil {
		return nil, err
	}
	out := make([]File, 0, len(rows))
	for _, r := range rows {
		out = append(out, toFile(r))
	}
	return out, nil
}

// ReadFile answers the bytes of the file at path of the app's folder; not_found naming the path when
// absent.
func (s *Store) ReadFile(ctx context.Context, a *App, path string) ([]byte, error) {
	return s.readFile(ctx, a.Scope(), a.Slug, path, MaxAppBytes)
}

// ScriptSource answers the source of the scope's app's script name (scripts/<name>.ts); not_found
// when the app is absent or its manifest lists no such script.
func (s *Store) ScriptSource(ctx context.Context, scope tenant.Scope, slug, name string) (string, error) {
	a, err := s.Get(ctx, scope, slug)
	if err != nil {
		return "", err
	}
	return s.Script(ctx, a, name)
}

// Script loads scripts/<name>.ts of app a (already read), a script its manifest lists.
func (s *Store) Script(ctx context.Context, a *App, name string) (string, error) {
	if !slices.Contains(a.Manifest.Scripts, name) {
		return "", svcerr.NotFoundf("app %s has no script %q", a.Slug, name).WithDetails("script", name)
	}
	src, err := s.readFile(ctx, a.Scope(), a.Slug, ScriptPath(name), MaxScriptBytes)
	if err != nil {
		return "", err
	}
	return string(src), nil
}

// PutFile writes the file at path of the scope's app's folder (creating or replacing it) and answers
// the app. A manifest.json is parsed and checked against the folder first (its slug stays the app's);
// a script passes checkScript, a data file is JSON.
func (s *Store) PutFile(ctx context.Context, scope tenant.Scope, keyID *string, slug, path string, data []byte) (*App, error) {
	if err := ValidatePath("path", path); err != nil {
		return nil, err
	}
	a, err := s.Get(ctx, scope, slug)
	if err != nil {
		return nil, err
	}
	if path == ManifestPath {
		return s.putManifest(ctx, a, keyID, data)
	}
	if err := checkContent(path, data); err != nil {
		return nil, err
	}
	if _, err := s.writeFile(ctx, folder.Writer{Scope: scope, KeyID: keyID}, slug, path, data); err != nil {
		return nil, err
	}
	return a, nil
}

func (s *Store) putManifest(ctx context.Context, a *App, keyID *string, data []byte) (*App, error) {
	m, err := ParseManifest(data)
	if err != nil {
		return nil, err
	}
	if m.Slug != a.Slug {
		return nil, svcerr.Invalid("slug", "slug is the app's address and stays %q (create a new app for another slug)", a.Slug)
	}
	have, err := s.folderFiles(ctx, a.Scope(), a.Slug)
	if err != nil {
		return nil, err
	}
	if err := m.CheckFiles(func(p string) bool {
		return slices.ContainsFunc(have, func(f schema.File) bool { return f.Name == p })
	}); err != nil {
		return nil, err
	}
	if _, err := s.writeFile(ctx, folder.Writer{Scope: a.Scope(), KeyID: keyID}, a.Slug, ManifestPath, data); err != nil {
		return nil, err
	}
	doc, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode manifest of app %s: %w", a.Slug, err)
	}
	var r appRow
	if err := s.db.NewRaw(`UPDATE apps SET manifest = ?, title = ?, description = ?, tags = ?, updated_at = now()
		WHERE id = ? RETURNING `+appColumns, string(doc), m.Title, m.Description, pgTags(m.Tags), a.ID).Scan(ctx, &r); err != nil {
		return nil, fmt.Errorf("update manifest of app %s: %w", a.Slug, err)
	}
	return r.app()
}

// pgTags is a text[] parameter of tags (never NULL).
func pgTags(tags []string) any {
	if tags == nil {
		tags = []string{}
	}
	return pgdialect.Array(tags)
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// isUniqueViolation reports SQLSTATE 23505.
func isUniqueViolation(err error) bool {
	var pgErr interface{ Field(byte) string }
	return errors.As(err, &pgErr) && pgErr.Field('C') == "23505"
}
