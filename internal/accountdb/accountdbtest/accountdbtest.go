// Package accountdbtest gives tests an account database of their own on the test PostgreSQL: a new
// database with an owner login role and a reader login role allowed only SELECT, made by the superuser
// and dropped when the test ends, and a Connector over such databases. It stands in for the cluster's
// provisioning until tests provision through it.
package accountdbtest

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

	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
)

// Options adjust a database.
type Options struct {
	// MaxConns caps each role's pool (default 2), to spare the server's shared connections.
	MaxConns int
	// StatementTimeout is set on both roles (default 60s), as provisioning does.
	StatementTimeout string
	// ReadTimeout is the pools' socket read timeout (pgdriver's; default 10s).
	ReadTimeout time.Duration
}

// DB is one account database and pools of its two roles.
type DB struct {
	Name, Owner, Reader string
	OwnerDB, ReaderDB   *bun.DB
}

// Open answers the pool of a role.
func (d *DB) Open(role accountdb.Role) *bun.DB {
	if role == accountdb.Reader {
		return d.ReaderDB
	}
	return d.OwnerDB
}

// New creates a database for the test, its roles and their pools, all dropped when the test ends.
func New(t testing.TB, opts Options) *DB {
	t.Helper()
	if opts.MaxConns == 0 {
		opts.MaxConns = 2
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = 10 * time.Second
	}
	if opts.StatementTimeout == "" {
		opts.StatementTimeout = "60s"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	suffix := randomHex(6)
	d := &DB{Name: "acctdb_" + suffix, Owner: "acctdb_" + suffix + "_owner", Reader: "acctdb_" + suffix + "_reader"}
	admin := open(t, testdb.URL(), "", "", 1, 0)
	defer func() { _ = admin.Close() }()
	t.Cleanup(func() { drop(d) })
	for _, q := range []string{
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' CONNECTION LIMIT 10", d.Owner, randomHex(16)),
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' CONNECTION LIMIT 10", d.Reader, randomHex(16)),
		fmt.Sprintf("ALTER ROLE %s SET statement_timeout = '%s'", d.Owner, opts.StatementTimeout),
		fmt.Sprintf("ALTER ROLE %s SET statement_timeout = '%s'", d.Reader, opts.StatementTimeout),
		fmt.Sprintf("CREATE DATABASE %s OWNER %s", d.Name, d.Owner),
		fmt.Sprintf("REVOKE CONNECT, TEMPORARY ON DATABASE %s FROM PUBLIC", d.Name),
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", d.Name, d.Reader),
	} {
		_, err := admin.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	inside := open(t, testdb.URL(), d.Name, "", 1, 0)
	defer func() { _ = inside.Close() }()
	for _, q := range []string{
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC",
		fmt.Sprintf("GRANT USAGE ON SCHEMA public TO %s", d.Reader),
		fmt.Sprintf("ALTER DEFAULT PRIVILEGES FOR ROLE %s IN SCHEMA public GRANT SELECT ON TABLES TO %s", d.Owner, d.Reader),
	} {
		_, err := inside.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	d.OwnerDB = open(t, testdb.URL(), d.Name, d.Owner, opts.MaxConns, opts.ReadTimeout)
	d.ReaderDB = open(t, testdb.URL(), d.Name, d.Reader, opts.MaxConns, opts.ReadTimeout)
	return d
}

// Superuser is a one-connection pool on d as the server's superuser, closed when the test ends (to
// watch pg_stat_activity, which hides other roles' sessions from the account's roles).
func (d *DB) Superuser(t testing.TB) *bun.DB {
	t.Helper()
	db := open(t, testdb.URL(), d.Name, "", 1, 0)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// As is a one-connection pool on database name as role, closed when the test ends (to try connections
// the roles must not have).
func As(t testing.TB, name, role string) *bun.DB {
	t.Helper()
	db := open(t, testdb.URL(), name, role, 1, 0)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// drop closes the pools and drops the database and its roles.
func drop(d *DB) {
	for _, db := range []*bun.DB{d.OwnerDB, d.ReaderDB} {
		if db != nil {
			_ = db.Close()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(testdb.URL())))
	defer func() { _ = sqldb.Close() }()
	_, _ = sqldb.ExecContext(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", d.Name))
	_, _ = sqldb.ExecContext(ctx, fmt.Sprintf("DROP ROLE IF EXISTS %s", d.Reader))
	_, _ = sqldb.ExecContext(ctx, fmt.Sprintf("DROP ROLE IF EXISTS %s", d.Owner))
}

// open is a pool on base's server, in database name (base's when ""), as user (base's when ""), with a
// socket read timeout (10s when 0).
func open(t testing.TB, base, name, user string, maxConns int, readTimeout time.Duration) *bun.DB {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	if name != "" {
		u.Path = "/" + name
	}
	if user != "" {
		u.User = url.User(user)
	}
	if readTimeout == 0 {
		readTimeout = 10 * time.Second
	}
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(u.String()), pgdriver.WithTimeout(10*time.Second),
		pgdriver.WithReadTimeout(readTimeout)))
	sqldb.SetMaxOpenConns(maxConns)
	sqldb.SetMaxIdleConns(maxConns)
	return bun.NewDB(sqldb, pgdialect.New())
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Connector is an accountdb.Connector over databases a test made, by account id.
type Connector struct {
	mu  sync.Mutex
	dbs map[string]*DB
}

// Add makes d the database of accountID.
func (c *Connector) Add(accountID string, d *DB) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dbs == nil {
		c.dbs = map[string]*DB{}
	}
	c.dbs[accountID] = d
}

// Open implements accountdb.Connector: an account without a database is not found.
func (c *Connector) Open(_ context.Context, accountID string, role accountdb.Role) (*bun.DB, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.dbs[accountID]
	if d == nil {
		return nil, svcerr.NotFoundf("this account has no database: provision it with POST /v1/databases/account")
	}
	return d.Open(role), nil
}
