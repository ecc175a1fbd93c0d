package main

import (
	"archive/zip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// dbAccount is one account of an end-to-end test with its CLI environment.
type dbAccount struct {
	t    *testing.T
	env  *apptest.Env
	key  string
	vars map[string]string
}

// newDBAccount creates an account with a key, and provisions its database through the CLI.
func newDBAccount(t *testing.T, env *apptest.Env) *dbAccount {
	t.Helper()
	key := env.FirstKey(t)
	acct := &dbAccount{t: t, env: env, key: key, vars: map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(),
		"SVC_BASE_URL": env.URL, "SVC_API_KEY": key, "SVC_NOT_INTERACTIVE": "1"}}
	acct.ok("db", "provision", "--wait", "--interval", "20ms")
	return acct
}

// svc runs the CLI as the account.
func (d *dbAccount) svc(args ...string) result {
	d.t.Helper()
	return cli(d.t, d.vars, "", args...)
}

// ok runs the CLI as the account and requires success.
func (d *dbAccount) ok(args ...string) result {
	d.t.Helper()
	r := d.svc(args...)
	require.Equal(d.t, exitOK, r.code, "%v\nstdout: %s\nstderr: %s", args, r.stdout, r.stderr)
	return r
}

// rows are a query's rows as JSON, through "svc --json db query".
func (d *dbAccount) rows(sql string) []json.RawMessage {
	d.t.Helper()
	var res client.DatabaseQueryResult
	out := d.ok("--json", "db", "query", sql, "--max-rows", "10000").stdout
	require.NoError(d.t, json.Unmarshal([]byte(out), &res), out)
	return res.Rows
}

// fillPets creates the table pets with n rows of random names, enough that the archive spans parts.
func (d *dbAccount) fillPets(n int) {
	d.t.Helper()
	d.ok("db", "action", "create-table", "--json-body",
		`{"table":"pets","columns":[{"name":"id","type":"integer","primaryKey":true},{"name":"name","type":"text","nullable":false},{"name":"age","type":"integer"}]}`)
	rows := make([]map[string]any, n)
	for i := range rows {
		b := make([]byte, 24)
		_, _ = rand.Read(b)
		rows[i] = map[string]any{"id": i + 1, "name": hex.EncodeToString(b), "age": nil}
		if i%3 != 0 {
			rows[i]["age"] = i % 17
		}
	}
	body, err := json.Marshal(map[string]any{"table": "pets", "rows": rows})
	require.NoError(d.t, err)
	d.ok("db", "action", "insert-rows", "--json-body", string(body))
}

// export exports the account's database to a new file and returns its path.
func (d *dbAccount) export() string {
	d.t.Helper()
	out := filepath.Join(d.t.TempDir(), "db.zip")
	r := d.ok("db", "export", "-o", out, "--interval", "20ms")
	require.Contains(d.t, r.stdout, "Exported the database to "+out)
	return out
}

// TestDBExportImport copies an account's database into another account's through the CLI: the export's
// file, printed digest and key, then an import replacing the second database's tables with equal rows.
func TestDBExportImport(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	src, dst := newDBAccount(t, env), newDBAccount(t, env)
	src.fillPets(40)
	dst.ok("db", "action", "create-table", "--json-body", `{"table":"old","columns":[{"name":"id","type":"integer"}]}`)

	out := filepath.Join(t.TempDir(), "db.zip")
	r := src.ok("db", "export", "-o", out, "--interval", "20ms")
	fi, err := os.Stat(out)
	require.NoError(t, err)
	sum := fileSHA256(t, out)
	require.Regexp(t, `Transfer:\s+xfer_\S+\n`, r.stdout)
	require.Regexp(t, `Tables:\s+1\n`, r.stdout)
	require.Regexp(t, fmt.Sprintf(`Size:\s+.* \(%d bytes\)\n`, fi.Size()), r.stdout)
	require.Regexp(t, `SHA-256:\s+`+sum+`\n`, r.stdout)
	require.Regexp(t, `Public key:\s+[A-Za-z0-9+/]{43}=\n`, r.stdout, "an Ed25519 key in standard base64")
	require.Regexp(t, `export xfer_\S+: completed, 1/1 tables`, r.stderr)

	r = dst.ok("db", "import", out, "--interval", "20ms")
	require.Regexp(t, `Imported .*db\.zip into the database \(import xfer_\S+\): 1 table, `, r.stdout)
	require.Regexp(t, `SHA-256:\s+`+sum+`\n`, r.stdout)
	require.Regexp(t, `import xfer_\S+: completed, 1/1 tables`, r.stderr)
	const all = "SELECT id, name, age FROM pets ORDER BY id"
	want := src.rows(all)
	require.Len(t, want, 40)
	require.Equal(t, want, dst.rows(all))
	r = dst.svc("db", "query", "SELECT count(*) FROM old")
	require.Equal(t, exitAPI, r.code, "the import replaced the tables: %s", r.stdout)
	require.Empty(t, importStates(t, dst.vars))

	// A file that is no archive fails the import, which names the transfer, and changes nothing.
	junk := filepath.Join(t.TempDir(), "junk.zip")
	require.NoError(t, os.WriteFile(junk, []byte("not a zip archive"), 0o600))
	r = dst.svc("db", "import", junk, "--interval", "20ms")
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Regexp(t, `error: \S+: import xfer_\S+ failed: .+\n`, r.stderr)
	require.Equal(t, want, dst.rows(all))
	require.Empty(t, importStates(t, dst.vars), "a failed import leaves nothing to resume")

	// Without its signature, the archive is restored only with --allow-unsigned.
	unsigned := withoutSignature(t, out)
	r = dst.svc("db", "import", unsigned, "--interval", "20ms")
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Regexp(t, `error: archive_unsigned: import xfer_\S+ failed: .+\n`, r.stderr)
	require.Contains(t, r.stderr, "import it with --allow-unsigned")
	dst.ok("db", "action", "execute", "--sql", "DELETE FROM pets WHERE id > 10")
	r = dst.ok("db", "import", unsigned, "--interval", "20ms", "--allow-unsigned")
	require.Regexp(t, `Public key:\s+- \(unsigned\)\n`, r.stdout)
	require.Equal(t, want, dst.rows(all), "the rows are restored")

	// --json prints the finished transfer.
	r = src.ok("--json", "db", "export", "-o", out, "--force", "--interval", "20ms")
	var envl client.DatabaseTransferEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &envl), r.stdout)
	require.Equal(t, client.TransferStatusCompleted, envl.Transfer.Status)
	require.Equal(t, client.TransferKindExport, envl.Transfer.Kind)
	require.NotNil(t, envl.Transfer.Archive)
	require.Equal(t, fileSHA256(t, out), envl.Transfer.Archive.SHA256)
}

// TestDBImportResume resumes an import whose first parts an earlier run uploaded (its state file and
// parts made here through the SDK, as an interrupted run leaves them): the rerun skips them, uploads the
// rest and restores the archive.
func TestDBImportResume(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	src, dst := newDBAccount(t, env), newDBAccount(t, env)
	src.fillPets(300)
	archive := src.export()

	const partSize = 2 << 10
	fi, err := os.Stat(archive)
	require.NoError(t, err)
	parts := int(partCount(fi.Size(), partSize))
	require.GreaterOrEqual(t, parts, 4, "the archive spans parts")

	// An earlier run: the transfer, its state, and its first two parts.
	ctx := context.Background()
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(dst.key))
	created := c.CreateDatabaseTransfer(ctx, client.CreateDatabaseTransferRequest{Kind: client.TransferKindImport})
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Transfer.ID
	abs, err := filepath.Abs(archive)
	require.NoError(t, err)
	f, err := os.Open(abs)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	file := importFile{f: f, path: abs, size: fi.Size(), modTime: fi.ModTime()}
	for p := 1; p <= 2; p++ {
		off, size := partRange(file.size, partSize, p)
		sum, err := sectionSHA256(f, off, size)
		require.NoError(t, err)
		up := c.UploadDatabaseTransferPart(ctx, id, p, size, io.NewSectionReader(f, off, size), sum)
		require.True(t, up.OK, "%v", up.Error)
	}
	baseURL := client.NormalizeBaseURL(env.URL)
	statePath, err := importStatePath(func(k string) string { return dst.vars[k] }, baseURL, file)
	require.NoError(t, err)
	require.NoError(t, saveImportState(statePath, importState{TransferID: id, PartSize: partSize, BaseURL: baseURL,
		Path: abs, Size: file.size, ModTime: file.modTime}))

	r := dst.ok("db", "import", archive, "--interval", "20ms")
	require.Contains(t, r.stderr, fmt.Sprintf("resuming %s: 2 of %d parts already accepted\n", id, parts))
	require.Contains(t, r.stdout, "(import "+id+")")
	got := c.GetDatabaseTransfer(ctx, id)
	require.True(t, got.OK, "%v", got.Error)
	require.Equal(t, client.TransferStatusCompleted, got.Body.Transfer.Status)
	require.Len(t, got.Body.Transfer.Parts, parts)
	require.NoFileExists(t, statePath)
	const all = "SELECT id, name, age FROM pets ORDER BY id"
	want := src.rows(all)
	require.Len(t, want, 300)
	require.Equal(t, want, dst.rows(all))

	// A second run of the same file is a new import, not a resumption.
	r = dst.ok("db", "import", archive, "--interval", "20ms")
	require.NotContains(t, r.stderr, "resuming")
	require.NotContains(t, r.stdout, "(import "+id+")")
	require.Regexp(t, regexp.MustCompile(`\(import xfer_\S+\)`), r.stdout)
}

// fileSHA256 is the SHA-256 (hex) of a file.
func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	require.NoError(t, err)
	sum, err := sectionSHA256(f, 0, fi.Size())
	require.NoError(t, err)
	return sum
}

// withoutSignature copies the archive at path without its signature.json and returns the copy's path.
func withoutSignature(t *testing.T, path string) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	require.NoError(t, err)
	defer func() { _ = zr.Close() }()
	dest := filepath.Join(t.TempDir(), "unsigned.zip")
	f, err := os.Create(dest)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	dropped := false
	for _, e := range zr.File {
		if e.Name == "signature.json" {
			dropped = true
			continue
		}
		require.NoError(t, zw.Copy(e))
	}
	require.True(t, dropped, "the export is signed")
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return dest
}
