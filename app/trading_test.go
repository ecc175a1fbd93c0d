package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/devchain"
)

// TestTradingConfig: unset, trading is the dev chain's router with ETH, WETH, USDC and DEV; a router needs
// a token list that names its WETH; bad values name their variable.
func TestTradingConfig(t *testing.T) {
	t.Parallel()
	dev, err := TradingConfig{}.Trading()
	require.NoError(t, err)
	require.Equal(t, devchain.UniswapRouterAddress, dev.Router)
	devToken, ok := dev.Lookup("dev")
	require.True(t, ok)
	require.Equal(t, devchain.DevTokenAddress, devToken.Address)

	file := filepath.Join(t.TempDir(), "tokens.json")
	weth := "0x4200000000000000000000000000000000000006"
	require.NoError(t, os.WriteFile(file, []byte(`[{"symbol":"WETH","address":"`+weth+`","decimals":18}]`), 0o600))
	router := "0x4752ba5dbc23f44d87826276bf6fd6b1c372ad24"
	got, err := FromEnv(func(k string) string {
		return map[string]string{"SVC_TRADING_ROUTER": router, "SVC_TRADING_TOKENS_FILE": file}[k]
	})
	require.NoError(t, err)
	tc := tradingOf(got.Trading)
	require.Equal(t, common.HexToAddress(router), tc.Router)
	require.Equal(t, common.HexToAddress(weth), tc.WETH)

	for env, want := range map[string]string{"SVC_TRADING_ROUTER=nope": "SVC_TRADING_ROUTER", "SVC_TRADING_ROUTER=" + router: "SVC_TRADING_TOKENS_FILE",
		"SVC_TRADING_TOKENS_FILE=" + file: "SVC_TRADING_TOKENS_FILE"} {
		k, v, _ := strings.Cut(env, "=")
		_, err := FromEnv(func(name string) string { return map[string]string{k: v}[name] })
		require.ErrorContains(t, err, want, env)
	}
}
