package dbarchive_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/internal/testdb"
)

// scratch is a database of its own for one test, owned by a login role, with a second login role that
// may only SELECT its tables, as the managed database provisions them.
type scratch struct {
	name   string
	owner  *bun.DB
	reader *bun.DB
}

// admin is the one superuser connection pool the tests share.
// It has no read timeout: DROP DATABASE … WITH (FORCE) can take longer than pg.Open's 5 s on a busy machine.
var admin = sync.OnceValues(func() (*bun.DB, error) {
	db := openNoReadTimeout(testdb.URL(), 2)
	return db, db.PingContext(context.Background())
})

// newScratch creates a database with owner and reader roles and drops them all when the test ends.
func newScratch(t testing.TB) *scratch {
	t.Helper()
	ctx := context.Background()
	a, err := admin()
	require.NoError(t, err)
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	name := "dbarchive_" + hex.EncodeToString(suffix)
	s := &scratch{name: name}
	for _, q := range []string{
		"CREATE ROLE " + name + "_owner LOGIN",
		"CREATE ROLE " + name + "_reader LOGIN",
		"CREATE DATABASE " + name + " OWNER " + name + "_owner",
		"REVOKE CONNECT, TEMPORARY ON DATABASE " + name + " FROM PUBLIC",
		"GRANT CONNECT ON DATABASE " + name + " TO " + name + "_owner, " + name + "_reader",
	} {
		_, err := a.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	t.Cleanup(func() {
		for _, q := range []string{
			"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)",
			"DROP ROLE IF EXISTS " + name + "_reader",
			"DROP ROLE IF EXISTS " + name + "_owner",
		} {
			if _, err := a.ExecContext(context.Background(), q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	s.owner = s.open(t, name+"_owner")
	_, err = s.owner.ExecContext(ctx, fmt.Sprintf("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO %s_reader", name))
	require.NoError(t, err)
	s.reader = s.open(t, name+"_reader")
	return s
}

// open connects to the scratch database as user, with one connection.
func (s *scratch) open(t testing.TB, user string) *bun.DB {
	t.Helper()
	u, err := url.Parse(testdb.URL())
	require.NoError(t, err)
	u.User = url.User(user)
	u.Path = "/" + s.name
	db := openNoReadTimeout(u.String(), 1)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// openNoReadTimeout opens a pool as an account database's must be for archives: without pgdriver's
// read timeout, which bounds a whole COPY's output, not each read (pg.Open sets it to 5 s).
func openNoReadTimeout(dsn string, conns int) *bun.DB {
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn), pgdriver.WithTimeout(5*time.Second),
		pgdriver.WithReadTimeout(0)))
	sqldb.SetMaxOpenConns(conns)
	return bun.NewDB(sqldb, pgdialect.New())
}

// exec runs statements as the owner.
func (s *scratch) exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		_, err := s.owner.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
}
