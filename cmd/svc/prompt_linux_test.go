package main

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// openPTY opens a pseudo-terminal pair, or skips the test where there is none.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlock the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("name the pseudo-terminal: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return m, s
}

// TestConnectionSecretPrompt enters the secret at the terminal prompt: it is sent, and neither stdout
// nor stderr (which shows the prompt) carries it.
func TestConnectionSecretPrompt(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	getenv := func(k string) string { return env[k] }

	for _, args := range [][]string{
		{"connections", "create", "--name", "n", "--auth-type", "bearer"},
		{"connections", "rotate", "conn_1", "--json"},
	} {
		master, tty := openPTY(t)
		_, err := master.Write([]byte(upstreamSecret + "\n"))
		require.NoError(t, err)
		var out, errOut bytes.Buffer
		code := run(args, tty, &out, &errOut, getenv)
		r := result{code: code, stdout: out.String(), stderr: errOut.String()}
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.stderr)
		require.Contains(t, r.stderr, "Secret (not shown): ", args)
		requireNoSecret(t, r, args)
		body, _ := f.last()
		require.Equal(t, upstreamSecret, body["secret"], args)
	}

	// An empty entry is refused before any request; --not-interactive never prompts.
	master, tty := openPTY(t)
	_, err := master.Write([]byte("\n"))
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	countRequests := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.requests)
	}
	n := countRequests()
	code := run([]string{"connections", "rotate", "conn_1"}, tty, &out, &errOut, getenv)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut.String(), "no secret entered")
	out.Reset()
	errOut.Reset()
	code = run([]string{"connections", "rotate", "conn_1", "--not-interactive"}, tty, &out, &errOut, getenv)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut.String(), "--secret-stdin")
	require.NotContains(t, errOut.String(), "Secret (not shown)")
	require.Equal(t, n, countRequests(), "nothing is sent")
}

// TestDevNullIsNoTerminal: stdin redirected from /dev/null (a character device) is not a terminal, so
// the CLI never prompts on it; a pseudo-terminal is one.
func TestDevNullIsNoTerminal(t *testing.T) {
	t.Parallel()
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	t.Cleanup(func() { _ = null.Close() })
	require.False(t, isTerminal(null))
	_, tty := openPTY(t)
	require.True(t, isTerminal(tty))
}
