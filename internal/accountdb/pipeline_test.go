package accountdb_test

import (
	"context"
	"database/sql"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/testdb"
)

// countingConn counts the writes on a connection's socket.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// TestQueryIsOneRoundTrip: a query that answers rows or is truncated by its row cap is one write on its
// connection (so one round trip); one that fails in PostgreSQL takes a second, the rollback after the
// failure; each leaves the connection usable, out of any transaction and holding no advisory lock.
func TestQueryIsOneRoundTrip(t *testing.T) {
	t.Parallel()
	var writes atomic.Int64
	counting := func(conf *pgdriver.Config) {
		dial := conf.Dialer
		conf.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return countingConn{Conn: c, writes: &writes}, nil
		}
	}
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(testdb.URL()), counting))
	sqldb.SetMaxOpenConns(1)
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() { _ = db.Close() })
	require.NoError(t, db.PingContext(context.Background()))
	var pid int
	require.NoError(t, db.QueryRowContext(context.Background(), "SELECT pg_backend_pid()").Scan(&pid))

	for _, tc := range []struct {
		req    client.DatabaseQueryRequest
		writes int64
	}{
		{client.DatabaseQueryRequest{SQL: "SELECT $1::int AS n, 'x' AS s, now() AS at", Params: raws(`1`)}, 1},
		{client.DatabaseQueryRequest{SQL: "SELECT g FROM generate_series(1, 100000) g", MaxRows: 3}, 1},
		{client.DatabaseQueryRequest{SQL: "SELECT 1 AS n FROM pg_advisory_lock(42), pg_advisory_xact_lock(43)"}, 1},
		{client.DatabaseQueryRequest{SQL: "SELECT 1/0 FROM pg_advisory_lock(44)"}, 2},
		{client.DatabaseQueryRequest{SQL: "SELECT nope"}, 2},
		{client.DatabaseQueryRequest{SQL: "SELECT $1::int", Params: raws(`"not a number"`)}, 2},
		{client.DatabaseQueryRequest{SQL: "SELECT $1::int, $2::int", Params: raws(`1`)}, 2},
	} {
		before := writes.Load()
		_, _ = accountdb.Query(context.Background(), db, tc.req, accountdb.Limits{Timeout: 10 * time.Second})
		require.Equal(t, tc.writes, writes.Load()-before, "%s: writes", tc.req.SQL)
		var locks int
		var txStatus string
		require.NoError(t, db.QueryRowContext(context.Background(),
			"SELECT (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()), current_setting('transaction_read_only')").Scan(&locks, &txStatus))
		require.Zero(t, locks, "%s: no advisory lock is left", tc.req.SQL)
		require.Equal(t, "off", txStatus, "%s: no read-only transaction is left open", tc.req.SQL)
	}
	var after int
	require.NoError(t, db.QueryRowContext(context.Background(), "SELECT pg_backend_pid()").Scan(&after))
	require.Equal(t, pid, after, "the connection was kept")
}

// TestQueryByteCapCutsALargeRow: a row far larger than the byte cap (left unread) truncates the result
// after the rows before it; the connection, mid-answer, is discarded and the next query gets its own.
func TestQueryByteCapCutsALargeRow(t *testing.T) {
	t.Parallel()
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(testdb.URL())))
	sqldb.SetMaxOpenConns(1)
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() { _ = db.Close() })
	limits := accountdb.Limits{Timeout: 10 * time.Second, MaxBytes: 10 << 10}
	res, err := accountdb.Query(context.Background(), db, client.DatabaseQueryRequest{SQL: "SELECT 'a' UNION ALL SELECT repeat('x', 1 << 20)"}, limits)
	require.NoError(t, err)
	require.True(t, res.Truncated)
	require.Equal(t, 1, res.RowCount)
	require.JSONEq(t, `["a"]`, string(res.Rows[0]))
	res, err = accountdb.Query(context.Background(), db, client.DatabaseQueryRequest{SQL: "SELECT 2 AS n"}, limits)
	require.NoError(t, err)
	require.JSONEq(t, `[2]`, string(res.Rows[0]))
}
