package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/testterm"
)

// screenWait bounds each wait for text on a tmux screen.
const screenWait = 30 * time.Second

var (
	svcBinOnce sync.Once
	svcBinPath string
	svcBinErr  error
)

// svcBinary builds this package's svc once per test process and returns its path.
func svcBinary(t *testing.T) string {
	t.Helper()
	svcBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "svc-bin-")
		if err != nil {
			svcBinErr = err
			return
		}
		svcBinPath = filepath.Join(dir, "svc")
		out, err := exec.Command("go", "build", "-o", svcBinPath, ".").CombinedOutput()
		if err != nil {
			svcBinErr = &buildError{err: err, out: string(out)}
		}
	})
	require.NoError(t, svcBinErr)
	return svcBinPath
}

// buildError is a failed go build with its output.
type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// TestTerminalLoginMenu: "svc login" on a terminal shows the menu; choosing the API key asks for it
// without showing it, logs in and saves the config with mode 0600.
func TestTerminalLoginMenu(t *testing.T) {
	t.Parallel()
	testterm.Require(t, "svc login's menu")
	f := newFakeAPI(t)
	env := testEnv(t, f)
	s := testterm.Start(t, env, svcBinary(t), "login")
	screen := s.WaitFor("Choice [1-3]:", screenWait)
	for _, item := range []string{"1) Email one-time code", "2) API key", "3) Sign in with Ethereum"} {
		require.Contains(t, screen, item)
	}
	s.Line("2")
	s.WaitFor("API key (not shown):", screenWait)
	s.Line(goodKey)
	screen = s.WaitFor("Credentials saved to", screenWait)
	require.Contains(t, screen, "Logged in to "+f.srv.URL+"/v1 with key "+goodKey[:13]+"…")
	require.NotContains(t, screen, goodKey, "the typed key is not echoed")
	require.Equal(t, exitOK, s.WaitExit(screenWait))
	c, fi := readConfig(t, env)
	require.Equal(t, goodKey, c.APIKey)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

// TestTerminalConfirmation: "svc wallets send" asks before sending; "n" sends nothing. With --ni the
// question is skipped and the send goes through as if confirmed.
func TestTerminalConfirmation(t *testing.T) {
	t.Parallel()
	testterm.Require(t, "svc wallets send's confirmation")
	f := newFakeWalletTxAPI(t, "confirmed")
	env := testEnv(t, nil)
	env["SVC_API_KEY"], env["SVC_BASE_URL"] = "svc_sk_unused", f.url
	args := []string{svcBinary(t), "wallets", "send", "wal_1", "--to", fakeTo, "--amount", "5", "--asset", "usdc", "--interval", "10ms"}

	s := testterm.Start(t, env, args...)
	screen := s.WaitFor("[y/N]", screenWait)
	require.Contains(t, screen, "Send 5 USDC (5.00 USD) to "+fakeTo+"?")
	s.Line("n")
	s.WaitFor("Not sent.", screenWait)
	require.Equal(t, exitAPI, s.WaitExit(screenWait))
	require.Zero(t, f.sends(), "answering n sends nothing")

	s = testterm.Start(t, env, append(args, "--ni")...)
	s.WaitFor("confirmed", screenWait)
	require.Equal(t, exitOK, s.WaitExit(screenWait))
	screen = s.Screen()
	require.Contains(t, screen, "--not-interactive: the confirmation is skipped")
	require.NotContains(t, screen, "[y/N]")
	require.Equal(t, 1, f.sends())
}
