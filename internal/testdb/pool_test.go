package testdb

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/schema"
)

// privatePool is a pool of its own for one test: its schemas carry a migrations hash no other pool uses,
// so no other test (of this process or another) takes them. Its schemas are dropped when the test ends.
func privatePool(t *testing.T) *pool {
	t.Helper()
	ctx := context.Background()
	hash := "pool-test-" + randomHex(8)
	p, err := openPool(ctx, hash)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, p.dropAll(context.Background(), "migrations = ?", hash))
		_ = p.lock.Close()
		_ = p.admin.Close()
	})
	return p
}

// take acquires a schema of p, migrating it when it is new, and returns it with a connection to it.
func take(t *testing.T, p *pool) (pooled, *bun.DB) {
	t.Helper()
	ctx := context.Background()
	s, err := p.acquire(ctx)
	require.NoError(t, err)
	db, err := pg.Open(ctx, URL(), pg.Options{SearchPath: s.name, MaxOpenConns: 2})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	if s.fingerprint == "" {
		_, err = schema.Migrate(ctx, db)
		require.NoError(t, err)
		require.NoError(t, p.recordFingerprint(ctx, &s))
	}
	return s, db
}

// schemaExists reports whether PostgreSQL has the schema and the pool a row for it.
func schemaExists(t *testing.T, p *pool, name string) (schema, row bool) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, p.admin.QueryRowContext(ctx, "SELECT to_regnamespace(?) IS NOT NULL, EXISTS (SELECT FROM svc_testdb.schemas WHERE name = ?)",
		name, name).Scan(&schema, &row))
	return schema, row
}

// TestReleasedSchemaComesBackEmpty: a schema given back is emptied (its migration records kept, its
// sequences restarted) and is the next one handed out.
func TestReleasedSchemaComesBackEmpty(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := privatePool(t)
	first, db := take(t, p)
	_, err := db.ExecContext(ctx, `INSERT INTO accounts (id, name) VALUES ('acct_a', 'a');
		INSERT INTO projects (id, account_id, name) VALUES ('proj_a1', 'acct_a', 'p1');
		SELECT nextval('events_seq_seq'), nextval('events_seq_seq')`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	p.release(ctx, first)

	again, db := take(t, p)
	require.Equal(t, first, again, "the idle schema is reused")
	var accounts, projects, migrations int
	require.NoError(t, db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM accounts), (SELECT count(*) FROM projects),
		(SELECT count(*) FROM schema_migrations)`).Scan(&accounts, &projects, &migrations))
	require.Zero(t, accounts)
	require.Zero(t, projects)
	all, err := schema.Migrations()
	require.NoError(t, err)
	require.Equal(t, len(all), migrations)
	var next int64
	require.NoError(t, db.QueryRowContext(ctx, "SELECT nextval('events_seq_seq')").Scan(&next))
	require.EqualValues(t, 1, next, "sequences restart")
	p.release(ctx, again)
}

// TestChangedSchemaIsDropped: a schema whose structure the test changed (a table added, a constraint
// added) is dropped, not reused; a change undone before the end keeps it poolable.
func TestChangedSchemaIsDropped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := privatePool(t)
	for name, change := range map[string]string{
		"table":      "CREATE TABLE docs (id int PRIMARY KEY)",
		"constraint": "ALTER TABLE accounts ADD CONSTRAINT no_x CHECK (name <> 'x') NOT VALID",
		"column":     "ALTER TABLE accounts ADD COLUMN extra text",
		"index":      "CREATE INDEX accounts_name ON accounts (name)",
		"migrations": "DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)",
	} {
		s, db := take(t, p)
		_, err := db.ExecContext(ctx, change)
		require.NoError(t, err, name)
		require.NoError(t, db.Close())
		p.release(ctx, s)
		inPG, inPool := schemaExists(t, p, s.name)
		require.False(t, inPG, "%s: schema dropped", name)
		require.False(t, inPool, "%s: forgotten", name)
	}
	s, db := take(t, p)
	_, err := db.ExecContext(ctx, "ALTER TABLE accounts ADD CONSTRAINT no_x CHECK (name <> 'x'); ALTER TABLE accounts DROP CONSTRAINT no_x")
	require.NoError(t, err)
	require.NoError(t, db.Close())
	p.release(ctx, s)
	again, _ := take(t, p)
	require.Equal(t, s, again, "a change undone keeps the schema")
	p.release(ctx, again)
}

// TestSweepDropsOnlyDeadOwnersSchemas: a starting process drops the schemas of an owner whose lock is
// free (a process that died) and leaves those of an owner holding its lock (a running process).
func TestSweepDropsOnlyDeadOwnersSchemas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := privatePool(t)
	dead, alive := randomKey(), randomKey()
	holder, err := p.admin.Conn(ctx)
	require.NoError(t, err)
	defer holder.Close()
	_, err = holder.ExecContext(ctx, "SELECT pg_advisory_lock(?)", alive)
	require.NoError(t, err)
	names := map[int64]string{dead: "tp_" + randomHex(8), alive: "tp_" + randomHex(8)}
	for owner, name := range names {
		_, err := p.admin.ExecContext(ctx, "CREATE SCHEMA "+name)
		require.NoError(t, err)
		_, err = p.admin.ExecContext(ctx, "INSERT INTO svc_testdb.schemas (name, owner, migrations) VALUES (?, ?, ?)",
			name, owner, p.migrations)
		require.NoError(t, err)
	}

	require.NoError(t, p.sweep(ctx))
	// Another test process starting at the same moment may be the one sweeping the dead owner (it holds
	// the owner's lock while it drops): the schema goes either way, by the end of that sweep.
	require.Eventually(t, func() bool {
		inPG, inPool := schemaExists(t, p, names[dead])
		return !inPG && !inPool
	}, 10*time.Second, 20*time.Millisecond, "the dead owner's schema is dropped")
	inPG, inPool := schemaExists(t, p, names[alive])
	require.True(t, inPG, "the running owner's schema is left alone")
	require.True(t, inPool)

	_, err = holder.ExecContext(ctx, "SELECT pg_advisory_unlock(?)", alive)
	require.NoError(t, err)
	require.NoError(t, p.sweep(ctx))
	inPG, _ = schemaExists(t, p, names[alive])
	require.False(t, inPG, "dropped once its owner is gone")
}
