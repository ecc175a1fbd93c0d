package api_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/handles"
	"github.com/svcplatform/svc/internal/ids"
	launchsvc "github.com/svcplatform/svc/internal/launch"
	"github.com/svcplatform/svc/internal/partner"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/sponsor"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// waitLaunch polls GET /v1/token-launches/{id} until the launch has left deploying.
func waitLaunch(t *testing.T, c *client.Client, id string) client.TokenLaunch {
	t.Helper()
	var last client.TokenLaunch
	require.Eventually(t, func() bool {
		r := c.TokenLaunch(context.Background(), id)
		require.True(t, r.OK, "%v", r.Error)
		last = r.Body.Launch
		return last.Status != client.LaunchDeploying
	}, 90*time.Second, 100*time.Millisecond, "launch %s never ended (last %+v)", id, last)
	return last
}

// ethCall calls to with data on the dev chain.
func ethCall(t *testing.T, rpc *ethclient.Client, to common.Address, data []byte) []byte {
	t.Helper()
	out, err := rpc.CallContract(context.Background(), ethereum.CallMsg{To: &to, Data: data}, nil)
	require.NoError(t, err)
	return out
}

// checkLaunchedToken: the launch's token has its name, symbol and fixed supply, and the creator holds
// 57 % of the pool's fee shares.
func checkLaunchedToken(t *testing.T, rpc *ethclient.Client, l client.TokenLaunch, name, symbol string, creator common.Address) {
	t.Helper()
	require.Equal(t, client.LaunchDeployed, l.Status, "%+v", l.Error)
	require.True(t, common.IsHexAddress(l.TokenAddress), "%+v", l)
	require.Equal(t, devchain.FeesManagerAddress.Hex(), l.Initializer)
	require.NotEmpty(t, l.TransactionHash)
	tok, fm := launch.NewLaunchToken(), launch.NewFeesManager()
	addr := common.HexToAddress(l.TokenAddress)
	gotName, err := tok.UnpackName(ethCall(t, rpc, addr, tok.PackName()))
	require.NoError(t, err)
	require.Equal(t, name, gotName)
	gotSymbol, err := tok.UnpackSymbol(ethCall(t, rpc, addr, tok.PackSymbol()))
	require.NoError(t, err)
	require.Equal(t, symbol, gotSymbol)
	supply, err := tok.UnpackTotalSupply(ethCall(t, rpc, addr, tok.PackTotalSupply()))
	require.NoError(t, err)
	require.Equal(t, new(big.Int).Mul(big.NewInt(100_000_000_000), big.NewInt(1e18)).String(), supply.String())
	shares, err := fm.UnpackGetShares(ethCall(t, rpc, devchain.FeesManagerAddress, fm.PackGetShares(common.HexToHash(l.PoolID), creator)))
	require.NoError(t, err)
	require.Equal(t, "570000000000000000", shares.String())
}

// TestTokenLaunches: POST /token-launches/deploy launches a token from the caller's managed wallet on the
// dev chain, its gas sponsored, with a wallet fee recipient, an X handle the resolver knows, and a
// partner key (the account's first wallet deploys); the token has its name, symbol and supply and the
// creator 57 % of the fee shares; a launch's image, tweet and website are kept and shown by its record and
// the public list (left out, the list shows none of their fields); GET /token-launches lists seed 002's
// launch records newest first; bad input names its field (a file path, a data: URI, a URL too long, not
// http(s) or with a password); the daily deploys and sponsored transactions are 429 naming their limit; a
// policy that disables contract calls refuses, naming its rule, and records nothing; a key without
// managed-wallets is 403; another account cannot read the launch.
func TestTokenLaunches(t *testing.T) {
	t.Parallel()
	aliceKey, err := crypto.GenerateKey()
	require.NoError(t, err)
	alice := crypto.PubkeyToAddress(aliceKey.PublicKey)
	creator := common.HexToAddress("0x00000000000000000000000000000000000c0ffe")
	file := filepath.Join(t.TempDir(), "handles.yaml")
	require.NoError(t, os.WriteFile(file, []byte("x:\n  alice: \""+alice.Hex()+"\"\n"), 0o600))
	env := apptest.NewWith(t, apptest.Options{Chain: true, HandleFile: file})
	tenant, other := newDatabaseAccount(t, env), newDatabaseAccount(t, env)
	c, co := sdkFor(env, tenant), sdkFor(env, other)
	ctx := context.Background()
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)

	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "launcher"}).Body.Wallet
	fund := func(addr string, eth float64) {
		r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": addr, "usdc": 0, "eth": eth}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	}
	fund(w.Address, 0.01) // the seed liquidity only: the gas is sponsored

	for _, tc := range []struct {
		r     client.TokenLaunchRequest
		param string
	}{
		{client.TokenLaunchRequest{TokenName: "Coin", TokenSymbol: "TOOLONGSYMB", FeeRecipient: client.FeeRecipient{Type: "wallet", Value: creator.Hex()}}, "tokenSymbol"},
		{client.TokenLaunchRequest{TokenName: "Coin", TokenSymbol: "A B", FeeRecipient: client.FeeRecipient{Type: "wallet", Value: creator.Hex()}}, "tokenSymbol"},
		{client.TokenLaunchRequest{TokenName: "  ", TokenSymbol: "AB", FeeRecipient: client.FeeRecipient{Type: "wallet", Value: creator.Hex()}}, "tokenName"},
		{client.TokenLaunchRequest{TokenName: "Coin", TokenSymbol: "AB", FeeRecipient: client.FeeRecipient{Type: "wallet", Value: "0x12"}}, "feeRecipient.value"},
		{client.TokenLaunchRequest{TokenName: "Coin", TokenSymbol: "AB", FeeRecipient: client.FeeRecipient{Type: "x", Value: "nobody"}}, "feeRecipient.value"},
		{client.TokenLaunchRequest{TokenName: "Coin", TokenSymbol: "AB", FeeRecipient: client.FeeRecipient{Type: "ens", Value: "nobody.eth"}}, "feeRecipient.value"},
		{metaLaunch(creator, client.LaunchMetadata{Image: "/home/me/logo.png"}), "image"},
		{metaLaunch(creator, client.LaunchMetadata{Image: "data:image/png;base64,iVBORw0KGgo="}), "image"},
		{metaLaunch(creator, client.LaunchMetadata{Image: "https://" + strings.Repeat("a", 2048) + ".png"}), "image"},
		{metaLaunch(creator, client.LaunchMetadata{Tweet: "javascript:alert(1)"}), "tweet"},
		{metaLaunch(creator, client.LaunchMetadata{Tweet: "x.com/alice/status/1"}), "tweet"},
		{metaLaunch(creator, client.LaunchMetadata{Website: "ftp://example.com/"}), "website"},
		{metaLaunch(creator, client.LaunchMetadata{Website: "https://me:secret@example.com/"}), "website"},
	} {
		r := c.DeployToken(ctx, tc.r)
		require.Equal(t, http.StatusBadRequest, r.StatusCode, "%+v: %s", tc.r, r.Raw)
		require.Equal(t, tc.param, r.Error.Param, "%s", r.Raw)
	}

	meta := client.LaunchMetadata{Image: "https://example.com/first.png", Tweet: "https://x.com/first/status/1",
		Website: "http://first.example"}
	first := c.DeployToken(ctx, metaLaunch(creator, meta))
	require.True(t, first.OK, "%v", first.Error)
	require.Equal(t, http.StatusAccepted, first.StatusCode)
	require.Equal(t, client.LaunchDeploying, first.Body.Launch.Status)
	require.Equal(t, w.Address, first.Body.Launch.Deployer.WalletAddress)
	require.Equal(t, "launch/"+first.Body.Launch.ID, first.Body.Launch.WorkflowID)
	require.Regexp(t, `^lnch_[0-9a-z]{26}$`, first.Body.Launch.ID, "CONTRACT.md: a token launch's id is lnch_…")
	// Seed 002: the deploy answers the token's address and the pool's poolId and initializer, predicted
	// from the launch's salt before the transaction confirms.
	require.True(t, common.IsHexAddress(first.Body.Launch.TokenAddress), "%+v", first.Body.Launch)
	require.Len(t, first.Body.Launch.PoolID, 66, "%+v", first.Body.Launch)
	require.Equal(t, devchain.FeesManagerAddress.Hex(), first.Body.Launch.Initializer)
	l1 := waitLaunch(t, c, first.Body.Launch.ID)
	checkLaunchedToken(t, rpc, l1, "First Coin", "FIRST", creator)
	require.Equal(t, first.Body.Launch.TokenAddress, l1.TokenAddress, "the predicted token is the one deployed")
	require.Equal(t, first.Body.Launch.PoolID, l1.PoolID, "the predicted poolId is the deployed pool's")
	require.NotEmpty(t, l1.SponsorTxHash, "the wallet held only the seed: the platform paid the gas")
	require.Equal(t, meta, first.Body.Launch.LaunchMetadata, "the deploy answers the metadata")
	require.Equal(t, meta, l1.LaunchMetadata, "the launch record keeps the metadata")

	fund(w.Address, 0.01)
	second := c.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "Alice Coin", TokenSymbol: "ALC",
		FeeRecipient: client.FeeRecipient{Type: "x", Value: "@Alice"}})
	require.True(t, second.OK, "%v", second.Error)
	require.Equal(t, alice.Hex(), second.Body.Launch.FeeAddress, "the X handle resolved")
	checkLaunchedToken(t, rpc, waitLaunch(t, c, second.Body.Launch.ID), "Alice Coin", "ALC", alice)

	// A partner key acts for the account: its first wallet deploys.
	made, err := partner.NewStore(env.DB).Create(ctx, tenant.id, "launchpad")
	require.NoError(t, err)
	fund(w.Address, 0.01)
	viaPartner := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/token-launches/deploy",
		Headers: map[string]string{"X-Partner-Key": made.Secret, "Idempotency-Key": "partner-1"},
		Body:    client.TokenLaunchRequest{TokenName: "Partner Coin", TokenSymbol: "PTN", FeeRecipient: client.FeeRecipient{Type: "wallet", Value: creator.Hex()}}})
	require.Equal(t, http.StatusAccepted, viaPartner.Status, "%s", viaPartner.Raw)
	var env1 client.TokenLaunchEnvelope
	require.NoError(t, json.Unmarshal(viaPartner.Raw, &env1))
	require.Equal(t, w.Address, env1.Launch.Deployer.WalletAddress)
	checkLaunchedToken(t, rpc, waitLaunch(t, c, env1.Launch.ID), "Partner Coin", "PTN", creator)

	list := client.New(client.WithBaseURL(env.URL)).TokenLaunches(ctx)
	require.True(t, list.OK, "%v", list.Error)
	require.GreaterOrEqual(t, len(list.Body.Launches), 3)
	newest := list.Body.Launches[0]
	require.Equal(t, env1.Launch.ID, newest.ActivityID, "newest first")
	require.Equal(t, client.LaunchDeployed, newest.Status)
	require.Equal(t, "PTN", newest.TokenSymbol)
	require.Equal(t, "Partner Coin", newest.TokenName)
	require.Equal(t, w.Address, newest.Deployer.WalletAddress)
	require.Equal(t, creator.Hex(), newest.FeeRecipient.WalletAddress)
	require.Equal(t, client.ChainDev, newest.Chain)
	require.True(t, common.IsHexAddress(newest.TokenAddress))
	require.InDelta(t, time.Now().UnixMilli(), newest.Timestamp, float64(5*time.Minute/time.Millisecond))
	require.Equal(t, second.Body.Launch.ID, list.Body.Launches[1].ActivityID)
	raw := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/token-launches"})
	var listed struct {
		OK       *bool            `json:"ok"`
		Launches []map[string]any `json:"launches"`
	}
	require.NoError(t, json.Unmarshal(raw.Raw, &listed))
	require.NotNil(t, listed.OK, "the list has the platform's envelope: %s", raw.Raw)
	require.True(t, *listed.OK)
	fields := map[string][]map[string]any{"launches": listed.Launches}
	keys := []string{}
	for k := range fields["launches"][0] {
		keys = append(keys, k)
	}
	require.ElementsMatch(t, []string{"activityId", "status", "tokenName", "tokenSymbol", "chain", "tokenAddress", "deployer", "feeRecipient", "timestamp"}, keys,
		"a launch without metadata has none of its fields")
	require.Equal(t, l1.ID, list.Body.Launches[2].ActivityID)
	require.Equal(t, meta, list.Body.Launches[2].LaunchMetadata, "the public record shows the metadata")
	require.Equal(t, meta.Image, fields["launches"][2]["image"])
	require.Equal(t, meta.Tweet, fields["launches"][2]["tweet"])
	require.Equal(t, meta.Website, fields["launches"][2]["website"])

	require.Equal(t, http.StatusNotFound, co.TokenLaunch(ctx, l1.ID).StatusCode, "another account's launch is 404")

	// Over the wallet's sponsored transactions of the day: 429 naming the limit.
	w2 := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "busy"}).Body.Wallet
	for i := range sponsor.DailyLimit {
		_, err := env.DB.NewInsert().Model(&schema.GasSponsorship{TransactionID: ids.New(ids.WalletTransaction), WalletID: w2.ID,
			AccountID: tenant.id, Purpose: "test", Day: time.Now().UTC().Truncate(24 * time.Hour), ToAddress: w2.Address,
			AmountWei: "0", Status: sponsor.StatusSkipped, SponsorAddress: devchain.SponsorAddress.Hex()}).Exec(ctx)
		require.NoError(t, err, "row %d", i)
	}
	busy := c.DeployToken(ctx, client.TokenLaunchRequest{WalletID: w2.ID, TokenName: "Busy", TokenSymbol: "BSY",
		FeeRecipient: client.FeeRecipient{Type: "wallet", Value: creator.Hex()}})
	require.Equal(t, http.StatusTooManyRequests, busy.StatusCode, "%s", busy.Raw)
	require.Equal(t, "gas_sponsorships_per_day", busy.Error.Details["limit"])

	// A policy without contract calls refuses, naming its rule; nothing is recorded.
	w3 := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "careful"}).Body.Wallet
	fund(w3.Address, 0.01)
	require.True(t, c.UpdateWalletPolicy(ctx, w3.ID, client.UpdateWalletPolicyRequest{DisableContractCalls: ptr(true)}).OK)
	refused := c.DeployToken(ctx, client.TokenLaunchRequest{WalletID: w3.ID, TokenName: "No", TokenSymbol: "NO",
		FeeRecipient: client.FeeRecipient{Type: "wallet", Value: creator.Hex()}})
	require.Equal(t, http.StatusForbidden, refused.StatusCode, "%s", refused.Raw)
	require.Equal(t, wallet.RuleContractCalls, refused.Error.Details["rule"])
	n, err := env.DB.NewSelect().Model((*schema.TokenLaunch)(nil)).Where("wallet_id = ?", w3.ID).Count(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a refused launch leaves no row")

	// Over the account's deploys of the day (50 on the standard tier): 429 naming the limit.
	ow := co.CreateWallet(ctx, client.CreateWalletRequest{Name: "other"}).Body.Wallet
	for i := range 50 {
		id := ids.New(ids.TokenLaunch)
		_, err := env.DB.NewInsert().Model(&schema.TokenLaunch{ID: id, AccountID: other.id, Status: schema.LaunchFailed, TokenName: "X",
			TokenSymbol: "X", Chain: client.ChainDev, FeeRecipientType: "wallet", FeeRecipientValue: creator.Hex(), FeeRecipientAddress: creator.Hex(),
			DeployerAddress: ow.Address, WalletID: ow.ID, TransactionID: ids.New(ids.WalletTransaction), Salt: "0x", VaultAddress: creator.Hex()}).Exec(ctx)
		require.NoError(t, err, "row %d", i)
	}
	over := co.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "Over", TokenSymbol: "OVR", FeeRecipient: client.FeeRecipient{Type: "wallet", Value: creator.Hex()}})
	require.Equal(t, http.StatusTooManyRequests, over.StatusCode, "%s", over.Raw)
	require.Equal(t, "token_launches_per_day", over.Error.Details["limit"])
	// The club tier deploys 100 a day; this launch then fails on chain: the wallet cannot pay the seed.
	_, err = env.DB.NewUpdate().Table("accounts").Set("tier = 'club'").Where("id = ?", other.id).Exec(ctx)
	require.NoError(t, err)
	club := co.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "Club", TokenSymbol: "CLB", FeeRecipient: client.FeeRecipient{Type: "wallet", Value: creator.Hex()}})
	require.Equal(t, http.StatusAccepted, club.StatusCode, "%s", club.Raw)
	require.NotEmpty(t, club.Body.Launch.TokenAddress, "predicted when recorded")
	unpaid := waitLaunch(t, co, club.Body.Launch.ID)
	require.Equal(t, client.LaunchFailed, unpaid.Status)
	require.Equal(t, "chain_refused", unpaid.Error.Code, "%+v", unpaid.Error)
	require.Empty(t, unpaid.TokenAddress, "a failed launch deployed nothing: the prediction goes")
	require.Empty(t, unpaid.PoolID)
	require.Empty(t, unpaid.Initializer)
	badType := c.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "Coin", TokenSymbol: "AB", FeeRecipient: client.FeeRecipient{Type: "email", Value: "a@b.c"}})
	require.Equal(t, http.StatusBadRequest, badType.StatusCode, "%s", badType.Raw)
	require.Equal(t, "feeRecipient.type", badType.Error.Param, "%s", badType.Raw)

	narrow := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: tenant.key,
		Body: map[string]any{"services": []string{"managed-workflows"}}, Headers: map[string]string{"Idempotency-Key": "narrow"}})
	require.Equal(t, http.StatusCreated, narrow.Status, "%s", narrow.Raw)
	cn := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(narrow.Body["apiKey"].(map[string]any)["secret"].(string)))
	denied := cn.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "No", TokenSymbol: "NO", FeeRecipient: client.FeeRecipient{Type: "wallet", Value: creator.Hex()}})
	require.Equal(t, http.StatusForbidden, denied.StatusCode, "a key without managed-wallets: %s", denied.Raw)
}

// metaLaunch is a launch of "First Coin" with fees to creator and metadata m.
func metaLaunch(creator common.Address, m client.LaunchMetadata) client.TokenLaunchRequest {
	return client.TokenLaunchRequest{TokenName: "First Coin", TokenSymbol: "FIRST",
		FeeRecipient: client.FeeRecipient{Type: "wallet", Value: creator.Hex()}, LaunchMetadata: m}
}

// TestRecordLaunchHistory re-records workflows/testdata/launch_deployed.json (SVC_RECORD_HISTORIES=1):
// a launch whose gas is sponsored, sent by its child wallettx/<id> and recorded deployed.
func TestRecordLaunchHistory(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 0, "eth": 0.01}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	r := c.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "Recorded", TokenSymbol: "REC",
		FeeRecipient: client.FeeRecipient{Type: "wallet", Value: w.Address}})
	require.True(t, r.OK, "%v", r.Error)
	require.Equal(t, client.LaunchDeployed, waitLaunch(t, c, r.Body.Launch.ID).Status)
	id := workflows.LaunchWorkflowID(r.Body.Launch.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 30*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join("..", "workflows", "testdata", "launch_deployed.json"))
}

// TestLaunchSweepStartsAnUnstartedLaunch: a launch recorded by a request whose workflow start failed is
// not sent by the wallet sends' sweep (its gas must be sponsored first); the launches' sweep starts its
// workflow, and it deploys.
func TestLaunchSweepStartsAnUnstartedLaunch(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 0, "eth": 0.01}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)

	master, err := base64.StdEncoding.DecodeString(env.EncryptionKey)
	require.NoError(t, err)
	box, err := secretbox.New(master)
	require.NoError(t, err)
	store := wallet.NewStore(env.DB, box, client.ChainDev)
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)
	names, err := handles.New("", nil)
	require.NoError(t, err)
	cfg, err := app.LaunchConfig{}.Launch()
	require.NoError(t, err)
	svc := &launchsvc.Service{DB: env.DB, Wallets: store, Chain: &wallet.Chain{RPC: rpc, USDC: devchain.USDCAddress}, Names: names,
		Engine: refused{}, Config: cfg, Prices: wallet.Prices{NativeCents: int64(app.DevNativeUSDPrice * 100)}}
	_, err = svc.Deploy(ctx, launchsvc.Request{Scope: tenantScope(tenant.id), KeyID: "key_x", ID: "lnch_swept",
		Body: client.TokenLaunchRequest{TokenName: "Swept", TokenSymbol: "SWP", FeeRecipient: client.FeeRecipient{Type: "wallet", Value: w.Address}}}, time.Now())
	require.ErrorContains(t, err, "workflow did not start")

	n, err := (&wallet.Starts{Store: store, Engine: env.Temporal}).Sweep(ctx, 0, 10)
	require.NoError(t, err)
	require.Zero(t, n, "a launch's transaction is not the wallet sweep's")
	n, err = launchsvc.Sweep(ctx, env.DB, env.Temporal, time.Hour, 10)
	require.NoError(t, err)
	require.Zero(t, n, "a fresh launch is left to its request")
	n, err = launchsvc.Sweep(ctx, env.DB, env.Temporal, 0, 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	done := waitLaunch(t, c, "lnch_swept")
	require.Equal(t, client.LaunchDeployed, done.Status, "%+v", done.Error)
	require.NotEmpty(t, done.SponsorTxHash)
}

// TestLaunchWaitsForItsApproval: a launch whose wallet policy asks for an approval (its seed is above
// approvalAboveUsd) is sent only once the approval is granted, then deploys.
func TestLaunchWaitsForItsApproval(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 0, "eth": 0.01}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(1)}).OK)
	r := c.DeployToken(ctx, client.TokenLaunchRequest{TokenName: "Gated", TokenSymbol: "GTD",
		FeeRecipient: client.FeeRecipient{Type: "wallet", Value: w.Address}})
	require.True(t, r.OK, "%v", r.Error)
	tx := c.GetWalletTransaction(ctx, w.ID, r.Body.Launch.TransactionID)
	require.True(t, tx.OK, "%v", tx.Error)
	require.Equal(t, client.WalletTxPendingApproval, tx.Body.Transaction.Status)
	require.NotNil(t, tx.Body.Transaction.ApprovalID)
	require.Equal(t, client.LaunchDeploying, c.TokenLaunch(ctx, r.Body.Launch.ID).Body.Launch.Status)
	require.True(t, approverFor(t, env, tenant).DecideApproval(ctx, *tx.Body.Transaction.ApprovalID,
		client.DecideApprovalRequest{Decision: client.DecisionApprove}).OK)
	done := waitLaunch(t, c, r.Body.Launch.ID)
	require.Equal(t, client.LaunchDeployed, done.Status, "%+v", done.Error)
}
