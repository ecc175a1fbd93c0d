package accountdb

import (
	"context"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// SQLSTATEs a guarded DDL statement may meet when a concurrent attempt got there first.
const (
	stateDuplicateObject   = "42710" // CREATE ROLE of an existing role
	stateDuplicateDatabase = "42P04" // CREATE DATABASE of an existing database
)

// RequestProvision records the account's wish for a database: a new row (status provisioning, names and
// sealed passwords), or a deleted one revived as the next generation with new passwords. A row that is
// provisioning or ready is answered as it is; one being deprovisioned is a conflict.
func (c *Cluster) RequestProvision(ctx context.Context, accountID string) (*schema.AccountDatabase, error) {
	name, owner, reader := names(c.opts.NamePrefix, accountID)
	r := &schema.AccountDatabase{AccountID: accountID, DatabaseName: name, OwnerRole: owner, ReaderRole: reader,
		Generation: 1, Status: schema.DatabaseProvisioning}
	c.sealPasswords(r)
	if _, err := c.meta.NewInsert().Model(r).On("CONFLICT (account_id) DO NOTHING").Exec(ctx); err != nil {
		return nil, fmt.Errorf("record the database of account %s: %w", accountID, err)
	}
	cur, err := c.Row(ctx, accountID)
	if err != nil {
		return nil, err
	}
	switch cur.Status {
	case schema.DatabaseDeprovisioning:
		return nil, svcerr.New(svcerr.Conflict, "the account's database is being deprovisioned; provision it again once it is deleted")
	case schema.DatabaseDeleted:
		return c.revive(ctx, cur)
	}
	return cur, nil
}

// revive makes a deleted row the next generation, provisioning, with new passwords.
func (c *Cluster) revive(ctx context.Context, cur *schema.AccountDatabase) (*schema.AccountDatabase, error) {
	next := *cur
	next.Generation++
	c.sealPasswords(&next)
	res, err := c.meta.NewUpdate().Model(&next).
		Set("generation = ?generation, owner_password = ?owner_password, reader_password = ?reader_password").
		Set("status = ?", schema.DatabaseProvisioning).Set("ready_at = NULL, deleted_at = NULL, updated_at = now()").
		Where("account_id = ? AND status = ? AND generation = ?", cur.AccountID, schema.DatabaseDeleted, cur.Generation).
		Returning("*").Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("provision the database of account %s again: %w", cur.AccountID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return c.RequestProvision(ctx, cur.AccountID) // another request revived it first
	}
	return &next, nil
}

// sealPasswords gives r new random role passwords, sealed for its account and generation.
func (c *Cluster) sealPasswords(r *schema.AccountDatabase) {
	r.OwnerPassword = c.box.Seal([]byte(newPassword()), passwordAAD(r.AccountID, Owner, r.Generation))
	r.ReaderPassword = c.box.Seal([]byte(newPassword()), passwordAAD(r.AccountID, Reader, r.Generation))
}

// password opens the sealed password of one of r's roles.
func (c *Cluster) password(r *schema.AccountDatabase, role Role) (string, error) {
	sealed := r.OwnerPassword
	if role == Reader {
		sealed = r.ReaderPassword
	}
	pw, err := c.box.Open(sealed, passwordAAD(r.AccountID, role, r.Generation))
	if err != nil {
		return "", fmt.Errorf("open the %s password of account %s's database: %w", role, r.AccountID, err)
	}
	return string(pw), nil
}

// Provision creates the account's database and roles and marks it ready, recording database.ready in the
// same transaction. Every step is guarded, so a retry after a crash at any point converges: the roles
// (LOGIN, their passwords, connection limit, statement_timeout and idle_in_transaction_session_timeout),
// the database with CONNECT and TEMPORARY revoked from PUBLIC and CONNECT granted to the two roles, and
// inside it schema public owned by the owner, USAGE and SELECT on every table (present and future) for
// the reader. A database being deprovisioned (or deleted) is left alone: its row is answered as it is.
func (c *Cluster) Provision(ctx context.Context, accountID string) (*schema.AccountDatabase, error) {
	r, err := c.row(ctx, c.meta, accountID)
	if err != nil {
		return nil, err
	}
	if r == nil {
		if r, err = c.RequestProvision(ctx, accountID); err != nil {
			return nil, err
		}
	}
	if r.Status != schema.DatabaseProvisioning && r.Status != schema.DatabaseReady {
		return r, nil
	}
	err = c.locked(ctx, r.DatabaseName, func(conn bun.IDB) error {
		// Read again under the lock: a deprovision that ran meanwhile wins.
		if r, err = c.row(ctx, c.meta, accountID); err != nil {
			return err
		}
		if r.Status != schema.DatabaseProvisioning && r.Status != schema.DatabaseReady {
			return nil
		}
		return c.create(ctx, conn, r)
	})
	if err != nil {
		return nil, err
	}
	if r.Status != schema.DatabaseProvisioning {
		return r, nil
	}
	return c.markReady(ctx, r)
}

// create runs the guarded DDL of r's roles and database.
func (c *Cluster) create(ctx context.Context, conn bun.IDB, r *schema.AccountDatabase) error {
	for _, role := range []Role{Owner, Reader} {
		pw, err := c.password(r, role)
		if err != nil {
			return err
		}
		if err := c.ensureRole(ctx, conn, roleName(r, role), pw); err != nil {
			return err
		}
	}
	if err := ensureDatabase(ctx, conn, r); err != nil {
		return err
	}
	return c.configureSchema(ctx, r)
}

// roleName is the name of r's role.
func roleName(r *schema.AccountDatabase, role Role) string {
	if role == Reader {
		return r.ReaderRole
	}
	return r.OwnerRole
}

// ensureRole creates the login role when it is missing and (re)sets its attributes, password and
// session limits. The password is sent as its SCRAM-SHA-256 verifier, never in plain text. A non-superuser admin makes itself a member, which ALTER SCHEMA ... OWNER and ALTER
// DEFAULT PRIVILEGES FOR ROLE require.
func (c *Cluster) ensureRole(ctx context.Context, conn bun.IDB, name, password string) error {
	var exists, super bool
	if err := conn.NewRaw("SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ?), "+
		"(SELECT rolsuper FROM pg_roles WHERE rolname = current_user)", name).Scan(ctx, &exists, &super); err != nil {
		return fmt.Errorf("look up role %s: %w", name, err)
	}
	verifier, err := scramVerifier(password)
	if err != nil {
		return err
	}
	if !exists {
		_, err := conn.ExecContext(ctx, "CREATE ROLE ? LOGIN PASSWORD ?", bun.Ident(name), verifier)
		if err != nil && pg.SQLState(err) != stateDuplicateObject {
			return fmt.Errorf("create role %s: %w", name, err)
		}
	}
	stmts := []string{
		"ALTER ROLE ? WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT CONNECTION LIMIT ? PASSWORD ?",
		"ALTER ROLE ? SET statement_timeout = ?",
		"ALTER ROLE ? SET idle_in_transaction_session_timeout = ?",
	}
	args := [][]any{
		{bun.Ident(name), c.opts.ConnectionLimit, verifier},
		{bun.Ident(name), c.opts.StatementTimeout.Milliseconds()},
		{bun.Ident(name), c.opts.IdleInTransactionTimeout.Milliseconds()},
	}
	if !super {
		stmts = append(stmts, "GRANT ? TO CURRENT_USER")
		args = append(args, []any{bun.Ident(name)})
	}
	for i, q := range stmts {
		if _, err := conn.ExecContext(ctx, q, args[i]...); err != nil {
			return fmt.Errorf("configure role %s: %w", name, err)
		}
	}
	return nil
}

// ensureDatabase creates r's database when it is missing and sets its privileges: nothing for PUBLIC,
// CONNECT for the two roles.
func ensureDatabase(ctx context.Context, conn bun.IDB, r *schema.AccountDatabase) error {
	var exists bool
	if err := conn.NewRaw("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ?)", r.DatabaseName).Scan(ctx, &exists); err != nil {
		return fmt.Errorf("look up database %s: %w", r.DatabaseName, err)
	}
	db := bun.Ident(r.DatabaseName)
	if !exists {
		_, err := conn.ExecContext(ctx, "CREATE DATABASE ? TEMPLATE template0", db)
		if err != nil && pg.SQLState(err) != stateDuplicateDatabase {
			return fmt.Errorf("create database %s: %w", r.DatabaseName, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "REVOKE CONNECT, TEMPORARY ON DATABASE ? FROM PUBLIC", db); err != nil {
		return fmt.Errorf("revoke PUBLIC's access to database %s: %w", r.DatabaseName, err)
	}
	if _, err := conn.ExecContext(ctx, "GRANT CONNECT ON DATABASE ? TO ?, ?", db, bun.Ident(r.OwnerRole), bun.Ident(r.ReaderRole)); err != nil {
		return fmt.Errorf("grant CONNECT on database %s: %w", r.DatabaseName, err)
	}
	return nil
}

// configureSchema connects to r's database as the admin and gives schema public to the owner, with
// USAGE and SELECT on every table, present and future, for the reader; PUBLIC keeps nothing there, and
// functions the owner creates are not executable by PUBLIC.
func (c *Cluster) configureSchema(ctx context.Context, r *schema.AccountDatabase) error {
	db, err := pg.Open(ctx, c.urlFor(r.DatabaseName, "", ""), pg.Options{MaxOpenConns: 1})
	if err != nil {
		return fmt.Errorf("connect to database %s as the admin: %w", r.DatabaseName, err)
	}
	defer db.Close()
	owner, reader := bun.Ident(r.OwnerRole), bun.Ident(r.ReaderRole)
	stmts := []struct {
		q    string
		args []any
	}{
		{"ALTER SCHEMA public OWNER TO ?", []any{owner}},
		{"REVOKE ALL ON SCHEMA public FROM PUBLIC", nil},
		{"GRANT USAGE ON SCHEMA public TO ?", []any{reader}},
		{"GRANT SELECT ON ALL TABLES IN SCHEMA public TO ?", []any{reader}},
		{"ALTER DEFAULT PRIVILEGES FOR ROLE ? IN SCHEMA public GRANT SELECT ON TABLES TO ?", []any{owner, reader}},
		{"ALTER DEFAULT PRIVILEGES FOR ROLE ? IN SCHEMA public GRANT SELECT ON SEQUENCES TO ?", []any{owner, reader}},
		{"ALTER DEFAULT PRIVILEGES FOR ROLE ? REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC", []any{owner}},
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s.q, s.args...); err != nil {
			return fmt.Errorf("configure schema public of database %s: %w", r.DatabaseName, err)
		}
	}
	return nil
}

// markReady moves r from provisioning to ready and records database.ready, in one transaction.
func (c *Cluster) markReady(ctx context.Context, r *schema.AccountDatabase) (*schema.AccountDatabase, error) {
	err := c.meta.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model(r).Set("status = ?", schema.DatabaseReady).Set("ready_at = now(), updated_at = now()").
			Where("account_id = ? AND generation = ? AND status = ?", r.AccountID, r.Generation, schema.DatabaseProvisioning).
			Returning("*").Exec(ctx)
		if err != nil {
			return fmt.Errorf("mark the database of account %s ready: %w", r.AccountID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		return outbox.Emit(ctx, tx, outbox.Event{AccountID: r.AccountID, Type: outbox.DatabaseReady,
			Subject: fmt.Sprintf("%s/%d", r.AccountID, r.Generation), Data: ToWire(&Info{Row: r})})
	})
	if err != nil {
		return nil, err
	}
	return c.row(ctx, c.meta, r.AccountID)
}

// Deprovision drops the account's database and roles and marks the row deleted: it marks it
// deprovisioning, closes this process's pools, terminates the roles' sessions and the database's, and
// drops database and roles if they exist, so a retry converges. An account without a database, or whose
// database is deleted, is answered as it is (nil when it has none).
func (c *Cluster) Deprovision(ctx context.Context, accountID string) (*schema.AccountDatabase, error) {
	r, err := c.RequestDeprovision(ctx, accountID)
	if err != nil || r == nil || r.Status != schema.DatabaseDeprovisioning {
		return r, err
	}
	return c.dropAndMark(ctx, r)
}

// CompleteDeprovision is Deprovision for the workflow: it drops the database only when its row is
// deprovisioning (as the API marked it), and answers any other row as it is. So a retried attempt whose
// first try finished (the row deleted, then provisioned again by a newer request) leaves the new
// database alone.
func (c *Cluster) CompleteDeprovision(ctx context.Context, accountID string) (*schema.AccountDatabase, error) {
	r, err := c.row(ctx, c.meta, accountID)
	if err != nil || r == nil || r.Status != schema.DatabaseDeprovisioning {
		return r, err
	}
	return c.dropAndMark(ctx, r)
}

// dropAndMark drops a deprovisioning database and its roles and marks its row deleted.
func (c *Cluster) dropAndMark(ctx context.Context, r *schema.AccountDatabase) (*schema.AccountDatabase, error) {
	accountID := r.AccountID
	c.closePools(accountID)
	err := c.locked(ctx, r.DatabaseName, func(conn bun.IDB) error { return drop(ctx, conn, r) })
	if err != nil {
		return nil, err
	}
	_, err = c.meta.NewUpdate().Model(r).Set("status = ?", schema.DatabaseDeleted).Set("deleted_at = now(), updated_at = now()").
		Where("account_id = ? AND generation = ? AND status = ?", r.AccountID, r.Generation, schema.DatabaseDeprovisioning).
		Returning("*").Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("mark the database of account %s deleted: %w", accountID, err)
	}
	return c.row(ctx, c.meta, accountID)
}

// RequestDeprovision marks the account's database deprovisioning (from provisioning or ready) and
// answers its row; nil when the account has none.
func (c *Cluster) RequestDeprovision(ctx context.Context, accountID string) (*schema.AccountDatabase, error) {
	_, err := c.meta.NewUpdate().Model((*schema.AccountDatabase)(nil)).Set("status = ?", schema.DatabaseDeprovisioning).
		Set("updated_at = now()").Where("account_id = ? AND status IN (?, ?)", accountID, schema.DatabaseProvisioning, schema.DatabaseReady).
		Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("mark the database of account %s deprovisioning: %w", accountID, err)
	}
	c.forgetRow(accountID)
	return c.row(ctx, c.meta, accountID)
}

// drop terminates every session of r's roles and database, then drops the database and the roles.
func drop(ctx context.Context, conn bun.IDB, r *schema.AccountDatabase) error {
	if _, err := conn.ExecContext(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "+
		"WHERE (usename IN (?, ?) OR datname = ?) AND pid <> pg_backend_pid()", r.OwnerRole, r.ReaderRole, r.DatabaseName); err != nil {
		return fmt.Errorf("terminate the sessions of database %s: %w", r.DatabaseName, err)
	}
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS ? WITH (FORCE)", bun.Ident(r.DatabaseName)); err != nil {
		return fmt.Errorf("drop database %s: %w", r.DatabaseName, err)
	}
	for _, role := range []string{r.OwnerRole, r.ReaderRole} {
		if _, err := conn.ExecContext(ctx, "DROP ROLE IF EXISTS ?", bun.Ident(role)); err != nil {
			return fmt.Errorf("drop role %s: %w", role, err)
		}
	}
	return nil
}

// locked runs f on one admin connection holding a session advisory lock on the database's name, so
// attempts on one account (a retry beside a stale attempt, a deprovision beside a provision) take turns.
// The lock ends with the session, so a crashed attempt never keeps it.
func (c *Cluster) locked(ctx context.Context, name string, f func(conn bun.IDB) error) error {
	admin, err := c.adminDB(ctx)
	if err != nil {
		return err
	}
	conn, err := admin.Conn(ctx)
	if err != nil {
		return fmt.Errorf("take an admin connection: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtextextended(?, 0))", "svc/accountdb/"+name); err != nil {
		return fmt.Errorf("lock database %s: %w", name, err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.ExecContext(uctx, "SELECT pg_advisory_unlock(hashtextextended(?, 0))", "svc/accountdb/"+name); err != nil {
			// The lock would stay with the pooled session: end the session instead.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			c.opts.Log.Warn("unlock account database; dropping the admin session", "database", name, "err", err)
		}
	}()
	return f(conn)
}
