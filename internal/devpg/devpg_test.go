package devpg

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestEnsureEnvURLUntouched(t *testing.T) {
	t.Parallel()
	const url = "postgres://app:secret@db.example:6543/whatever?sslmode=require"
	res, err := Ensure(context.Background(), Options{DatabaseURL: url, Database: "Not Valid"})
	require.NoError(t, err)
	require.Equal(t, url, res.URL)
	require.Equal(t, SourceEnv, res.Source)
	require.NoError(t, res.Stop(context.Background()))
}

func TestEnsureRejectsBadOptions(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{
		{Database: "Svc"},
		{Database: "1svc"},
		{Database: `svc"; DROP DATABASE postgres; --`},
		{LocalAddr: "127.0.0.1:5433", PrivatePort: 5433},
	} {
		_, err := Ensure(context.Background(), opts)
		require.Error(t, err, "%+v", opts)
	}
}

func TestQuoteIdent(t *testing.T) {
	t.Parallel()
	require.Equal(t, `"svc"`, quoteIdent("svc"))
	require.Equal(t, `"a""b"`, quoteIdent(`a"b`))
}

func TestEnsureLocalCreatesDatabase(t *testing.T) {
	t.Parallel()
	if dialTCP(context.Background(), DefaultLocalAddr) != nil {
		t.Skip("no PostgreSQL on " + DefaultLocalAddr)
	}
	ctx := context.Background()
	name := "svc_devpg_" + randomSuffix(t)
	admin := pgURL(DefaultLocalAddr, maintenanceDB)
	t.Cleanup(func() { dropDatabase(t, admin, name) })

	opts := Options{Database: name, Progress: testWriter{t}}
	res, err := Ensure(ctx, opts)
	require.NoError(t, err)
	require.Equal(t, SourceLocal, res.Source)
	require.Equal(t, "postgres://postgres@127.0.0.1:5432/"+name+"?sslmode=disable", res.URL)
	require.NoError(t, ping(ctx, res.URL))

	again, err := Ensure(ctx, opts) // database exists now
	require.NoError(t, err)
	require.Equal(t, res.URL, again.URL)
}

func TestEnsurePrivateCluster(t *testing.T) {
	t.Parallel()
	dataDir := privateDataDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := Options{
		DataDir:     dataDir,
		LocalAddr:   "127.0.0.1:" + strconv.Itoa(freePort(t)),
		PrivatePort: freePort(t),
		Progress:    testWriter{t},
	}

	first := ensurePrivateOK(ctx, t, opts)
	execSQL(ctx, t, first.URL, "CREATE TABLE keep (x int); INSERT INTO keep VALUES (42)")
	require.NoError(t, first.Stop(ctx))
	require.Error(t, ping(ctx, first.URL), "cluster still answers after Stop")

	second := ensurePrivateOK(ctx, t, opts)
	require.Equal(t, first.URL, second.URL)
	require.Equal(t, 42, queryInt(ctx, t, second.URL, "SELECT x FROM keep"))

	reused := ensurePrivateOK(ctx, t, opts) // running: reuse, Stop is a no-op
	require.NoError(t, reused.Stop(ctx))
	require.NoError(t, ping(ctx, second.URL))
	require.FileExists(t, filepath.Join(dataDir, "pg", "log", "postgres.log"))
}

func ensurePrivateOK(ctx context.Context, t *testing.T, opts Options) *Result {
	t.Helper()
	res, err := Ensure(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, res.Stop(context.Background())) })
	require.Equal(t, SourcePrivate, res.Source)
	require.Equal(t, pgURL("127.0.0.1:"+strconv.Itoa(opts.PrivatePort), DefaultDatabase), res.URL)
	require.NoError(t, ping(ctx, res.URL))
	return res
}

// privateDataDir returns a data dir the postgres user can use. As root,
// t.TempDir's 0700 directories are opened up so runuser -u postgres can
// traverse them; without root the test needs installed binaries.
func privateDataDir(t *testing.T) string {
	t.Helper()
	if _, err := findBinaries(""); err != nil {
		t.Skipf("no PostgreSQL binaries: %v", err)
	}
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
		require.NoError(t, os.Chmod(dir, 0o755))
	}
	return filepath.Join(dir, "data")
}

func execSQL(ctx context.Context, t *testing.T, dsn, query string) {
	t.Helper()
	db := openDB(dsn)
	defer db.Close()
	_, err := db.ExecContext(ctx, query)
	require.NoError(t, err)
}

func queryInt(ctx context.Context, t *testing.T, dsn, query string) int {
	t.Helper()
	db := openDB(dsn)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRowContext(ctx, query).Scan(&n))
	return n
}

func dropDatabase(t *testing.T, adminDSN, name string) {
	db := openDB(adminDSN)
	defer db.Close()
	_, err := db.ExecContext(context.Background(),
		"DROP DATABASE IF EXISTS "+quoteIdent(name)+" WITH (FORCE)")
	require.NoError(t, err)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomSuffix(t *testing.T) string {
	b := make([]byte, 4)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

// testWriter sends progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
