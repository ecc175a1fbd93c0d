package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/codeprojects"
	"github.com/svcplatform/svc/internal/codeproof"
)

// fakeNode is a code-proof node that knows the repository "svc" while online.
func fakeNode(t *testing.T, online *atomic.Bool) *httptest.Server {
	t.Helper()
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !online.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		switch r.URL.Path {
		case "/status":
			_, _ = w.Write([]byte(`{"repoCount": 1, "peerCount": 4, "mcp": true}`))
		case "/repos/svc":
			_, _ = w.Write([]byte(`{"name": "svc", "head": "9fceb02", "origin": "http://192.168.1.9:7717/svc"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(node.Close)
	return node
}

// post sends an idempotent POST with a fresh key.
func post(t *testing.T, env *apptest.Env, key, path string, body any) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: path, Key: key, Body: body,
		Headers: map[string]string{"Idempotency-Key": idemKeyOf(t, path, body)}})
}

// idemKeyOf derives an Idempotency-Key from the request: the same request is the same key.
func idemKeyOf(t *testing.T, path string, body any) string {
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	sum := sha256.Sum256(append([]byte(path), raw...))
	return hex.EncodeToString(sum[:])
}

// TestCodeProofRoutesWithoutTooling: with no CLI and no node every code-proof route answers 200 with a
// structured status and guidance, never a 5xx; a key is required.
func TestCodeProofRoutesWithoutTooling(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{CodeProof: codeproof.Config{CLI: "svc-no-such-codeproof-cli"}})
	key := env.FirstKey(t)
	st := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/api/codeproof/status", Key: key})
	require.Equal(t, http.StatusOK, st.Status, "%s", st.Raw)
	require.Equal(t, false, st.Body["cli"].(map[string]any)["installed"])
	require.Equal(t, false, st.Body["node"].(map[string]any)["reachable"])
	require.Nil(t, st.Body["identity"])
	require.EqualValues(t, 0, st.Body["repoCount"])
	require.Equal(t, false, st.Body["mcpAvailable"])

	setup := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/api/codeproof/setup-cli", Key: key})
	require.Equal(t, http.StatusOK, setup.Status, "%s", setup.Raw)
	require.Equal(t, "install_manually", setup.Body["action"])
	require.NotEmpty(t, setup.Body["guidance"])
	node := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/api/codeproof/node/setup", Key: key})
	require.Equal(t, http.StatusOK, node.Status, "%s", node.Raw)
	require.Contains(t, string(node.Raw), "SVC_CODEPROOF_NODE_URL")

	anon := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/api/codeproof/status"})
	require.Equal(t, http.StatusUnauthorized, anon.Status)
}

// TestCodeProofIdentity: the account's did:key is made once, answered again, replaced on refresh, and
// shown by the status; the private key is never in an answer; another account has its own.
func TestCodeProofIdentity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := apptest.NewWith(t, apptest.Options{CodeProof: codeproof.Config{DataDir: dir, CLI: "svc-no-such-codeproof-cli"}})
	key, other := env.FirstKey(t), env.FirstKey(t)
	first := post(t, env, key, "/api/codeproof/identity", nil) // no body, as in the README
	require.Equal(t, http.StatusOK, first.Status, "%s", first.Raw)
	require.Equal(t, true, first.Body["created"])
	did := first.Body["identity"].(map[string]any)["did"].(string)
	require.True(t, strings.HasPrefix(did, "did:key:z6Mk"), did)
	require.NotContains(t, string(first.Raw), "privateKey")

	again := post(t, env, key, "/api/codeproof/identity", map[string]any{"refresh": false})
	require.Equal(t, false, again.Body["created"])
	require.Equal(t, did, again.Body["identity"].(map[string]any)["did"])
	st := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/api/codeproof/status", Key: key})
	require.Equal(t, did, st.Body["identity"].(map[string]any)["did"])
	fresh := post(t, env, key, "/api/codeproof/identity", map[string]any{"refresh": true})
	require.NotEqual(t, did, fresh.Body["identity"].(map[string]any)["did"])

	theirs := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/api/codeproof/status", Key: other})
	require.Nil(t, theirs.Body["identity"], "another account has no identity yet")

	files, err := filepath.Glob(filepath.Join(dir, "identities", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	fi, err := os.Stat(files[0])
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	bad := post(t, env, key, "/api/codeproof/identity", map[string]any{"refresh": "yes"})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, string(bad.Raw), "refresh")
}

// TestCodeProjectsRegistry: projects are written to the vault's registry with sanitised proofs, listed
// per account, updated by id (another account's id is 404), and strictly decoded.
func TestCodeProjectsRegistry(t *testing.T) {
	t.Parallel()
	vaultDir := t.TempDir()
	env := apptest.NewWith(t, apptest.Options{Vault: vaultDir})
	key, other := env.FirstKey(t), env.FirstKey(t)
	created := post(t, env, key, "/api/projects", map[string]any{"name": "svc", "repo": "github.com/svcplatform/svc",
		"proofs": []map[string]any{{"kind": "build", "commit": "9fceb02",
			"note":     "built on studio.local from " + vaultDir + "/src with NPM_TOKEN=abc123",
			"metadata": map[string]string{"runner": "10.0.0.4", "signer": "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"}}}})
	require.Equal(t, http.StatusOK, created.Status, "%s", created.Raw)
	require.Equal(t, "vault", created.Body["registry"])
	require.Equal(t, true, created.Body["created"])
	project := created.Body["project"].(map[string]any)
	id := project["id"].(string)
	require.True(t, strings.HasPrefix(id, "cpj_"), id)
	proof := project["proofs"].([]any)[0].(map[string]any)
	require.Equal(t, "built on "+codeprojects.RedactedHost+" from <vault>/src with NPM_TOKEN="+codeprojects.RedactedSecret, proof["note"])
	require.Equal(t, map[string]any{"runner": codeprojects.RedactedAddress, "signer": codeprojects.RedactedSecret}, proof["metadata"])

	raw, err := os.ReadFile(filepath.Join(vaultDir, "Operations", "Code Projects", "projects.json"))
	require.NoError(t, err)
	for _, leak := range []string{"studio.local", vaultDir, "abc123", "10.0.0.4", "4c0883a6"} {
		require.NotContains(t, string(raw), leak)
	}

	list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/api/projects", Key: key})
	require.Equal(t, http.StatusOK, list.Status)
	require.Len(t, list.Body["projects"], 1)
	theirs := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/api/projects", Key: other})
	require.Empty(t, theirs.Body["projects"])
	stolen := post(t, env, other, "/api/projects", map[string]any{"id": id, "name": "mine now"})
	require.Equal(t, http.StatusNotFound, stolen.Status, "%s", stolen.Raw)

	upd := post(t, env, key, "/api/projects", map[string]any{"id": id, "name": "svc platform"})
	require.Equal(t, http.StatusOK, upd.Status, "%s", upd.Raw)
	require.Equal(t, false, upd.Body["created"])
	require.Equal(t, "svc platform", upd.Body["project"].(map[string]any)["name"])

	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "x", "colour": "red"}, "colour"},
		{map[string]any{"repo": "r"}, "name"},
		{map[string]any{"name": "x", "proofs": []map[string]any{{"kind": "build", "extra": 1}}}, "extra"},
		{map[string]any{"name": "x", "proofs": []map[string]any{{"note": "no kind"}}}, "kind"},
	} {
		r := post(t, env, key, "/api/projects", c.body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Raw)
		require.Contains(t, string(r.Raw), c.field)
	}
}

// TestCodeProjectsFallbackAndLink: without a vault the registry is the per-user fallback; a link made
// while the node is offline is pending (200), and linked with the node's sanitised metadata once online.
func TestCodeProjectsFallbackAndLink(t *testing.T) {
	t.Parallel()
	var online atomic.Bool
	node := fakeNode(t, &online)
	fallback := filepath.Join(t.TempDir(), "svc", "projects.json")
	env := apptest.NewWith(t, apptest.Options{ProjectsFile: fallback, CodeProof: codeproof.Config{NodeURL: node.URL}})
	key, other := env.FirstKey(t), env.FirstKey(t)
	created := post(t, env, key, "/api/projects", map[string]any{"name": "svc"})
	require.Equal(t, http.StatusOK, created.Status, "%s", created.Raw)
	require.Equal(t, "local", created.Body["registry"])
	require.FileExists(t, fallback)
	id := created.Body["project"].(map[string]any)["id"].(string)

	pending := post(t, env, key, "/api/projects/link-codeproof", map[string]any{"projectId": id, "repo": "svc"})
	require.Equal(t, http.StatusOK, pending.Status, "%s", pending.Raw)
	link := pending.Body["project"].(map[string]any)["codeproof"].(map[string]any)
	require.Equal(t, "pending", link["status"])
	require.Contains(t, link["message"], "pending")

	online.Store(true)
	linked := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/api/projects/link-codeproof", Key: key,
		Body: map[string]any{"projectId": id, "repo": "svc"}, Headers: map[string]string{"Idempotency-Key": "link-again"}})
	require.Equal(t, http.StatusOK, linked.Status, "%s", linked.Raw)
	link = linked.Body["project"].(map[string]any)["codeproof"].(map[string]any)
	require.Equal(t, "linked", link["status"])
	meta := link["metadata"].(map[string]any)
	require.Equal(t, "9fceb02", meta["head"])
	require.Equal(t, "http://"+codeprojects.RedactedAddress+":7717/svc", meta["origin"])
	st := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/api/codeproof/status", Key: key})
	require.Equal(t, true, st.Body["node"].(map[string]any)["reachable"])
	require.EqualValues(t, 4, st.Body["peerCount"])

	unknown := post(t, env, key, "/api/projects/link-codeproof", map[string]any{"projectId": id, "repo": "elsewhere"})
	require.Equal(t, "pending", unknown.Body["project"].(map[string]any)["codeproof"].(map[string]any)["status"])
	theirs := post(t, env, other, "/api/projects/link-codeproof", map[string]any{"projectId": id, "repo": "svc"})
	require.Equal(t, http.StatusNotFound, theirs.Status)
	missing := post(t, env, key, "/api/projects/link-codeproof", map[string]any{"repo": "svc"})
	require.Equal(t, http.StatusBadRequest, missing.Status)
	require.Contains(t, string(missing.Raw), "projectId")
}
