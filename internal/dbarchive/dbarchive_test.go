package dbarchive_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/dbarchive"
)

// testKey is the signing key of these tests.
var testKey = dbarchive.KeyFromSeed([]byte("dbarchive tests"))

func testPub() ed25519.PublicKey { return testKey.Public().(ed25519.PublicKey) }

// fixture is a database using every kind of column the format promises to carry.
var fixture = []string{
	`CREATE TABLE kinds (
		id serial PRIMARY KEY,
		i int NOT NULL DEFAULT 7,
		b bigint,
		n numeric(20,6),
		t text,
		flag bool,
		at timestamptz DEFAULT now(),
		d date,
		doc jsonb,
		raw bytea,
		u uuid,
		tags text[],
		nums int[],
		f double precision,
		total bigint GENERATED ALWAYS AS (i + coalesce(b, 0)) STORED
	)`,
	`CREATE INDEX kinds_lower_t ON kinds (lower(t))`,
	`CREATE TABLE pairs (a int, b text, v double precision, PRIMARY KEY (a, b), CHECK (a > 0))`,
	`CREATE TABLE empty (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text UNIQUE)`,
	`CREATE TABLE "Odd, ""name""" ("Weird, ""col""" text, "n" int)`,
	`CREATE TABLE refs (id int PRIMARY KEY, kind_id int REFERENCES kinds (id))`,
	`INSERT INTO kinds (i, b, n, t, flag, at, d, doc, raw, u, tags, nums, f) VALUES
		(1, 9223372036854775000, 12345678901234.123456, E'commas, "quotes"\nnew line\r\n☃ é ü 日本', true,
			'2024-02-29 12:34:56.789012+05:30', '2024-02-29', '{"a": [1, 2, {"b": null}], "s": "x,\"y\"\n"}',
			'\x00ff0a2c22', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', ARRAY['a,b', NULL, 'c"d', ''], ARRAY[1, NULL, 3], 0.1),
		(2, NULL, NULL, '', false, NULL, NULL, NULL, '\x', NULL, '{}', NULL, 'NaN'),
		(3, -1, -0.000001, NULL, NULL, '-infinity', 'infinity', '[]', NULL, NULL, NULL, '{}', '-Infinity'),
		(4, 0, 0, '\N', true, '1999-12-31 23:59:59+00', '0001-01-01', '"just a string"', '\x5c4e', NULL, ARRAY['NULL'], ARRAY[0], 1e300)`,
	`INSERT INTO pairs VALUES (1, 'a', 1.5), (1, 'b', NULL), (2, 'a', -2.25), (2, '', 0)`,
	`INSERT INTO "Odd, ""name""" VALUES ('x', 1), (NULL, NULL), ('', 2)`,
	`INSERT INTO refs VALUES (10, 1), (11, NULL), (12, 4)`,
}

// exportOf exports s as its reader role into memory.
func exportOf(t *testing.T, s *scratch) ([]byte, *dbarchive.Manifest) {
	t.Helper()
	var buf bytes.Buffer
	var progress []dbarchive.Progress
	m, err := dbarchive.Export(context.Background(), s.reader, &buf, testKey, func(p dbarchive.Progress) { progress = append(progress, p) })
	require.NoError(t, err)
	require.Len(t, progress, len(m.Tables))
	if len(progress) > 0 {
		last := progress[len(progress)-1]
		assert.Equal(t, len(m.Tables), last.TablesDone)
		assert.Equal(t, len(m.Tables), last.TablesTotal)
	}
	return buf.Bytes(), m
}

func openBytes(b []byte, opts dbarchive.VerifyOptions) (*dbarchive.Archive, error) {
	return dbarchive.Open(bytes.NewReader(b), int64(len(b)), opts)
}

// snapshot digests a database's tables: their structure and every row, for equality.
func snapshot(t *testing.T, db *bun.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	var tables []string
	require.NoError(t, db.NewRaw(`SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'
		ORDER BY relname`).Scan(ctx, &tables))
	for _, tbl := range tables {
		var rows, cols string
		q := `SELECT coalesce(string_agg(x::text, E'\n' ORDER BY x::text), '<none>') FROM ` + quote(tbl) + ` x`
		require.NoError(t, db.QueryRowContext(ctx, q).Scan(&rows))
		require.NoError(t, db.QueryRowContext(ctx, `SELECT string_agg(format('%s %s %s %s %s %s', a.attname,
				format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated),
				E'\n' ORDER BY a.attnum)
			FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped`, quote(tbl)).Scan(&cols))
		out["rows "+tbl], out["columns "+tbl] = rows, cols
	}
	var cons, idx string
	require.NoError(t, db.QueryRowContext(ctx, `SELECT coalesce(string_agg(format('%s %s %s', conrelid::regclass, conname,
		pg_get_constraintdef(oid)), E'\n' ORDER BY conname), '') FROM pg_constraint WHERE connamespace = 'public'::regnamespace`).Scan(&cons))
	require.NoError(t, db.QueryRowContext(ctx, `SELECT coalesce(string_agg(indexdef, E'\n' ORDER BY indexname), '')
		FROM pg_indexes WHERE schemaname = 'public'`).Scan(&idx))
	out["constraints"], out["indexes"] = cons, idx
	return out
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func TestRoundTripEqualTablesAndRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := newScratch(t), newScratch(t)
	a.exec(t, fixture...)
	b.exec(t, `CREATE TABLE old_stuff (x int)`, `INSERT INTO old_stuff VALUES (1)`, `CREATE TABLE pairs (z text)`)

	archive, m := exportOf(t, a)
	assert.Equal(t, dbarchive.FormatVersion, m.FormatVersion)
	assert.Contains(t, m.ServerVersion, ".")
	rows := map[string]int64{}
	for _, tbl := range m.Tables {
		rows[tbl.Name] = tbl.Rows
	}
	assert.Equal(t, map[string]int64{"kinds": 4, "pairs": 4, "empty": 0, `Odd, "name"`: 3, "refs": 3}, rows)

	arc, err := openBytes(archive, dbarchive.VerifyOptions{PublicKey: testPub()})
	require.NoError(t, err)
	assert.True(t, arc.Signed)
	require.NoError(t, arc.Import(ctx, b.owner))

	want, got := snapshot(t, a.owner), snapshot(t, b.owner)
	assert.Equal(t, want, got)
	assert.NotContains(t, got, "rows old_stuff", "the restore replaces the database's tables")
	assert.Contains(t, got["rows kinds"], `"commas, ""quotes""`)

	// The serial and identity sequences continue after the restored rows.
	var id int
	require.NoError(t, b.owner.QueryRowContext(ctx, `INSERT INTO kinds (i) VALUES (5) RETURNING id`).Scan(&id))
	assert.Equal(t, 5, id)
	require.NoError(t, b.owner.QueryRowContext(ctx, `INSERT INTO empty (note) VALUES ('n') RETURNING id`).Scan(&id))
	assert.Equal(t, 1, id)

	// A second export of the copy carries the same data files.
	_, m2 := exportOf(t, b)
	require.Len(t, m2.Tables, len(m.Tables))
	for i := range m.Tables {
		if m.Tables[i].Name != "kinds" && m.Tables[i].Name != "empty" {
			assert.Equal(t, m.Tables[i].SHA256, m2.Tables[i].SHA256, m.Tables[i].Name)
		}
	}
}

func TestExportOfEmptyDatabaseRestoresToEmpty(t *testing.T) {
	t.Parallel()
	a, b := newScratch(t), newScratch(t)
	b.exec(t, `CREATE TABLE gone (x int)`)
	archive, m := exportOf(t, a)
	assert.Empty(t, m.Tables)
	arc, err := openBytes(archive, dbarchive.VerifyOptions{PublicKey: testPub()})
	require.NoError(t, err)
	require.NoError(t, arc.Import(context.Background(), b.owner))
	assert.Equal(t, map[string]string{"constraints": "", "indexes": ""}, snapshot(t, b.owner))
}

func TestExportRefusesTypesItCannotCarry(t *testing.T) {
	t.Parallel()
	a := newScratch(t)
	a.exec(t, `CREATE TYPE mood AS ENUM ('ok', 'sad')`, `CREATE TABLE feelings (m mood)`)
	_, err := dbarchive.Export(context.Background(), a.reader, io.Discard, testKey, nil)
	require.Error(t, err)
	assert.True(t, dbarchive.IsKind(err, dbarchive.KindStructure), err)
	assert.Contains(t, err.Error(), "feelings")

	b := newScratch(t)
	b.exec(t, `CREATE TABLE nothing ()`)
	_, err = dbarchive.Export(context.Background(), b.reader, io.Discard, testKey, nil)
	assert.True(t, dbarchive.IsKind(err, dbarchive.KindStructure), err)

	c := newScratch(t)
	c.exec(t, `CREATE TABLE parent (id int) PARTITION BY RANGE (id)`)
	_, err = dbarchive.Export(context.Background(), c.reader, io.Discard, testKey, nil)
	assert.True(t, dbarchive.IsKind(err, dbarchive.KindStructure), err)
}

// rewrite re-zips archive, passing each entry's bytes through edit (nil drops the entry).
func rewrite(t *testing.T, archive []byte, edit func(name string, body []byte) []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err)
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		body, err := io.ReadAll(rc)
		require.NoError(t, err)
		if body = edit(f.Name, body); body == nil {
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate})
		require.NoError(t, err)
		_, err = w.Write(body)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return out.Bytes()
}

// resign rewrites the manifest with edit, updates the digests of the files named in changed, and signs
// it again with key (no signature when key is nil).
func resign(t *testing.T, archive []byte, key ed25519.PrivateKey, edit func(m *dbarchive.Manifest)) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		files[f.Name], err = io.ReadAll(rc)
		require.NoError(t, err)
	}
	var m dbarchive.Manifest
	require.NoError(t, json.Unmarshal(files[dbarchive.ManifestFile], &m))
	edit(&m)
	manifest, err := json.Marshal(m)
	require.NoError(t, err)
	var sig []byte
	if key != nil {
		sig = signFor(t, key, manifest)
	}
	return rewrite(t, archive, func(name string, body []byte) []byte {
		switch name {
		case dbarchive.ManifestFile:
			return manifest
		case dbarchive.SignatureFile:
			return sig
		}
		return body
	})
}

// signFor signs manifest as Export does, through a throwaway archive's signature format.
func signFor(t *testing.T, key ed25519.PrivateKey, manifest []byte) []byte {
	t.Helper()
	pub := key.Public().(ed25519.PublicKey)
	sum := sha256.Sum256(manifest)
	pae := []byte("DSSEv1 " + itoa(len(dbarchive.PayloadType)) + " " + dbarchive.PayloadType + " " + itoa(len(manifest)) + " ")
	s := dbarchive.Signature{
		PayloadType:    dbarchive.PayloadType,
		ManifestSHA256: hex.EncodeToString(sum[:]),
		KeyID:          dbarchive.KeyID(pub),
		PublicKey:      dbarchive.PublicKeyString(pub),
		Signature:      b64(ed25519.Sign(key, append(pae, manifest...))),
	}
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return b
}

func TestExportReadsOneSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newScratch(t)
	a.exec(t, `CREATE TABLE first (id int PRIMARY KEY)`, `CREATE TABLE second (id int PRIMARY KEY)`,
		`INSERT INTO first VALUES (1)`, `INSERT INTO second VALUES (1)`)
	var buf bytes.Buffer
	// Once the first table is written, another session changes the second and adds a third.
	m, err := dbarchive.Export(ctx, a.reader, &buf, testKey, func(p dbarchive.Progress) {
		if p.TablesDone == 1 {
			a.exec(t, `INSERT INTO second VALUES (2), (3)`, `CREATE TABLE third (id int)`)
		}
	})
	require.NoError(t, err)
	require.Len(t, m.Tables, 2)
	assert.EqualValues(t, 1, m.Tables[1].Rows, "the export sees the second table as it was when it began")
	arc, err := openBytes(buf.Bytes(), dbarchive.VerifyOptions{PublicKey: testPub()})
	require.NoError(t, err)
	b := newScratch(t)
	require.NoError(t, arc.Import(ctx, b.owner))
	var n int
	require.NoError(t, b.owner.QueryRowContext(ctx, `SELECT count(*) FROM second`).Scan(&n))
	assert.Equal(t, 1, n)
}
