package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLaunchAsksForItsName: seed 002 makes launch's --name required only headless. On a terminal a
// missing name and fee recipient are asked for (the symbol is then made from the name); an empty answer,
// no terminal or --not-interactive is a usage error naming the flag, and nothing is sent.
func TestLaunchAsksForItsName(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	getenv := func(k string) string { return env[k] }
	const fee = "0x00000000000000000000000000000000000c0ffe"
	args := []string{"launch", "--fee-type", "wallet", "--simulate"}

	master, tty := openPTY(t)
	_, err := master.Write([]byte("Prompted Coin\n" + fee + "\n"))
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	code := run(args, tty, &out, &errOut, getenv)
	require.Equal(t, exitOK, code, "%s", errOut.String())
	require.Contains(t, errOut.String(), "Token name: ")
	require.Contains(t, errOut.String(), "Fee recipient (wallet; empty: the deploying wallet): ")
	require.Regexp(t, `Name:\s+Prompted Coin`, out.String())
	require.Regexp(t, `Symbol:\s+PC\n`, out.String(), "the symbol is made from the entered name")
	require.Regexp(t, `Fee recipient:\s+wallet `+fee, out.String())

	// An empty name is refused on the terminal too.
	master, tty = openPTY(t)
	_, err = master.Write([]byte("\n"))
	require.NoError(t, err)
	out.Reset()
	errOut.Reset()
	require.Equal(t, exitUsage, run(args, tty, &out, &errOut, getenv))
	require.Contains(t, errOut.String(), "--name is required")

	// --not-interactive never asks: the required name fails fast.
	_, tty = openPTY(t)
	out.Reset()
	errOut.Reset()
	require.Equal(t, exitUsage, run(append(args, "--not-interactive"), tty, &out, &errOut, getenv))
	require.NotContains(t, errOut.String(), "Token name: ")
	require.Contains(t, errOut.String(), "--name is required")
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Empty(t, f.requests, "nothing was sent")
}
