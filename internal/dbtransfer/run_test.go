package dbtransfer_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/accountdb/accountdbtest"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/dbtransfer"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// ownerCluster opens a new pool on one test account database as its owner, whatever the account, and
// counts the opens.
type ownerCluster struct {
	d     *accountdbtest.DB
	opens int
}

// OpenBulk implements dbtransfer.Cluster.
func (c *ownerCluster) OpenBulk(ctx context.Context, _ string, _ accountdb.Role) (*bun.DB, error) {
	c.opens++
	u, err := url.Parse(testdb.URL())
	if err != nil {
		return nil, err
	}
	u.Path, u.User = "/"+c.d.Name, url.User(c.d.Owner)
	return bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(u.String()))), pgdialect.New()), nil
}

// TestRunSkipsARestoreThatCommitted: a running import whose recorded restore transaction committed (a
// worker that died after its COMMIT) is done: Run returns nil without assembling its parts or touching
// the account's database, and reports (and records) every table restored. One whose recorded transaction aborted (a worker that died before) is
// restored again, and one whose transaction is still in progress (the dead worker's backend not yet
// gone) is an error to retry, with nothing done.
func TestRunSkipsARestoreThatCommitted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	acct := accountdbtest.New(t, accountdbtest.Options{})
	_, err := acct.OwnerDB.ExecContext(ctx, "CREATE TABLE marker (id int); INSERT INTO marker VALUES (1)")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, "INSERT INTO accounts (id, name) VALUES ('acct_x', 'x')")
	require.NoError(t, err)
	_, signer, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	cluster := &ownerCluster{d: acct}
	store := dbtransfer.NewStore(db, blob.NewLocal(t.TempDir()), dbtransfer.Options{})
	runner := &dbtransfer.Runner{Store: store, Cluster: cluster, Signer: signer, TempDir: t.TempDir()}

	// A running import with no parts and the restore transaction xid recorded: restoring it would
	// assemble an empty archive (recording its size) and fail on it.
	running := func(id string, xid int64) {
		t.Helper()
		_, err := store.Create(ctx, id, "acct_x", schema.TransferImport, false)
		require.NoError(t, err)
		_, err = db.NewUpdate().Model((*schema.DatabaseTransfer)(nil)).Set("status = ?, import_xid = ?", schema.TransferRunning, xid).
			Where("id = ?", id).Exec(ctx)
		require.NoError(t, err)
	}
	// xid is the id of a transaction of the account's database that ends with end (COMMIT or ROLLBACK),
	// or that stays open until the test ends ("").
	xid := func(end string) int64 {
		t.Helper()
		tx, err := acct.OwnerDB.BeginTx(ctx, nil)
		require.NoError(t, err)
		var id int64
		require.NoError(t, tx.QueryRowContext(ctx, "SELECT txid_current()").Scan(&id))
		switch end {
		case "COMMIT":
			require.NoError(t, tx.Commit())
		case "ROLLBACK":
			require.NoError(t, tx.Rollback())
		default:
			t.Cleanup(func() { _ = tx.Rollback() })
		}
		return id
	}
	archiveBytes := func(id string) *int64 {
		t.Helper()
		var row schema.DatabaseTransfer
		require.NoError(t, db.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx))
		return row.ArchiveBytes
	}
	markers := func() int {
		t.Helper()
		var n int
		require.NoError(t, acct.OwnerDB.QueryRowContext(ctx, "SELECT count(*) FROM marker").Scan(&n))
		return n
	}

	running("dbt_committed", xid("COMMIT"))
	// The worker died after the COMMIT, before its last progress write.
	_, err = db.NewUpdate().Model((*schema.DatabaseTransfer)(nil)).Set("tables_done = 2, tables_total = 3").
		Where("id = ?", "dbt_committed").Exec(ctx)
	require.NoError(t, err)
	var reported []dbtransfer.Progress
	require.NoError(t, runner.Run(ctx, "dbt_committed", func(p dbtransfer.Progress) { reported = append(reported, p) }),
		"a committed restore is done")
	require.Equal(t, []dbtransfer.Progress{{TablesDone: 3, TablesTotal: 3}}, reported, "its progress is reported whole")
	var done schema.DatabaseTransfer
	require.NoError(t, db.NewSelect().Model(&done).Where("id = ?", "dbt_committed").Scan(ctx))
	require.Equal(t, [2]int{3, 3}, [2]int{done.TablesDone, done.TablesTotal}, "its row shows every table restored")
	require.Nil(t, archiveBytes("dbt_committed"), "no parts were assembled")
	require.Equal(t, 1, markers(), "the account's database is untouched")

	running("dbt_open", xid(""))
	err = runner.Run(ctx, "dbt_open", nil)
	require.ErrorContains(t, err, "still in progress")
	require.Nil(t, archiveBytes("dbt_open"), "no parts were assembled")

	running("dbt_aborted", xid("ROLLBACK"))
	err = runner.Run(ctx, "dbt_aborted", nil)
	var refused *dbtransfer.Refused
	require.ErrorAs(t, err, &refused, "an aborted restore is tried again: its empty archive is refused")
	require.NotNil(t, archiveBytes("dbt_aborted"), "the parts were assembled")
	require.Zero(t, *archiveBytes("dbt_aborted"))
	require.Equal(t, 1, markers(), "the refused archive left the database as it was")
	require.Equal(t, 3, cluster.opens)
}
