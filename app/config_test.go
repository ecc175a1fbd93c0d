package app

import (
	"context"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/schema"
)

func TestKeyModes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, err := FromEnv(func(k string) string { return map[string]string{"SVC_DATA_DIR": dir}[k] })
	require.NoError(t, err)

	_, err = cfg.Box(KeyRequired)
	require.ErrorContains(t, err, "SVC_ENCRYPTION_KEY is required", "svcd api never invents a key")

	dev, err := cfg.Box(KeyFileOrCreate)
	require.NoError(t, err)
	info, err := os.Stat(filepath.Join(dir, "keys", "master.key"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	again, err := cfg.Box(KeyFileOrCreate)
	require.NoError(t, err)
	require.Equal(t, dev.Derive("x"), again.Derive("x"), "svcd dev keeps its key across restarts")

	cfg.EncryptionKey = base64.StdEncoding.EncodeToString(make([]byte, 32))
	env, err := cfg.Box(KeyRequired)
	require.NoError(t, err)
	require.NotEqual(t, dev.Derive("x"), env.Derive("x"), "the variable wins over the file")

	cfg.EncryptionKey = "short"
	_, err = cfg.Box(KeyRequired)
	require.Error(t, err)
}

func TestFromEnv(t *testing.T) {
	t.Parallel()
	cfg, err := FromEnv(func(k string) string {
		return map[string]string{"SVC_TRUSTED_PROXIES": " 10.0.0.0/8, ,127.0.0.1", "SVC_TEMPORAL_UI_PORT": "-1"}[k]
	})
	require.NoError(t, err)
	require.Equal(t, []string{"10.0.0.0/8", "127.0.0.1"}, cfg.TrustedProxies)
	require.Equal(t, -1, cfg.TemporalUIPort)
	require.Equal(t, "127.0.0.1:8080", cfg.HTTPAddr)
	_, err = FromEnv(func(k string) string { return map[string]string{"SVC_DB_MAX_CONNS": "many"}[k] })
	require.ErrorContains(t, err, "SVC_DB_MAX_CONNS")
}

func TestArtifactConfig(t *testing.T) {
	t.Parallel()
	cfg, err := FromEnv(func(k string) string { return map[string]string{"SVC_DATA_DIR": "/var/lib/svc"}[k] })
	require.NoError(t, err)
	require.Equal(t, "file:///var/lib/svc/blobs", cfg.BlobURL)
	require.Empty(t, cfg.ArtifactDir)
	require.Equal(t, int64(100<<20), cfg.ArtifactMaxBytes)
	require.Equal(t, int64(100<<20), cfg.Artifacts(nil, blob.NewLocal(t.TempDir())).MaxBytes())

	cfg, err = FromEnv(func(k string) string {
		return map[string]string{"SVC_ARTIFACT_DIR": "/srv/blobs", "SVC_ARTIFACT_MAX_BYTES": "2048"}[k]
	})
	require.NoError(t, err)
	require.Equal(t, "/srv/blobs", cfg.ArtifactDir)
	require.Equal(t, int64(2048), cfg.Artifacts(nil, blob.NewLocal(t.TempDir())).MaxBytes())
	for _, bad := range []string{"0", "-1", "lots"} {
		_, err = FromEnv(func(k string) string { return map[string]string{"SVC_ARTIFACT_MAX_BYTES": bad}[k] })
		require.ErrorContains(t, err, "SVC_ARTIFACT_MAX_BYTES", bad)
	}
}

// TestBlobConfig: SVC_BLOB_URL selects the store; the default is a directory below the data directory,
// made absolute so every process of a working directory agrees.
func TestBlobConfig(t *testing.T) {
	t.Parallel()
	cfg, err := FromEnv(func(k string) string { return map[string]string{"SVC_DATA_DIR": "rel-data"}[k] })
	require.NoError(t, err)
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.Equal(t, "file://"+filepath.ToSlash(filepath.Join(wd, "rel-data", "blobs")), cfg.BlobURL)

	dir := t.TempDir()
	cfg, err = FromEnv(func(k string) string { return map[string]string{"SVC_BLOB_URL": "file://" + dir}[k] })
	require.NoError(t, err)
	s, err := cfg.Blobs(context.Background())
	require.NoError(t, err)
	require.Equal(t, dir, s.(*blob.Local).Dir())

	cfg.BlobURL = "ftp://nowhere/x"
	_, err = cfg.Blobs(context.Background())
	require.ErrorContains(t, err, "SVC_BLOB_URL")
}

// TestOldArtifactsMoveIntoTheBlobStore: artifacts an earlier svcd dev kept in DataDir/artifacts move to
// where the default blob store looks for them, once; a configured store leaves them alone.
func TestOldArtifactsMoveIntoTheBlobStore(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "artifacts", "art_1")
	require.NoError(t, os.MkdirAll(filepath.Dir(old), 0o755))
	require.NoError(t, os.WriteFile(old, []byte("kept"), 0o644))

	configured, err := FromEnv(func(k string) string {
		return map[string]string{"SVC_DATA_DIR": dir, "SVC_BLOB_URL": "s3://bucket"}[k]
	})
	require.NoError(t, err)
	require.NoError(t, moveOldArtifacts(configured, io.Discard))
	require.FileExists(t, old, "a configured store leaves the old directory alone")

	cfg, err := FromEnv(func(k string) string { return map[string]string{"SVC_DATA_DIR": dir}[k] })
	require.NoError(t, err)
	require.NoError(t, moveOldArtifacts(cfg, io.Discard))
	got, err := os.ReadFile(filepath.Join(dir, "blobs", "artifacts", "art_1"))
	require.NoError(t, err)
	require.Equal(t, "kept", string(got))
	require.NoDirExists(t, filepath.Join(dir, "artifacts"))
	require.NoError(t, moveOldArtifacts(cfg, io.Discard), "nothing left to move")
}

// TestFileTierConfig: seed 002's storage rules by default; SVC_FILE_LIMITS_<TIER> overrides a tier's
// fields, and a bad value is an error naming its variable.
func TestFileTierConfig(t *testing.T) {
	t.Parallel()
	cfg, err := FromEnv(func(string) string { return "" })
	require.NoError(t, err)
	require.Equal(t, file.DefaultTiers(), cfg.FileTiers)

	cfg, err = FromEnv(func(k string) string {
		return map[string]string{"SVC_FILE_LIMITS_STANDARD": "storage=2GiB, file=20MB", "SVC_FILE_LIMITS_CLUB": "download=1TiB"}[k]
	})
	require.NoError(t, err)
	require.Equal(t, file.Limits{StorageBytes: 2 * file.GiB, FileBytes: 20 * file.MiB, MonthlyDownloadBytes: 10 * file.GiB}, cfg.FileTiers[schema.TierStandard])
	require.Equal(t, file.Limits{StorageBytes: 10 * file.GiB, FileBytes: 50 * file.MiB, MonthlyDownloadBytes: 1 << 40}, cfg.FileTiers[schema.TierClub])

	for _, bad := range []string{"storage=lots", "files=1MiB", "file=0", "storage", "file=2GiB"} {
		_, err = FromEnv(func(k string) string { return map[string]string{"SVC_FILE_LIMITS_STANDARD": bad}[k] })
		require.ErrorContains(t, err, "SVC_FILE_LIMITS_STANDARD", bad)
	}
}

// TestFilePurgeAfterConfig: SVC_FILE_PURGE_AFTER is a positive Go duration, 24 h when unset.
func TestFilePurgeAfterConfig(t *testing.T) {
	t.Parallel()
	cfg, err := FromEnv(func(string) string { return "" })
	require.NoError(t, err)
	require.Equal(t, 24*time.Hour, cfg.FilePurgeAfter)
	cfg, err = FromEnv(func(k string) string { return map[string]string{"SVC_FILE_PURGE_AFTER": "90s"}[k] })
	require.NoError(t, err)
	require.Equal(t, 90*time.Second, cfg.FilePurgeAfter)
	for _, bad := range []string{"0s", "-1h", "24", "soon"} {
		_, err = FromEnv(func(k string) string { return map[string]string{"SVC_FILE_PURGE_AFTER": bad}[k] })
		require.ErrorContains(t, err, "SVC_FILE_PURGE_AFTER", bad)
	}
}

func TestDatabaseConfig(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cfg, err := FromEnv(env(map[string]string{"DATABASE_URL": "postgres://svc@db/svc"}))
	require.NoError(t, err)
	require.Equal(t, "postgres://svc@db/svc", cfg.DatabaseClusterURL, "the cluster defaults to DATABASE_URL")
	require.Equal(t, "svcdb_", cfg.Databases.NamePrefix)
	require.Equal(t, 10*time.Second, cfg.Databases.StatementTimeout)
	require.Equal(t, 60*time.Second, cfg.Databases.IdleInTransactionTimeout)
	require.Equal(t, 10, cfg.Databases.ConnectionLimit)
	require.Equal(t, 4, cfg.Databases.PoolSize)
	cfg, err = FromEnv(env(map[string]string{"DATABASE_URL": "postgres://svc@db/svc", "SVC_DATABASE_CLUSTER_URL": "postgres://admin@tenants/postgres",
		"SVC_DATABASE_NAME_PREFIX": "acme_", "SVC_DATABASE_STATEMENT_TIMEOUT": "2s", "SVC_DATABASE_IDLE_TIMEOUT": "5s",
		"SVC_DATABASE_CONNECTION_LIMIT": "3", "SVC_DATABASE_POOL_SIZE": "1"}))
	require.NoError(t, err)
	require.Equal(t, "postgres://admin@tenants/postgres", cfg.DatabaseClusterURL)
	require.Equal(t, "acme_", cfg.Databases.NamePrefix)
	require.Equal(t, 2*time.Second, cfg.Databases.StatementTimeout)
	require.Equal(t, 5*time.Second, cfg.Databases.IdleInTransactionTimeout)
	require.Equal(t, 3, cfg.Databases.ConnectionLimit)
	require.Equal(t, 1, cfg.Databases.PoolSize)
	for name, bad := range map[string]string{"SVC_DATABASE_POOL_SIZE": "0", "SVC_DATABASE_CONNECTION_LIMIT": "many", "SVC_DATABASE_STATEMENT_TIMEOUT": "10",
		"SVC_DATABASE_NAME_PREFIX": "Bad-Prefix"} {
		_, err = FromEnv(env(map[string]string{name: bad}))
		require.ErrorContains(t, err, name)
	}
	_, err = cfg.DatabaseCluster(nil, nil, nil)
	require.Error(t, err, "a cluster needs the key that seals its passwords")
	cfg.DatabaseClusterURL = "mysql://elsewhere"
	_, err = cfg.DatabaseCluster(nil, nil, nil)
	require.ErrorContains(t, err, "postgres:// URL")
}

// TestCodeProofConfig: the code-proof routes' settings come from their variables.
func TestCodeProofConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{"SVC_CODEPROOF_CLI": "/opt/cp/bin/codeproof", "SVC_CODEPROOF_NODE_URL": "http://127.0.0.1:7717",
		"SVC_CODEPROOF_DIR": "/var/lib/svc/codeproof", "SVC_PROJECTS_FILE": "/var/lib/svc/projects.json"}
	cfg, err := FromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, "/opt/cp/bin/codeproof", cfg.CodeProof.CLI)
	require.Equal(t, "http://127.0.0.1:7717", cfg.CodeProof.NodeURL)
	require.Equal(t, "/var/lib/svc/codeproof", cfg.CodeProof.DataDir)
	require.Equal(t, "/var/lib/svc/projects.json", cfg.ProjectsFile)
}

// TestTemporalUILink: SVC_TEMPORAL_UI_URL (trailing slash dropped) and the namespace make the run links'
// base; without a UI there is none.
func TestTemporalUILink(t *testing.T) {
	t.Parallel()
	cfg, err := FromEnv(func(k string) string {
		return map[string]string{"SVC_TEMPORAL_UI_URL": " https://temporal.example.test/ ", "TEMPORAL_NAMESPACE": "prod"}[k]
	})
	require.NoError(t, err)
	require.Equal(t, "https://temporal.example.test/namespaces/prod", temporalUILink(cfg))
	cfg, err = FromEnv(func(string) string { return "" })
	require.NoError(t, err)
	require.Empty(t, temporalUILink(cfg))
}

// TestWebhooksAllowLoopbackConfig: only SVC_WEBHOOKS_ALLOW_LOOPBACK=1 lets a worker's deliveries reach
// loopback endpoints.
func TestWebhooksAllowLoopbackConfig(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{"": false, "0": false, "yes": false, "1": true} {
		cfg, err := FromEnv(func(k string) string { return map[string]string{"SVC_WEBHOOKS_ALLOW_LOOPBACK": v}[k] })
		require.NoError(t, err)
		require.Equal(t, want, cfg.WebhooksAllowLoopback, "%q", v)
	}
}
