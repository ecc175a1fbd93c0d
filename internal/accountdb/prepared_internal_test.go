package accountdb

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
)

// TestQueryDiscardsAConnectionMissingItsStatements: when the pipeline's own statements are recorded as
// prepared on a connection that does not have them, the query fails before the caller's statement runs,
// the connection is discarded, and the next query prepares them on a new one.
func TestQueryDiscardsAConnectionMissingItsStatements(t *testing.T) {
	t.Parallel()
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(testdb.URL())))
	sqldb.SetMaxOpenConns(1)
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	conn, err := db.DB.Conn(ctx)
	require.NoError(t, err)
	var first int
	require.NoError(t, conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&first))
	require.NoError(t, conn.Raw(func(dc any) error {
		preparedConns.add(dc.(*pgdriver.Conn)) // a lie: nothing is prepared on it
		return nil
	}))
	require.NoError(t, conn.Close())

	limits := Limits{Timeout: 10 * time.Second}
	_, err = Query(ctx, db, client.DatabaseQueryRequest{SQL: "SELECT 1 AS n"}, limits)
	require.ErrorContains(t, err, "the connection's own statements", "BEGIN's statement is missing: nothing runs")
	require.True(t, svcerr.Is(err, svcerr.Unavailable), "a 503 to retry, not a 400 about the caller's sql: %v", err)

	res, err := Query(ctx, db, client.DatabaseQueryRequest{SQL: "SELECT pg_backend_pid() AS pid, current_setting('transaction_read_only') AS ro"}, limits)
	require.NoError(t, err)
	require.Contains(t, string(res.Rows[0]), `"on"`, "the query ran read only")
	var pid int
	require.NoError(t, db.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid))
	require.NotEqual(t, first, pid, "the connection that lacked the statements was discarded")
}
