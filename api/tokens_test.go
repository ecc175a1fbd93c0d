package api_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeindex"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/wallet"
)

// tokenEnv is a platform on a dev chain with a fee indexer, for the public token reads.
type tokenEnv struct {
	t       *testing.T
	env     *apptest.Env
	chain   *feetest.Env
	indexer *feeindex.Indexer
}

func newTokenEnv(t *testing.T) *tokenEnv {
	t.Helper()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true, NoDatabases: true, FeeCacheTTL: -1})
	ch := feetest.Attach(t, env.Chain)
	return &tokenEnv{t: t, env: env, chain: ch,
		indexer: feeindex.New(env.DB, ch.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID})}
}

// get reads path (no key); a 200 is decoded into out.
func (e *tokenEnv) get(path string, out any) *apptest.Response {
	e.t.Helper()
	r := e.env.Do(e.t, apptest.Req{Method: http.MethodGet, Path: path})
	if r.Status == http.StatusOK && out != nil {
		require.NoError(e.t, json.Unmarshal(r.Raw, out))
	}
	return r
}

// search answers GET /public/tokens/search?q=query, requiring a 200.
func (e *tokenEnv) search(query string) client.TokenSearchResult {
	e.t.Helper()
	var res client.TokenSearchResult
	r := e.get("/public/tokens/search?q="+url.QueryEscape(query), &res)
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Raw)
	return res
}

// requireRefused requires a 400 (or 404) naming param (when not "") whose message contains each of words.
func requireRefused(t *testing.T, r *apptest.Response, status int, param string, words ...string) {
	t.Helper()
	require.Equal(t, status, r.Status, "%s", r.Raw)
	e, _ := r.Body["error"].(map[string]any)
	if param != "" {
		require.Equal(t, param, e["param"], "%s", r.Raw)
	}
	for _, w := range words {
		require.Contains(t, e["message"], w, "%s", r.Raw)
	}
}

// positive requires a decimal string above zero.
func positive(t *testing.T, what string, s *string) {
	t.Helper()
	require.NotNil(t, s, what)
	v, ok := new(big.Rat).SetString(*s)
	require.True(t, ok, "%s: %q", what, *s)
	require.Positive(t, v.Sign(), "%s: %q", what, *s)
}

// TestPublicTokenReadsOnTheDevChain: a launched token, swapped both ways and indexed, is found by its
// symbol prefix (any case) and by its name, priced above zero at a stated block, with a 24 h volume that
// is exactly what its Swap events traded; its info by address is the same token; the trading list's dev
// USDC is found (priced 1 USD through the WETH/USDC pair); an unknown address is 404, a malformed one,
// another chain, a bad limit and an empty query are 400 naming the field.
func TestPublicTokenReadsOnTheDevChain(t *testing.T) {
	t.Parallel()
	e := newTokenEnv(t)
	keys := e.chain.Keys(2)
	creatorKey, traderKey := keys[0], keys[1]
	creator := crypto.PubkeyToAddress(creatorKey.PublicKey)
	l := e.chain.Launch(creatorKey, creator, "Zebra Token", "ZEBRA")
	newer := e.chain.Launch(creatorKey, creator, "Zebra Crossing", "ZEBRAX")
	_, traded := e.chain.TradeVolume(traderKey, l)
	require.NoError(t, e.indexer.CatchUp(context.Background()))

	// By symbol prefix, any case: newest first, but an exact symbol before the other prefix matches.
	res := e.search("zeb")
	require.True(t, res.OK)
	require.Equal(t, devchain.Network, res.Chain)
	require.Len(t, res.Tokens, 2, "%+v", res.Tokens)
	got := res.Tokens[0]
	require.Equal(t, newer.Token.Hex(), got.Address, "newest first")
	require.NotNil(t, got.Volume24h)
	require.Equal(t, 0, got.Volume24h.Swaps, "the newer token was never swapped")
	require.Equal(t, "0", got.Volume24h.Token)
	exact := e.search("ZEBRA")
	require.Len(t, exact.Tokens, 2)
	got = exact.Tokens[0]
	require.Equal(t, l.Token.Hex(), got.Address, "the exact symbol sorts first")
	require.Equal(t, "Zebra Token", got.Name)
	require.Equal(t, "ZEBRA", got.Symbol)
	require.Equal(t, client.TokenSourceLaunch, got.Source)
	require.Equal(t, int64(devchain.ChainID), got.ChainID)
	require.Equal(t, 18, got.Decimals)
	require.Equal(t, common.Hash(l.PoolID).Hex(), *got.PoolID)
	require.Equal(t, l.Pool.Hex(), *got.PoolAddress)
	require.Equal(t, creator.Hex(), *got.Creator)
	require.Equal(t, creator.Hex(), *got.FeeRecipient)
	require.NotNil(t, got.LaunchedAt)
	require.Positive(t, got.AsOfBlock)
	positive(t, "priceWeth", got.PriceWeth)
	positive(t, "priceUsd", got.PriceUSD)

	// The volume: exactly the swaps' traded amounts, on the token's side and on WETH's.
	side := 0
	if l.Token1 == l.Token {
		side = 1
	}
	v := got.Volume24h
	require.NotNil(t, v)
	require.Equal(t, 2, v.Swaps)
	require.Equal(t, wallet.FormatUnits(traded[side], 18), v.Token)
	require.Equal(t, wallet.FormatUnits(traded[1-side], 18), v.Weth)
	positive(t, "volume24h.usd", v.USD)
	require.GreaterOrEqual(t, v.IndexedTo, int64(l.Receipt.BlockNumber.Int64()))

	// By name prefix, and by address (lower case): the same token.
	byName := e.search("zebra tok")
	require.Len(t, byName.Tokens, 1)
	require.Equal(t, l.Token.Hex(), byName.Tokens[0].Address)
	byAddress := e.search(strings.ToLower(l.Token.Hex()))
	require.Len(t, byAddress.Tokens, 1)
	require.Equal(t, l.Token.Hex(), byAddress.Tokens[0].Address)

	// Info by address: the search's token, on the chain by id or by name.
	for _, chain := range []string{"", "1337", "eip155:1337", "dev"} {
		var info client.TokenEnvelope
		r := e.get("/public/tokens/"+l.Token.Hex()+"?chain="+url.QueryEscape(chain), &info)
		require.Equal(t, http.StatusOK, r.Status, "chain %q: %s", chain, r.Raw)
		require.Equal(t, got.Address, info.Token.Address)
		require.Equal(t, got.PoolAddress, info.Token.PoolAddress)
		require.Equal(t, got.Volume24h.Token, info.Token.Volume24h.Token)
		require.Equal(t, got.PriceWeth, info.Token.PriceWeth, "no swap since: the same mid price")
	}

	// The trading list: dev USDC by symbol and by address, priced through the WETH/USDC pair.
	usdc := e.search("usd")
	require.NotEmpty(t, usdc.Tokens)
	require.Equal(t, devchain.USDCAddress.Hex(), usdc.Tokens[0].Address)
	require.Equal(t, client.TokenSourceTrading, usdc.Tokens[0].Source)
	require.Equal(t, 6, usdc.Tokens[0].Decimals)
	require.Equal(t, "1", *usdc.Tokens[0].PriceUSD, "USDC priced in USD through ether's own USDC pair")
	positive(t, "USDC priceWeth", usdc.Tokens[0].PriceWeth)
	require.Nil(t, usdc.Tokens[0].Volume24h, "the trading list's pools are not indexed")
	var info client.TokenEnvelope
	r := e.get("/public/tokens/"+strings.ToLower(devchain.USDCAddress.Hex()), &info)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(t, "USDC", info.Token.Symbol)
	require.NotNil(t, info.Token.PoolAddress)

	// Refusals.
	unknown := common.HexToAddress("0x00000000000000000000000000000000000000ab").Hex()
	requireRefused(t, e.get("/public/tokens/"+unknown, nil), http.StatusNotFound, "", unknown, "not")
	requireRefused(t, e.get("/public/tokens/0x1234", nil), http.StatusBadRequest, "address", "address")
	requireRefused(t, e.get("/public/tokens/"+l.Token.Hex()+"?chain=8453", nil), http.StatusBadRequest, "chain", "eip155:1337")
	requireRefused(t, e.get("/public/tokens/search?q=zeb&chain=base", nil), http.StatusBadRequest, "chain", "eip155:1337")
	requireRefused(t, e.get("/public/tokens/search?q=zeb&limit=51", nil), http.StatusBadRequest, "limit", "50")
	requireRefused(t, e.get("/public/tokens/search?q=zeb&limit=0", nil), http.StatusBadRequest, "limit")
	requireRefused(t, e.get("/public/tokens/search?q=", nil), http.StatusBadRequest, "q")
	none := e.search("nothing-like-this")
	require.Empty(t, none.Tokens)
}

// TestAppScriptReadsTokenInfo: an app whose manifest declares read:tokens reads a launched token's info
// with svc.tokens.info through the in-process worker (its price and 24 h volume included); an app without
// the permission is refused, naming it.
func TestAppScriptReadsTokenInfo(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoDatabases: true, FeeCacheTTL: -1})
	ch := feetest.Attach(t, env.Chain)
	keys := ch.Keys(2)
	creator := crypto.PubkeyToAddress(keys[0].PublicKey)
	l := ch.Launch(keys[0], creator, "Script Token", "SCRPT")
	ch.Trade(keys[1], l)
	indexer := feeindex.New(env.DB, ch.Client, feeindex.Options{Manager: devchain.FeesManagerAddress, ChainID: devchain.ChainID})
	require.NoError(t, indexer.CatchUp(context.Background()))

	owner := newArtifactAccount(t, env)
	script := "const t = svc.tokens.info(\"" + l.Token.Hex() + "\");\n" +
		"return { address: t.address, symbol: t.symbol, source: t.source, price: t.priceWeth, swaps: t.volume24h.swaps };\n"
	for slug, perms := range map[string]string{"tokens": `["read:tokens"]`, "notokens": `["read:appdata"]`} {
		created := createJSONApp(t, env, owner.secret, slug, map[string]string{
			"manifest.json":   `{"slug":"` + slug + `","title":"Tokens","permissions":` + perms + `,"scripts":["info"]}`,
			"index.html":      "<!doctype html><p>tokens</p>",
			"scripts/info.ts": script,
		})
		require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	}

	status, run, raw := runScript(t, env, owner.secret, "tokens", "info", "tokens-1")
	require.Equal(t, http.StatusOK, status, raw)
	require.Equal(t, "succeeded", run["status"], raw)
	result := run["result"].(map[string]any)
	require.Equal(t, l.Token.Hex(), result["address"], raw)
	require.Equal(t, "SCRPT", result["symbol"], raw)
	require.Equal(t, client.TokenSourceLaunch, result["source"], raw)
	price, _ := result["price"].(string)
	positive(t, "the script's priceWeth", &price)
	require.EqualValues(t, 2, result["swaps"], raw)

	status, refused, raw := runScript(t, env, owner.secret, "notokens", "info", "tokens-2")
	require.Equal(t, http.StatusOK, status, raw)
	require.Equal(t, "failed", refused["status"], raw)
	require.Contains(t, refused["error"], "read:tokens", raw)
}
