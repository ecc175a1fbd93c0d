package accountdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/internal/testdb"
)

// TestDriverInternals pins what the session reads from pgdriver's unexported fields: a pgdriver upgrade
// that moves them fails here rather than leaving queries uncancellable or untyped.
func TestDriverInternals(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	conn, err := db.DB.Conn(context.Background())
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	require.NoError(t, conn.Raw(func(dc any) error {
		cn := dc.(*pgdriver.Conn)
		pid, secret := cancelKey(cn)
		var backend int64
		rows, err := cn.QueryContext(context.Background(), "SELECT pg_backend_pid()", nil)
		require.NoError(t, err)
		vals := make([]driver.Value, 1)
		require.NoError(t, rows.Next(vals))
		backend = vals[0].(int64)
		require.NoError(t, rows.Close())
		require.Equal(t, int32(backend), pid)
		require.NotZero(t, secret)

		s := newSession(cn)
		st, err := s.prepare(context.Background(), "SELECT 1::int8 AS a, 'x'::text AS b, now() AS c")
		require.NoError(t, err)
		defer st.close()
		require.Equal(t, []uint32{oidInt8, 25, oidTimestamptz}, st.oids())
		return nil
	}))

	// The read timeout, which the pipeline applies to its own reads.
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(testdb.URL()), pgdriver.WithReadTimeout(1234*time.Millisecond)))
	defer func() { _ = sqldb.Close() }()
	conn2, err := sqldb.Conn(context.Background())
	require.NoError(t, err)
	defer func() { _ = conn2.Close() }()
	require.NoError(t, conn2.Raw(func(dc any) error {
		require.Equal(t, 1234*time.Millisecond, readTimeout(dc.(*pgdriver.Conn)))
		return nil
	}))
}
