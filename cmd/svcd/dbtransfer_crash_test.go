package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/dbarchive"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// TestWorkerKilledMidExportCompletesOnce kills the svcd worker (SIGKILL) while it exports an account's
// database (table data already streaming into the blob store, no archive recorded yet), starts another,
// and checks that the export completes once: one database.transfer.completed event, and an archive that
// downloads with its recorded SHA-256, verifies, and holds every row of the table.
func TestWorkerKilledMidExportCompletesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true})
	accountID, key := transferAccount(t, env)
	const rows = 1_000_000
	ownerExec(t, env, accountID,
		"CREATE TABLE big (id bigint NOT NULL, body text NOT NULL)",
		fmt.Sprintf("INSERT INTO big SELECT g, md5(g::text) || md5((g + 1)::text) FROM generate_series(1, %d) g", rows))

	first := startTransferWorker(t, svcd, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	created := c.CreateDatabaseTransfer(ctx, client.CreateDatabaseTransferRequest{Kind: client.TransferKindExport})
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Transfer.ID
	require.Eventually(t, func() bool {
		row := transferRow(t, env, id)
		return row.ProgressBytes > 0 && row.DataBytes > 0
	}, 30*time.Second, 10*time.Millisecond, "the export never made progress; worker log:\n%s", first.log.String())
	first.kill(t)
	killed := transferRow(t, env, id)
	require.Equal(t, schema.TransferRunning, killed.Status, "killed mid-export")
	require.Nil(t, killed.ArchiveKey, "killed before the archive was recorded")

	second := startTransferWorker(t, svcd, env)
	done := waitTransferDone(t, c, id, second)
	require.Equal(t, client.TransferStatusCompleted, done.Status, "%+v", done.Error)
	require.Equal(t, 1, completedEvents(t, env, accountID), "the export completed once")

	var buf bytes.Buffer
	dl := c.DownloadDatabaseArchive(ctx, id, &buf, nil)
	require.True(t, dl.OK, "%v", dl.Error)
	got := sha256.Sum256(buf.Bytes())
	require.Equal(t, hex.EncodeToString(got[:]), dl.Body.SHA256)
	require.NotNil(t, done.Archive)
	require.Equal(t, done.Archive.SHA256, dl.Body.SHA256, "the archive is the one recorded")
	require.EqualValues(t, buf.Len(), done.Archive.Bytes)
	pub, err := dbarchive.ParsePublicKey(dl.Body.PublicKey)
	require.NoError(t, err)
	a, err := dbarchive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), dbarchive.VerifyOptions{PublicKey: pub})
	require.NoError(t, err, "the archive verifies")
	require.True(t, a.Signed)
	require.Len(t, a.Manifest.Tables, 1)
	require.Equal(t, "big", a.Manifest.Tables[0].Name)
	require.EqualValues(t, rows, a.Manifest.Tables[0].Rows)
}

// TestWorkerKilledMidImportNeverHalfImports exports account A's database, imports the archive into
// account B's, and kills the svcd worker (SIGKILL) once the restore has copied A's first table inside its
// transaction: B's database still shows its old content (its marker table, none of A's) while no worker
// runs; a second worker then completes the import once, and B's tables and rows equal A's.
func TestWorkerKilledMidImportNeverHalfImports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{NoWorker: true})
	aID, aKey := transferAccount(t, env)
	bID, bKey := transferAccount(t, env)
	// Tables restore in name order: alpha is done at once, beta and gamma keep the restore busy.
	ownerExec(t, env, aID,
		"CREATE TABLE alpha (id int PRIMARY KEY)", "INSERT INTO alpha SELECT generate_series(1, 10)",
		"CREATE TABLE beta (id bigint PRIMARY KEY, body text NOT NULL)",
		"INSERT INTO beta SELECT g, md5(g::text) FROM generate_series(1, 400000) g",
		"CREATE TABLE gamma (id bigint PRIMARY KEY, body text NOT NULL)",
		"INSERT INTO gamma SELECT g, md5((-g)::text) FROM generate_series(1, 400000) g")
	ownerExec(t, env, bID, "CREATE TABLE marker (note text)", "INSERT INTO marker VALUES ('before')")

	first := startTransferWorker(t, svcd, env)
	ca := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(aKey))
	cb := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(bKey))
	exp := ca.CreateDatabaseTransfer(ctx, client.CreateDatabaseTransferRequest{Kind: client.TransferKindExport})
	require.True(t, exp.OK, "%v", exp.Error)
	exported := waitTransferDone(t, ca, exp.Body.Transfer.ID, first)
	require.Equal(t, client.TransferStatusCompleted, exported.Status, "%+v", exported.Error)
	var archive bytes.Buffer
	dl := ca.DownloadDatabaseArchive(ctx, exported.ID, &archive, nil)
	require.True(t, dl.OK, "%v", dl.Error)

	imp := cb.CreateDatabaseTransfer(ctx, client.CreateDatabaseTransferRequest{Kind: client.TransferKindImport})
	require.True(t, imp.OK, "%v", imp.Error)
	id := imp.Body.Transfer.ID
	raw := archive.Bytes()
	half := len(raw) / 2
	for n, part := range [][]byte{raw[:half], raw[half:]} {
		sum := sha256.Sum256(part)
		r := cb.UploadDatabaseTransferPart(ctx, id, n+1, int64(len(part)), bytes.NewReader(part), hex.EncodeToString(sum[:]))
		require.True(t, r.OK, "part %d: %v", n+1, r.Error)
	}
	completed := cb.CompleteDatabaseTransfer(ctx, id)
	require.True(t, completed.OK, "%v", completed.Error)
	require.Eventually(t, func() bool {
		row := transferRow(t, env, id)
		return row.Status == schema.TransferRunning && row.TablesDone >= 1
	}, 30*time.Second, 5*time.Millisecond, "the restore never copied a table; worker log:\n%s", first.log.String())
	first.kill(t)
	killed := transferRow(t, env, id)
	require.Equal(t, schema.TransferRunning, killed.Status, "killed mid-import")
	require.Less(t, killed.TablesDone, 3, "killed before the restore copied every table")
	require.Nil(t, killed.ImportXID, "killed before the restore was about to commit")

	// The killed worker's restore dies with its connection; until then its locks hide B's tables.
	row, err := env.Databases.Row(ctx, bID)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM pg_stat_activity WHERE usename = ?", row.OwnerRole).Scan(ctx, &n))
		return n == 0
	}, 30*time.Second, 10*time.Millisecond, "the killed worker's restore never ended")
	require.Equal(t, []string{"marker"}, tableNames(t, env, bID), "B's database as it was: no table of A's")
	require.Equal(t, [][2]string{{"1", "before"}}, aggregate(t, env, bID, "SELECT count(*)::text, max(note) FROM marker"))

	second := startTransferWorker(t, svcd, env)
	done := waitTransferDone(t, cb, id, second)
	require.Equal(t, client.TransferStatusCompleted, done.Status, "%+v", done.Error)
	require.Equal(t, 3, done.Progress.TablesDone)
	require.Equal(t, 1, completedEvents(t, env, bID), "the import completed once")
	require.Equal(t, []string{"alpha", "beta", "gamma"}, tableNames(t, env, bID), "A's tables replaced B's")
	for _, q := range []string{
		"SELECT count(*)::text, coalesce(sum(id), 0)::text FROM alpha",
		"SELECT count(*)::text, md5(string_agg(id::text || ':' || body, ',' ORDER BY id)) FROM beta",
		"SELECT count(*)::text, md5(string_agg(id::text || ':' || body, ',' ORDER BY id)) FROM gamma",
	} {
		require.Equal(t, aggregate(t, env, aID, q), aggregate(t, env, bID, q), q)
	}
}

// transferAccount creates an account with a key (every scope) and a ready managed database, provisioned
// in-process in the test's cluster, and answers the account's id and the key's secret.
func transferAccount(t *testing.T, env *apptest.Env) (string, string) {
	t.Helper()
	accountID, key := accountKey(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := env.Databases.Provision(ctx, accountID)
	require.NoError(t, err)
	require.Equal(t, schema.DatabaseReady, r.Status)
	return accountID, key
}

// ownerExec runs statements in the account's database as its owner.
func ownerExec(t *testing.T, env *apptest.Env, accountID string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	db, err := env.Databases.OpenBulk(ctx, accountID, accountdb.Owner)
	require.NoError(t, err)
	defer db.Close()
	for _, s := range stmts {
		_, err := db.ExecContext(ctx, s)
		require.NoError(t, err, s)
	}
}

// tableNames lists the tables of schema public in the account's database, read as its reader.
func tableNames(t *testing.T, env *apptest.Env, accountID string) []string {
	t.Helper()
	ctx := context.Background()
	db, err := env.Databases.OpenBulk(ctx, accountID, accountdb.Reader)
	require.NoError(t, err)
	defer db.Close()
	var names []string
	require.NoError(t, db.NewRaw("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename").Scan(ctx, &names))
	return names
}

// aggregate answers the rows of a query of two text columns in the account's database, read as its
// reader.
func aggregate(t *testing.T, env *apptest.Env, accountID, query string) [][2]string {
	t.Helper()
	ctx := context.Background()
	db, err := env.Databases.OpenBulk(ctx, accountID, accountdb.Reader)
	require.NoError(t, err)
	defer db.Close()
	rs, err := db.QueryContext(ctx, query)
	require.NoError(t, err, query)
	defer rs.Close()
	var out [][2]string
	for rs.Next() {
		var a, b *string
		require.NoError(t, rs.Scan(&a, &b))
		out = append(out, [2]string{orNull(a), orNull(b)})
	}
	require.NoError(t, rs.Err())
	return out
}

// orNull is the text of a nullable column, "<null>" for NULL.
func orNull(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// startTransferWorker starts `svcd worker` on the test's cluster of managed databases and blob store, so
// it can run database transfers.
func startTransferWorker(t *testing.T, svcd string, env *apptest.Env) *svcdProcess {
	t.Helper()
	return startWorker(t, svcd, env, "", t.TempDir(), "SVC_BLOB_URL="+fileURL(env.BlobDir),
		"SVC_DATABASE_CLUSTER_URL="+testdb.URL(), "SVC_DATABASE_NAME_PREFIX="+env.Databases.NamePrefix(),
		"SVC_DATABASE_POOL_SIZE=2")
}

// transferRow reads a transfer's row.
func transferRow(t *testing.T, env *apptest.Env, id string) *schema.DatabaseTransfer {
	t.Helper()
	row := new(schema.DatabaseTransfer)
	require.NoError(t, env.DB.NewSelect().Model(row).Where("id = ?", id).Scan(context.Background()))
	return row
}

// waitTransferDone polls a transfer until it is done and answers it.
func waitTransferDone(t *testing.T, c *client.Client, id string, w *svcdProcess) client.DatabaseTransfer {
	t.Helper()
	var last client.DatabaseTransfer
	require.Eventually(t, func() bool {
		r := c.GetDatabaseTransfer(context.Background(), id)
		require.True(t, r.OK, "%v", r.Error)
		require.Equal(t, http.StatusOK, r.StatusCode)
		last = r.Body.Transfer
		return last.Done()
	}, 60*time.Second, 50*time.Millisecond, "transfer %s never finished (last %+v); worker log:\n%s", id, last, w.log.String())
	return last
}

// completedEvents counts the account's database.transfer.completed events.
func completedEvents(t *testing.T, env *apptest.Env, accountID string) int {
	t.Helper()
	events, err := outbox.List(context.Background(), env.DB, accountID)
	require.NoError(t, err)
	n := 0
	for _, e := range events {
		if e.Type == outbox.DatabaseTransferCompleted {
			n++
		}
	}
	return n
}
