package apppay_test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apppay"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// owner is an account with a managed wallet funded with dev USDC, and the service paying from it.
type owner struct {
	env       *apptest.Env
	key       string
	accountID string
	walletID  string
	address   common.Address
	svc       *apppay.Service
}

func newOwner(t *testing.T, env *apptest.Env, usdc float64) *owner {
	t.Helper()
	ctx := context.Background()
	o := &owner{env: env, key: env.FirstKey(t)}
	created := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(o.key)).CreateWallet(ctx, client.CreateWalletRequest{Name: "app"})
	require.True(t, created.OK, "%v", created.Error)
	o.walletID, o.address = created.Body.Wallet.ID, common.HexToAddress(created.Body.Wallet.Address)
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM wallets WHERE id = ?", o.walletID).Scan(ctx, &o.accountID))
	if usdc > 0 {
		fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": o.address.Hex(), "usdc": usdc}})
		require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	}
	svc, err := apppay.New(apppay.Config{DB: env.DB, Wallets: wallet.NewStore(env.DB, env.Box, env.X402.Network),
		Network: env.X402.Network, USDC: env.X402.Asset, AllowLoopback: true})
	require.NoError(t, err)
	o.svc = svc
	return o
}

// topUp is an app's call of the platform's own x402 top-up endpoint for usd, by visitor.
func (o *owner) topUp(visitor, idem string, usd int) apppay.Request {
	return apppay.Request{AccountID: o.accountID, AppSlug: "credits-shop", Visitor: visitor, WalletID: o.walletID,
		MaxPaymentUsdPerCall: 6, AllowedHosts: []string{"127.0.0.1"}, URL: o.env.URL + "/v1/credits/x402/top-up", Method: http.MethodPost,
		Headers: map[string]string{"Authorization": "Bearer " + o.key, "Content-Type": "application/json", "Idempotency-Key": idem},
		Body:    []byte(`{"amountUsd":` + big.NewInt(int64(usd)).String() + `}`)}
}

func (o *owner) usdc(t *testing.T) *big.Int {
	t.Helper()
	ch, err := evm.Dial(context.Background(), o.env.Chain.RPCURL(), big.NewInt(devchain.ChainID), devchain.USDCAddress, nil)
	require.NoError(t, err)
	defer ch.Close()
	b, err := ch.BalanceOf(context.Background(), o.address)
	require.NoError(t, err)
	return b
}

func (o *owner) credits(t *testing.T) float64 {
	t.Helper()
	r := o.env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: o.key})
	return r.Body["balance"].(map[string]any)["credits"].(float64)
}

// count answers how many of the account's app payments have one of statuses.
func (o *owner) count(t *testing.T, statuses ...string) int {
	t.Helper()
	n, err := o.env.DB.NewSelect().Model((*schema.AppX402Payment)(nil)).Where("account_id = ? AND status IN (?)", o.accountID, bun.List(statuses)).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

// walletSpent is the wallet's unreleased spend in wallet_spends, in cents.
func (o *owner) walletSpent(t *testing.T) int64 {
	t.Helper()
	spent, err := wallet.Spent(context.Background(), o.env.DB, o.walletID, time.Now())
	require.NoError(t, err)
	return spent
}

// refusal asserts err is a svcerr of code whose message names want.
func refusal(t *testing.T, err error, code, want string) {
	t.Helper()
	e, ok := svcerr.As(err)
	require.True(t, ok, "not a svcerr: %v", err)
	require.Equal(t, code, e.Code, "%v", err)
	require.Contains(t, e.Message, want)
}

// TestAppPaysOwnTopUpFromManagedWallet: an app's x402 call pays the platform's own x402 v2 top-up
// endpoint from the owner's managed wallet on the dev chain: the credits arrive, the wallet's USDC
// drops by the price, the call is recorded paid with its transaction and counted by the wallet's
// policy. A second payment reaches the visitor's 10 USD a day; a third is refused (429) with nothing paid.
func TestAppPaysOwnTopUpFromManagedWallet(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	o := newOwner(t, env, 20)
	ctx := context.Background()

	res, err := o.svc.Fetch(ctx, o.topUp("viewer:alice", "app-1", 5))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.Status, res.Body)
	require.True(t, res.OK)
	require.NotNil(t, res.Payment)
	require.Equal(t, 5.0, res.Payment.AmountUsd)
	require.Equal(t, devchain.Network, res.Payment.Network)
	require.Equal(t, devchain.PayTo, common.HexToAddress(res.Payment.PayTo))
	require.Regexp(t, `^0x[0-9a-fA-F]{64}$`, res.Payment.Transaction)
	require.Contains(t, res.Body, `"creditedUsd":5`)
	require.EqualValues(t, 500, o.credits(t))
	require.Equal(t, big.NewInt(15_000_000), o.usdc(t), "20 - 5 USDC")
	require.EqualValues(t, 500, o.walletSpent(t), "the wallet's policy counts the payment")

	var row schema.AppX402Payment
	require.NoError(t, env.DB.NewSelect().Model(&row).Where("account_id = ?", o.accountID).Scan(ctx))
	require.Equal(t, schema.AppX402Paid, row.Status)
	require.Equal(t, res.Payment.Transaction, *row.TxHash)
	require.Equal(t, "5000000", *row.AmountAtomic)
	require.EqualValues(t, 500, *row.AmountCents)
	require.Equal(t, "127.0.0.1", strings.Split(row.Host, ":")[0])
	require.Equal(t, o.address.Hex(), *row.Payer)

	_, err = o.svc.Fetch(ctx, o.topUp("viewer:alice", "app-2", 5))
	require.NoError(t, err)
	_, err = o.svc.Fetch(ctx, o.topUp("viewer:alice", "app-3", 5))
	refusal(t, err, svcerr.LimitExceeded, "10 USD per day")
	require.Equal(t, big.NewInt(10_000_000), o.usdc(t), "the third payment was not made")
	require.EqualValues(t, 1000, o.credits(t))
	require.Equal(t, 2, o.count(t, schema.AppX402Paid))
	require.EqualValues(t, 1000, o.walletSpent(t))

	_, err = o.svc.Fetch(ctx, o.topUp("viewer:bob", "app-4", 5))
	require.NoError(t, err, "the daily limit is per visitor")
	require.Equal(t, big.NewInt(5_000_000), o.usdc(t))
}

// TestAppPaymentRefusalsPayNothing: a host outside allowedHosts, a price above maxPaymentUsdPerCall or
// the caller's maxPaymentUsd, the eleventh call in a minute and another account's wallet are refused,
// each naming its rule, and nothing is paid: the USDC balance, the credits and the wallet's spend are
// unchanged and no row is paid.
func TestAppPaymentRefusalsPayNothing(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	o := newOwner(t, env, 20)
	ctx := context.Background()
	before := o.usdc(t)

	r := o.topUp("viewer:carol", "host", 5)
	r.AllowedHosts = []string{"api.example.com"}
	_, err := o.svc.Fetch(ctx, r)
	refusal(t, err, svcerr.Forbidden, "allowedHosts")

	r = o.topUp("viewer:carol", "cap", 5)
	r.MaxPaymentUsdPerCall = 4
	_, err = o.svc.Fetch(ctx, r)
	refusal(t, err, svcerr.Forbidden, "maxPaymentUsdPerCall")

	r = o.topUp("viewer:carol", "caller-cap", 5)
	r.MaxPaymentUsd = 4.99
	_, err = o.svc.Fetch(ctx, r)
	refusal(t, err, svcerr.Forbidden, "cap of $4.99")

	other := newOwner(t, env, 0)
	r = o.topUp("viewer:carol", "theirs", 5)
	r.WalletID = other.walletID
	_, err = o.svc.Fetch(ctx, r)
	refusal(t, err, svcerr.NotFound, other.walletID)

	for i := range apppay.CallsPerMinute {
		free := o.topUp("viewer:dave", "free", 5)
		free.URL, free.Method, free.Body = env.URL+"/v1/health", http.MethodGet, nil
		res, err := o.svc.Fetch(ctx, free)
		require.NoError(t, err, "call %d", i+1)
		require.Equal(t, http.StatusOK, res.Status)
		require.Nil(t, res.Payment)
	}
	_, err = o.svc.Fetch(ctx, o.topUp("viewer:dave", "eleventh", 5))
	refusal(t, err, svcerr.LimitExceeded, "10 per minute")

	require.Equal(t, before, o.usdc(t), "nothing was paid")
	require.EqualValues(t, 0, o.credits(t))
	require.EqualValues(t, 0, o.walletSpent(t))
	require.Zero(t, o.count(t, schema.AppX402Paid, schema.AppX402Paying, schema.AppX402Unsettled))
	require.Equal(t, 2, o.count(t, schema.AppX402Refused), "the two cap refusals were counted as calls, paying nothing")
	require.Equal(t, apppay.CallsPerMinute, o.count(t, schema.AppX402Free))
}
