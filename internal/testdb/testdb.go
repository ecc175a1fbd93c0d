// Package testdb gives each test its own freshly migrated schema in the real PostgreSQL, so tests run in
// parallel without seeing each other's rows. TEST_DATABASE_URL overrides the default server.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/schema"
)

// DefaultURL is the machine's PostgreSQL (trust auth, user postgres).
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// URL is the server tests use.
func URL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// New creates a schema named after a random suffix, migrates it, and drops it when the test ends.
func New(t testing.TB) *bun.DB {
	t.Helper()
	db, _ := NewWithSchema(t)
	return db
}

// SchemaURL is URL selecting the schema as the search path, for another process to use.
func SchemaURL(schema string) string {
	u := URL()
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "search_path=" + schema
}

// NewWithSchema is New that also returns the schema name, for tests that open more connections to it.
func NewWithSchema(t testing.TB) (*bun.DB, string) {
	t.Helper()
	ctx := context.Background()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])

	admin, err := pg.Open(ctx, URL(), pg.Options{MaxOpenConns: 2})
	require.NoError(t, err, "connect to test postgres at %s", URL())
	_, err = admin.ExecContext(ctx, "CREATE SCHEMA "+name)
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), "DROP SCHEMA "+name+" CASCADE")
		_ = admin.Close()
	})

	db, err := pg.Open(ctx, URL(), pg.Options{SearchPath: name}) // the production pool size
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	_, err = schema.Migrate(ctx, db)
	require.NoError(t, err)
	return db, name
}
