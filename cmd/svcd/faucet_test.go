package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/internal/devchain"
)

// noEnv is a getenv with nothing set.
func noEnv(string) string { return "" }

func TestFaucetFlagsAreValidated(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		args []string
		flag string
	}{
		"bad address":    {[]string{"--to", "0x1234", "--usdc", "5"}, "--to"},
		"not hex":        {[]string{"--to", "treasury", "--usdc", "5"}, "--to"},
		"missing to":     {[]string{"--usdc", "5"}, "--to"},
		"missing usdc":   {[]string{"--to", devchain.PayTo.Hex()}, "--usdc"},
		"zero usdc":      {[]string{"--to", devchain.PayTo.Hex(), "--usdc", "0"}, "--usdc"},
		"too precise":    {[]string{"--to", devchain.PayTo.Hex(), "--usdc", "1.0000001"}, "--usdc"},
		"negative eth":   {[]string{"--to", devchain.PayTo.Hex(), "--usdc", "1", "--eth", "-1"}, "--eth"},
		"unknown flag":   {[]string{"--to", devchain.PayTo.Hex(), "--usdc", "1", "--wei", "1"}, "-wei"},
		"stray argument": {[]string{"--to", devchain.PayTo.Hex(), "--usdc", "1", "extra"}, "extra"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseFaucetArgs(tc.args, noEnv, io.Discard)
			var ue usageError
			require.True(t, errors.As(err, &ue), "want a usage error, got %v", err)
			require.ErrorContains(t, err, tc.flag)
		})
	}
}

func TestFaucetDefaults(t *testing.T) {
	t.Parallel()
	req, err := parseFaucetArgs([]string{"--to", devchain.PayTo.Hex(), "--usdc", "25.5"}, noEnv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, devchain.PayTo, req.to)
	require.Equal(t, big.NewInt(25_500_000), req.usdc)
	require.Equal(t, big.NewInt(1e18), req.eth)
	require.Equal(t, "http://127.0.0.1:8545", req.rpc)

	env := func(k string) string {
		if k == "SVC_CHAIN_RPC_URL" {
			return "http://chain.test:9545"
		}
		return ""
	}
	req, err = parseFaucetArgs([]string{"--to", devchain.PayTo.Hex(), "--usdc", "1"}, env, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "http://chain.test:9545", req.rpc)
}

// TestFaucetFindsTheRunningDevChain: without SVC_CHAIN_RPC_URL the faucet pays on the chain of the running
// svcd dev that recorded itself (which may listen elsewhere than the default).
func TestFaucetFindsTheRunningDevChain(t *testing.T) {
	t.Parallel()
	record := filepath.Join(t.TempDir(), "dev.json")
	rec := fmt.Sprintf(`{"pid":%d,"chainRpcUrl":"http://127.0.0.1:18545"}`, os.Getpid())
	require.NoError(t, os.WriteFile(record, []byte(rec), 0o600))
	env := func(k string) string { return map[string]string{app.DevRecordEnv: record}[k] }
	req, err := parseFaucetArgs([]string{"--to", devchain.PayTo.Hex(), "--usdc", "1"}, env, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "http://127.0.0.1:18545", req.rpc)
}

func TestDevFaucetFundsAnAddress(t *testing.T) {
	t.Parallel()
	chain, err := devchain.Start(t.Context(), devchain.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, chain.Close()) })
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")

	var out bytes.Buffer
	args := []string{"dev", "faucet", "--to", to.Hex(), "--usdc", "7.25", "--eth", "0", "--rpc", chain.RPCURL()}
	require.NoError(t, dispatch(t.Context(), app.Config{}, args, &out, io.Discard))
	var got map[string]string
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.Equal(t, to.Hex(), got["to"])
	require.Equal(t, "7.25", got["usdc"])
	require.Equal(t, "0", got["eth"])
	require.NotEmpty(t, got["usdcTx"])
	require.Empty(t, got["ethTx"])
	require.Len(t, got, 5)
}
