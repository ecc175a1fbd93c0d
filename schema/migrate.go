// Package schema holds the bun models of every table and the embedded, ordered SQL migrations that create
// them. Migrate applies each migration exactly once, under a transaction-scoped advisory lock, so several
// processes may start at once and a crash never leaves a stale lock behind.
package schema

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/uptrace/bun"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLockID is the pg_advisory_xact_lock key that serialises migrations ("svc-migrate").
const migrationLockID = 0x7376632d6d6967

// Migration is one embedded SQL file; Version is its file name without the .sql suffix.
type Migration struct {
	Version string
	SQL     string
}

// Migrations returns the embedded migrations in the order they apply.
func Migrations() ([]Migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	sort.Strings(names)
	out := make([]Migration, 0, len(names))
	for _, name := range names {
		body, err := migrationFiles.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		version := strings.TrimSuffix(strings.TrimPrefix(name, "migrations/"), ".sql")
		out = append(out, Migration{Version: version, SQL: string(body)})
	}
	return out, nil
}

// Migrate applies every embedded migration not yet recorded in schema_migrations and returns the versions
// it applied. All of it runs in one transaction: either every pending migration applies, or none does.
func Migrate(ctx context.Context, db bun.IDB) ([]string, error) {
	migrations, err := Migrations()
	if err != nil {
		return nil, err
	}
	var applied []string
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", migrationLockID); err != nil {
			return fmt.Errorf("take migration lock: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		var done []string
		if err := tx.NewSelect().Table("schema_migrations").Column("version").Scan(ctx, &done); err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		applied, err = applyPending(ctx, tx, migrations, done)
		return err
	})
	if err != nil {
		return nil, err
	}
	return applied, nil
}

func applyPending(ctx context.Context, tx bun.Tx, migrations []Migration, done []string) ([]string, error) {
	seen := make(map[string]bool, len(done))
	for _, v := range done {
		seen[v] = true
	}
	var applied []string
	for _, m := range migrations {
		if seen[m.Version] {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return nil, fmt.Errorf("apply migration %s: %w", m.Version, err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version) VALUES (?)", m.Version); err != nil {
			return nil, fmt.Errorf("record migration %s: %w", m.Version, err)
		}
		applied = append(applied, m.Version)
	}
	return applied, nil
}

// Pending returns the versions of embedded migrations the database has not applied yet.
func Pending(ctx context.Context, db bun.IDB) ([]string, error) {
	migrations, err := Migrations()
	if err != nil {
		return nil, err
	}
	var done []string
	err = db.NewSelect().Table("schema_migrations").Column("version").Scan(ctx, &done)
	if err != nil && !strings.Contains(err.Error(), "does not exist") {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	seen := make(map[string]bool, len(done))
	for _, v := range done {
		seen[v] = true
	}
	var pending []string
	for _, m := range migrations {
		if !seen[m.Version] {
			pending = append(pending, m.Version)
		}
	}
	return pending, nil
}
