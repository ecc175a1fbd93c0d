package schema_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// TestMigrateIsIdempotentAndSerialised migrates a fresh schema from several connections at once: every
// migration applies exactly once, and a migrated schema has nothing pending.
func TestMigrateIsIdempotentAndSerialised(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, name := testdb.NewWithSchema(t)
	pending, err := schema.Pending(ctx, db)
	require.NoError(t, err)
	require.Empty(t, pending)

	_, err = db.ExecContext(ctx, "DROP SCHEMA "+name+" CASCADE; CREATE SCHEMA "+name)
	require.NoError(t, err)
	pending, err = schema.Pending(ctx, db)
	require.NoError(t, err)
	all, err := schema.Migrations()
	require.NoError(t, err)
	require.Len(t, pending, len(all))

	var wg sync.WaitGroup
	type result struct {
		applied []string
		err     error
	}
	results := make(chan result, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pg.Open(ctx, testdb.URL(), pg.Options{SearchPath: name, MaxOpenConns: 1})
			if err != nil {
				results <- result{err: err}
				return
			}
			defer conn.Close()
			v, err := schema.Migrate(ctx, conn)
			results <- result{applied: v, err: err}
		}()
	}
	wg.Wait()
	close(results)
	total := 0
	for r := range results {
		require.NoError(t, r.err)
		total += len(r.applied)
	}
	require.Equal(t, len(all), total, "each migration applied exactly once")
}
