package bench

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/internal/dbarchive"
	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/testdb"
)

const (
	// archiveRows is the benchmark table's row count.
	archiveRows = 1_000_000
	// archiveRounds is how many alternating exports and imports one iteration makes per side.
	archiveRounds = 2
)

// BenchmarkDatabaseArchiveVersusPgDump exports a 1,000,000-row table (bigint key, text, numeric,
// timestamptz, boolean; ~80 MB of CSV) with dbarchive.Export into a file and with `pg_dump -t` (plain
// format) into a file, then restores each: dbarchive.Open (every digest and the signature) and
// Archive.Import into a second database, and `psql -1 -f` of pg_dump's output into a third, in alternating
// rounds. It reports the four throughputs in rows/s, the two dbarchive/pg ratios, and the peak heap growth
// of this process during an export and an import.
func BenchmarkDatabaseArchiveVersusPgDump(b *testing.B) {
	app.TuneGC(os.Getenv) // as svcd does
	ctx := context.Background()
	src, srcName := scratchDB(b)
	dst, _ := scratchDB(b)
	_, psqlName := scratchDB(b)
	_, err := src.ExecContext(ctx, `CREATE TABLE big (id bigint PRIMARY KEY, name text NOT NULL, amount numeric(12, 2),
		at timestamptz NOT NULL, active boolean NOT NULL)`)
	require.NoError(b, err)
	_, err = src.ExecContext(ctx, fmt.Sprintf(`INSERT INTO big SELECT g, 'customer ' || md5(g::text), (g %% 100000) / 100.0,
		'2026-01-01'::timestamptz + g * interval '1 second', g %% 3 = 0 FROM generate_series(1, %d) g`, archiveRows))
	require.NoError(b, err)
	_, err = src.ExecContext(ctx, "VACUUM ANALYZE big")
	require.NoError(b, err)
	key := dbarchive.KeyFromSeed([]byte("bench"))
	dir := b.TempDir()
	for b.Loop() {
		var exp, dump, imp, restore time.Duration
		var expHeap, impHeap uint64
		for round := range archiveRounds {
			archive := filepath.Join(dir, fmt.Sprintf("a%d.zip", round))
			dumpFile := filepath.Join(dir, fmt.Sprintf("d%d.sql", round))
			d, g := withHeapSampler(func() { exportTo(b, src, key, archive) })
			exp, expHeap = exp+d, max(expHeap, g)
			dump += timeCmd(b, pgBin("pg_dump"), "-d", dbURL(srcName), "-t", "big", "-f", dumpFile)

			d, g = withHeapSampler(func() { importFrom(b, dst, key, archive) })
			imp, impHeap = imp+d, max(impHeap, g)
			_, err := execURL(b, psqlName, "DROP TABLE IF EXISTS big")
			require.NoError(b, err)
			restore += timeCmd(b, pgBin("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-1", "-d", dbURL(psqlName), "-f", dumpFile)
			require.NoError(b, os.Remove(archive))
			require.NoError(b, os.Remove(dumpFile))
		}
		rate := func(d time.Duration) float64 { return float64(archiveRows*archiveRounds) / d.Seconds() }
		b.ReportMetric(rate(exp), "export-rows/s")
		b.ReportMetric(rate(dump), "pgdump-rows/s")
		b.ReportMetric(rate(imp), "import-rows/s")
		b.ReportMetric(rate(restore), "psql-rows/s")
		b.ReportMetric(dump.Seconds()/exp.Seconds(), "export-ratio")
		b.ReportMetric(restore.Seconds()/imp.Seconds(), "import-ratio")
		b.ReportMetric(float64(expHeap)/(1<<20), "export-heap-MB")
		b.ReportMetric(float64(impHeap)/(1<<20), "import-heap-MB")
	}
}

// exportTo exports db into the file path.
func exportTo(b *testing.B, db *bun.DB, key ed25519.PrivateKey, path string) {
	f, err := os.Create(path)
	require.NoError(b, err)
	w := bufio.NewWriterSize(f, 1<<20)
	m, err := dbarchive.Export(context.Background(), db, w, key, nil)
	require.NoError(b, err)
	require.EqualValues(b, archiveRows, m.Tables[0].Rows)
	require.NoError(b, w.Flush())
	require.NoError(b, f.Close())
}

// importFrom verifies the archive at path and imports it into db.
func importFrom(b *testing.B, db *bun.DB, key ed25519.PrivateKey, path string) {
	f, err := os.Open(path)
	require.NoError(b, err)
	defer f.Close()
	st, err := f.Stat()
	require.NoError(b, err)
	arc, err := dbarchive.Open(f, st.Size(), dbarchive.VerifyOptions{PublicKey: key.Public().(ed25519.PublicKey)})
	require.NoError(b, err)
	require.NoError(b, arc.Import(context.Background(), db))
}

// timeCmd runs a command and answers how long it took.
func timeCmd(b *testing.B, name string, args ...string) time.Duration {
	start := time.Now()
	out, err := exec.Command(name, args...).CombinedOutput()
	require.NoError(b, err, "%s: %s", name, out)
	return time.Since(start)
}

// pgBin finds a PostgreSQL client program: on PATH, else in PostgreSQL 15's directory.
func pgBin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return "/usr/lib/postgresql/15/bin/" + name
}

// dbURL is the test server's URL naming database name.
func dbURL(name string) string {
	u, err := url.Parse(testdb.URL())
	if err != nil {
		panic(err)
	}
	u.Path = "/" + name
	q := u.Query()
	q.Del("search_path")
	u.RawQuery = q.Encode()
	return u.String()
}

// execURL runs one statement in database name.
func execURL(b *testing.B, name, q string) (sql.Result, error) {
	db, err := pg.Open(context.Background(), dbURL(name), pg.Options{MaxOpenConns: 1})
	require.NoError(b, err)
	defer db.Close()
	return db.ExecContext(context.Background(), q)
}

// scratchDB creates a database of its own, dropped when the benchmark ends.
func scratchDB(b *testing.B) (*bun.DB, string) {
	ctx := context.Background()
	admin, err := pg.Open(ctx, dbURL("postgres"), pg.Options{MaxOpenConns: 1})
	require.NoError(b, err)
	b.Cleanup(func() { _ = admin.Close() })
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	name := "bench_archive_" + hex.EncodeToString(suffix)
	_, err = admin.ExecContext(ctx, "CREATE DATABASE "+name)
	require.NoError(b, err)
	b.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	// Without pgdriver's read timeout, which bounds a whole COPY's output (pg.Open sets 5 s).
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dbURL(name)), pgdriver.WithTimeout(5*time.Second),
		pgdriver.WithReadTimeout(0)))
	sqldb.SetMaxOpenConns(2)
	db := bun.NewDB(sqldb, pgdialect.New())
	b.Cleanup(func() { _ = db.Close() })
	return db, name
}
