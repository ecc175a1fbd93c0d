package api_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/schema"
)

// artifactAccount is an account with its first key, for the artifact tests.
type artifactAccount struct {
	secret    string
	accountID string
}

func newArtifactAccount(t *testing.T, env *apptest.Env) artifactAccount {
	t.Helper()
	secret, key := firstKey(t, env)
	a := artifactAccount{secret: secret}
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM api_keys WHERE id = ?", key["id"]).Scan(context.Background(), &a.accountID))
	return a
}

// key creates a child key of a with the scopes and services and returns its secret.
func (a artifactAccount) key(t *testing.T, env *apptest.Env, idem string, scopes, services []string) string {
	t.Helper()
	resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: a.secret,
		Body: map[string]any{"scopes": scopes, "services": services}, Headers: map[string]string{"Idempotency-Key": idem}})
	require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
	return resp.Body["apiKey"].(map[string]any)["secret"].(string)
}

// save stores an artifact of the account straight through the store, as the worker will.
func (a artifactAccount) save(t *testing.T, env *apptest.Env, project *string, runID, serviceID, name, contentType string, body []byte) *schema.Artifact {
	t.Helper()
	art, err := env.Artifacts.Save(context.Background(), artifact.NewArtifact{ID: ids.Derive(ids.Artifact, runID, name),
		AccountID: a.accountID, ProjectID: project, RunID: runID, ServiceID: serviceID, Name: name, ContentType: contentType,
		Body: bytes.NewReader(body)})
	require.NoError(t, err)
	return art
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return b
}

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// getContent downloads an artifact's content with a plain HTTP request.
func getContent(t *testing.T, env *apptest.Env, key, id string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.URL+"/v1/artifacts/"+id+"/content", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

func errorCode(t *testing.T, body []byte) (code string, details map[string]any) {
	t.Helper()
	var env client.ErrorEnvelope
	require.NoError(t, json.Unmarshal(body, &env), "%s", body)
	require.False(t, env.OK)
	require.NotEmpty(t, env.Error.RequestID)
	return env.Error.Code, env.Error.Details
}

func listArtifactIDs(t *testing.T, env *apptest.Env, key, query string) ([]string, string, []any) {
	t.Helper()
	resp := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/artifacts?" + query, Key: key})
	require.Equal(t, http.StatusOK, resp.Status, "%s", resp.Raw)
	require.Equal(t, true, resp.Body["ok"])
	var got []string
	items := resp.Body["artifacts"].([]any)
	for _, it := range items {
		got = append(got, it.(map[string]any)["id"].(string))
	}
	next, _ := resp.Body["nextCursor"].(string)
	return got, next, items
}

// TestArtifactsListAndDownload covers GET /v1/artifacts (newest first, runId filter, pages that add up,
// the wire shape, account/project isolation, artifacts of forbidden services left out) and the streamed
// content route (headers and bytes; 404 for foreign and unknown ids; 403 without service access or
// without artifacts:read; 500 without detail when the blob is lost).
func TestArtifactsListAndDownload(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acct := newArtifactAccount(t, env)
	big := randomBytes(t, 3<<20+17) // several write buffers: streamed, not one chunk
	a1 := acct.save(t, env, nil, "run_a", client.ServiceManagedWorkflows, "first.txt", "text/plain; charset=utf-8", []byte("hello\n"))
	a2 := acct.save(t, env, nil, "run_a", client.ServiceManagedWorkflows, "big.bin", "", big)
	a3 := acct.save(t, env, nil, "run_b", client.ServiceManagedWorkflows, "other-run.json", "application/json", []byte(`{}`))
	a4 := acct.save(t, env, nil, "run_a", client.ServiceManagedAgents, "agent output ü.txt", "text/plain", []byte("agent"))

	proj := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/projects", Key: acct.secret,
		Body: map[string]any{"name": "p"}, Headers: map[string]string{"Idempotency-Key": "proj"}})
	require.Equal(t, http.StatusCreated, proj.Status, "%s", proj.Raw)
	projectID := proj.Body["project"].(map[string]any)["id"].(string)
	inProject := acct.save(t, env, &projectID, "run_p", client.ServiceManagedWorkflows, "project.txt", "text/plain", []byte("p"))

	other := newArtifactAccount(t, env)
	foreign := other.save(t, env, nil, "run_x", client.ServiceManagedWorkflows, "foreign.txt", "text/plain", []byte("not yours"))

	// The list: newest first, in pages of two that add up to the whole scope.
	var all []string
	query := "limit=2"
	for {
		page, next, _ := listArtifactIDs(t, env, acct.secret, query)
		require.LessOrEqual(t, len(page), 2)
		all = append(all, page...)
		if next == "" {
			break
		}
		query = "limit=2&cursor=" + next
	}
	require.Equal(t, []string{a4.ID, a3.ID, a2.ID, a1.ID}, all)

	got, next, items := listArtifactIDs(t, env, acct.secret, "runId=run_a")
	require.Equal(t, []string{a4.ID, a2.ID, a1.ID}, got)
	require.Empty(t, next)
	wire := items[1].(map[string]any)
	require.Equal(t, a2.ID, wire["id"])
	require.Equal(t, "run_a", wire["runId"])
	require.Equal(t, client.ServiceManagedWorkflows, wire["serviceId"])
	require.Equal(t, "big.bin", wire["name"])
	require.Equal(t, artifact.DefaultContentType, wire["contentType"])
	require.EqualValues(t, len(big), wire["sizeBytes"])
	require.Equal(t, hexSHA256(big), wire["sha256"])
	require.NotEmpty(t, wire["createdAt"])
	require.NotContains(t, wire, "blobKey", "storage details stay inside")

	got, _, _ = listArtifactIDs(t, env, acct.secret, "runId=run_none")
	require.Empty(t, got)
	resp := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/artifacts", Key: acct.secret, Headers: map[string]string{"X-Svc-Project": projectID}})
	require.Equal(t, http.StatusOK, resp.Status)
	require.Len(t, resp.Body["artifacts"], 1)
	resp = env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/artifacts?cursor=garbage", Key: acct.secret})
	require.Equal(t, http.StatusBadRequest, resp.Status)
	require.Equal(t, "cursor", errorOf(resp)["param"])

	// The content, streamed with its headers.
	hr, body := getContent(t, env, acct.secret, a2.ID, nil)
	require.Equal(t, http.StatusOK, hr.StatusCode, "%s", body)
	require.Equal(t, big, body)
	require.Equal(t, artifact.DefaultContentType, hr.Header.Get("Content-Type"))
	require.Equal(t, strconv.Itoa(len(big)), hr.Header.Get("Content-Length"))
	require.Equal(t, hexSHA256(big), hr.Header.Get("X-Content-Sha256"))
	require.Equal(t, `attachment; filename=big.bin`, hr.Header.Get("Content-Disposition"))
	require.NotEmpty(t, hr.Header.Get("X-Request-Id"))

	hr, body = getContent(t, env, acct.secret, a4.ID, nil)
	require.Equal(t, http.StatusOK, hr.StatusCode, "%s", body)
	require.Equal(t, "agent", string(body))
	require.Equal(t, "text/plain", hr.Header.Get("Content-Type"))
	require.Contains(t, hr.Header.Get("Content-Disposition"), "filename*=utf-8''agent%20output%20%C3%BC.txt")

	hr, body = getContent(t, env, acct.secret, a1.ID, nil)
	require.Equal(t, "hello\n", string(body))
	require.Equal(t, "text/plain; charset=utf-8", hr.Header.Get("Content-Type"))

	// Another account's, another project's and unknown ids are all just not found.
	for _, tc := range []struct {
		id      string
		headers map[string]string
	}{{foreign.ID, nil}, {inProject.ID, nil}, {"art_unknown", nil}, {a1.ID, map[string]string{"X-Svc-Project": projectID}}} {
		hr, body := getContent(t, env, acct.secret, tc.id, tc.headers)
		require.Equal(t, http.StatusNotFound, hr.StatusCode, "%s: %s", tc.id, body)
		code, _ := errorCode(t, body)
		require.Equal(t, client.CodeNotFound, code)
		require.NotContains(t, string(body), "not yours")
	}
	hr, body = getContent(t, env, acct.secret, inProject.ID, map[string]string{"X-Svc-Project": projectID})
	require.Equal(t, http.StatusOK, hr.StatusCode, "%s", body)
	require.Equal(t, "p", string(body))

	// A key limited to managed-workflows sees and reads only those artifacts.
	narrow := acct.key(t, env, "narrow", []string{client.ScopeArtifactsRead}, []string{client.ServiceManagedWorkflows})
	got, _, _ = listArtifactIDs(t, env, narrow, "runId=run_a")
	require.Equal(t, []string{a2.ID, a1.ID}, got, "the agents artifact is left out")
	hr, body = getContent(t, env, narrow, a4.ID, nil)
	require.Equal(t, http.StatusForbidden, hr.StatusCode, "%s", body)
	code, details := errorCode(t, body)
	require.Equal(t, client.CodeServiceAccessDenied, code)
	require.Equal(t, client.ServiceManagedAgents, details["serviceId"])
	require.NotContains(t, string(body), "agent\"")
	hr, body = getContent(t, env, narrow, a1.ID, nil)
	require.Equal(t, http.StatusOK, hr.StatusCode, "%s", body)

	// A key without artifacts:read reads nothing.
	noScope := acct.key(t, env, "no-scope", []string{client.ScopeRunsRead}, []string{"*"})
	resp = env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/artifacts", Key: noScope})
	require.Equal(t, http.StatusForbidden, resp.Status)
	require.Equal(t, client.CodeScopeMissing, resp.ErrorCode())
	hr, body = getContent(t, env, noScope, a1.ID, nil)
	require.Equal(t, http.StatusForbidden, hr.StatusCode)
	code, details = errorCode(t, body)
	require.Equal(t, client.CodeScopeMissing, code)
	require.Equal(t, client.ScopeArtifactsRead, details["requiredScope"])

	// A lost blob is an internal error without detail, never a cut answer with a 200.
	require.NoError(t, os.Remove(filepath.Join(env.ArtifactDir, filepath.FromSlash(a3.BlobKey))))
	hr, body = getContent(t, env, acct.secret, a3.ID, nil)
	require.Equal(t, http.StatusInternalServerError, hr.StatusCode)
	code, _ = errorCode(t, body)
	require.Equal(t, client.CodeInternal, code)
	require.NotContains(t, string(body), a3.BlobKey)
}

// TestSDKArtifacts: ListArtifacts and DownloadArtifact through the SDK, including progress and the
// verification that catches a blob changed on disk.
func TestSDKArtifacts(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acct := newArtifactAccount(t, env)
	content := randomBytes(t, 1<<20+5)
	a := acct.save(t, env, nil, "run_sdk", client.ServiceManagedWorkflows, "model.bin", "application/x-model", content)
	acct.save(t, env, nil, "run_other", client.ServiceManagedWorkflows, "other.txt", "text/plain", []byte("x"))
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(acct.secret))
	ctx := context.Background()

	list := c.ListArtifacts(ctx, client.ListArtifactsParams{RunID: "run_sdk"})
	require.True(t, list.OK, "%v", list.Error)
	require.Len(t, list.Body.Artifacts, 1)
	got := list.Body.Artifacts[0]
	require.Equal(t, client.Artifact{ID: a.ID, RunID: "run_sdk", ServiceID: client.ServiceManagedWorkflows, Name: "model.bin",
		ContentType: "application/x-model", SizeBytes: int64(len(content)), SHA256: hexSHA256(content), CreatedAt: got.CreatedAt}, got)
	require.Nil(t, list.Body.NextCursor)

	var buf bytes.Buffer
	var calls int
	var last [2]int64
	dl := c.DownloadArtifact(ctx, a.ID, &buf, func(done, total int64) {
		calls++
		require.GreaterOrEqual(t, done, last[0], "progress only grows")
		last = [2]int64{done, total}
	})
	require.True(t, dl.OK, "%v", dl.Error)
	require.Equal(t, content, buf.Bytes())
	require.Equal(t, client.ArtifactDownload{ID: a.ID, Name: "model.bin", ContentType: "application/x-model",
		SizeBytes: int64(len(content)), SHA256: hexSHA256(content)}, dl.Body)
	require.Equal(t, [2]int64{int64(len(content)), int64(len(content))}, last)
	require.Greater(t, calls, 2)

	// Same length, one byte changed on disk: the server still announces the recorded digest, and the
	// SDK refuses what it received.
	path := filepath.Join(env.ArtifactDir, filepath.FromSlash(a.BlobKey))
	tampered := bytes.Clone(content)
	tampered[len(tampered)/2] ^= 0xff
	require.NoError(t, os.WriteFile(path, tampered, 0o600))
	buf.Reset()
	dl = c.DownloadArtifact(ctx, a.ID, &buf, nil)
	require.False(t, dl.OK)
	require.Equal(t, client.CodeContentMismatch, dl.Error.Code, "%v", dl.Error)
	require.Contains(t, dl.Error.Message, "SHA-256")
	require.NotEmpty(t, dl.Error.RequestID)

	// A different length is refused by the server before any byte is sent.
	require.NoError(t, os.WriteFile(path, content[:100], 0o600))
	dl = c.DownloadArtifact(ctx, a.ID, io.Discard, nil)
	require.False(t, dl.OK)
	require.Equal(t, http.StatusInternalServerError, dl.StatusCode)
	require.Equal(t, client.CodeInternal, dl.Error.Code)

	dl = c.DownloadArtifact(ctx, "art_missing", io.Discard, nil)
	require.False(t, dl.OK)
	require.Equal(t, http.StatusNotFound, dl.StatusCode)
	require.Equal(t, client.CodeNotFound, dl.Error.Code)
	require.NotEmpty(t, dl.Error.RequestID)
	dl = c.DownloadArtifact(ctx, "", io.Discard, nil)
	require.Equal(t, client.CodeInvalidRequest, dl.Error.Code)
	require.Equal(t, "artifactId", dl.Error.Param)
}
