package codeproof

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBase58Vectors: the encoder matches base58btc's published vectors, leading zeros included.
func TestBase58Vectors(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "Hello World!": "2NEpo7TZRRrLZSi2U", "\x00\x00\x01": "112"} {
		require.Equal(t, want, base58Encode([]byte(in)), "%q", in)
		back, err := base58Decode(want)
		require.NoError(t, err)
		require.Equal(t, in, string(back))
	}
	_, err := base58Decode("0OIl")
	require.Error(t, err)
}

// TestDIDKeyRoundTrip: an Ed25519 did:key starts z6Mk (multicodec 0xed01 under base58btc) and parses
// back to its key; another multicodec is refused.
func TestDIDKeyRoundTrip(t *testing.T) {
	t.Parallel()
	pub, _, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	did := DIDKey(pub)
	require.True(t, strings.HasPrefix(did, "did:key:z6Mk"), did)
	back, err := ParseDIDKey(did)
	require.NoError(t, err)
	require.Equal(t, pub, back)
	_, err = ParseDIDKey("did:key:z" + base58Encode(append([]byte{0xe7, 0x01}, pub...)))
	require.ErrorContains(t, err, "not an Ed25519 key")
}

// TestIdentityStoredPrivately: the identity file is 0600 in a 0700 folder, holds the key whose did is
// answered, is kept on a second call and replaced on refresh; accounts have their own.
func TestIdentityStoredPrivately(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cp")
	s := New(Config{DataDir: dir})
	a, err := s.Identity("acct_a", false)
	require.NoError(t, err)
	require.True(t, a.Created)
	p := filepath.Join(dir, "identities", "acct_a.json")
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(filepath.Dir(p))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	var stored identityFile
	raw, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &stored))
	pub := ed25519.NewKeyFromSeed(stored.PrivateKey).Public().(ed25519.PublicKey)
	require.Equal(t, DIDKey(pub), a.Identity.DID)

	again, err := s.Identity("acct_a", false)
	require.NoError(t, err)
	require.False(t, again.Created)
	require.Equal(t, a.Identity.DID, again.Identity.DID)
	fresh, err := s.Identity("acct_a", true)
	require.NoError(t, err)
	require.True(t, fresh.Created)
	require.NotEqual(t, a.Identity.DID, fresh.Identity.DID)
	b, err := s.Identity("acct_b", false)
	require.NoError(t, err)
	require.NotEqual(t, fresh.Identity.DID, b.Identity.DID)
	_, err = s.Identity("../escape", false)
	require.Error(t, err)
}

// TestStatusWithoutTooling: no CLI, no node: a complete status, answered quickly.
func TestStatusWithoutTooling(t *testing.T) {
	t.Parallel()
	s := New(Config{CLI: "svc-no-such-codeproof-cli", DataDir: t.TempDir()})
	st := s.Status(context.Background(), "acct_a")
	require.True(t, st.OK)
	require.False(t, st.CLI.Installed)
	require.Contains(t, st.CLI.Problem, "not found")
	require.Nil(t, st.Identity)
	require.False(t, st.Node.Configured)
	require.False(t, st.Node.Reachable)
	setup := s.SetupCLI(context.Background())
	require.Equal(t, "install_manually", setup.Action)
	require.NotEmpty(t, setup.Guidance)
	require.Contains(t, s.NodeSetup(context.Background()).Guidance[0], "SVC_CODEPROOF_NODE_URL")
}

// TestStatusNodeTimesOut: a node that accepts connections but never answers is reported unreachable
// within the timeout.
func TestStatusNodeTimesOut(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-block }), ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(ln) }()
	s := New(Config{NodeURL: "http://" + ln.Addr().String(), DataDir: t.TempDir(), Timeout: 200 * time.Millisecond})
	start := time.Now()
	st := s.Status(context.Background(), "acct_a")
	require.Less(t, time.Since(start), 2*time.Second)
	require.True(t, st.Node.Configured)
	require.False(t, st.Node.Reachable)
	require.NotEmpty(t, st.Node.Problem)
	_, _, err = s.RepoMetadata(context.Background(), "svc")
	require.Error(t, err)
}

// TestStatusFakeCLIAndNode: a CLI that prints its version and a node that reports counts.
func TestStatusFakeCLIAndNode(t *testing.T) {
	t.Parallel()
	cli := filepath.Join(t.TempDir(), "codeproof")
	require.NoError(t, os.WriteFile(cli, []byte("#!/bin/sh\necho 'codeproof 0.4.2'\necho extra\n"), 0o755))
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/status":
			_, _ = w.Write([]byte(`{"repoCount": 3, "peerCount": 2, "mcp": true}`))
		case "/repos/svc":
			_, _ = w.Write([]byte(`{"name": "svc", "head": "abc123", "signed": true, "nested": {"x": 1}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(node.Close)
	s := New(Config{CLI: cli, NodeURL: node.URL + "/", DataDir: t.TempDir()})
	st := s.Status(context.Background(), "acct_a")
	require.True(t, st.CLI.Installed)
	require.Equal(t, cli, st.CLI.Path)
	require.Equal(t, "codeproof 0.4.2", st.CLI.Version)
	require.True(t, st.Node.Reachable)
	require.Equal(t, 3, st.RepoCount)
	require.Equal(t, 2, st.PeerCount)
	require.True(t, st.MCPAvailable)
	require.Equal(t, "none", s.SetupCLI(context.Background()).Action)
	meta, found, err := s.RepoMetadata(context.Background(), "svc")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, map[string]string{"name": "svc", "head": "abc123", "signed": "true"}, meta)
	_, found, err = s.RepoMetadata(context.Background(), "unknown")
	require.NoError(t, err)
	require.False(t, found)
}

// TestStatusCLIHangs: a CLI that never answers --version is reported, not waited for.
func TestStatusCLIHangs(t *testing.T) {
	t.Parallel()
	cli := filepath.Join(t.TempDir(), "codeproof")
	require.NoError(t, os.WriteFile(cli, []byte("#!/bin/sh\nsleep 30\n"), 0o755))
	s := New(Config{CLI: cli, DataDir: t.TempDir(), Timeout: 200 * time.Millisecond})
	start := time.Now()
	got := s.DetectCLI(context.Background())
	require.Less(t, time.Since(start), 5*time.Second)
	require.True(t, got.Installed)
	require.Empty(t, got.Version)
	require.Contains(t, got.Problem, "did not answer")
	require.Equal(t, "install_manually", s.SetupCLI(context.Background()).Action)
}
