package accountdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/schema"
)

// Open implements Connector: a cached pool (at most Options.PoolSize connections) to the account's
// ready database as role, connecting with the role's own password. A pool of an earlier generation of
// the database (deprovisioned and provisioned again, perhaps by another process) is closed and replaced.
// An account without a ready database is an svcerr NotFound.
//
// The account's ready row is cached for RowTTL (readyRow), so a deprovision by another process is
// noticed within it; meanwhile the old database's connections fail, its roles and sessions dropped.
func (c *Cluster) Open(ctx context.Context, accountID string, role Role) (*bun.DB, error) {
	r, err := c.readyRow(ctx, accountID)
	if err != nil {
		return nil, err
	}
	key := poolKey{accountID: accountID, role: role}
	if r == nil || r.Status != schema.DatabaseReady {
		c.closePools(accountID)
		return nil, errNoDatabase()
	}
	if db := c.cached(key, r.Generation); db != nil {
		return db, nil
	}
	pw, err := c.password(r, role)
	if err != nil {
		return nil, err
	}
	db, err := pg.Open(ctx, c.urlFor(r.DatabaseName, roleName(r, role), pw), pg.Options{MaxOpenConns: c.opts.PoolSize})
	if err != nil {
		return nil, fmt.Errorf("connect to the database of account %s as its %s: %w", accountID, role, err)
	}
	return c.keep(key, r.Generation, db)
}

// RowTTL is how long Open trusts an account's ready row read before.
const RowTTL = time.Second

// cachedRow is an account's ready row and when it was read.
type cachedRow struct {
	row  *schema.AccountDatabase
	read time.Time
}

// readyRow is the account's row, from the cache when a ready one was read less than RowTTL ago. Only
// ready rows are cached: an account whose database is not ready yet is read again every time.
func (c *Cluster) readyRow(ctx context.Context, accountID string) (*schema.AccountDatabase, error) {
	c.mu.Lock()
	cr, ok := c.rows[accountID]
	c.mu.Unlock()
	if ok && time.Since(cr.read) < RowTTL {
		return cr.row, nil
	}
	read := time.Now()
	r, err := c.row(ctx, c.meta, accountID)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r != nil && r.Status == schema.DatabaseReady {
		c.rows[accountID] = cachedRow{row: r, read: read}
	} else {
		delete(c.rows, accountID)
	}
	return r, nil
}

// forgetRow drops the account's cached row, so the next Open reads it.
func (c *Cluster) forgetRow(accountID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.rows, accountID)
}

// cached is the pool of key's generation, if this process has one; a pool of another generation is
// closed.
func (c *Cluster) cached(key poolKey, generation int) *bun.DB {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pools[key]
	if p == nil {
		return nil
	}
	if p.generation == generation {
		return p.db
	}
	delete(c.pools, key)
	c.closeLater(p.db)
	return nil
}

// keep caches db as key's pool, unless another caller cached one of the generation first (then db is
// closed and that one answered).
func (c *Cluster) keep(key poolKey, generation int, db *bun.DB) (*bun.DB, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = db.Close()
		return nil, errClosed
	}
	if p := c.pools[key]; p != nil && p.generation == generation {
		c.closeLater(db)
		return p.db, nil
	}
	if p := c.pools[key]; p != nil {
		c.closeLater(p.db)
	}
	c.pools[key] = &pool{db: db, generation: generation}
	return db, nil
}

// closePools closes this process's pools of the account and forgets its row.
func (c *Cluster) closePools(accountID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.rows, accountID)
	for _, role := range []Role{Owner, Reader} {
		key := poolKey{accountID: accountID, role: role}
		if p := c.pools[key]; p != nil {
			delete(c.pools, key)
			c.closeLater(p.db)
		}
	}
}

// closeLater closes a pool without holding the caller up (Close waits for connections in use).
func (c *Cluster) closeLater(db *bun.DB) {
	go func() {
		if err := db.Close(); err != nil {
			c.opts.Log.Warn("close an account database pool", "err", err)
		}
	}()
}

// BulkStatementTimeout bounds one statement of an export or import connection (OpenBulk): a table's COPY
// may run far longer than the role's statement_timeout allows a query.
const BulkStatementTimeout = time.Hour

// OpenBulk opens a pool of two connections to the account's ready database as role, for exports and
// imports, which the caller closes: no read timeout (pgdriver sets the read deadline once per COPY, so a
// long table would trip a short one), statement_timeout BulkStatementTimeout in place of the role's,
// and a second connection to cancel the first's statement when the caller's context ends. An account
// without a ready database is an svcerr NotFound.
func (c *Cluster) OpenBulk(ctx context.Context, accountID string, role Role) (*bun.DB, error) {
	r, err := c.row(ctx, c.meta, accountID)
	if err != nil {
		return nil, err
	}
	if r == nil || r.Status != schema.DatabaseReady {
		return nil, errNoDatabase()
	}
	pw, err := c.password(r, role)
	if err != nil {
		return nil, err
	}
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(c.urlFor(r.DatabaseName, roleName(r, role), pw)),
		pgdriver.WithTimeout(5*time.Second), pgdriver.WithReadTimeout(0),
		pgdriver.WithConnParams(map[string]any{"statement_timeout": BulkStatementTimeout.Milliseconds()})))
	sqldb.SetMaxOpenConns(2)
	db := bun.NewDB(sqldb, pgdialect.New())
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("connect to the database of account %s as its %s: %w", accountID, role, err)
	}
	return db, nil
}
