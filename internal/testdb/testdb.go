// Package testdb gives each test its own migrated schema in the real PostgreSQL, so tests run in parallel
// without seeing each other's rows. TEST_DATABASE_URL overrides the default server.
//
// Migrating a schema costs more than most tests, so schemas are pooled (see pool.go): a test takes an
// idle schema migrated by the same migrations, or migrates a new one, and when it ends the schema's rows
// are deleted and it goes back to the pool for the next test of any process; a schema whose structure
// the test changed is dropped instead.
package testdb

import (
	"context"
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

// New gives the test a migrated schema of its own, empty, and takes it back when the test ends.
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
// Whatever else uses the schema (connections, processes) must be closed by cleanups the test registers
// after this call, so that they run before the schema goes back to the pool.
func NewWithSchema(t testing.TB) (*bun.DB, string) {
	t.Helper()
	ctx := context.Background()
	p, err := sharedPool()
	require.NoError(t, err, "test postgres at %s", URL())
	s, err := p.acquire(ctx)
	require.NoError(t, err, "take a test schema")
	t.Cleanup(func() { p.release(context.Background(), s) })

	db, err := pg.Open(ctx, URL(), pg.Options{SearchPath: s.name}) // the production pool size
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	if s.fingerprint == "" {
		_, err = schema.Migrate(ctx, db)
		require.NoError(t, err)
		require.NoError(t, p.recordFingerprint(ctx, &s), "fingerprint schema %s", s.name)
	}
	return db, s.name
}
