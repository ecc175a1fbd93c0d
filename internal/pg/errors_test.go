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
