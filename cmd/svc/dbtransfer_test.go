package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// TestDBTransferUsage: export and import check their flags before calling the server.
func TestDBTransferUsage(t *testing.T) {
	t.Parallel()
	vars := testEnv(t, nil)
	vars["SVC_API_KEY"] = "svc_sk_unused"
	vars["SVC_BASE_URL"] = "http://127.0.0.1:1"
	file := filepath.Join(t.TempDir(), "db.zip")
	require.NoError(t, os.WriteFile(file, []byte("zip"), 0o600))
	for _, args := range [][]string{
		{"db", "export"},
		{"db", "export", "-o", "-"},
		{"db", "export", "-o", file, "extra"},
		{"db", "export", "-o", t.TempDir()},
		{"db", "export", "-o", "x.zip", "--interval", "0s"},
		{"db", "import"},
		{"db", "import", file, file},
		{"db", "import", file, "--part-size", "12"},
		{"db", "import", file, "--part-size", "1GiB"},
		{"db", "import", file, "--part-size", "8 parsecs"},
		{"db", "import", file, "--interval", "-1s"},
	} {
		r := cli(t, vars, "", args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", args, r.stderr)
		require.Contains(t, r.stderr, "error: ", args)
	}
	r := cli(t, vars, "", "db", "export", "-o", file)
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: file_exists: "+file+" exists; use --force to overwrite it")
	r = cli(t, vars, "", "db", "import", filepath.Join(t.TempDir(), "missing.zip"))
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: read_failed: open ")
	for want, args := range map[string][]string{"db export": {"db", "export", "--help"}, "db import": {"help", "db", "import"}} {
		r := cli(t, vars, "", args...)
		require.Equal(t, exitOK, r.code, args)
		require.Contains(t, r.stdout, "Usage: svc "+want+" ", args)
	}
	r = cli(t, vars, "", "db", "--help")
	require.Contains(t, r.stdout, "db export")
	require.Contains(t, r.stdout, "db import")
}

// TestParseSize: sizes with and without binary units.
func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"1048576": 1 << 20, "8MiB": 8 << 20, "8M": 8 << 20, "512KiB": 512 << 10, "512k": 512 << 10,
		"1GiB": 1 << 30, "2 mb": 2 << 20, "7B": 7} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "MiB", "-1", "1.5MiB", "8TiB", "99999999999999999999", "9999999999999G"} {
		_, err := parseSize(in)
		require.Error(t, err, in)
	}
}

// TestDBExportFake follows an export against a stand-in API: progress lines on stderr (stderr is not a
// terminal), the archive saved and verified, its id, size, digest and key printed; an existing file
// refused before anything is sent; --json; a failed export naming the transfer and its error.
func TestDBExportFake(t *testing.T) {
	t.Parallel()
	f := newFakeTransfers(t)
	vars := f.vars(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "db.zip")

	r := cli(t, vars, "", "db", "export", "-o", out, "--interval", "5ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, f.archive, got)
	sum := sha256.Sum256(f.archive)
	require.Contains(t, r.stdout, "Exported the database to "+out+".")
	require.Regexp(t, `Transfer:\s+xfer_1\n`, r.stdout)
	require.Regexp(t, `Tables:\s+2\n`, r.stdout)
	require.Regexp(t, regexp.QuoteMeta(client.FormatBytes(int64(len(f.archive))))+` \(5100 bytes\)`, r.stdout)
	require.Regexp(t, `SHA-256:\s+`+hex.EncodeToString(sum[:])+`\n`, r.stdout)
	require.Regexp(t, `Public key:\s+`+regexp.QuoteMeta(fakePublicKey)+`\n`, r.stdout)
	require.Regexp(t, `(?s)export xfer_1: running, 0/2 tables\n.*export xfer_1: running, 1/2 tables, .*\n`+
		`export xfer_1: completed, 2/2 tables, .*\n`, r.stderr)
	require.NotContains(t, r.stderr, "\r", "no redrawn line when stderr is not a terminal")

	r = cli(t, vars, "", "db", "export", "-o", out)
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "exists; use --force")
	require.Equal(t, 1, f.count("POST /v1/databases/transfers"), "nothing is exported when the file exists")

	r = cli(t, vars, "", "--json", "db", "export", "-o", out, "--force", "--interval", "5ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	var env client.DatabaseTransferEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &env), r.stdout)
	require.Equal(t, "xfer_2", env.Transfer.ID)
	require.Equal(t, client.TransferStatusCompleted, env.Transfer.Status)

	// A download that fails verification leaves nothing behind; --transfer downloads the same export again.
	f.mu.Lock()
	f.tamperArchive = 1
	f.mu.Unlock()
	again := filepath.Join(dir, "again.zip")
	r = cli(t, vars, "", "db", "export", "-o", again, "--interval", "5ms")
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Contains(t, r.stderr, "SHA-256")
	require.Contains(t, r.stderr, "the archive of export xfer_3 is kept on the server until 2030-01-02T03:04:05Z; "+
		"rerun with --transfer xfer_3 to download it again\n")
	require.NoFileExists(t, again)
	r = cli(t, vars, "", "db", "export", "-o", again, "--transfer", "xfer_3")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `Transfer:\s+xfer_3\n`, r.stdout)
	require.FileExists(t, again)
	require.Equal(t, 3, f.count("POST /v1/databases/transfers"), "no new export")
	require.NoError(t, os.Remove(again))
	r = cli(t, vars, "", "db", "export", "-o", again, "--transfer", "xfer_nope")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: not_found: no such transfer")

	f.mu.Lock()
	f.exportFails = &client.DatabaseTransferError{Code: "export_refused", Message: "table t uses a domain type"}
	f.mu.Unlock()
	failed := filepath.Join(dir, "failed.zip")
	r = cli(t, vars, "", "db", "export", "-o", failed, "--interval", "5ms")
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Contains(t, r.stderr, "error: export_refused: export xfer_4 failed: table t uses a domain type\n")
	require.NoFileExists(t, failed)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only db.zip: no temporary file is left behind")
}

// importFixture is a random archive-to-be of size bytes in a directory of its own.
func importFixture(t *testing.T, size int) (string, []byte) {
	t.Helper()
	b := make([]byte, size)
	_, _ = rand.Read(b)
	path := filepath.Join(t.TempDir(), "db.zip")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path, b
}

// importStates lists the import state files of the CLI's environment vars.
func importStates(t *testing.T, vars map[string]string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(vars["XDG_CONFIG_HOME"], "svc", "db-imports", "*.json"))
	require.NoError(t, err)
	return m
}

// TestDBImportResumeFake: an upload stopped by a refused part resumes on a rerun, skipping the parts
// the server accepted, and the state file is gone once the import is restored.
func TestDBImportResumeFake(t *testing.T) {
	t.Parallel()
	f := newFakeTransfers(t)
	vars := f.vars(t)
	path, content := importFixture(t, 5*1024+100) // 6 parts of 1 KiB
	f.failPart, f.failStatus, f.failTimes = 3, 400, 1

	r := cli(t, vars, "", "db", "import", path, "--part-size", "1KiB", "--interval", "5ms")
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Contains(t, r.stderr, "import xfer_1: uploading 5.1 KiB in 6 parts of 1.0 KiB\n")
	require.Contains(t, r.stderr, "error: injected: part refused by the test")
	require.Contains(t, r.stderr, "import xfer_1 stopped at part 3 of 6; rerun the same command to resume it")
	require.Len(t, importStates(t, vars), 1)
	tr, _ := f.get("xfer_1")
	require.Len(t, tr.Parts, 2)

	// The rerun's --part-size differs: the import keeps the one it began with.
	r = cli(t, vars, "", "db", "import", path, "--part-size", "2KiB", "--interval", "5ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stderr, "import xfer_1 keeps its part size of 1.0 KiB\n")
	require.Contains(t, r.stderr, "resuming xfer_1: 2 of 6 parts already accepted\n")
	require.Contains(t, r.stdout, "Imported "+path+" into the database (import xfer_1): 2 tables, 2.0 KiB of data.")
	sum := sha256.Sum256(content)
	require.Regexp(t, `SHA-256:\s+`+hex.EncodeToString(sum[:]), r.stdout)
	require.Equal(t, 1, f.count("PUT /v1/databases/transfers/xfer_1/parts/1"), "accepted parts are not sent again")
	require.Equal(t, 1, f.count("PUT /v1/databases/transfers/xfer_1/parts/2"))
	require.Equal(t, 2, f.count("PUT /v1/databases/transfers/xfer_1/parts/3"))
	require.Equal(t, 1, f.count("POST /v1/databases/transfers"), "no second transfer")
	tr, _ = f.get("xfer_1")
	require.Equal(t, client.TransferStatusCompleted, tr.Status)
	require.Equal(t, hex.EncodeToString(sum[:]), tr.Archive.SHA256, "the parts make the file")
	require.Empty(t, importStates(t, vars), "the state is gone once the import is done")

	// A new run of the same file is a new import.
	r = cli(t, vars, "", "db", "import", path, "--part-size", "1KiB", "--interval", "5ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "(import xfer_2)")

	r = cli(t, vars, "", "db", "export", "-o", filepath.Join(t.TempDir(), "x.zip"), "--transfer", "xfer_1")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "error: invalid_transfer: xfer_1 is an import, not an export\n")
}

// TestDBImportRestartFake: an earlier run's transfer that expired, or whose accepted parts are not the
// file's, or that was made without --allow-unsigned, is replaced by a new one; a transient failure of a
// part is retried; --no-wait returns once the upload is complete; a failed restore exits 1 naming the
// transfer.
func TestDBImportRestartFake(t *testing.T) {
	t.Parallel()
	f := newFakeTransfers(t)
	vars := f.vars(t)
	path, _ := importFixture(t, 3*1024)
	stopAtPart2 := func() string {
		t.Helper()
		f.mu.Lock()
		f.failPart, f.failStatus, f.failTimes = 2, 400, 1
		f.mu.Unlock()
		r := cli(t, vars, "", "db", "import", path, "--part-size", "1KiB", "--interval", "5ms")
		require.Equal(t, exitAPI, r.code, r.stdout)
		m := regexp.MustCompile(`import (xfer_\d+) stopped at part 2 of 3`).FindStringSubmatch(r.stderr)
		require.NotNil(t, m, r.stderr)
		return m[1]
	}

	id := stopAtPart2()
	f.mu.Lock()
	f.transfers[id].t.Status = client.TransferStatusExpired
	f.mu.Unlock()
	r := cli(t, vars, "", "db", "import", path, "--part-size", "1KiB", "--interval", "5ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stderr, "import "+id+" of an earlier run is expired; starting a new one\n")
	require.NotContains(t, r.stderr, "resuming")

	id = stopAtPart2()
	f.mu.Lock()
	f.transfers[id].parts[1] = []byte("other bytes")
	f.mu.Unlock()
	r = cli(t, vars, "", "db", "import", path, "--part-size", "1KiB", "--interval", "5ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stderr, "import "+id+": its part 1 has 11 bytes, not 1024; starting a new one\n")
	tr, _ := f.get(id)
	require.Equal(t, client.TransferStatusCancelled, tr.Status, "the abandoned transfer is cancelled")

	id = stopAtPart2()
	r = cli(t, vars, "", "db", "import", path, "--part-size", "1KiB", "--interval", "5ms", "--allow-unsigned")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stderr, "import "+id+" was started without --allow-unsigned; starting a new one\n")

	// A 503 on a part is retried at once.
	f.mu.Lock()
	f.failPart, f.failStatus, f.failTimes = 2, 503, 1
	f.mu.Unlock()
	before := f.count("PUT ")
	r = cli(t, vars, "", "--json", "db", "import", path, "--part-size", "1KiB", "--no-wait")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, 4, f.count("PUT ")-before, "3 parts, the second sent twice")
	var env client.DatabaseTransferEnvelope
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &env), r.stdout)
	require.Equal(t, client.TransferStatusRunning, env.Transfer.Status, "--no-wait answers the running import")
	require.Empty(t, importStates(t, vars))

	f.mu.Lock()
	f.restoreFails = &client.DatabaseTransferError{Code: "archive_invalid", Message: "the signature is not the platform's"}
	f.mu.Unlock()
	r = cli(t, vars, "", "db", "import", path, "--interval", "5ms")
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Regexp(t, `error: archive_invalid: import xfer_\d+ failed: the signature is not the platform's\n`, r.stderr)
	require.Empty(t, importStates(t, vars), "a failed import leaves nothing to resume")
}

// TestTransferLine: on a terminal the progress line is redrawn in place (padded over a longer one) and
// ended once; elsewhere a line is printed only when the status or the tables done change.
func TestTransferLine(t *testing.T) {
	t.Parallel()
	tr := func(status string, done int, bytes int64) client.DatabaseTransfer {
		return client.DatabaseTransfer{ID: "xfer_1", Kind: client.TransferKindImport, Status: status,
			Progress: client.DatabaseTransferProgress{TablesDone: done, TablesTotal: 2, Bytes: bytes}}
	}
	var term bytes.Buffer
	l := newTransferLine(&term, true)
	l.show(tr("running", 0, 2048))
	l.show(tr("running", 0, 2048))
	l.show(tr("completed", 2, 0))
	l.finish()
	l.finish()
	first, second := "import xfer_1: running, 0/2 tables, 2.0 KiB of data", "import xfer_1: completed, 2/2 tables"
	require.Equal(t, "\r"+first+"\r"+second+strings.Repeat(" ", len(first)-len(second))+"\n", term.String())

	var plain bytes.Buffer
	l = newTransferLine(&plain, false)
	l.show(tr("running", 0, 10))
	l.show(tr("running", 0, 20))
	l.show(tr("running", 1, 30))
	l.show(tr("completed", 2, 40))
	l.finish()
	require.Equal(t, "import xfer_1: running, 0/2 tables, 10 B of data\nimport xfer_1: running, 1/2 tables, 30 B of data\n"+
		"import xfer_1: completed, 2/2 tables, 40 B of data\n", plain.String())
}

// TestDBImportProgressOnTerminal: with stderr a terminal, the upload draws a progress bar over the whole
// file and the restore's line is redrawn in place.
func TestDBImportProgressOnTerminal(t *testing.T) {
	t.Parallel()
	f := newFakeTransfers(t)
	vars := f.vars(t)
	path, _ := importFixture(t, 3<<19) // 1.5 MiB, 3 parts of 512 KiB
	master, tty := openPTY(t)
	drained := make(chan []byte)
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil {
				drained <- all
				return
			}
		}
	}()
	var out bytes.Buffer
	code := run([]string{"db", "import", path, "--part-size", "512KiB", "--interval", "5ms"}, strings.NewReader(""), &out, tty,
		func(k string) string { return vars[k] })
	require.NoError(t, tty.Close())
	shown := string(<-drained)
	require.Equal(t, exitOK, code, shown)
	require.Contains(t, out.String(), "Imported "+path)
	require.Contains(t, shown, "100% [==============================] 1.5 MiB / 1.5 MiB")
	require.Regexp(t, `\rimport xfer_1: running, \d/2 tables`, shown)
	require.Contains(t, shown, "\rimport xfer_1: completed, 2/2 tables")
}

// TestDBImportWaitResumes: an import whose restore outlasts the command (its context ends) keeps its
// state, and the rerun waits for the same transfer instead of uploading again.
func TestDBImportWaitResumes(t *testing.T) {
	t.Parallel()
	f := newFakeTransfers(t)
	vars := f.vars(t)
	path, _ := importFixture(t, 2048)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.restoreHangs, f.onHang = true, cancel // as if Ctrl-C was pressed while the restore runs
	var out, errOut bytes.Buffer
	code := runContext(ctx, []string{"db", "import", path, "--interval", "5ms"}, strings.NewReader(""), &out, &errOut,
		func(k string) string { return vars[k] })
	require.Equal(t, exitAPI, code, out.String())
	require.Contains(t, errOut.String(), "error: wait_interrupted: stopped waiting; import xfer_1 is still running; rerun the same command to wait for it\n")
	require.Len(t, importStates(t, vars), 1)

	f.mu.Lock()
	f.restoreHangs = false
	f.mu.Unlock()
	puts := f.count("PUT ")
	r := cli(t, vars, "", "db", "import", path, "--interval", "5ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Regexp(t, `import xfer_1 of this file is already (running|completed)\n`, r.stderr) // the fake finishes it on this read
	require.Contains(t, r.stdout, "(import xfer_1)")
	require.Equal(t, puts, f.count("PUT "), "nothing is uploaded again")
	require.Equal(t, 1, f.count("POST /v1/databases/transfers/xfer_1/complete"))
	require.Empty(t, importStates(t, vars))
}
