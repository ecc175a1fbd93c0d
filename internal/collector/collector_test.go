package collector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/collector"
	"github.com/svcplatform/svc/internal/vault"
	"github.com/svcplatform/svc/internal/vault/vaulttest"
)

// machine is one collector with its own vault copy.
type machine struct {
	vault *vault.Vault
	srv   *httptest.Server
	token string
}

func newMachine(t *testing.T, id, token string) *machine {
	t.Helper()
	v, err := vault.Open(t.TempDir(), vault.Options{})
	require.NoError(t, err)
	c, err := collector.New(collector.Config{Vault: v, MachineID: id, Host: id + ".lan", Runtimes: []string{"codex"},
		Agents: []vault.AgentCard{{ID: "a1", Runtime: "codex", WorkerClasses: []string{"code"}}}, Token: token})
	require.NoError(t, err)
	require.NoError(t, c.PublishCard())
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	return &machine{vault: v, srv: srv, token: token}
}

// call sends a request and decodes the JSON answer into a map.
func (m *machine) call(t *testing.T, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd *bytes.Reader
	if s, ok := body.(string); ok {
		rd = bytes.NewReader([]byte(s))
	} else {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, m.srv.URL+path, rd)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if m.token != "" {
		req.Header.Set("Authorization", "Bearer "+m.token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

func transfersOf(out map[string]any) []any { return out["transfers"].([]any) }

// TestTwoCollectorsThroughASyncedVault runs seed 001's flow end to end: machine A's collector sends, a
// test sync provider replicates A's vault into B's in random order (manifest first), B's collector never
// lists a half transfer and refuses an early ack, then lists it whole, acknowledges it, and the ack
// travels back to A.
func TestTwoCollectorsThroughASyncedVault(t *testing.T) {
	t.Parallel()
	a, b := newMachine(t, "m-a", ""), newMachine(t, "m-b", "")
	for _, m := range []*machine{a, b} {
		code, out := m.call(t, http.MethodGet, "/health", nil)
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, map[string]any{"fileTransfers": true}, out["capabilities"])
	}
	src := filepath.Join(t.TempDir(), "notes.md")
	require.NoError(t, os.WriteFile(src, []byte(strings.Repeat("line of notes\n", 400)), 0o644))
	code, out := a.call(t, http.MethodPost, "/transfers", map[string]any{"files": []string{src}, "note": "please review\nthanks",
		"from": map[string]any{"runtime": "codex", "agentId": "a9"}, "to": map[string]any{"machineId": "m-b", "runtime": "codex", "agentId": "a1"}})
	require.Equal(t, http.StatusCreated, code, "%v", out)
	tr := out["transfer"].(map[string]any)
	id := tr["id"].(string)
	require.Equal(t, "m-a", tr["from"].(map[string]any)["machineId"], "the sender defaults to the collector's machine")

	ack := map[string]any{"id": id, "runtime": "codex", "agentId": "a1"}
	code, out = b.call(t, http.MethodPost, "/transfers/ack", ack)
	require.Equal(t, http.StatusConflict, code, "ack before the transfer arrived: %v", out)

	provider := &vaulttest.Provider{Rand: rand.New(rand.NewPCG(3, 4)), ManifestFirst: true, Halves: true,
		Step: func(string) {
			_, inbox := b.call(t, http.MethodGet, "/transfers?runtime=codex&agentId=a1", nil)
			if list := transfersOf(inbox); len(list) > 0 {
				f := list[0].(map[string]any)["files"].([]any)[0].(map[string]any)
				got, err := os.ReadFile(f["absPath"].(string))
				require.NoError(t, err)
				require.Len(t, got, len(strings.Repeat("line of notes\n", 400)), "a listed transfer is whole")
				return
			}
			code, _ := b.call(t, http.MethodPost, "/transfers/ack", ack)
			require.Equal(t, http.StatusConflict, code, "ack before verification is refused")
		}}
	_, err := provider.Sync(a.vault.Root(), b.vault.Root())
	require.NoError(t, err)

	_, out = b.call(t, http.MethodGet, "/transfers?runtime=codex&agentId=a1", nil)
	list := transfersOf(out)
	require.Len(t, list, 1)
	f := list[0].(map[string]any)["files"].([]any)[0].(map[string]any)
	require.True(t, strings.HasPrefix(f["absPath"].(string), b.vault.Root()), "payload paths are local to B")
	_, out = b.call(t, http.MethodGet, "/transfers?runtime=claude", nil)
	require.Empty(t, transfersOf(out), "a wrong runtime sees nothing, without an error")

	code, out = b.call(t, http.MethodPost, "/transfers/ack", ack)
	require.Equal(t, http.StatusOK, code, "%v", out)
	require.Equal(t, id, out["ack"].(map[string]any)["transferId"])
	_, out = b.call(t, http.MethodGet, "/transfers?runtime=codex&agentId=a1", nil)
	require.Empty(t, transfersOf(out))
	_, out = b.call(t, http.MethodGet, "/transfers?runtime=codex&agentId=a1&all=true", nil)
	require.Len(t, transfersOf(out), 1)
	require.Equal(t, true, transfersOf(out)[0].(map[string]any)["acknowledged"])
	code, _ = b.call(t, http.MethodPost, "/transfers/ack", map[string]any{"id": id, "machineId": "m-a"})
	require.Equal(t, http.StatusForbidden, code, "a collector acknowledges only for its own machine")

	_, err = (&vaulttest.Provider{Rand: rand.New(rand.NewPCG(5, 6))}).Sync(b.vault.Root(), a.vault.Root())
	require.NoError(t, err)
	acks, err := a.vault.Acks(id)
	require.NoError(t, err)
	require.Len(t, acks, 1)
	require.Equal(t, "m-b", acks[0].MachineID)
	cards, err := a.vault.Machines()
	require.NoError(t, err)
	require.Len(t, cards, 2, "both machine cards reach A")
	require.Equal(t, []string{"code"}, cards[1].Agents[0].WorkerClasses)
}

func TestCollectorRefusesBadInput(t *testing.T) {
	t.Parallel()
	m := newMachine(t, "m-a", "")
	src := filepath.Join(t.TempDir(), "x.txt")
	require.NoError(t, os.WriteFile(src, []byte("x"), 0o644))
	key := "svc_" + "sk_" + strings.Repeat("Zq7", 11)
	for _, c := range []struct {
		method, path string
		body         any
		status       int
		param        string
	}{
		{http.MethodPost, "/transfers", map[string]any{"files": []string{src}, "to": map[string]any{"machineId": "m-b"}, "extra": 1}, 400, "extra"},
		{http.MethodPost, "/transfers", map[string]any{"files": []string{"x.txt"}, "to": map[string]any{"machineId": "m-b"}}, 400, "files[0]"},
		{http.MethodPost, "/transfers", map[string]any{"files": []string{src}}, 400, "to"},
		{http.MethodPost, "/transfers", map[string]any{"files": []string{src}, "to": map[string]any{"runtime": "codex"}}, 400, "to.machineId"},
		{http.MethodPost, "/transfers", map[string]any{"files": "x", "to": map[string]any{"machineId": "m-b"}}, 400, "files"},
		{http.MethodPost, "/transfers", map[string]any{"files": []string{src}, "note": "key " + key, "to": map[string]any{"machineId": "m-b"}}, 400, "note"},
		{http.MethodPost, "/transfers", `{"files":[],"files":[]}`, 400, "files"},
		{http.MethodPost, "/transfers/ack", map[string]any{"runtime": "codex"}, 400, "id"},
		{http.MethodPost, "/transfers/ack", map[string]any{"id": "transfer-x", "runtime": "codex\n"}, 400, "runtime"},
		{http.MethodGet, "/transfers?colour=blue", nil, 400, "colour"},
		{http.MethodGet, "/transfers?all=yes", nil, 400, "all"},
		{http.MethodGet, "/transfers?runtime=a&runtime=b", nil, 400, "runtime"},
	} {
		code, out := m.call(t, c.method, c.path, c.body)
		require.Equal(t, c.status, code, "%s %s %v: %v", c.method, c.path, c.body, out)
		e := out["error"].(map[string]any)
		require.Equal(t, c.param, e["param"], "%s %s %v", c.method, c.path, c.body)
		require.NotContains(t, e["message"], key)
	}
}

func TestCollectorBearerToken(t *testing.T) {
	t.Parallel()
	const token = "a-long-enough-test-token"
	m := newMachine(t, "m-a", token)
	code, _ := m.call(t, http.MethodGet, "/transfers", nil)
	require.Equal(t, http.StatusOK, code)
	resp, err := http.Get(m.srv.URL + "/transfers")
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	m.token = token + "x"
	code, _ = m.call(t, http.MethodGet, "/health", nil)
	require.Equal(t, http.StatusUnauthorized, code)

	require.NoError(t, collector.CheckListen("127.0.0.1:8790", ""))
	require.NoError(t, collector.CheckListen("[::1]:8790", ""))
	require.NoError(t, collector.CheckListen("localhost:8790", ""))
	require.Error(t, collector.CheckListen("0.0.0.0:8790", ""), "non-loopback needs a token")
	require.Error(t, collector.CheckListen(":8790", ""), "all interfaces need a token")
	require.Error(t, collector.CheckListen("100.64.0.5:8790", "short"), "a short token is refused")
	require.NoError(t, collector.CheckListen("100.64.0.5:8790", token))
}

// TestServeRefreshesTheMachineCard serves on a real listener and waits for the card to be rewritten, then
// stops cleanly when its context ends.
func TestServeRefreshesTheMachineCard(t *testing.T) {
	t.Parallel()
	var ticks atomic.Int64
	base := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	v, err := vault.Open(t.TempDir(), vault.Options{Now: func() time.Time {
		return base.Add(time.Duration(ticks.Add(1)) * time.Second)
	}})
	require.NoError(t, err)
	c, err := collector.New(collector.Config{Vault: v, MachineID: "m-a", CardInterval: 10 * time.Millisecond})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Serve(ctx, ln) }()
	require.Eventually(t, func() bool { return ticks.Load() >= 3 }, 10*time.Second, 5*time.Millisecond)
	cards, err := v.Machines()
	require.NoError(t, err)
	require.Len(t, cards, 1)
	require.True(t, cards[0].Capabilities.FileTransfers)
	resp, err := http.Get("http://" + ln.Addr().String() + "/health")
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	cancel()
	require.NoError(t, <-done)
}

func TestNewRefusesAnOpenListenWithoutToken(t *testing.T) {
	t.Parallel()
	v, err := vault.Open(t.TempDir(), vault.Options{})
	require.NoError(t, err)
	_, err = collector.New(collector.Config{Vault: v, MachineID: "m-a", Listen: "0.0.0.0:8790"})
	require.ErrorContains(t, err, "bearer token")
	_, err = collector.New(collector.Config{Vault: v})
	require.ErrorContains(t, err, "machine id")
	c, err := collector.New(collector.Config{Vault: v, MachineID: "m-a", Listen: "0.0.0.0:8790", Token: "a-long-enough-test-token"})
	require.NoError(t, err)
	require.NotNil(t, c.Handler())
}
