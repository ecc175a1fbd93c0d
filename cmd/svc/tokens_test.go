package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
)

// TestTokensCommands: without an API key, "svc tokens search" finds a launched, swapped and indexed
// token by symbol prefix and shows its price and 24 h volume in a table (and the API's envelope with
// --json); "svc tokens info" shows its pool and volume; a malformed address is a usage error, another
// chain the API's 400 naming chain.
func TestTokensCommands(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true, NoDatabases: true, FeeCacheTTL: -1})
	ch := feetest.Attach(t, env.Chain)
	keys := ch.Keys(2)
	l := ch.Launch(keys[0], crypto.PubkeyToAddress(keys[0].PublicKey), "Cli Token", "CLITOK")
	ch.Trade(keys[1], l)
	indexer := feeindex.New(env.DB, ch.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID})
	require.NoError(t, indexer.CatchUp(context.Background()))
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL, "SVC_NOT_INTERACTIVE": "1"}
	svc := func(args ...string) result {
		t.Helper()
		return cli(t, vars, "", args...)
	}

	r := svc("tokens", "search", "clit")
	require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "PRICE USD")
	require.Contains(t, r.stdout, "VOLUME 24H")
	require.Contains(t, r.stdout, l.Token.Hex())
	require.Contains(t, r.stdout, "CLITOK")
	require.Contains(t, r.stdout, "1 token(s) on eip155:1337, priced at block")
	require.Regexp(t, `CLITOK\s+Cli Token\s+0x[0-9a-fA-F]{40}\s+launch\s+[0-9.]+\s+[0-9.]+\s+[0-9]+(\.[0-9]{1,2})?\s+[0-9.]+\n`, r.stdout,
		"a row: symbol, name, address, source, prices, volume cut to 2 decimals, its USD")

	r = svc("--json", "tokens", "search", "CLI", "--chain", "1337", "--limit", "5")
	require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	var found client.TokenSearchResult
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &found), r.stdout)
	require.Len(t, found.Tokens, 1)
	require.Equal(t, 2, found.Tokens[0].Volume24h.Swaps)
	require.NotNil(t, found.Tokens[0].PriceUSD)

	r = svc("tokens", "info", l.Token.Hex())
	require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Cli Token (CLITOK) on eip155:1337")
	require.Contains(t, r.stdout, l.Pool.Hex())
	require.Contains(t, r.stdout, "in 2 swap(s)")
	require.Contains(t, r.stdout, *found.Tokens[0].PriceWeth)

	r = svc("tokens", "info", "0x12")
	require.Equal(t, exitUsage, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	r = svc("tokens", "search", "clit", "--chain", "base")
	require.Equal(t, exitAPI, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.True(t, strings.Contains(r.stderr, "chain") && strings.Contains(r.stderr, "eip155:1337"), r.stderr)
}
