package trading

import (
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// TestReadTokensFile: a token list reads its symbols, addresses and decimals, and refuses an entry without
// an address, with ETH's symbol, or with impossible decimals, naming the entry.
func TestReadTokensFile(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "tokens.json")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	tokens, err := ReadTokensFile(write(`[{"symbol":"WETH","address":"0x4200000000000000000000000000000000000006","decimals":18}]`))
	require.NoError(t, err)
	require.Equal(t, []Token{{Symbol: "WETH", Address: common.HexToAddress("0x4200000000000000000000000000000000000006"), Decimals: 18}}, tokens)
	for _, bad := range []string{`[{"symbol":"X","address":"nope","decimals":18}]`, `[{"symbol":"eth","address":"0x4200000000000000000000000000000000000006","decimals":18}]`,
		`[{"symbol":"X","address":"0x4200000000000000000000000000000000000006","decimals":99}]`, `{}`} {
		_, err := ReadTokensFile(write(bad))
		require.Error(t, err, bad)
	}
}

// TestLookup: symbols match in any case, addresses match, ETH is the native asset at WETH's address.
func TestLookup(t *testing.T) {
	weth, usdc := common.HexToAddress("0x01"), common.HexToAddress("0x02")
	cfg := Config{WETH: weth, Tokens: []Token{{Symbol: "WETH", Address: weth, Decimals: 18}, {Symbol: "USDC", Address: usdc, Decimals: 6}}}
	eth, ok := cfg.Lookup("eth")
	require.True(t, ok)
	require.True(t, eth.Native)
	require.Equal(t, weth, eth.Address)
	got, ok := cfg.Lookup(usdc.Hex())
	require.True(t, ok)
	require.Equal(t, "USDC", got.Symbol)
	_, ok = cfg.Lookup("DOGE")
	require.False(t, ok)
}

// TestBound: the minimum received rounds down, the maximum paid rounds up.
func TestBound(t *testing.T) {
	require.Equal(t, big.NewInt(994), bound(client.AmountExactIn, big.NewInt(1), big.NewInt(999), 50))
	require.Equal(t, big.NewInt(1005), bound(client.AmountExactOut, big.NewInt(1000), big.NewInt(1), 50))
	require.Equal(t, big.NewInt(2), bound(client.AmountExactOut, big.NewInt(1), big.NewInt(1), 50))
}
