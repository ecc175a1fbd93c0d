package dbarchive_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/ed25519"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/dbarchive"
)

// smallArchive exports a two-table database.
func smallArchive(t *testing.T) []byte {
	t.Helper()
	a := newScratch(t)
	a.exec(t, `CREATE TABLE one (id int PRIMARY KEY, s text)`, `INSERT INTO one SELECT g, 'row ' || g FROM generate_series(1, 50) g`,
		`CREATE TABLE two (id int PRIMARY KEY, n numeric)`, `INSERT INTO two SELECT g, g / 7.0 FROM generate_series(1, 30) g`)
	archive, _ := exportOf(t, a)
	return archive
}

func requireKind(t *testing.T, err error, k dbarchive.Kind) {
	t.Helper()
	require.Error(t, err)
	e, ok := dbarchive.AsError(err)
	require.True(t, ok, "want an archive error of kind %s, got %v", k, err)
	assert.Equal(t, k, e.Kind, e.Error())
}

func TestTamperedArchivesAreRefused(t *testing.T) {
	t.Parallel()
	archive := smallArchive(t)
	opts := dbarchive.VerifyOptions{PublicKey: testPub()}
	_, err := openBytes(archive, opts)
	require.NoError(t, err)

	flip := rewrite(t, archive, func(name string, body []byte) []byte {
		if name == "data/two.csv" {
			body[len(body)-2] ^= 1 // one digit of the last row
		}
		return body
	})
	_, err = openBytes(flip, opts)
	requireKind(t, err, dbarchive.KindTampered)
	assert.Contains(t, err.Error(), "data/two.csv")
	_, err = openBytes(flip, dbarchive.VerifyOptions{AllowUnsigned: true})
	requireKind(t, err, dbarchive.KindTampered)

	// Digests made to match the edit, without the key, break the signature instead.
	manifestOnly := resign(t, flip, nil, func(m *dbarchive.Manifest) { m.Tables[1].SHA256 = sha256Of(t, flip, "data/two.csv") })
	_, err = openBytes(withSignatureOf(t, manifestOnly, archive), opts)
	requireKind(t, err, dbarchive.KindSignature)

	truncated := archive[:len(archive)-100]
	_, err = openBytes(truncated, opts)
	requireKind(t, err, dbarchive.KindNotZip)
}

func TestSignaturesArePinnedToTheTrustedKey(t *testing.T) {
	t.Parallel()
	archive := smallArchive(t)
	_, foreign, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	byForeign := resign(t, archive, foreign, func(*dbarchive.Manifest) {})
	unsigned := resign(t, archive, nil, func(*dbarchive.Manifest) {})
	forged := rewrite(t, archive, func(name string, body []byte) []byte {
		if name == dbarchive.SignatureFile {
			return bytes.Replace(body, []byte(`"sig": "`), []byte(`"sig": "AAAA`), 1)
		}
		return body
	})
	strict := dbarchive.VerifyOptions{PublicKey: testPub()}
	lenient := dbarchive.VerifyOptions{PublicKey: testPub(), AllowUnsigned: true}
	for _, tc := range []struct {
		name    string
		archive []byte
		strict  dbarchive.Kind
	}{
		{"foreign key", byForeign, dbarchive.KindSignature},
		{"unsigned", unsigned, dbarchive.KindUnsigned},
		{"forged", forged, dbarchive.KindSignature},
	} {
		_, err := openBytes(tc.archive, strict)
		requireKind(t, err, tc.strict)
		arc, err := openBytes(tc.archive, lenient)
		require.NoError(t, err, tc.name)
		assert.False(t, arc.Signed, tc.name)
	}
	// A signature by the test key over a re-written manifest is accepted: the key, not the bytes, is trusted.
	arc, err := openBytes(resign(t, archive, testKey, func(*dbarchive.Manifest) {}), strict)
	require.NoError(t, err)
	assert.True(t, arc.Signed)
	// No trusted key configured: nothing verifies.
	_, err = openBytes(archive, dbarchive.VerifyOptions{})
	requireKind(t, err, dbarchive.KindSignature)
}

func TestKeyFromSeedIsDeterministic(t *testing.T) {
	t.Parallel()
	seed := bytes.Repeat([]byte{7}, ed25519.SeedSize)
	a, b := dbarchive.KeyFromSeed(seed), dbarchive.KeyFromSeed(seed)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, dbarchive.KeyFromSeed(bytes.Repeat([]byte{8}, ed25519.SeedSize)))
	pub := a.Public().(ed25519.PublicKey)
	s := dbarchive.PublicKeyString(pub)
	back, err := dbarchive.ParsePublicKey(s)
	require.NoError(t, err)
	assert.Equal(t, pub, back)
	_, err = dbarchive.ParsePublicKey("not a key")
	assert.Error(t, err)
}

// zipOf builds an archive of the named entries, stored as given.
func zipOf(t *testing.T, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		require.NoError(t, err)
		if strings.HasSuffix(name, "/") {
			continue // a directory holds no bytes
		}
		_, err = w.Write([]byte("x"))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestEntryNamesOutsideTheLayoutAreRefused(t *testing.T) {
	t.Parallel()
	opts := dbarchive.VerifyOptions{AllowUnsigned: true}
	for _, name := range []string{"../x", "/etc/x", "data/../manifest.json", `data\x.csv`, "data/sub/x.csv",
		"notes.txt", "data/.csv", "C:/x", "data/x.csv/"} {
		_, err := openBytes(zipOf(t, "manifest.json", name), opts)
		requireKind(t, err, dbarchive.KindEntryName)
		assert.Contains(t, err.Error(), name)
	}
	_, err := openBytes(zipOf(t, "manifest.json", "schema.sql", "manifest.json"), opts)
	requireKind(t, err, dbarchive.KindDuplicateEntry)
	_, err = openBytes(zipOf(t, "manifest.json", "schema.sql", "data/a.csv", "data/b.csv"),
		dbarchive.VerifyOptions{AllowUnsigned: true, MaxEntries: 3})
	requireKind(t, err, dbarchive.KindTooManyEntries)
	_, err = openBytes(zipOf(t, "manifest.json", "schema.sql"), opts)
	requireKind(t, err, dbarchive.KindManifest)
	_, err = openBytes(zipOf(t, "schema.sql"), opts)
	requireKind(t, err, dbarchive.KindMissingEntry)
	_, err = openBytes([]byte("PK not really"), opts)
	requireKind(t, err, dbarchive.KindNotZip)
}

// bombSize is the inflated size of the bombs: 512 MiB of zeros.
const bombSize = 512 << 20

// bomb is a deflate stream of bombSize zeros, made once.
var bomb = func() []byte {
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.BestCompression)
	chunk := make([]byte, 1<<20)
	for range bombSize / len(chunk) {
		_, _ = fw.Write(chunk)
	}
	_ = fw.Close()
	return buf.Bytes()
}

// bombArchive is a valid-looking archive whose data/t.csv is the bomb, its header declaring declared bytes.
func bombArchive(t *testing.T, deflated []byte, declared uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, body []byte) {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write(body)
		require.NoError(t, err)
	}
	add(dbarchive.ManifestFile, []byte(`{"formatVersion": 1, "serverVersion": "15", "createdAt": "2026-01-01T00:00:00Z",
		"schema": {"file": "schema.sql", "bytes": 0, "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		"tables": [{"name": "t", "columns": ["a"], "rows": 1, "file": "data/t.csv", "bytes": 1,
		"sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}]}`))
	add(dbarchive.SchemaFile, nil)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "data/t.csv", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(nil),
		CompressedSize64: uint64(len(deflated)), UncompressedSize64: declared})
	require.NoError(t, err)
	_, err = w.Write(deflated)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestZipBombsAreRefusedWithoutInflating(t *testing.T) {
	t.Parallel()
	deflated := bomb()
	require.Less(t, len(deflated), 2<<20, "the bomb is small compressed")
	start := time.Now()
	n, err := io.Copy(io.Discard, flate.NewReader(bytes.NewReader(deflated)))
	require.NoError(t, err)
	require.EqualValues(t, bombSize, n)
	inflateAll := time.Since(start)
	opts := dbarchive.VerifyOptions{AllowUnsigned: true}
	for _, tc := range []struct {
		name     string
		declared uint64
		opts     dbarchive.VerifyOptions
		kind     dbarchive.Kind
	}{
		{"honest header, over the ratio", bombSize, opts, dbarchive.KindCompressionRate},
		{"honest header, over the size cap", bombSize, dbarchive.VerifyOptions{AllowUnsigned: true, MaxEntryBytes: 64 << 20,
			MaxRatio: 1 << 20}, dbarchive.KindEntryTooLarge},
		{"lying header", 100, opts, dbarchive.KindEntryTooLarge},
		{"lying header, generous ratio", 100, dbarchive.VerifyOptions{AllowUnsigned: true, MaxEntryBytes: 64 << 20,
			MaxRatio: 1 << 20}, dbarchive.KindEntryTooLarge},
	} {
		archive := bombArchive(t, deflated, tc.declared)
		start := time.Now()
		_, err := openBytes(archive, tc.opts)
		elapsed := time.Since(start)
		requireKind(t, err, tc.kind)
		// Refusing the bomb inflates at most a small part of it.
		assert.Less(t, elapsed, inflateAll/5, "%s: refused in %s, inflating it all takes %s", tc.name, elapsed, inflateAll)
	}
}

// sha256Of is the hex SHA-256 of an entry of archive.
func sha256Of(t *testing.T, archive []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err)
	for _, f := range zr.File {
		if f.Name == name {
			rc, err := f.Open()
			require.NoError(t, err)
			b, err := io.ReadAll(rc)
			require.NoError(t, err)
			return hexSHA(b)
		}
	}
	t.Fatalf("no entry %s", name)
	return ""
}

// withSignatureOf puts the signature of from into archive.
func withSignatureOf(t *testing.T, archive, from []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(from), int64(len(from)))
	require.NoError(t, err)
	var sig []byte
	for _, f := range zr.File {
		if f.Name == dbarchive.SignatureFile {
			rc, err := f.Open()
			require.NoError(t, err)
			sig, err = io.ReadAll(rc)
			require.NoError(t, err)
		}
	}
	require.NotNil(t, sig)
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	zr, err = zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err)
	for _, f := range zr.File {
		if f.Name == dbarchive.SignatureFile {
			continue
		}
		require.NoError(t, zw.Copy(f))
	}
	w, err := zw.Create(dbarchive.SignatureFile)
	require.NoError(t, err)
	_, err = w.Write(sig)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return out.Bytes()
}

func TestFailedImportLeavesTheDatabaseAsItWas(t *testing.T) {
	t.Parallel()
	archive := smallArchive(t)
	// The second table's row count is wrong, in a manifest signed by the trusted key.
	wrongRows := resign(t, archive, testKey, func(m *dbarchive.Manifest) { m.Tables[1].Rows++ })
	arc, err := openBytes(wrongRows, dbarchive.VerifyOptions{PublicKey: testPub()})
	require.NoError(t, err)

	b := newScratch(t)
	b.exec(t, `CREATE TABLE one (x text PRIMARY KEY)`, `INSERT INTO one VALUES ('before')`,
		`CREATE TABLE keep (id serial PRIMARY KEY, v jsonb)`, `INSERT INTO keep (v) VALUES ('{"a": 1}'), (NULL)`)
	before := snapshot(t, b.owner)
	err = arc.Import(context.Background(), b.owner)
	requireKind(t, err, dbarchive.KindRows)
	assert.Contains(t, err.Error(), `"two"`)
	assert.Equal(t, before, snapshot(t, b.owner))

	// A schema statement that fails also rolls back, and the pool's connection still works afterwards.
	badSchema := resignSchema(t, archive, "CREATE TABLE \"one\" (id int, id int)\n;\n\n-- svc:load-data\n")
	arc, err = openBytes(badSchema, dbarchive.VerifyOptions{PublicKey: testPub()})
	require.NoError(t, err)
	requireKind(t, arc.Import(context.Background(), b.owner), dbarchive.KindStructure)
	assert.Equal(t, before, snapshot(t, b.owner))

	// A schema smuggling another kind of statement is refused before anything runs.
	smuggled := resignSchema(t, archive, "DROP TABLE keep\n;\n-- svc:load-data\n")
	arc, err = openBytes(smuggled, dbarchive.VerifyOptions{PublicKey: testPub()})
	require.NoError(t, err)
	requireKind(t, arc.Import(context.Background(), b.owner), dbarchive.KindStructure)
	twoInOne := resignSchema(t, archive, "CREATE TABLE one (id int); DROP TABLE keep\n;\n-- svc:load-data\n")
	arc, err = openBytes(twoInOne, dbarchive.VerifyOptions{PublicKey: testPub()})
	require.NoError(t, err)
	requireKind(t, arc.Import(context.Background(), b.owner), dbarchive.KindStructure)
	assert.Equal(t, before, snapshot(t, b.owner))
}

// resignSchema replaces schema.sql and signs the updated manifest with the test key.
func resignSchema(t *testing.T, archive []byte, schema string) []byte {
	t.Helper()
	edited := rewrite(t, archive, func(name string, body []byte) []byte {
		if name == dbarchive.SchemaFile {
			return []byte(schema)
		}
		return body
	})
	return resign(t, edited, testKey, func(m *dbarchive.Manifest) {
		m.Schema.Bytes, m.Schema.SHA256 = int64(len(schema)), hexSHA([]byte(schema))
	})
}

func TestCancelledExportAndImportStopAndRollBack(t *testing.T) {
	t.Parallel()
	archive := smallArchive(t)
	a := newScratch(t)
	a.exec(t, `CREATE TABLE one (id int)`, `CREATE TABLE two (id int)`, `INSERT INTO one VALUES (1)`)

	ctx, cancel := context.WithCancel(context.Background())
	_, err := dbarchive.Export(ctx, a.reader, io.Discard, testKey, func(dbarchive.Progress) { cancel() })
	require.ErrorIs(t, err, context.Canceled)

	before := snapshot(t, a.owner)
	arc, err := openBytes(archive, dbarchive.VerifyOptions{PublicKey: testPub()})
	require.NoError(t, err)
	ctx, cancel = context.WithCancel(context.Background())
	err = arc.ImportWithProgress(ctx, a.owner, func(p dbarchive.Progress) {
		assert.Equal(t, 1, p.TablesDone)
		cancel()
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, before, snapshot(t, a.owner))
}

// failingWriter fails once it has taken limit bytes.
type failingWriter struct{ left int }

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.left {
		return 0, errDiskFull
	}
	f.left -= len(p)
	return len(p), nil
}

func TestExportReturnsTheWritersError(t *testing.T) {
	t.Parallel()
	a := newScratch(t)
	a.exec(t, `CREATE TABLE rows (id int, s text)`, `INSERT INTO rows SELECT g, md5(g::text) || md5((g + 1)::text) || md5((-g)::text) FROM generate_series(1, 20000) g`)
	_, err := dbarchive.Export(context.Background(), a.reader, &failingWriter{left: 64 << 10}, testKey, nil)
	require.ErrorIs(t, err, errDiskFull)
	// The pool still serves a whole export afterwards.
	_, err = dbarchive.Export(context.Background(), a.reader, io.Discard, testKey, nil)
	require.NoError(t, err)
}

func TestArchiveChangedAfterOpenFailsTheImport(t *testing.T) {
	t.Parallel()
	archive := smallArchive(t)
	// Stored (not deflated) entries, so that a flipped byte changes the data, not the compression.
	stored := storeAll(t, archive)
	b := newScratch(t)
	b.exec(t, `CREATE TABLE keep (id int)`, `INSERT INTO keep VALUES (1), (2)`)
	before := snapshot(t, b.owner)
	for _, tc := range []struct {
		name string
		data []byte
	}{{"stored", stored}, {"deflated", archive}} {
		buf := append([]byte(nil), tc.data...)
		arc, err := dbarchive.Open(bytes.NewReader(buf), int64(len(buf)), dbarchive.VerifyOptions{PublicKey: testPub()})
		require.NoError(t, err, tc.name)
		// The bytes change between the verification and the restore: the last table's data in the middle.
		start, end := entrySpan(t, tc.data, "data/two.csv")
		buf[(start+end)/2] ^= 0x01
		err = arc.Import(context.Background(), b.owner)
		require.Error(t, err, tc.name)
		_, ok := dbarchive.AsError(err)
		assert.True(t, ok, "%s: %v", tc.name, err)
		assert.Equal(t, before, snapshot(t, b.owner), tc.name)
	}
}

// storeAll re-zips archive with every entry stored.
func storeAll(t *testing.T, archive []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err)
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Store})
		require.NoError(t, err)
		_, err = io.Copy(w, rc)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return out.Bytes()
}

// entrySpan is where entry name's compressed bytes lie in archive.
func entrySpan(t *testing.T, archive []byte, name string) (int, int) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err)
	for _, f := range zr.File {
		if f.Name == name {
			off, err := f.DataOffset()
			require.NoError(t, err)
			return int(off), int(off) + int(f.CompressedSize64)
		}
	}
	t.Fatalf("no entry %s", name)
	return 0, 0
}
