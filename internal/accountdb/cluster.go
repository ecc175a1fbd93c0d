package accountdb

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// Options tune a Cluster; zero fields take the defaults named on each.
type Options struct {
	// NamePrefix begins every database and role name (default DefaultNamePrefix); tests running in
	// parallel on one cluster give each its own.
	NamePrefix string
	// ConnectionLimit is each role's CONNECTION LIMIT (default 10), across every process.
	ConnectionLimit int
	// StatementTimeout is set on both roles (ALTER ROLE ... SET statement_timeout; default 10 s).
	StatementTimeout time.Duration
	// IdleInTransactionTimeout is set on both roles (idle_in_transaction_session_timeout; default 60 s).
	IdleInTransactionTimeout time.Duration
	// PoolSize caps the connections of one process's pool per account and role (default 4).
	PoolSize int
	// Log receives warnings (a pool that failed to close); nil discards them.
	Log *slog.Logger
}

// Defaults of Options.
const (
	DefaultConnectionLimit          = 10
	DefaultStatementTimeout         = 10 * time.Second
	DefaultIdleInTransactionTimeout = 60 * time.Second
	DefaultPoolSize                 = 4
)

func (o Options) withDefaults() Options {
	o.NamePrefix = cmp.Or(o.NamePrefix, DefaultNamePrefix)
	o.ConnectionLimit = cmp.Or(o.ConnectionLimit, DefaultConnectionLimit)
	o.StatementTimeout = cmp.Or(o.StatementTimeout, DefaultStatementTimeout)
	o.IdleInTransactionTimeout = cmp.Or(o.IdleInTransactionTimeout, DefaultIdleInTransactionTimeout)
	o.PoolSize = cmp.Or(o.PoolSize, DefaultPoolSize)
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Cluster provisions and deprovisions account databases in one PostgreSQL cluster, through an admin
// connection (a role with CREATEDB and CREATEROLE, or a superuser), and opens pooled connections to them
// as their roles. Each account's row (status, names, sealed passwords) lives in the platform database.
type Cluster struct {
	meta     *bun.DB
	adminURL *url.URL
	box      *secretbox.Box
	opts     Options

	mu    sync.Mutex
	admin *bun.DB
	pools map[poolKey]*pool
	// rows are the accounts' ready rows Open read last (readyRow).
	rows   map[string]cachedRow
	closed bool
}

// poolKey names one cached pool.
type poolKey struct {
	accountID string
	role      Role
}

// pool is a cached connection pool of one generation of an account's database.
type pool struct {
	db         *bun.DB
	generation int
}

// NewCluster returns a cluster reached through adminURL (a postgres:// URL; its database is where the
// admin connection runs CREATE DATABASE and DROP DATABASE), keeping its rows in meta and the roles'
// passwords sealed by box. It connects lazily.
func NewCluster(meta *bun.DB, adminURL string, box *secretbox.Box, opts Options) (*Cluster, error) {
	opts = opts.withDefaults()
	u, err := url.Parse(adminURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, errors.New("accountdb: the cluster URL must be a postgres:// URL")
	}
	if err := ValidateNamePrefix(opts.NamePrefix); err != nil {
		return nil, err
	}
	if box == nil {
		return nil, errors.New("accountdb: a secret box is required to seal role passwords")
	}
	q := u.Query()
	q.Del("search_path")
	u.RawQuery = q.Encode()
	return &Cluster{meta: meta, adminURL: u, box: box, opts: opts, pools: map[poolKey]*pool{}, rows: map[string]cachedRow{}}, nil
}

// NamePrefix is the prefix that begins the names of the databases and roles the cluster provisions
// (Options.NamePrefix, default filled in): another process sharing the cluster passes it on as
// SVC_DATABASE_NAME_PREFIX.
func (c *Cluster) NamePrefix() string { return c.opts.NamePrefix }

// errClosed is what a closed cluster answers.
var errClosed = errors.New("accountdb: the cluster is closed")

// adminReadTimeout bounds the wait for an answer on the admin connection.
const adminReadTimeout = 2 * time.Minute

// adminDB is the admin pool, opened on first use.
func (c *Cluster) adminDB(ctx context.Context) (*bun.DB, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errClosed
	}
	if c.admin != nil {
		return c.admin, nil
	}
	// CREATE DATABASE and DROP DATABASE copy and remove files: on a busy server they outlast 5 s.
	db, err := pg.Open(ctx, c.adminURL.String(), pg.Options{MaxOpenConns: 4, ReadTimeout: adminReadTimeout})
	if err != nil {
		return nil, fmt.Errorf("connect to the database cluster: %w", err)
	}
	c.admin = db
	return db, nil
}

// urlFor is the cluster URL for database as user (with password; "" keeps none).
func (c *Cluster) urlFor(database, user, password string) string {
	u := *c.adminURL
	u.Path = "/" + database
	switch {
	case password != "":
		u.User = url.UserPassword(user, password)
	case user != "":
		u.User = url.User(user)
	}
	return u.String()
}

// errNoDatabase answers an account without a ready database.
func errNoDatabase() error {
	return svcerr.NotFoundf("the account has no ready database: POST /v1/databases/account")
}

// row reads the account's row; nil when it has none.
func (c *Cluster) row(ctx context.Context, db bun.IDB, accountID string) (*schema.AccountDatabase, error) {
	r := new(schema.AccountDatabase)
	err := db.NewSelect().Model(r).Where("account_id = ?", accountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the database of account %s: %w", accountID, err)
	}
	return r, nil
}

// Row returns the account's database row, or an svcerr NotFound when the account never provisioned one.
func (c *Cluster) Row(ctx context.Context, accountID string) (*schema.AccountDatabase, error) {
	r, err := c.row(ctx, c.meta, accountID)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, svcerr.NotFoundf("the account has no database: POST /v1/databases/account")
	}
	return r, nil
}

// Close closes every pool and the admin connection; the cluster answers errors afterwards.
func (c *Cluster) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for k, p := range c.pools {
		errs = append(errs, p.db.Close())
		delete(c.pools, k)
	}
	if c.admin != nil {
		errs = append(errs, c.admin.Close())
		c.admin = nil
	}
	return errors.Join(errs...)
}
