package api_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/outbox"
)

// readyDatabase provisions the tenant's database and waits until it is ready.
func readyDatabase(t *testing.T, env *apptest.Env, tenant dbTenant) {
	t.Helper()
	resp := databaseCall(t, env, tenant.key, http.MethodPost, "provision", nil)
	require.Contains(t, []int{http.StatusOK, http.StatusAccepted}, resp.Status, "%s", resp.Raw)
	waitDatabase(t, env, tenant.key, client.DatabaseStatusReady)
}

// sdkFor is the Go SDK on the test's API as the tenant.
func sdkFor(env *apptest.Env, tenant dbTenant) *client.Client {
	return client.New(client.WithBaseURL(env.URL), client.WithAPIKey(tenant.key))
}

// execute runs statements as the tenant's database owner.
func execute(t *testing.T, c *client.Client, sql string) {
	t.Helper()
	r := c.DatabaseAction(context.Background(), client.DatabaseActionRequest{Action: "execute", SQL: sql})
	require.True(t, r.OK, "%v", r.Error)
}

// rows answers the rows of a query as the tenant, each row as its JSON text.
func rows(t *testing.T, c *client.Client, sql string) []string {
	t.Helper()
	r := c.QueryDatabase(context.Background(), client.DatabaseQueryRequest{SQL: sql, MaxRows: 1000})
	require.True(t, r.OK, "%v", r.Error)
	out := make([]string, len(r.Body.Rows))
	for i, row := range r.Body.Rows {
		out[i] = string(row)
	}
	return out
}

// waitTransfer polls a transfer until it is done and answers it.
func waitTransfer(t *testing.T, c *client.Client, id string) client.DatabaseTransfer {
	t.Helper()
	var last client.DatabaseTransfer
	require.Eventually(t, func() bool {
		r := c.GetDatabaseTransfer(context.Background(), id)
		require.True(t, r.OK, "%v", r.Error)
		last = r.Body.Transfer
		return last.Done()
	}, 90*time.Second, 50*time.Millisecond, "transfer %s never finished (last %+v)", id, last)
	return last
}

// exportArchive exports the tenant's database and downloads its archive.
func exportArchive(t *testing.T, c *client.Client) (client.DatabaseTransfer, []byte, client.DatabaseArchiveDownload) {
	t.Helper()
	ctx := context.Background()
	created := c.CreateDatabaseTransfer(ctx, client.CreateDatabaseTransferRequest{Kind: client.TransferKindExport})
	require.True(t, created.OK, "%v", created.Error)
	require.Equal(t, http.StatusCreated, created.StatusCode)
	require.Equal(t, "dbtransfer/"+created.Body.Transfer.ID, created.Body.Transfer.WorkflowID)
	done := waitTransfer(t, c, created.Body.Transfer.ID)
	require.Equal(t, client.TransferStatusCompleted, done.Status, "%+v", done.Error)
	var buf bytes.Buffer
	dl := c.DownloadDatabaseArchive(ctx, done.ID, &buf, nil)
	require.True(t, dl.OK, "%v", dl.Error)
	return done, buf.Bytes(), dl.Body
}

// importArchive uploads archive as parts of partSize and completes the import; it answers the
// transfer once done.
func importArchive(t *testing.T, c *client.Client, archive []byte, partSize int, allowUnsigned bool) client.DatabaseTransfer {
	t.Helper()
	ctx := context.Background()
	created := c.CreateDatabaseTransfer(ctx, client.CreateDatabaseTransferRequest{Kind: client.TransferKindImport, AllowUnsigned: allowUnsigned})
	require.True(t, created.OK, "%v", created.Error)
	require.Equal(t, client.TransferStatusAwaitingParts, created.Body.Transfer.Status)
	require.NotNil(t, created.Body.Transfer.ExpiresAt)
	id := created.Body.Transfer.ID
	for i, n := 0, 1; i < len(archive); i, n = i+partSize, n+1 {
		part := archive[i:min(i+partSize, len(archive))]
		r := c.UploadDatabaseTransferPart(ctx, id, n, int64(len(part)), bytes.NewReader(part), sum(part))
		require.True(t, r.OK, "part %d: %v", n, r.Error)
		require.Equal(t, http.StatusCreated, r.StatusCode)
	}
	done := c.CompleteDatabaseTransfer(ctx, id)
	require.True(t, done.OK, "%v", done.Error)
	return waitTransfer(t, c, id)
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestDatabaseTransferRoundTrip: account A's database is exported (a workflow dbtransfer/<id>, progress
// shown, a signed archive whose key /v1/health publishes), the archive is imported into account B's in
// parts (a re-PUT of the same bytes is 200, of other bytes 409), and B's tables and rows equal A's;
// both transfers record database.transfer.completed once, and the import's parts leave the blob store.
func TestDatabaseTransferRoundTrip(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	a, b := newDatabaseAccount(t, env), newDatabaseAccount(t, env)
	readyDatabase(t, env, a)
	readyDatabase(t, env, b)
	ca, cb := sdkFor(env, a), sdkFor(env, b)
	execute(t, ca, "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, price numeric(10,2), tags text[]);\n"+
		"INSERT INTO items SELECT g, 'item ' || g, g * 1.5, ARRAY['a', 'b,c'] FROM generate_series(1, 500) g;\n"+
		"CREATE TABLE notes (body text);\nINSERT INTO notes VALUES ('line one\nline two'), (NULL), ('quote \" and , comma')")
	execute(t, cb, "CREATE TABLE stale (x int);\nINSERT INTO stale VALUES (1)")

	exp, archive, dl := exportArchive(t, ca)
	require.Equal(t, client.TransferKindExport, exp.Kind)
	require.Equal(t, 2, exp.Progress.TablesTotal)
	require.Equal(t, 2, exp.Progress.TablesDone)
	require.Positive(t, exp.Progress.Bytes)
	require.NotNil(t, exp.Archive)
	require.EqualValues(t, len(archive), exp.Archive.Bytes)
	require.Equal(t, sum(archive), exp.Archive.SHA256)
	require.Equal(t, sum(archive), dl.SHA256)
	require.NotNil(t, exp.ExpiresAt, "a completed export's archive is kept for a while")
	health := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/health"})
	require.NotEmpty(t, health.Body["databaseArchivePublicKey"])
	require.Equal(t, health.Body["databaseArchivePublicKey"], dl.PublicKey, "the archive's key is the one /v1/health publishes")
	require.Equal(t, dl.PublicKey, exp.Archive.PublicKey)
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err)
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	require.Subset(t, names, []string{"manifest.json", "schema.sql", "signature.json", "data/items.csv", "data/notes.csv"})

	imp := importArchive(t, cb, archive, len(archive)/3+1, false)
	require.Equal(t, client.TransferStatusCompleted, imp.Status, "%+v", imp.Error)
	require.Len(t, imp.Parts, 3)
	require.Equal(t, sum(archive), imp.Archive.SHA256)
	require.Equal(t, 2, imp.Progress.TablesDone)

	const check = "SELECT id, name, price::text, tags::text FROM items ORDER BY id"
	require.Equal(t, rows(t, ca, check), rows(t, cb, check))
	require.Len(t, rows(t, cb, check), 500)
	require.Equal(t, rows(t, ca, "SELECT body FROM notes ORDER BY body NULLS LAST"), rows(t, cb, "SELECT body FROM notes ORDER BY body NULLS LAST"))
	stale := cb.QueryDatabase(context.Background(), client.DatabaseQueryRequest{SQL: "SELECT * FROM stale"})
	require.False(t, stale.OK, "the import replaced B's tables")

	// Parts of a completed import are refused, and re-PUTs are answered from what is recorded.
	ctx := context.Background()
	late := cb.UploadDatabaseTransferPart(ctx, imp.ID, 1, 3, strings.NewReader("abc"), "")
	require.Equal(t, http.StatusConflict, late.StatusCode)

	for _, acct := range []dbTenant{a, b} {
		events, err := outbox.List(ctx, env.DB, acct.id)
		require.NoError(t, err)
		completed := 0
		for _, e := range events {
			if e.Type == outbox.DatabaseTransferCompleted {
				completed++
			}
		}
		require.Equal(t, 1, completed, "account %s", acct.id)
	}
	requireNoTransferBlobs(t, env, b.id+"/"+imp.ID+"/")
}

// requireNoTransferBlobs fails when blobs below prefix of the transfers' part of the store remain. The
// end is recorded first and the blobs deleted right after (by the same activity), so a client that sees
// the end may still see the blobs for a moment: the check waits up to 10 s for them to go.
func requireNoTransferBlobs(t *testing.T, env *apptest.Env, prefix string) {
	t.Helper()
	var left []string
	require.Eventually(t, func() bool {
		left = nil
		require.NoError(t, blob.WithPrefix(env.Blobs, app.TransferPrefix).List(context.Background(), prefix, func(i blob.Info) error {
			left = append(left, i.Key)
			return nil
		}))
		return len(left) == 0
	}, 10*time.Second, 20*time.Millisecond, "blobs left: %v", &left)
}

// TestDatabaseTransferParts: bad parts are refused with named errors and store nothing; a part number
// accepted before answers 200 for the same bytes and 409 for others; completing with a gap names the
// missing part; a tampered archive fails the import and leaves the database as it was; another
// account's transfer is 404; a cancelled import deletes its parts.
func TestDatabaseTransferParts(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	a, b := newDatabaseAccount(t, env), newDatabaseAccount(t, env)
	readyDatabase(t, env, a)
	readyDatabase(t, env, b)
	ca, cb := sdkFor(env, a), sdkFor(env, b)
	ctx := context.Background()
	execute(t, ca, "CREATE TABLE t (id int PRIMARY KEY);\nINSERT INTO t SELECT generate_series(1, 50)")
	execute(t, cb, "CREATE TABLE mine (id int);\nINSERT INTO mine VALUES (7)")
	_, archive, _ := exportArchive(t, ca)

	created := cb.CreateDatabaseTransfer(ctx, client.CreateDatabaseTransferRequest{Kind: client.TransferKindImport})
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Transfer.ID
	put := func(n int, body []byte, sha string, hdr map[string]string) *apptest.Response {
		h := map[string]string{"Content-Type": "application/zip", "Idempotency-Key": client.NewIdempotencyKey()}
		if sha != "" {
			h["X-Content-Sha256"] = sha
		}
		for k, v := range hdr {
			h[k] = v
		}
		return env.Do(t, apptest.Req{Method: http.MethodPut, Path: "/v1/databases/transfers/" + id + "/parts/" + itoa(n), Key: b.key,
			Body: string(body), Headers: h})
	}
	requireParam := func(r *apptest.Response, status int, param string) {
		t.Helper()
		require.Equal(t, status, r.Status, "%s", r.Raw)
		require.Equal(t, param, r.Body["error"].(map[string]any)["param"], "%s", r.Raw)
	}
	requireParam(put(0, []byte("x"), "", nil), http.StatusBadRequest, "partNumber")
	requireParam(put(10001, []byte("x"), "", nil), http.StatusBadRequest, "partNumber")
	requireParam(put(1, []byte("x"), "", map[string]string{"Content-Type": "text/plain"}), http.StatusUnsupportedMediaType, "Content-Type")
	requireParam(put(1, []byte("xyz"), sum([]byte("abc")), nil), http.StatusBadRequest, "X-Content-Sha256")
	requireParam(put(1, []byte("xyz"), "nothex", nil), http.StatusBadRequest, "X-Content-Sha256")
	got := cb.GetDatabaseTransfer(ctx, id)
	require.Empty(t, got.Body.Transfer.Parts, "a refused part stores nothing")
	requireNoTransferBlobs(t, env, b.id+"/"+id+"/")

	first, third := archive[:10], archive[10:20]
	require.Equal(t, http.StatusCreated, put(1, first, sum(first), nil).Status)
	again := put(1, first, "", nil)
	require.Equal(t, http.StatusOK, again.Status, "%s", again.Raw)
	other := put(1, third, "", nil)
	require.Equal(t, http.StatusConflict, other.Status, "%s", other.Raw)
	require.Equal(t, http.StatusCreated, put(3, third, "", nil).Status)
	gap := cb.CompleteDatabaseTransfer(ctx, id)
	require.False(t, gap.OK)
	require.Equal(t, http.StatusBadRequest, gap.StatusCode, "%s", gap.Raw)
	require.Equal(t, "parts", gap.Error.Param)
	require.Contains(t, gap.Error.Message, "part 2 is missing")

	// Another account sees nothing of it.
	for _, r := range []client.Response[client.DatabaseTransferEnvelope]{ca.GetDatabaseTransfer(ctx, id), ca.CancelDatabaseTransfer(ctx, id),
		ca.CompleteDatabaseTransfer(ctx, id)} {
		require.Equal(t, http.StatusNotFound, r.StatusCode, "%s", r.Raw)
	}

	// Cancel: the workflow deletes the parts and records the end.
	cancel := cb.CancelDatabaseTransfer(ctx, id)
	require.True(t, cancel.OK, "%v", cancel.Error)
	require.Equal(t, http.StatusAccepted, cancel.StatusCode)
	require.True(t, cancel.Body.Transfer.CancelRequested)
	require.Equal(t, client.TransferStatusCancelled, waitTransfer(t, cb, id).Status)
	requireNoTransferBlobs(t, env, b.id+"/"+id+"/")
	late := put(2, archive[10:], "", nil)
	require.Equal(t, http.StatusConflict, late.Status, "%s", late.Raw)

	// A tampered archive fails the import; the database is as it was.
	tampered := rewriteArchive(t, archive, nil, map[string][]byte{"data/t.csv": []byte("1\n2\n")})
	failed := importArchive(t, cb, tampered, len(tampered), false)
	require.Equal(t, client.TransferStatusFailed, failed.Status)
	require.NotNil(t, failed.Error)
	require.True(t, strings.HasPrefix(failed.Error.Code, "archive_"), failed.Error.Code)
	require.Equal(t, []string{"[7]"}, rows(t, cb, "SELECT id FROM mine"))

	// An unsigned archive needs allowUnsigned.
	unsigned := rewriteArchive(t, archive, []string{"signature.json"}, nil)
	refused := importArchive(t, cb, unsigned, len(unsigned), false)
	require.Equal(t, client.TransferStatusFailed, refused.Status)
	require.Equal(t, "archive_unsigned", refused.Error.Code)
	allowed := importArchive(t, cb, unsigned, len(unsigned), true)
	require.Equal(t, client.TransferStatusCompleted, allowed.Status, "%+v", allowed.Error)
	require.Len(t, rows(t, cb, "SELECT id FROM t"), 50)

	// Exports take no parts and are not completed by the client; imports have no archive.
	exp := ca.CreateDatabaseTransfer(ctx, client.CreateDatabaseTransferRequest{Kind: client.TransferKindExport})
	require.True(t, exp.OK)
	require.Equal(t, http.StatusConflict, ca.UploadDatabaseTransferPart(ctx, exp.Body.Transfer.ID, 1, 1, strings.NewReader("x"), "").StatusCode)
	require.Equal(t, http.StatusConflict, ca.CompleteDatabaseTransfer(ctx, exp.Body.Transfer.ID).StatusCode)
	require.Equal(t, http.StatusConflict, cb.DownloadDatabaseArchive(ctx, allowed.ID, io.Discard, nil).StatusCode)
	bad := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/transfers", Key: a.key,
		Body: map[string]any{"kind": "export", "allowUnsigned": true}, Headers: map[string]string{"Idempotency-Key": "bad"}})
	requireParam(bad, http.StatusBadRequest, "allowUnsigned")
	bad = env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/transfers", Key: a.key,
		Body: map[string]any{"kind": "copy"}, Headers: map[string]string{"Idempotency-Key": "bad2"}})
	require.Equal(t, http.StatusBadRequest, bad.Status, "%s", bad.Raw)

	// A completed export's archive can be discarded.
	done := waitTransfer(t, ca, exp.Body.Transfer.ID)
	require.Equal(t, client.TransferStatusCompleted, done.Status)
	require.Equal(t, http.StatusAccepted, ca.CancelDatabaseTransfer(ctx, done.ID).StatusCode)
	require.Eventually(t, func() bool {
		return ca.GetDatabaseTransfer(ctx, done.ID).Body.Transfer.Status == client.TransferStatusCancelled
	}, 30*time.Second, 20*time.Millisecond)
	requireNoTransferBlobs(t, env, a.id+"/"+done.ID+"/")
	require.Equal(t, http.StatusConflict, ca.DownloadDatabaseArchive(ctx, done.ID, io.Discard, nil).StatusCode)
}

func itoa(n int) string { return strconv.Itoa(n) }

// rewriteArchive copies archive, dropping the entries drop names and replacing the content of those
// replace names.
func rewriteArchive(t *testing.T, archive []byte, drop []string, replace map[string][]byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err)
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		switch {
		case slices.Contains(drop, f.Name):
		case replace[f.Name] != nil:
			w, err := zw.Create(f.Name)
			require.NoError(t, err)
			_, err = w.Write(replace[f.Name])
			require.NoError(t, err)
		default:
			require.NoError(t, zw.Copy(f))
		}
	}
	require.NoError(t, zw.Close())
	return out.Bytes()
}
