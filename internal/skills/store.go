package skills

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/folder"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
)

// Skill is a skill's row: its owner, name, validated frontmatter and review state.
type Skill struct {
	AccountID   string
	Name        string
	Description string
	Version     float64
	Visibility  string
	// ReviewStatus is pending_review, approved or refused for a public skill, "" for a private one.
	ReviewStatus string
	ReviewReason string
	Tags         []string
	Emoji        string
	Frontmatter  Frontmatter
	// Source is the skill this one was installed from, nil for a skill its owner created.
	Source    *Source
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Source names the skill an installed copy came from.
type Source struct {
	AccountID string
	Name      string
}

// scope is the files capability's scope of the skill's files: the owner's account, no project.
func (s *Skill) scope() tenant.Scope { return tenant.Scope{AccountID: s.AccountID} }

// skillRow is the skills table as scanned.
type skillRow struct {
	AccountID       string          `bun:"account_id"`
	Name            string          `bun:"name"`
	Description     string          `bun:"description"`
	Version         float64         `bun:"version"`
	Visibility      string          `bun:"visibility"`
	ReviewStatus    *string         `bun:"review_status"`
	ReviewReason    string          `bun:"review_reason"`
	Tags            []string        `bun:"tags,array"`
	Emoji           string          `bun:"emoji"`
	Frontmatter     json.RawMessage `bun:"frontmatter,type:jsonb"`
	SourceAccountID *string         `bun:"source_account_id"`
	SourceName      *string         `bun:"source_name"`
	CreatedAt       time.Time       `bun:"created_at"`
	UpdatedAt       time.Time       `bun:"updated_at"`
}

const skillColumns = "account_id, name, description, version, visibility, review_status, review_reason, tags, emoji, " +
	"frontmatter, source_account_id, source_name, created_at, updated_at"

func (r skillRow) skill() (*Skill, error) {
	s := &Skill{AccountID: r.AccountID, Name: r.Name, Description: r.Description, Version: r.Version, Visibility: r.Visibility,
		ReviewReason: r.ReviewReason, Tags: r.Tags, Emoji: r.Emoji, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if s.Tags == nil {
		s.Tags = []string{}
	}
	if r.ReviewStatus != nil {
		s.ReviewStatus = *r.ReviewStatus
	}
	if r.SourceAccountID != nil && r.SourceName != nil {
		s.Source = &Source{AccountID: *r.SourceAccountID, Name: *r.SourceName}
	}
	if err := json.Unmarshal(r.Frontmatter, &s.Frontmatter); err != nil {
		return nil, fmt.Errorf("frontmatter of skill %s: %w", r.Name, err)
	}
	return s, nil
}

// Store keeps skills: their rows in PostgreSQL, their folders in the files capability.
type Store struct {
	db     bun.IDB
	folder *folder.Store
	log    *slog.Logger
}

// NewStore returns a Store on db keeping skill folders in files (bytes in blobs); purges may be nil.
func NewStore(db bun.IDB, files *file.Store, blobs blob.Store, purges *file.Purges, log *slog.Logger) *Store {
	if log == nil {
		log = slog.Default()
	}
	return &Store{db: db, folder: folder.NewStore(db, files, blobs, purges, log), log: log}
}

// NewSkill is what Create stores: a skill folder of the account, every path relative to it.
type NewSkill struct {
	AccountID string
	// KeyID is the creating key, recorded on the files (nil for the platform).
	KeyID *string
	Files map[string][]byte
}

// Create validates the folder and stores the skill; a skill of the same name is replaced (its version
// is the new file's, a public one goes back to pending_review). At most MaxPerAccount skills per
// account: one more is 409 naming the limit.
func (s *Store) Create(ctx context.Context, n NewSkill) (*Skill, error) {
	return s.store(ctx, n, nil)
}

// store validates and stores a skill folder; source marks an installed copy (kept private). It is
// all-or-nothing for readers: the new files are written to a staging folder first, then one transaction
// holding the (account, name) lock records the skill's row and swaps the staging folder in for the old
// one, whose files are deleted after. A failure before the swap leaves the previous version whole, and
// concurrent stores of one name swap one after the other, never mixing their files.
func (s *Store) store(ctx context.Context, n NewSkill, source *Source) (*Skill, error) {
	doc, err := Validate(n.Files)
	if err != nil {
		return nil, err
	}
	fm, scope, op := doc.Frontmatter, tenant.Scope{AccountID: n.AccountID}, opID()
	if err := s.check(ctx, s.db, n.AccountID, fm.Name, source); err != nil {
		return nil, err // early answer; checked again under the locks
	}
	staged, err := s.writeAll(ctx, folder.Writer{Scope: scope, KeyID: n.KeyID}, stagingPurpose(fm.Name, op), n.Files)
	if err != nil {
		s.cleanup(ctx, scope, fm.Name, staged)
		return nil, err
	}
	var sk *Skill
	var retired []string
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		stale, err := s.lockName(ctx, tx, scope, fm.Name)
		if err != nil {
			return err
		}
		if sk, err = s.upsert(ctx, tx, n.AccountID, fm, source); err != nil {
			return err
		}
		old, err := moveFolder(ctx, tx, scope, Purpose(fm.Name), retiredPurpose(fm.Name, op))
		if err != nil {
			return err
		}
		retired = append(stale, old...)
		_, err = moveFolder(ctx, tx, scope, stagingPurpose(fm.Name, op), Purpose(fm.Name))
		return err
	})
	if err != nil {
		s.cleanup(ctx, scope, fm.Name, staged)
		return nil, err
	}
	s.cleanup(ctx, scope, fm.Name, retired)
	return sk, nil
}

// lockName takes the transaction's lock of the account's skill name, serialising the swaps of its
// stores and its delete, and answers the files earlier operations on the name left behind (see
// leftovers).
func (s *Store) lockName(ctx context.Context, tx bun.Tx, scope tenant.Scope, name string) ([]string, error) {
	if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(hashtext('skill/' || ? || '/' || ?))", scope.AccountID, name).Exec(ctx); err != nil {
		return nil, fmt.Errorf("lock skill %s: %w", name, err)
	}
	return s.leftovers(ctx, tx, scope, name)
}

// cleanup deletes files of the skill name that are no longer its folder's (staged by a failed create or
// retired by a replace); a failure is logged, the next operation on the name deletes them.
func (s *Store) cleanup(ctx context.Context, scope tenant.Scope, name string, fileIDs []string) {
	if err := s.deleteFiles(context.WithoutCancel(ctx), scope, fileIDs); err != nil {
		s.log.Error("delete replaced or staged skill files", slog.String("skill", name), slog.Any("err", err))
	}
}

// Staging and retired folders of a skill: under the files capability's skills prefix but never a skill's
// folder (a skill name never starts with '.'). An operation id keeps concurrent operations apart.
const (
	stagingPrefix = file.SkillsPurposePrefix + ".staging/"
	retiredPrefix = file.SkillsPurposePrefix + ".retired/"
)

func stagingPurpose(name, op string) string { return stagingPrefix + name + "/" + op + "/" }

func retiredPurpose(name, op string) string { return retiredPrefix + name + "/" + op + "/" }

// opID is a short random operation id (16 hex digits, so that a purpose fits file.MaxPurposeLen).
func opID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// upsert records the skill's row in tx under the account's lock: the per-account limit is checked, an
// existing row of the name replaced.
func (s *Store) upsert(ctx context.Context, tx bun.Tx, accountID string, fm Frontmatter, source *Source) (*Skill, error) {
	doc, err := json.Marshal(fm)
	if err != nil {
		return nil, fmt.Errorf("encode frontmatter of skill %s: %w", fm.Name, err)
	}
	visibility, review := fm.Visibility, any(nil)
	if source != nil {
		visibility = VisibilityPrivate
	}
	if visibility == VisibilityPublic {
		review = ReviewPending
	}
	var srcAccount, srcName any
	if source != nil {
		srcAccount, srcName = source.AccountID, source.Name
	}
	if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(hashtext('skills/' || ?))", accountID).Exec(ctx); err != nil {
		return nil, fmt.Errorf("lock skills of %s: %w", accountID, err)
	}
	if err := s.check(ctx, tx, accountID, fm.Name, source); err != nil {
		return nil, err
	}
	var r skillRow
	err = tx.NewRaw(`INSERT INTO skills AS s (account_id, name, description, version, visibility, review_status, tags, emoji,
			frontmatter, source_account_id, source_name)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (account_id, name) DO UPDATE SET description = EXCLUDED.description, version = EXCLUDED.version,
			visibility = EXCLUDED.visibility, review_status = EXCLUDED.review_status, review_reason = '', reviewed_at = NULL,
			tags = EXCLUDED.tags, emoji = EXCLUDED.emoji, frontmatter = EXCLUDED.frontmatter,
			source_account_id = EXCLUDED.source_account_id, source_name = EXCLUDED.source_name, updated_at = now()
		RETURNING `+skillColumns,
		accountID, fm.Name, fm.Description, fm.Version, visibility, review, pgdialect.Array(fm.Tags), fm.Emoji, string(doc),
		srcAccount, srcName).Scan(ctx, &r)
	if err != nil {
		return nil, fmt.Errorf("record skill %s: %w", fm.Name, err)
	}
	return r.skill()
}

// check checks on db (the transaction holding the account's lock, or the database for an early answer)
// that the skill may be stored: the account's limit (a new name beyond MaxPerAccount
// is 409) and, for an install, that the name is free or a copy of the same skill.
func (s *Store) check(ctx context.Context, db bun.IDB, accountID, name string, source *Source) error {
	var existing []skillRow
	if err := db.NewRaw("SELECT "+skillColumns+" FROM skills WHERE account_id = ? AND name = ?", accountID, name).Scan(ctx, &existing); err != nil && !isNoRows(err) {
		return fmt.Errorf("read skill %s: %w", name, err)
	}
	if len(existing) == 1 {
		return checkReplace(existing[0], source)
	}
	n, err := db.NewSelect().Table("skills").Where("account_id = ?", accountID).Count(ctx)
	if err != nil {
		return fmt.Errorf("count skills of %s: %w", accountID, err)
	}
	if n >= MaxPerAccount {
		return (&svcerr.Error{Code: svcerr.Conflict, Param: "skills",
			Message: fmt.Sprintf("an account has at most %d skills: delete one before adding %q", MaxPerAccount, name)}).
			WithDetails("limit", MaxPerAccount)
	}
	return nil
}

// checkReplace refuses an install over a skill of the same name that is not a copy of the same source.
func checkReplace(have skillRow, source *Source) error {
	if source == nil {
		return nil
	}
	if have.SourceAccountID != nil && *have.SourceAccountID == source.AccountID && have.SourceName != nil && *have.SourceName == source.Name {
		return nil
	}
	return (&svcerr.Error{Code: svcerr.Conflict, Param: "name",
		Message: fmt.Sprintf("you already have a skill %q that is not a copy of %s's: delete it first", have.Name, source.AccountID)}).
		WithDetails("name", have.Name)
}

// Get answers the account's skill name; not_found when absent (another account's skill is absent).
func (s *Store) Get(ctx context.Context, accountID, name string) (*Skill, error) {
	var r skillRow
	err := s.db.NewRaw("SELECT "+skillColumns+" FROM skills WHERE account_id = ? AND name = ?", accountID, name).Scan(ctx, &r)
	if isNoRows(err) {
		return nil, svcerr.NotFoundf("no skill %q", name).WithDetails("name", name)
	}
	if err != nil {
		return nil, fmt.Errorf("read skill %s: %w", name, err)
	}
	return r.skill()
}

// List answers the account's skills by name (at most MaxPerAccount of them).
func (s *Store) List(ctx context.Context, accountID string) ([]Skill, error) {
	return s.query(ctx, "SELECT "+skillColumns+" FROM skills WHERE account_id = ? ORDER BY name", accountID)
}

// ListPublic answers the directory: every account's approved public skills, newest first, a page at a
// time, and the next page's cursor.
func (s *Store) ListPublic(ctx context.Context, p page.Params) ([]Skill, *string, error) {
	q := "SELECT " + skillColumns + " FROM skills WHERE review_status = ?"
	args := []any{ReviewApproved}
	if p.After != nil {
		q += " AND (created_at, account_id || '/' || name) < (?, ?)"
		args = append(args, p.After.CreatedAt, p.After.ID)
	}
	q += " ORDER BY created_at DESC, account_id || '/' || name DESC LIMIT ?"
	list, err := s.query(ctx, q, append(args, p.Limit+1)...)
	if err != nil {
		return nil, nil, err
	}
	list, next := page.Next(p, list, func(sk Skill) page.Cursor {
		return page.Cursor{CreatedAt: sk.CreatedAt, ID: sk.AccountID + "/" + sk.Name}
	})
	return list, next, nil
}

// ListPending answers the public skills waiting for review, oldest first.
func (s *Store) ListPending(ctx context.Context) ([]Skill, error) {
	return s.query(ctx, "SELECT "+skillColumns+" FROM skills WHERE review_status = ? ORDER BY updated_at, account_id, name", ReviewPending)
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]Skill, error) {
	var rows []skillRow
	if err := s.db.NewRaw(q, args...).Scan(ctx, &rows); err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("list skills: %w", err)
	}
	out := make([]Skill, 0, len(rows))
	for _, r := range rows {
		sk, err := r.skill()
		if err != nil {
			return nil, err
		}
		out = append(out, *sk)
	}
	return out, nil
}

// Review approves or refuses the pending (or already reviewed) public skill name of owner, with reason.
// A private skill is 409: only public skills are reviewed.
func (s *Store) Review(ctx context.Context, owner, name string, approve bool, reason string) (*Skill, error) {
	sk, err := s.Get(ctx, owner, name)
	if err != nil {
		return nil, err
	}
	if sk.Visibility != VisibilityPublic {
		return nil, svcerr.New(svcerr.Conflict, "skill %q of %s is private: only public skills are reviewed", name, owner)
	}
	status := ReviewRefused
	if approve {
		status = ReviewApproved
	}
	var r skillRow
	err = s.db.NewRaw(`UPDATE skills SET review_status = ?, review_reason = ?, reviewed_at = now()
		WHERE account_id = ? AND name = ? AND visibility = 'public' RETURNING `+skillColumns, status, reason, owner, name).Scan(ctx, &r)
	if isNoRows(err) {
		return nil, svcerr.NotFoundf("no public skill %q of %s", name, owner)
	}
	if err != nil {
		return nil, fmt.Errorf("review skill %s of %s: %w", name, owner, err)
	}
	return r.skill()
}

// Delete removes the account's skill under its name's lock: its row, and its folder moved aside in the
// same transaction, then its files (soft-deleted, purged later).
func (s *Store) Delete(ctx context.Context, accountID, name string) (*Skill, error) {
	scope := tenant.Scope{AccountID: accountID}
	var sk *Skill
	var retired []string
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		stale, err := s.lockName(ctx, tx, scope, name)
		if err != nil {
			return err
		}
		var r skillRow
		err = tx.NewRaw("DELETE FROM skills WHERE account_id = ? AND name = ? RETURNING "+skillColumns, accountID, name).Scan(ctx, &r)
		if isNoRows(err) {
			return svcerr.NotFoundf("no skill %q", name).WithDetails("name", name)
		}
		if err != nil {
			return fmt.Errorf("delete skill %s: %w", name, err)
		}
		if sk, err = r.skill(); err != nil {
			return err
		}
		old, err := moveFolder(ctx, tx, scope, Purpose(name), retiredPurpose(name, opID()))
		retired = append(stale, old...)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.deleteFiles(ctx, scope, retired); err != nil {
		return nil, fmt.Errorf("delete files of skill %s: %w", name, err)
	}
	return sk, nil
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
