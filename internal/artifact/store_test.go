package artifact_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/blob/blobtest"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// fixture is a store on a fresh schema and directory, with one account.
type fixture struct {
	db      *bun.DB
	dir     string
	store   *artifact.Store
	account string
}

func newFixture(t *testing.T, opts artifact.Options) *fixture {
	t.Helper()
	db := testdb.New(t)
	dir := t.TempDir()
	f := &fixture{db: db, dir: dir, store: artifact.NewStore(db, blob.NewLocal(dir), opts)}
	f.account = f.newAccount(t)
	return f
}

func (f *fixture) newAccount(t *testing.T) string {
	t.Helper()
	id := ids.New(ids.Account)
	_, err := f.db.NewInsert().Model(&schema.Account{ID: id, Name: "artifacts"}).Exec(context.Background())
	require.NoError(t, err)
	return id
}

func (f *fixture) newProject(t *testing.T, accountID string) string {
	t.Helper()
	id := ids.New(ids.Project)
	_, err := f.db.NewInsert().Model(&schema.Project{ID: id, AccountID: accountID, Name: "p", Status: "active"}).Exec(context.Background())
	require.NoError(t, err)
	return id
}

// files lists every regular file below the store's directory, temporary ones included.
func (f *fixture) files(t *testing.T) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return err
	}))
	return out
}

func (f *fixture) artifact(runID, serviceID, name, body string) artifact.NewArtifact {
	return artifact.NewArtifact{ID: ids.Derive(ids.Artifact, runID, name), AccountID: f.account, RunID: runID,
		ServiceID: serviceID, Name: name, ContentType: "text/plain", Body: strings.NewReader(body)}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func readAll(t *testing.T, s *artifact.Store, a *schema.Artifact) []byte {
	t.Helper()
	rc, err := s.Open(context.Background(), a)
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// TestSaveRecordsSizeAndSHA256: the row carries the exact size and hex SHA-256 of the body, and Open
// answers the same bytes.
func TestSaveRecordsSizeAndSHA256(t *testing.T) {
	t.Parallel()
	f := newFixture(t, artifact.Options{})
	body := bytes.Repeat([]byte("artifact bytes\n"), 10000)
	n := f.artifact("run_1", "managed-workflows", "out.txt", "")
	n.Body = bytes.NewReader(body)
	a, err := f.store.Save(context.Background(), n)
	require.NoError(t, err)
	require.Equal(t, int64(len(body)), a.SizeBytes)
	require.Equal(t, sha(body), a.SHA256)
	require.Equal(t, "text/plain", a.ContentType)
	require.False(t, a.CreatedAt.IsZero())
	require.Equal(t, body, readAll(t, f.store, a))

	n = f.artifact("run_1", "managed-workflows", "empty", "")
	n.ContentType = ""
	empty, err := f.store.Save(context.Background(), n)
	require.NoError(t, err)
	require.Equal(t, int64(0), empty.SizeBytes)
	require.Equal(t, sha(nil), empty.SHA256)
	require.Equal(t, artifact.DefaultContentType, empty.ContentType)
}

// TestSaveIsIdempotentByID: saving an id again answers the first row without reading the new body or
// writing a second blob.
func TestSaveIsIdempotentByID(t *testing.T) {
	t.Parallel()
	f := newFixture(t, artifact.Options{})
	ctx := context.Background()
	first, err := f.store.Save(ctx, f.artifact("run_1", "managed-workflows", "result.json", `{"a":1}`))
	require.NoError(t, err)
	again := f.artifact("run_1", "managed-workflows", "result.json", `{"a":2, "different": true}`)
	body := again.Body.(*strings.Reader)
	second, err := f.store.Save(ctx, again)
	require.NoError(t, err)
	require.Equal(t, first.ID, second.ID)
	require.Equal(t, first.SHA256, second.SHA256)
	require.Equal(t, first.BlobKey, second.BlobKey)
	require.Equal(t, int64(len(`{"a":2, "different": true}`)), int64(body.Len()), "the second body is not read")
	require.Len(t, f.files(t), 1, "one blob")
	require.Equal(t, `{"a":1}`, string(readAll(t, f.store, second)))

	// The same id from another account is a caller's bug, not a retry.
	other := f.artifact("run_1", "managed-workflows", "result.json", "x")
	other.AccountID = f.newAccount(t)
	_, err = f.store.Save(ctx, other)
	require.ErrorContains(t, err, "another account or run")
}

// TestConcurrentSavesOfOneIDKeepOneBlob: many saves of one id at once all answer the same row, and the
// losers' blobs are removed.
func TestConcurrentSavesOfOneIDKeepOneBlob(t *testing.T) {
	t.Parallel()
	f := newFixture(t, artifact.Options{})
	const n = 8
	results := make([]*schema.Artifact, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = f.store.Save(context.Background(), f.artifact("run_c", "managed-workflows", "out.bin", "same bytes"))
		}()
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		require.Equal(t, results[0].BlobKey, results[i].BlobKey)
	}
	files := f.files(t)
	require.Len(t, files, 1, "%v", files)
	require.Equal(t, "same bytes", string(readAll(t, f.store, results[0])))
	rows, err := f.db.NewSelect().Model((*schema.Artifact)(nil)).Count(context.Background())
	require.NoError(t, err)
	require.EqualValues(t, 1, rows)
}

// TestSaveEnforcesTheSizeCap: a body over the cap answers payload_too_large and leaves neither a row nor
// a file (temporary ones included); a body of exactly the cap is stored.
func TestSaveEnforcesTheSizeCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t, artifact.Options{MaxBytes: 1000})
	ctx := context.Background()
	_, err := f.store.Save(ctx, f.artifact("run_1", "managed-workflows", "big", strings.Repeat("x", 1001)))
	e, ok := svcerr.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, svcerr.PayloadTooLarge, e.Code)
	require.Equal(t, 413, svcerr.Status(e.Code))
	require.Empty(t, f.files(t))
	count, err := f.db.NewSelect().Model((*schema.Artifact)(nil)).Count(ctx)
	require.NoError(t, err)
	require.Zero(t, count)

	a, err := f.store.Save(ctx, f.artifact("run_1", "managed-workflows", "fits", strings.Repeat("x", 1000)))
	require.NoError(t, err)
	require.Equal(t, int64(1000), a.SizeBytes)
	require.Equal(t, int64(artifact.DefaultMaxBytes), artifact.NewStore(f.db, nil, artifact.Options{}).MaxBytes())
}

// TestSaveValidatesNames: names that could escape a directory when downloaded, and ids without the art_
// prefix, are refused before anything is written.
func TestSaveValidatesNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t, artifact.Options{})
	for _, name := range []string{"", ".", "..", "../etc/passwd", "a/b", `a\b`, "line\nbreak", strings.Repeat("n", 256)} {
		n := f.artifact("run_1", "managed-workflows", "ok", "x")
		n.Name = name
		_, err := f.store.Save(context.Background(), n)
		e, ok := svcerr.As(err)
		require.True(t, ok, "name %q: %v", name, err)
		require.Equal(t, "name", e.Param, "name %q", name)
	}
	n := f.artifact("run_1", "managed-workflows", "ok", "x")
	n.ID = "run_notanartifact"
	_, err := f.store.Save(context.Background(), n)
	require.ErrorContains(t, err, "art_ prefix")
	require.Empty(t, f.files(t))
	require.NoError(t, artifact.ValidateName("résumé 2026.pdf"))
}

// TestOpenRefusesABlobOfTheWrongSize: a blob truncated on disk is refused before a byte is served.
func TestOpenRefusesABlobOfTheWrongSize(t *testing.T) {
	t.Parallel()
	f := newFixture(t, artifact.Options{})
	a, err := f.store.Save(context.Background(), f.artifact("run_1", "managed-workflows", "out", "0123456789"))
	require.NoError(t, err)
	require.NoError(t, os.Truncate(filepath.Join(f.dir, filepath.FromSlash(a.BlobKey)), 4))
	_, err = f.store.Open(context.Background(), a)
	require.ErrorContains(t, err, "the blob has 4 bytes, 10 were recorded")

	require.NoError(t, os.Remove(filepath.Join(f.dir, filepath.FromSlash(a.BlobKey))))
	_, err = f.store.Open(context.Background(), a)
	require.ErrorIs(t, err, blob.ErrNotFound)
}

// TestListAndGetStayInScope: List filters by run and services and pages newest first without gaps or
// repeats; Get and List never see another account's or project's artifacts.
func TestListAndGetStayInScope(t *testing.T) {
	t.Parallel()
	f := newFixture(t, artifact.Options{})
	ctx := context.Background()
	scope := tenant.Scope{AccountID: f.account}
	var mine []string
	for i, spec := range []struct{ run, service string }{
		{"run_a", "managed-workflows"}, {"run_a", "managed-workflows"}, {"run_b", "managed-workflows"},
		{"run_b", "imagegen"}, {"run_a", "imagegen"},
	} {
		a, err := f.store.Save(ctx, f.artifact(spec.run, spec.service, "file"+string(rune('0'+i)), "x"))
		require.NoError(t, err)
		mine = append(mine, a.ID)
	}
	// Another project of the account, and another account.
	proj := f.newProject(t, f.account)
	inProject := f.artifact("run_a", "managed-workflows", "in-project", "x")
	inProject.ProjectID = &proj
	pa, err := f.store.Save(ctx, inProject)
	require.NoError(t, err)
	foreign := f.artifact("run_z", "managed-workflows", "foreign", "x")
	foreign.AccountID = f.newAccount(t)
	fa, err := f.store.Save(ctx, foreign)
	require.NoError(t, err)

	list := func(filter artifact.Filter, limit int) []string {
		var got []string
		p := page.Params{Limit: limit}
		for {
			rows, next, err := f.store.List(ctx, scope, filter, p)
			require.NoError(t, err)
			require.LessOrEqual(t, len(rows), limit)
			for _, r := range rows {
				got = append(got, r.ID)
			}
			if next == nil {
				return got
			}
			p, err = page.Parse(limit, *next)
			require.NoError(t, err)
		}
	}
	all := list(artifact.Filter{}, 2)
	require.ElementsMatch(t, mine, all)
	require.Len(t, all, len(mine), "no repeats across pages")
	require.Len(t, list(artifact.Filter{RunID: "run_a"}, 50), 3)
	require.Len(t, list(artifact.Filter{RunID: "run_a", Services: []string{"imagegen"}}, 50), 1)
	require.Len(t, list(artifact.Filter{Services: []string{"managed-workflows"}}, 1), 3)
	require.Empty(t, list(artifact.Filter{Services: []string{}}, 50), "no services, no artifacts")

	inProj := tenant.Scope{AccountID: f.account, ProjectID: &proj}
	rows, _, err := f.store.List(ctx, inProj, artifact.Filter{}, page.Params{Limit: 50})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.Equal(t, pa.ID, rows[0].ID)

	got, err := f.store.Get(ctx, scope, mine[0])
	require.NoError(t, err)
	require.Equal(t, mine[0], got.ID)
	for _, id := range []string{fa.ID, pa.ID, "art_unknown"} {
		_, err := f.store.Get(ctx, scope, id)
		e, ok := svcerr.As(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, svcerr.NotFound, e.Code, id)
	}
}

// TestStoreOnABucket: the store works the same on an S3 bucket (below "artifacts/", as configured): the
// row carries the size and SHA-256, Open answers the bytes, a save past the cap leaves no object, and a
// blob of the wrong size is refused before a byte is read.
func TestStoreOnABucket(t *testing.T) {
	t.Parallel()
	f := newFixture(t, artifact.Options{MaxBytes: 1 << 20})
	bucket := blobtest.S3(t)
	store := artifact.NewStore(f.db, blob.WithPrefix(bucket, "artifacts"), artifact.Options{MaxBytes: 1 << 20})
	ctx := context.Background()
	body := bytes.Repeat([]byte("bucket bytes\n"), 1000)
	n := f.artifact("run_s3", "managed-workflows", "out.txt", "")
	n.Body = bytes.NewReader(body)
	a, err := store.Save(ctx, n)
	require.NoError(t, err)
	require.Equal(t, int64(len(body)), a.SizeBytes)
	require.Equal(t, sha(body), a.SHA256)
	require.Equal(t, body, readAll(t, store, a))
	info, err := bucket.Stat(ctx, "artifacts/"+a.BlobKey)
	require.NoError(t, err)
	require.Equal(t, a.SizeBytes, info.Size)

	big := f.artifact("run_s3", "managed-workflows", "big.bin", "")
	big.Body = bytes.NewReader(make([]byte, 1<<20+1))
	_, err = store.Save(ctx, big)
	e, ok := svcerr.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, svcerr.PayloadTooLarge, e.Code)
	var keys []string
	require.NoError(t, bucket.List(ctx, "", func(i blob.Info) error { keys = append(keys, i.Key); return nil }))
	require.Equal(t, []string{"artifacts/" + a.BlobKey}, keys, "the refused save left no object")

	_, _, err = bucket.Put(ctx, "artifacts/"+a.BlobKey, strings.NewReader("short"))
	require.NoError(t, err)
	_, err = store.Open(ctx, a)
	require.ErrorContains(t, err, fmt.Sprintf("the blob has 5 bytes, %d were recorded", a.SizeBytes))
}
