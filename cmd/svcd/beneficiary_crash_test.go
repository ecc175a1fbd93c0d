package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/beneficiary"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/siwe"
)

// webSession links a fresh address to the account of the owner's key and signs in with it: the SDK with
// the session token as its credential.
func webSession(t *testing.T, env *apptest.Env, owner string) *client.Client {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	signed := func() map[string]any {
		n := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/siwe/nonce"})
		require.Equal(t, http.StatusOK, n.Status, "%s", n.Raw)
		m := &siwe.Message{Domain: app.DefaultSIWEDomain, Address: crypto.PubkeyToAddress(key.PublicKey), Statement: "Sign in to svc",
			URI: "http://" + app.DefaultSIWEDomain, Version: "1", ChainID: 1337, Nonce: n.Body["nonce"].(string), IssuedAt: time.Now().UTC()}
		sig, err := siwe.Sign(m.String(), key)
		require.NoError(t, err)
		return map[string]any{"message": m.String(), "signature": sig}
	}
	link := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/siwe/link", Key: owner, Body: signed(),
		Headers: map[string]string{"Idempotency-Key": "link-session"}})
	require.Equal(t, http.StatusOK, link.Status, "%s", link.Raw)
	ses := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/siwe/verify", Body: signed()})
	require.Equal(t, http.StatusOK, ses.Status, "%s", ses.Raw)
	return client.New(client.WithBaseURL(env.URL), client.WithAPIKey(ses.Body["token"].(string)))
}

// TestWorkerKilledBetweenTransferSendAndReceiptTransfersOnce launches a token and trades it, then kills
// the svcd worker (SIGKILL) once the beneficiary transfer's updateBeneficiary is broadcast but its receipt
// not yet read, starts another, and checks that the transfer is recorded transferred with the fees the
// old beneficiary was owed, that the share moved, and that exactly one updateBeneficiary transaction left
// the wallet.
func TestWorkerKilledBetweenTransferSendAndReceiptTransfersOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svcd := svcdPath(t)
	env := apptest.NewWith(t, apptest.Options{Chain: true, NoWorker: true, FeeCacheTTL: -1})
	dir := t.TempDir()
	plain := startWorker(t, svcd, env, "", dir, chainEnv(env)...)
	ch := feetest.Attach(t, env.Chain)

	_, key := accountKey(t, env)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	w, l, launched := launchTradedFor(t, env, c, ch, plain)
	me, heir := common.HexToAddress(w.Address), common.HexToAddress("0x00000000000000000000000000000000000b0b04")
	pending := ch.Pending(launched, me)
	session := webSession(t, env, key)
	plain.kill(t)

	first := startWorker(t, svcd, env, "", dir, append(chainEnv(env), "SVC_TEST_FAULT="+activities.FaultStallAfterBroadcast)...)
	r := session.TransferBeneficiary(ctx, client.BeneficiaryTransferRequest{TokenAddress: l.TokenAddress, NewBeneficiary: heir.Hex()})
	require.True(t, r.OK, "%v", r.Error)
	id, txID := r.Body.Transfer.ID, beneficiary.TransactionID(r.Body.Transfer.ID)
	killed := stalledAfterMinedBroadcast(t, env, ch.Client, first, txID, "transfer")
	first.kill(t)
	second := startWorker(t, svcd, env, "", dir, chainEnv(env)...)

	var done client.BeneficiaryTransfer
	require.Eventually(t, func() bool {
		got := c.BeneficiaryTransfer(ctx, id)
		require.True(t, got.OK, "%v", got.Error)
		done = got.Body.Transfer
		return done.Status != client.BeneficiaryTransferring
	}, 90*time.Second, 100*time.Millisecond, "the transfer never ended (last %+v); second worker log:\n%s", &done, second.log)
	require.Equal(t, client.BeneficiaryTransferred, done.Status, "%+v", done.Error)
	require.Equal(t, killed.TxHash, &done.TransactionHash, "the transaction broadcast before the kill is the transfer's")
	require.Equal(t, pending[0].String(), done.Released0)
	require.Equal(t, pending[1].String(), done.Released1)
	require.Equal(t, heir.Hex(), done.To)
	mined, err := ch.Client.NonceAt(ctx, me, nil)
	require.NoError(t, err)
	require.EqualValues(t, 2, mined, "one launch and one updateBeneficiary transaction from the wallet")
}
