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

// TestMigrateIsIdempotentAndSerialised runs Migrate concurrently from several connections on an already
// migrated schema and on a fresh one: every migration applies exactly once.
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
	applied := make(chan []string, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pg.Open(ctx, testdb.URL(), pg.Options{SearchPath: name, MaxOpenConns: 1})
			require.NoError(t, err)
			defer conn.Close()
			v, err := schema.Migrate(ctx, conn)
			require.NoError(t, err)
			applied <- v
		}()
	}
	wg.Wait()
	close(applied)
	total := 0
	for v := range applied {
		total += len(v)
	}
	require.Equal(t, len(all), total, "each migration applied exactly once")
}
