package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/ids"
)

// TestCLIArtifacts lists artifacts by run and downloads them: to a directory under the artifact's name,
// to a named file, to stdout; refusing to overwrite without --force; and leaving nothing behind when the
// content does not match its digest.
func TestCLIArtifacts(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, token := env.NewAccount(t, "cli-artifacts")
	first := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first"}})
	require.Equal(t, http.StatusCreated, first.Status, "%s", first.Raw)
	secret := first.Body["apiKey"].(map[string]any)["secret"].(string)
	var accountID string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM api_keys WHERE id = ?", first.Body["apiKey"].(map[string]any)["id"]).
		Scan(context.Background(), &accountID))

	save := func(runID, name string, body []byte) string {
		a, err := env.Artifacts.Save(context.Background(), artifact.NewArtifact{ID: ids.Derive(ids.Artifact, runID, name),
			AccountID: accountID, RunID: runID, ServiceID: client.ServiceManagedWorkflows, Name: name,
			ContentType: "application/octet-stream", Body: bytes.NewReader(body)})
		require.NoError(t, err)
		return a.ID
	}
	big := make([]byte, 2<<20)
	_, _ = rand.Read(big)
	bigID := save("run_cli", "weights.bin", big)
	smallID := save("run_cli", "notes.txt", []byte("small notes\n"))
	otherID := save("run_elsewhere", "other.txt", []byte("other"))

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

	code, out, stderr := svc("artifacts", "list", "--run", "run_cli")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^ID\s+NAME\s+RUN\s+SERVICE\s+TYPE\s+SIZE\s+CREATED$`, out)
	require.Regexp(t, smallID+`\s+notes\.txt\s+run_cli\s+managed-workflows\s+application/octet-stream\s+12 B\s+`, out)
	require.Regexp(t, bigID+`\s+weights\.bin\s+run_cli\s+.*2\.0 MiB`, out)
	require.NotContains(t, out, otherID)
	code, out, stderr = svc("artifacts", "list", "--limit", "1")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "More artifacts: svc artifacts list --limit 1 --cursor ")
	code, out, stderr = svc("--json", "artifacts", "list", "--run", "run_cli")
	require.Equal(t, 0, code, stderr)
	var listed client.ArtifactList
	require.NoError(t, json.Unmarshal([]byte(out), &listed), out)
	require.Len(t, listed.Artifacts, 2)
	code, out, _ = svc("artifacts", "list", "--run", "run_none")
	require.Equal(t, 0, code)
	require.Equal(t, "No artifacts.\n", out)

	// To a directory: the artifact's own name; no progress bar without a terminal.
	dir := t.TempDir()
	code, out, stderr = svc("artifacts", "download", bigID, "--output", dir)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr, "quiet without a terminal")
	require.Contains(t, out, "Downloaded artifact "+bigID+" to "+filepath.Join(dir, "weights.bin"))
	got, err := os.ReadFile(filepath.Join(dir, "weights.bin"))
	require.NoError(t, err)
	require.Equal(t, big, got)

	// An existing file is kept unless --force.
	code, _, stderr = svc("artifacts", "download", bigID, "--output", dir)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "file_exists")
	dest := filepath.Join(dir, "mine.txt")
	require.NoError(t, os.WriteFile(dest, []byte("keep me"), 0o600))
	code, _, stderr = svc("artifacts", "download", smallID, "--output", dest)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "exists; use --force")
	got, _ = os.ReadFile(dest)
	require.Equal(t, "keep me", string(got))
	code, out, stderr = svc("--json", "artifacts", "download", smallID, "--output", dest, "--force")
	require.Equal(t, 0, code, stderr)
	var result struct {
		OK       bool `json:"ok"`
		Artifact struct {
			ID, Name, Path, SHA256 string
			SizeBytes              int64
		} `json:"artifact"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &result), out)
	require.Equal(t, smallID, result.Artifact.ID)
	require.Equal(t, "notes.txt", result.Artifact.Name)
	require.Equal(t, dest, result.Artifact.Path)
	require.EqualValues(t, 12, result.Artifact.SizeBytes)
	got, _ = os.ReadFile(dest)
	require.Equal(t, "small notes\n", string(got))

	// To stdout.
	code, out, stderr = svc("artifacts", "download", smallID, "--output", "-")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "small notes\n", out)

	// Errors: unknown id, usage.
	code, _, stderr = svc("artifacts", "download", "art_missing", "--output", dir)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "not_found")
	code, _, _ = svc("artifacts", "download")
	require.Equal(t, 2, code)
	code, _, _ = svc("artifacts", "download", smallID, "--output", "")
	require.Equal(t, 2, code)
	code, _, _ = svc("artifacts", "list", "--run", " ")
	require.Equal(t, 2, code)

	// A blob changed on disk: the download fails and leaves no file, temporary or final.
	var blobKey string
	require.NoError(t, env.DB.NewRaw("SELECT blob_key FROM artifacts WHERE id = ?", bigID).Scan(context.Background(), &blobKey))
	tampered := bytes.Clone(big)
	tampered[0] ^= 1
	require.NoError(t, os.WriteFile(filepath.Join(env.ArtifactDir, filepath.FromSlash(blobKey)), tampered, 0o600))
	fresh := t.TempDir()
	code, _, stderr = svc("artifacts", "download", bigID, "--output", fresh)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, client.CodeContentMismatch)
	entries, err := os.ReadDir(fresh)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing is left behind")
}

// TestProgressBar draws the bar at its start and end, skipping redraws within the interval.
func TestProgressBar(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	p := &progressBar{w: &buf, now: func() time.Time { return now }}
	p.update(0, 4<<20)
	p.update(1<<20, 4<<20) // within the interval: not drawn
	now = now.Add(progressInterval)
	p.update(2<<20, 4<<20)
	p.update(4<<20, 4<<20) // the end is always drawn
	p.finish()
	lines := strings.Split(buf.String(), "\r")
	require.Len(t, lines, 4, "%q", buf.String())
	require.Contains(t, lines[1], "  0% [>")
	require.Contains(t, lines[2], " 50% [===============>")
	require.Contains(t, lines[3], "100% [==============================] 4.0 MiB / 4.0 MiB")
	require.True(t, strings.HasSuffix(buf.String(), "\n"))

	var none *progressBar
	none.update(1, 2) // a nil bar draws nothing and does not panic
	none.finish()

	a := &app{stderr: &bytes.Buffer{}}
	require.Nil(t, a.progressFor(10<<20), "no terminal, no bar")
}
