package pg_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/testdb"
)

// TestUnstorable: values PostgreSQL refuses are told apart from other failures.
func TestUnstorable(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	for _, q := range []string{`SELECT '{"a":"\u0000"}'::jsonb`, `SELECT '{"a":'::jsonb`, `SELECT 1/0`, `SELECT repeat('x', 1073741824)`} {
		_, err := db.ExecContext(ctx, q)
		require.Error(t, err, q)
		require.True(t, pg.Unstorable(err), "%s: %v", q, err)
	}
	_, err := db.ExecContext(ctx, `SELECT * FROM no_such_table`)
	require.Error(t, err)
	require.False(t, pg.Unstorable(err))
	require.False(t, pg.Unstorable(fmt.Errorf("wrapped: %w", context.Canceled)))
	require.False(t, pg.Unstorable(nil))
}

// TestNULRefusedIsOnlyNUL: of the values PostgreSQL refuses, only NUL in text or jsonb is the caller's
// input (answered 400); other data exceptions stay errors of ours.
func TestNULRefusedIsOnlyNUL(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	_, err := db.ExecContext(ctx, `SELECT '{"a":"\u0000"}'::jsonb`)
	require.True(t, pg.NULRefused(err), "%v", err)
	require.Equal(t, "22P05", pg.SQLState(err))
	_, err = db.ExecContext(ctx, `SELECT 1/0`)
	require.True(t, pg.Unstorable(err), "%v", err)
	require.False(t, pg.NULRefused(err), "%v", err)
	_, err = db.ExecContext(ctx, `CREATE TEMP TABLE u (id int PRIMARY KEY); INSERT INTO u VALUES (1), (1)`)
	require.True(t, pg.IntegrityViolation(err), "%v", err)
	require.Equal(t, "", pg.SQLState(fmt.Errorf("wrapped: %w", context.Canceled)))
}
