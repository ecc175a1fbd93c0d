package app

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/account"
	"github.com/svcplatform/svc/internal/partner"
	"github.com/svcplatform/svc/internal/testdb"
)

// envOf is a getenv reading only vars: the "second terminal" of these tests has nothing else set.
func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// requireEmptyDir fails unless dir holds nothing (an admin command created no .data, no key).
func requireEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "admin commands create nothing in the working directory")
}

// TestAdminCommandsUseTheRecordedDevSystem runs svcd accounts and svcd migrate as from a second terminal
// in another directory with no DATABASE_URL and no key: they work on the database and key the running
// svcd dev recorded, so the token is valid there, and they create nothing.
func TestAdminCommandsUseTheRecordedDevSystem(t *testing.T) {
	ctx := context.Background()
	db, schemaName := testdb.NewWithSchema(t)
	record := filepath.Join(t.TempDir(), "svc", "dev.json")
	devCfg, err := FromEnv(envOf(map[string]string{"SVC_DATA_DIR": t.TempDir(), DevRecordEnv: record}))
	require.NoError(t, err)
	devBox, err := devCfg.Box(KeyFileOrCreate) // what svcd dev does before it records itself
	require.NoError(t, err)
	require.NoError(t, recordDevSystem(devCfg, testdb.SchemaURL(schemaName), io.Discard))
	info, err := os.Stat(record)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the record may hold a database password")

	elsewhere := t.TempDir()
	t.Chdir(elsewhere)
	cfg, err := FromEnv(envOf(map[string]string{DevRecordEnv: record}))
	require.NoError(t, err)
	created, err := CreateAccount(ctx, cfg, "acme", 5, time.Hour, io.Discard)
	require.NoError(t, err)
	devAccounts := account.New(db, devBox.Derive("credit-token"))
	tok, err := devAccounts.VerifyToken(ctx, created.CreditToken)
	require.NoError(t, err, "the dev system's API accepts the token")
	require.Equal(t, created.AccountID, tok.AccountID)

	again, err := IssueToken(ctx, cfg, created.AccountID, time.Hour, io.Discard)
	require.NoError(t, err)
	_, err = devAccounts.VerifyToken(ctx, again)
	require.NoError(t, err)
	require.NoError(t, SetAccountTier(ctx, cfg, created.AccountID, "club", io.Discard))
	var tier string
	require.NoError(t, db.NewSelect().Table("accounts").Column("tier").Where("id = ?", created.AccountID).Scan(ctx, &tier))
	require.Equal(t, "club", tier)
	require.ErrorContains(t, SetAccountTier(ctx, cfg, "acct_nobody", "club", io.Discard), "no account")
	require.ErrorContains(t, SetAccountTier(ctx, cfg, created.AccountID, "gold", io.Discard), "neither standard nor club")

	ptn, err := CreatePartner(ctx, cfg, created.AccountID, "launchpad", io.Discard)
	require.NoError(t, err)
	_, err = partner.NewStore(db).Authenticate(ctx, ptn.Secret)
	require.NoError(t, err, "the dev system's API accepts the partner key")
	list, err := ListPartners(ctx, cfg, created.AccountID, io.Discard)
	require.NoError(t, err)
	require.Len(t, list, 1)
	revoked, err := RevokePartner(ctx, cfg, ptn.Partner.ID, io.Discard)
	require.NoError(t, err)
	require.NotNil(t, revoked.RevokedAt)
	require.NoError(t, Migrate(ctx, cfg, io.Discard))
	requireEmptyDir(t, elsewhere)
}

// TestAdminCommandsWithoutDevSystem: with no DATABASE_URL and no running svcd dev recorded, admin
// commands fail saying what to do, and create nothing (no database, no .data, no record directory).
func TestAdminCommandsWithoutDevSystem(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	elsewhere := t.TempDir()
	t.Chdir(elsewhere)
	cfg, err := FromEnv(envOf(map[string]string{"HOME": home}))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(home, ".config", "svc", "dev.json"), cfg.DevRecord)

	_, err = CreateAccount(ctx, cfg, "acme", 0, time.Hour, io.Discard)
	requireTellsWhatToDo(t, err, "no running svc dev system found")
	_, err = IssueToken(ctx, cfg, "acct_x", time.Hour, io.Discard)
	requireTellsWhatToDo(t, err, "no running svc dev system found")
	requireTellsWhatToDo(t, Migrate(ctx, cfg, io.Discard), "no running svc dev system found")
	requireTellsWhatToDo(t, SetAccountTier(ctx, cfg, "acct_x", "club", io.Discard), "no running svc dev system found")
	_, err = CreatePartner(ctx, cfg, "acct_x", "p", io.Discard)
	requireTellsWhatToDo(t, err, "no running svc dev system found")
	requireEmptyDir(t, elsewhere)
	requireEmptyDir(t, home)

	// A record left by a svcd dev that was killed is stale: the same advice, naming where it ran.
	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	rec := DevRecord{PID: gone.Process.Pid, Dir: "/src/svc", DatabaseURL: testdb.URL(), KeyFile: "/nowhere"}
	require.NoError(t, writeDevRecord(cfg.DevRecord, rec))
	_, err = CreateAccount(ctx, cfg, "acme", 0, time.Hour, io.Discard)
	requireTellsWhatToDo(t, err, "is no longer running")
	require.ErrorContains(t, err, "/src/svc")
	requireEmptyDir(t, elsewhere)
}

// TestAdminKeyWithExplicitDatabase: DATABASE_URL set in the second terminal takes the recorded key only
// from a running svcd dev on that same database; otherwise it asks for SVC_ENCRYPTION_KEY.
func TestAdminKeyWithExplicitDatabase(t *testing.T) {
	t.Parallel()
	record := filepath.Join(t.TempDir(), "dev.json")
	require.NoError(t, writeDevRecord(record, DevRecord{PID: os.Getpid(), DatabaseURL: "postgres://a/svc", KeyFile: "/k"}))
	same, err := resolveAdmin(Config{DatabaseURL: "postgres://a/svc", DevRecord: record})
	require.NoError(t, err)
	require.Equal(t, "/k", same.keyFile)
	other, err := resolveAdmin(Config{DatabaseURL: "postgres://b/svc", DevRecord: record})
	require.NoError(t, err)
	_, err = other.box()
	require.ErrorContains(t, err, "SVC_ENCRYPTION_KEY is required")
}

func requireTellsWhatToDo(t *testing.T, err error, what string) {
	t.Helper()
	require.ErrorContains(t, err, what)
	require.ErrorContains(t, err, "make run")
	require.ErrorContains(t, err, "DATABASE_URL")
	require.ErrorContains(t, err, "Nothing was created")
}

// TestStaleRecordWithAReusedPid: a record whose pid now belongs to a process started after the record
// was written (svcd dev killed -9, its pid reused) is not trusted; a record of a process started before
// it was written is.
func TestStaleRecordWithAReusedPid(t *testing.T) {
	t.Parallel()
	started, ok := processStart(os.Getpid())
	if !ok {
		t.Skip("no /proc on this system")
	}
	require.WithinDuration(t, time.Now(), started, 10*time.Minute, "this test process started just now")
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.json")
	require.NoError(t, writeDevRecord(stale, DevRecord{PID: os.Getpid(), DatabaseURL: "postgres://a/svc",
		StartedAt: started.Add(-time.Hour)}))
	_, err := runningDevRecord(stale)
	require.ErrorContains(t, err, "is no longer running")

	live := filepath.Join(dir, "live.json")
	require.NoError(t, writeDevRecord(live, DevRecord{PID: os.Getpid(), DatabaseURL: "postgres://a/svc",
		StartedAt: started.Add(time.Second)}))
	rec, err := runningDevRecord(live)
	require.NoError(t, err)
	require.Equal(t, "postgres://a/svc", rec.DatabaseURL)
}
