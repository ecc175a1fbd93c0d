package tokeninfo_test

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/internal/tokeninfo"
	"github.com/svcplatform/svc/internal/trading"
)

// TestVolumeWindowAndListedLaunchedToken: a launched token's swaps count in the 24 h volume only while
// they are younger than 24 hours; a launched token that is also on the trading list is answered once, as
// launched, before the other launched tokens; a percent sign in a query matches only itself.
func TestVolumeWindowAndListedLaunchedToken(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	e := feetest.Start(t)
	keys := e.Keys(2)
	creator := crypto.PubkeyToAddress(keys[0].PublicKey)
	listed := e.Launch(keys[0], creator, "Window Token", "WIN")
	e.Launch(keys[0], creator, "Window Two", "WIN2")
	e.Trade(keys[1], listed)
	require.NoError(t, feeindex.New(db, e.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID}).
		CatchUp(context.Background()))

	cfg := trading.Config{Router: devchain.UniswapRouterAddress, WETH: devchain.WETHAddress, USDC: devchain.USDCAddress,
		Tokens: []trading.Token{{Symbol: "WIN", Address: listed.Token, Decimals: 18}, {Symbol: "USDC", Address: devchain.USDCAddress, Decimals: 6}}}
	at := func(now time.Time) *tokeninfo.Service {
		return tokeninfo.New(db, e.Client, tokeninfo.Options{ChainID: devchain.ChainID, Manager: devchain.FeesManagerAddress, Trading: cfg,
			Now: func() time.Time { return now }})
	}
	ctx := context.Background()

	found, err := at(time.Now()).Search(ctx, "win", "", 0)
	require.NoError(t, err)
	require.Len(t, found, 2, "the listed launched token once: %+v", found)
	require.Equal(t, listed.Token.Hex(), found[0].Address, "listed first, although older")
	require.Equal(t, client.TokenSourceLaunch, found[0].Source)
	require.Equal(t, 2, found[0].Volume24h.Swaps)

	later, err := at(time.Now().Add(tokeninfo.VolumeWindow+time.Hour)).Info(ctx, listed.Token.Hex(), "eip155:1337")
	require.NoError(t, err)
	require.Equal(t, 0, later.Volume24h.Swaps, "a day later the swaps are out of the window")
	require.Equal(t, "0", later.Volume24h.Token)
	require.NotNil(t, later.PriceWeth, "the price does not depend on the window")

	one, err := at(time.Now()).Search(ctx, "win", "", 1)
	require.NoError(t, err)
	require.Len(t, one, 1, "the limit bounds the answer")
	wild, err := at(time.Now()).Search(ctx, "%", "", 0)
	require.NoError(t, err)
	require.Empty(t, wild, "LIKE's wildcards are escaped")
}
