package accountdb

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// testCluster is a cluster on the test PostgreSQL with a name prefix of its own; every database and role
// it made is dropped when the test ends.
func testCluster(t *testing.T) (*Cluster, *bun.DB) {
	t.Helper()
	meta := testdb.New(t)
	key := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(key)
	box, err := secretbox.New(key)
	require.NoError(t, err)
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	c, err := NewCluster(meta, testdb.URL(), box, Options{NamePrefix: "t" + hex.EncodeToString(suffix) + "_", PoolSize: 2})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx := context.Background()
		var accounts []string
		_ = meta.NewSelect().Model((*schema.AccountDatabase)(nil)).Column("account_id").Scan(ctx, &accounts)
		for _, a := range accounts {
			_, err := c.Deprovision(ctx, a)
			require.NoError(t, err, "clean up the database of %s", a)
		}
		require.NoError(t, c.Close())
	})
	return c, meta
}

// newAccount stores an account row for the cluster's rows to reference.
func newAccount(t *testing.T, meta *bun.DB) string {
	t.Helper()
	a := &schema.Account{ID: ids.New(ids.Account), Name: "db"}
	_, err := meta.NewInsert().Model(a).Exec(context.Background())
	require.NoError(t, err)
	return a.ID
}

// connectAs opens a one-connection pool to database as role, with the role's own password.
func connectAs(ctx context.Context, c *Cluster, r *schema.AccountDatabase, role Role, database string) (*bun.DB, error) {
	pw, err := c.password(r, role)
	if err != nil {
		return nil, err
	}
	return pg.Open(ctx, c.urlFor(database, roleName(r, role), pw), pg.Options{MaxOpenConns: 1})
}

// adminScalar runs a query on the cluster's admin connection.
func adminScalar(t *testing.T, c *Cluster, dest any, q string, args ...any) {
	t.Helper()
	admin, err := c.adminDB(context.Background())
	require.NoError(t, err)
	require.NoError(t, admin.NewRaw(q, args...).Scan(context.Background(), dest))
}

// TestProvisionOwnerReaderAndTenants provisions two accounts' databases (the second after a simulated
// crash that left its database created) and checks what each role may do, that neither account's roles
// reach the other's database, that PUBLIC has no access, and that deprovisioning drops everything.
func TestProvisionOwnerReaderAndTenants(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, meta := testCluster(t)
	accountA, accountB := newAccount(t, meta), newAccount(t, meta)

	a, err := c.Provision(ctx, accountA)
	require.NoError(t, err)
	require.Equal(t, schema.DatabaseReady, a.Status)
	require.NotNil(t, a.ReadyAt)
	again, err := c.Provision(ctx, accountA)
	require.NoError(t, err, "a second provision converges")
	require.Equal(t, a.Generation, again.Generation)
	require.Equal(t, schema.DatabaseReady, again.Status)
	events, err := outbox.List(ctx, meta, accountA)
	require.NoError(t, err)
	require.Len(t, events, 1, "database.ready is recorded once")
	require.Equal(t, outbox.DatabaseReady, events[0].Type)

	// B: a crash after CREATE DATABASE, before anything else; the retry converges.
	rb, err := c.RequestProvision(ctx, accountB)
	require.NoError(t, err)
	admin, err := c.adminDB(ctx)
	require.NoError(t, err)
	_, err = admin.ExecContext(ctx, "CREATE DATABASE ? TEMPLATE template0", bun.Ident(rb.DatabaseName))
	require.NoError(t, err)
	b, err := c.Provision(ctx, accountB)
	require.NoError(t, err)
	require.Equal(t, schema.DatabaseReady, b.Status)

	checkOwnerAndReader(ctx, t, c, a)
	checkTenantIsolation(ctx, t, c, a, b)
	checkRoleSettings(t, c, a)
	checkPasswordVerifier(t, c, a)
	checkStatus(ctx, t, c, accountA)
	checkDeprovision(ctx, t, c, a)
}

func checkOwnerAndReader(ctx context.Context, t *testing.T, c *Cluster, a *schema.AccountDatabase) {
	t.Helper()
	owner, err := c.Open(ctx, a.AccountID, Owner)
	require.NoError(t, err)
	_, err = owner.ExecContext(ctx, "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, note varchar(20))")
	require.NoError(t, err, "the owner creates tables")
	_, err = owner.ExecContext(ctx, "INSERT INTO items VALUES (1, 'one', NULL), (2, 'two', 'x')")
	require.NoError(t, err)
	cached, err := c.Open(ctx, a.AccountID, Owner)
	require.NoError(t, err)
	require.Same(t, owner, cached, "pools are cached per account and role")

	reader, err := c.Open(ctx, a.AccountID, Reader)
	require.NoError(t, err)
	var n int
	require.NoError(t, reader.NewRaw("SELECT count(*) FROM items").Scan(ctx, &n), "the reader selects")
	require.Equal(t, 2, n)
	_, err = reader.ExecContext(ctx, "INSERT INTO items VALUES (3, 'three', NULL)")
	require.Equal(t, "42501", pg.SQLState(err), "the reader cannot insert: %v", err)
	_, err = reader.ExecContext(ctx, "CREATE TABLE mine (id int)")
	require.Equal(t, "42501", pg.SQLState(err), "the reader cannot create tables: %v", err)
	_, err = reader.ExecContext(ctx, "CREATE TEMPORARY TABLE scratch (id int)")
	require.Equal(t, "42501", pg.SQLState(err), "the reader cannot create temporary tables: %v", err)
}

func checkTenantIsolation(ctx context.Context, t *testing.T, c *Cluster, a, b *schema.AccountDatabase) {
	t.Helper()
	ownerB, err := c.Open(ctx, b.AccountID, Owner)
	require.NoError(t, err)
	_, err = ownerB.ExecContext(ctx, "CREATE TABLE b_secret (id int)")
	require.NoError(t, err)
	for _, role := range []Role{Owner, Reader} {
		db, err := connectAs(ctx, c, a, role, b.DatabaseName)
		if err == nil {
			_ = db.Close()
		}
		require.Error(t, err, "A's %s must not connect to B's database", role)
		require.Equal(t, "42501", pg.SQLState(err), "refused for lack of CONNECT: %v", err)
	}
	ownerA, err := c.Open(ctx, a.AccountID, Owner)
	require.NoError(t, err)
	var seen int
	require.NoError(t, ownerA.NewRaw("SELECT count(*) FROM pg_class WHERE relname = 'b_secret'").Scan(ctx, &seen))
	require.Zero(t, seen, "B's tables are not listed from A's database")
	for _, r := range []*schema.AccountDatabase{a, b} {
		var acl string
		adminScalar(t, c, &acl, "SELECT datacl::text FROM pg_database WHERE datname = ?", r.DatabaseName)
		require.NotContains(t, acl, "{=", "PUBLIC has no privilege on %s: %s", r.DatabaseName, acl)
		require.NotContains(t, acl, ",=", "PUBLIC has no privilege on %s: %s", r.DatabaseName, acl)
		require.Contains(t, acl, r.OwnerRole+"=c/")
		require.Contains(t, acl, r.ReaderRole+"=c/")
	}
}

func checkRoleSettings(t *testing.T, c *Cluster, a *schema.AccountDatabase) {
	t.Helper()
	var limit int
	var config string
	adminScalar(t, c, &limit, "SELECT rolconnlimit FROM pg_roles WHERE rolname = ?", a.ReaderRole)
	require.Equal(t, DefaultConnectionLimit, limit)
	adminScalar(t, c, &config, "SELECT rolconfig::text FROM pg_roles WHERE rolname = ?", a.OwnerRole)
	require.Contains(t, config, "statement_timeout=10000")
	require.Contains(t, config, "idle_in_transaction_session_timeout=60000")
}

func checkStatus(ctx context.Context, t *testing.T, c *Cluster, accountID string) {
	t.Helper()
	info, err := c.Status(ctx, accountID)
	require.NoError(t, err)
	w := ToWire(info)
	require.Equal(t, schema.DatabaseReady, w.Status)
	require.Positive(t, w.SizeBytes)
	require.Len(t, w.Tables, 1)
	items := w.Tables[0]
	require.Equal(t, "items", items.Name)
	require.Equal(t, []string{"id"}, items.PrimaryKey)
	require.Equal(t, int64(2), items.RowEstimate)
	require.True(t, items.RowEstimateExact)
	require.Len(t, items.Columns, 3)
	require.Equal(t, "character varying(20)", items.Columns[2].Type)
	require.False(t, items.Columns[1].Nullable)
	require.True(t, items.Columns[2].Nullable)
}

func checkDeprovision(ctx context.Context, t *testing.T, c *Cluster, a *schema.AccountDatabase) {
	t.Helper()
	gone, err := c.Deprovision(ctx, a.AccountID)
	require.NoError(t, err)
	require.Equal(t, schema.DatabaseDeleted, gone.Status)
	_, err = c.Deprovision(ctx, a.AccountID)
	require.NoError(t, err, "deprovisioning twice is fine")
	var dbs, roles int
	adminScalar(t, c, &dbs, "SELECT count(*) FROM pg_database WHERE datname = ?", a.DatabaseName)
	adminScalar(t, c, &roles, "SELECT count(*) FROM pg_roles WHERE rolname IN (?, ?)", a.OwnerRole, a.ReaderRole)
	require.Zero(t, dbs)
	require.Zero(t, roles)
	_, err = c.Open(ctx, a.AccountID, Reader)
	require.True(t, svcerr.Is(err, svcerr.NotFound), "%v", err)
	require.True(t, strings.Contains(err.Error(), "POST /v1/databases/account"))

	// Provision alone leaves a deleted database deleted; requested again, it is a new generation with new
	// passwords, reachable.
	still, err := c.Provision(ctx, a.AccountID)
	require.NoError(t, err)
	require.Equal(t, schema.DatabaseDeleted, still.Status)
	_, err = c.RequestProvision(ctx, a.AccountID)
	require.NoError(t, err)
	again, err := c.Provision(ctx, a.AccountID)
	require.NoError(t, err)
	require.Equal(t, a.Generation+1, again.Generation)
	require.NotEqual(t, a.OwnerPassword, again.OwnerPassword)
	reader, err := c.Open(ctx, a.AccountID, Reader)
	require.NoError(t, err)
	require.NoError(t, reader.PingContext(ctx))
}

// TestSealedPasswordsAreBound: a role password opens only for its account, role and generation.
func TestSealedPasswordsAreBound(t *testing.T) {
	t.Parallel()
	c, meta := testCluster(t)
	r, err := c.RequestProvision(context.Background(), newAccount(t, meta))
	require.NoError(t, err)
	_, err = c.password(r, Owner)
	require.NoError(t, err)
	moved := *r
	moved.OwnerPassword = r.ReaderPassword
	_, err = c.password(&moved, Owner)
	require.Error(t, err, "the reader's ciphertext does not open as the owner's")
	moved = *r
	moved.AccountID = "acct_other"
	_, err = c.password(&moved, Owner)
	require.Error(t, err, "a ciphertext does not open for another account")
	_, err = c.Deprovision(context.Background(), r.AccountID)
	require.NoError(t, err, "deprovisioning a database never created is fine")
}

// TestNames: names are lowercase safe identifiers, within PostgreSQL's length, distinct per account.
func TestNames(t *testing.T) {
	t.Parallel()
	db, owner, reader := names("svcdb_", "acct_0123456789abcdefghjkmnpqrs")
	require.Equal(t, "svcdb_acct_0123456789abcdefghjkmnpqrs", db)
	require.Equal(t, db+"_owner", owner)
	require.Equal(t, db+"_reader", reader)
	odd, _, oddReader := names("svcdb_", "Acct-x\"; DROP")
	require.Regexp(t, `^svcdb_h[0-9a-f]{32}$`, odd)
	other, _, _ := names("svcdb_", "acct_x__drop")
	require.NotEqual(t, odd, other)
	long, _, longReader := names("svcdb_", strings.Repeat("a", 80))
	require.LessOrEqual(t, len(longReader), maxIdentifier)
	require.LessOrEqual(t, len(oddReader), maxIdentifier)
	require.NotEmpty(t, long)
	require.Error(t, ValidateNamePrefix("Bad-prefix"))
}

// TestConcurrentProvisionsConverge: two provisions of one account at once (a retry beside a stale
// attempt) take turns on the advisory lock and leave one ready database and one database.ready.
func TestConcurrentProvisionsConverge(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, meta := testCluster(t)
	account := newAccount(t, meta)
	_, err := c.RequestProvision(ctx, account)
	require.NoError(t, err)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := c.Provision(ctx, account)
			errs <- err
		}()
	}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	r, err := c.Row(ctx, account)
	require.NoError(t, err)
	require.Equal(t, schema.DatabaseReady, r.Status)
	events, err := outbox.List(ctx, meta, account)
	require.NoError(t, err)
	require.Len(t, events, 1)
	reader, err := c.Open(ctx, account, Reader)
	require.NoError(t, err)
	require.NoError(t, reader.PingContext(ctx))
}

// parseVerifier splits a stored SCRAM-SHA-256 verifier into its salt and iteration count.
func parseVerifier(t *testing.T, stored string) ([]byte, int) {
	t.Helper()
	parts := strings.SplitN(strings.TrimPrefix(stored, "SCRAM-SHA-256$"), "$", 2)
	require.Len(t, parts, 2, "a SCRAM verifier: %s", stored)
	head := strings.SplitN(parts[0], ":", 2)
	require.Len(t, head, 2)
	var iterations int
	_, err := fmt.Sscan(head[0], &iterations)
	require.NoError(t, err)
	salt, err := base64.StdEncoding.DecodeString(head[1])
	require.NoError(t, err)
	return salt, iterations
}

// checkPasswordVerifier: the server keeps a SCRAM-SHA-256 verifier of the role's sealed password (it
// took ours as a verifier rather than hashing it as a plaintext), and the verifier matches that password.
func checkPasswordVerifier(t *testing.T, c *Cluster, r *schema.AccountDatabase) {
	t.Helper()
	var stored string
	adminScalar(t, c, &stored, "SELECT rolpassword FROM pg_authid WHERE rolname = ?", r.OwnerRole)
	pw, err := c.password(r, Owner)
	require.NoError(t, err)
	salt, iterations := parseVerifier(t, stored)
	want, err := scramVerifierWithSalt(pw, salt, iterations)
	require.NoError(t, err)
	require.Equal(t, want, stored, "the verifier is the sealed password's")
}

// TestScramVerifierIsPostgresOwn: for the salt and iterations PostgreSQL chose when it hashed a plain
// password itself, our verifier is byte for byte the one it stored.
func TestScramVerifierIsPostgresOwn(t *testing.T) {
	t.Parallel()
	c, _ := testCluster(t)
	ctx := context.Background()
	admin, err := c.adminDB(ctx)
	require.NoError(t, err)
	role := c.opts.NamePrefix + "scram_probe"
	_, err = admin.ExecContext(ctx, "SET password_encryption = 'scram-sha-256'; CREATE ROLE ? NOLOGIN PASSWORD 'probe password'", bun.Ident(role))
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), "DROP ROLE IF EXISTS ?", bun.Ident(role)) })
	var stored string
	adminScalar(t, c, &stored, "SELECT rolpassword FROM pg_authid WHERE rolname = ?", role)
	salt, iterations := parseVerifier(t, stored)
	ours, err := scramVerifierWithSalt("probe password", salt, iterations)
	require.NoError(t, err)
	require.Equal(t, stored, ours)
}

// TestCompleteDeprovisionActsOnlyWhenAsked: the workflow's deprovision leaves a database whose row is not
// deprovisioning (a retry after a newer provision request) alone, and drops one the API marked.
func TestCompleteDeprovisionActsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, meta := testCluster(t)
	account := newAccount(t, meta)
	_, err := c.Provision(ctx, account)
	require.NoError(t, err)
	r, err := c.CompleteDeprovision(ctx, account)
	require.NoError(t, err)
	require.Equal(t, schema.DatabaseReady, r.Status, "a ready database is not dropped by a stale deprovision")
	_, err = c.RequestDeprovision(ctx, account)
	require.NoError(t, err)
	_, err = c.RequestProvision(ctx, account)
	require.True(t, svcerr.Is(err, svcerr.Conflict), "no provision while deprovisioning: %v", err)
	r, err = c.CompleteDeprovision(ctx, account)
	require.NoError(t, err)
	require.Equal(t, schema.DatabaseDeleted, r.Status)
}

// TestOpenCachesTheReadyRowBriefly: Open trusts an account's ready row for RowTTL, so another process's
// deprovision is noticed within it, and this process's own at once.
func TestOpenCachesTheReadyRowBriefly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, meta := testCluster(t)
	// Another process: a cluster of its own on the same rows.
	other, err := NewCluster(meta, testdb.URL(), c.box, Options{NamePrefix: c.opts.NamePrefix, PoolSize: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Close() })
	account := newAccount(t, meta)
	provision := func() {
		_, err := c.RequestProvision(ctx, account)
		require.NoError(t, err)
		_, err = c.Provision(ctx, account)
		require.NoError(t, err)
		reader, err := c.Open(ctx, account, Reader)
		require.NoError(t, err)
		require.NoError(t, reader.PingContext(ctx))
	}
	provision()
	_, err = other.RequestDeprovision(ctx, account)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := c.Open(ctx, account, Reader)
		return svcerr.Is(err, svcerr.NotFound)
	}, 5*RowTTL, 10*time.Millisecond, "another process's deprovision is noticed within the TTL")
	_, err = other.CompleteDeprovision(ctx, account)
	require.NoError(t, err)

	provision()
	_, err = c.RequestDeprovision(ctx, account)
	require.NoError(t, err)
	_, err = c.Open(ctx, account, Reader)
	require.True(t, svcerr.Is(err, svcerr.NotFound), "this process's own deprovision is noticed at once: %v", err)
}
