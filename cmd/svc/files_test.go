package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// TestCLIFiles uploads a file, lists, gets, downloads (to a directory, to -o FILE, to stdout; refusing
// to overwrite) and deletes it, end to end against the real API.
func TestCLIFiles(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, token := env.NewAccount(t, "cli-files")
	first := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first"}})
	require.Equal(t, http.StatusCreated, first.Status, "%s", first.Raw)
	secret := first.Body["apiKey"].(map[string]any)["secret"].(string)

	cfgDir := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "XDG_CONFIG_HOME":
			return cfgDir
		case "SVC_BASE_URL":
			return env.URL
		case "SVC_API_KEY":
			return secret
		case "SVC_NOT_INTERACTIVE":
			return "1"
		}
		return ""
	}
	svc := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errOut, getenv)
		return code, out.String(), errOut.String()
	}

	data := make([]byte, 1<<20+123)
	_, _ = rand.Read(data)
	sum := sha256.Sum256(data)
	src := filepath.Join(t.TempDir(), "weights.bin")
	require.NoError(t, os.WriteFile(src, data, 0o600))

	code, out, stderr := svc("--json", "files", "upload", src, "--purpose", "inputs")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr, "no progress bar off a terminal")
	var up struct {
		File struct {
			ID, Name, Purpose, SHA256 string
			Bytes                     int64
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &up), out)
	require.Equal(t, "weights.bin", up.File.Name)
	require.Equal(t, "inputs", up.File.Purpose)
	require.Equal(t, hex.EncodeToString(sum[:]), up.File.SHA256)
	require.Equal(t, int64(len(data)), up.File.Bytes)
	id := up.File.ID

	code, out, stderr = svc("files", "upload", src, "--name", "notes.txt", "--media-type", "text/plain")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `^Uploaded .* as file file_\S+ \(1\.0 MiB, sha256 [0-9a-f]{64}\)\.`, out)

	code, out, stderr = svc("files", "list", "--purpose", "inputs")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^ID\s+NAME\s+PURPOSE\s+TYPE\s+SIZE\s+CREATED$`, out)
	require.Regexp(t, regexp.QuoteMeta(id)+`\s+weights\.bin\s+inputs\s+application/octet-stream\s+1\.0 MiB`, out)
	require.NotContains(t, out, "notes.txt")
	code, out, stderr = svc("files", "list", "--limit", "1")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "More files: svc files list --limit 1 --cursor ")

	code, out, stderr = svc("files", "get", id)
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `SHA256\s+`+hex.EncodeToString(sum[:]), out)

	dir := t.TempDir()
	code, out, stderr = svc("files", "download", id, "-o", dir)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "verified")
	got, err := os.ReadFile(filepath.Join(dir, "weights.bin"))
	require.NoError(t, err)
	require.Equal(t, data, got)
	code, _, stderr = svc("files", "download", id, "-o", dir)
	require.Equal(t, exitAPI, code)
	require.Contains(t, stderr, "file_exists")
	dest := filepath.Join(dir, "copy.bin")
	code, out, stderr = svc("--json", "files", "download", id, "--output", dest)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `"path": "`+dest+`"`)
	code, out, stderr = svc("files", "download", id, "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, data, []byte(out))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "no temporary file is left behind")

	// The stored bytes changed on disk: the download fails and leaves nothing behind.
	tampered := bytes.Clone(data)
	tampered[0] ^= 1
	n := 0
	require.NoError(t, filepath.WalkDir(env.BlobDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, rerr := os.ReadFile(p); rerr == nil && bytes.Equal(b, data) {
			n++
			return os.WriteFile(p, tampered, 0o600)
		}
		return nil
	}))
	require.Positive(t, n)
	fresh := t.TempDir()
	code, _, stderr = svc("files", "download", id, "-o", fresh)
	require.Equal(t, exitAPI, code)
	require.Contains(t, stderr, client.CodeContentMismatch)
	entries, err = os.ReadDir(fresh)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing is left behind")

	code, out, stderr = svc("files", "delete", id)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Deleted file "+id)
	code, _, stderr = svc("files", "get", id)
	require.Equal(t, exitAPI, code)
	require.Contains(t, stderr, "not_found")
	code, _, _ = svc("files", "get")
	require.Equal(t, exitUsage, code)
}
