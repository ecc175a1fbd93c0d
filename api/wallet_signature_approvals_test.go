package api_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/workflows"
)

// waitWalletSig polls signature id of walletID until it is final.
func waitWalletSig(t *testing.T, c *client.Client, walletID, id string) client.WalletSignature {
	t.Helper()
	var last client.WalletSignature
	require.Eventually(t, func() bool {
		r := c.GetWalletSignature(context.Background(), walletID, id)
		require.True(t, r.OK, "%v", r.Error)
		last = r.Body.Signature
		return last.Done()
	}, 60*time.Second, 50*time.Millisecond, "signature %s never finished (last %+v)", id, last)
	return last
}

// pendingSigApproval checks that a signature answered 202 pending_approval with its approval, listed
// pending as a wallet_signature approval of the signature that shows what is signed, and answers the
// approval.
func pendingSigApproval(t *testing.T, c *client.Client, signed client.Response[client.WalletSignatureEnvelope]) client.Approval {
	t.Helper()
	require.True(t, signed.OK, "%v", signed.Error)
	require.Equal(t, http.StatusAccepted, signed.StatusCode)
	s := signed.Body.Signature
	require.Equal(t, client.WalletSigPendingApproval, s.Status)
	require.Nil(t, s.Signature)
	require.NotNil(t, s.ApprovalID)
	list := c.ListApprovals(context.Background(), client.ListApprovalsParams{Status: client.ApprovalPending, ServiceID: client.ServiceManagedWallets})
	require.True(t, list.OK, "%v", list.Error)
	for _, a := range list.Body.Approvals {
		if a.ID == *s.ApprovalID {
			require.Equal(t, "wallet_signature", a.Kind)
			require.Equal(t, s.ID, *a.SignatureID)
			require.Nil(t, a.TransactionID)
			require.Equal(t, s.ID, a.Input["signatureId"])
			require.Equal(t, s.Digest, a.Input["digest"])
			require.Equal(t, s.Type, a.Input["type"])
			require.NotNil(t, a.Reason)
			return a
		}
	}
	require.Failf(t, "approval not listed", "approval %s is not among the pending approvals", *s.ApprovalID)
	return client.Approval{}
}

// TestWalletSignatureWaitsForApproval: a USDC permit above approvalAboveUsd waits in pending_approval
// (202) with a pending wallet_signature approval showing the permit (its value reserved against the
// daily limit); the key that asked cannot approve it; approved by another key, walletsig/<id> signs it
// and the signature recovers the wallet's address. A second such permit, rejected, ends rejected with
// nothing signed and its reservation released, so a following permit within the limits is signed.
// Seed 002's POST /wallet/sign waits the same way.
func TestWalletSignatureWaitsForApproval(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	approver := approverFor(t, env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "signer"}).Body.Wallet
	upd := c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(100), DailyLimitUSD: client.USD(400)})
	require.True(t, upd.OK, "%v", upd.Error)
	spender := "0x52908400098527886E0F7030069857D2E4169EE7"
	permit := func(usdc int64) client.SignatureRequest {
		return client.SignatureRequest{Type: client.SignTypedData, TypedData: usdcPermit(w.Address, spender, usdc*1_000_000)}
	}
	spent := func() float64 { return c.QuoteSignature(ctx, w.ID, permit(1)).Body.Quote.SpentLast24hUSD }

	q := c.QuoteSignature(ctx, w.ID, permit(150))
	require.True(t, q.OK, "%v", q.Error)
	require.Equal(t, client.VerdictNeedsApproval, q.Body.Quote.Verdict.Decision)
	first := c.Sign(ctx, w.ID, permit(150), client.WithIdempotencyKey("permit-150"))
	a := pendingSigApproval(t, c, first)
	require.Equal(t, "approvalAboveUsd", first.Body.Signature.Verdict.Rule)
	subject, ok := a.Input["subject"].(map[string]any)
	require.True(t, ok, "the approval shows what is signed: %+v", a.Input)
	require.Equal(t, "Permit", subject["typedData"].(map[string]any)["primaryType"])
	require.Equal(t, spender, subject["spend"].(map[string]any)["to"])
	require.Equal(t, 150.0, a.Input["usdValue"])
	require.Equal(t, 150.0, spent(), "the waiting permit's value is reserved")
	replay := c.Sign(ctx, w.ID, permit(150), client.WithIdempotencyKey("permit-150"))
	require.Equal(t, first.Body.Signature.ID, replay.Body.Signature.ID)
	require.Equal(t, http.StatusForbidden, c.DecideApproval(ctx, a.ID, client.DecideApprovalRequest{Decision: client.DecisionApprove}).StatusCode,
		"the key that asked cannot approve")

	d := approver.DecideApproval(ctx, a.ID, client.DecideApprovalRequest{Decision: client.DecisionApprove})
	require.True(t, d.OK, "%v", d.Error)
	done := waitWalletSig(t, c, w.ID, first.Body.Signature.ID)
	require.Equal(t, client.WalletSigSigned, done.Status, "%+v", done.Error)
	require.NotNil(t, done.Signature)
	require.Equal(t, w.Address, recoverSigner(t, done.Digest, *done.Signature).Hex(), "the wallet signed the permit")
	require.Equal(t, a.ID, *done.ApprovalID)
	require.Equal(t, 150.0, spent(), "a signed permit stays spent")

	// 150 of 400 spent: a 200 USD permit waits, holds its 200, is rejected and releases them.
	second := c.WalletSign(ctx, client.RootSignRequest{WalletID: w.ID, SignatureRequest: permit(200)})
	secondApproval := pendingSigApproval(t, c, second)
	over := c.Sign(ctx, w.ID, permit(60))
	require.Equal(t, http.StatusForbidden, over.StatusCode, "the waiting 200 count against the daily limit: %s", over.Raw)
	require.Equal(t, "dailyLimitUsd", over.Error.Details["rule"])
	d = approver.DecideApproval(ctx, secondApproval.ID, client.DecideApprovalRequest{Decision: client.DecisionReject})
	require.True(t, d.OK, "%v", d.Error)
	ended := waitWalletSig(t, c, w.ID, second.Body.Signature.ID)
	require.Equal(t, client.WalletSigRejected, ended.Status)
	require.Nil(t, ended.Signature, "nothing was signed")
	require.NotNil(t, ended.Error)
	require.Equal(t, workflows.CodeWalletTxRejected, ended.Error.Code)
	require.Equal(t, 150.0, spent(), "the rejected permit's reservation is released")
	after := c.Sign(ctx, w.ID, permit(60))
	require.True(t, after.OK, "%v", after.Error)
	require.Equal(t, client.WalletSigSigned, waitWalletSig(t, c, w.ID, after.Body.Signature.ID).Status)
}

// TestWalletApprovedSignatureBlockedByPause: a permit approved while its wallet is paused is never
// signed: it ends failed with code paused and its reservation is released.
func TestWalletApprovedSignatureBlockedByPause(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(10)}).OK)
	signed := c.Sign(ctx, w.ID, client.SignatureRequest{Type: client.SignTypedData,
		TypedData: usdcPermit(w.Address, "0x52908400098527886E0F7030069857D2E4169EE7", 20_000_000)})
	a := pendingSigApproval(t, c, signed)
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{Paused: ptr(true)}).OK)
	require.True(t, approverFor(t, env, tenant).DecideApproval(ctx, a.ID, client.DecideApprovalRequest{Decision: client.DecisionApprove}).OK)
	done := waitWalletSig(t, c, w.ID, signed.Body.Signature.ID)
	require.Equal(t, client.WalletSigFailed, done.Status)
	require.Equal(t, wallet.RulePaused, done.Error.Code)
	require.Nil(t, done.Signature)
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{Paused: ptr(false)}).OK)
	q := c.QuoteSignature(ctx, w.ID, client.SignatureRequest{Type: client.SignTypedData,
		TypedData: usdcPermit(w.Address, "0x52908400098527886E0F7030069857D2E4169EE7", 1_000_000)})
	require.True(t, q.OK, "%v", q.Error)
	require.Zero(t, q.Body.Quote.SpentLast24hUSD, "the failed permit's reservation is released")
}

// TestWalletSignatureSweepStartsAnUnstartedSignature: a signature recorded by a request that died
// before starting its workflow is handed to its workflow by the sweep and signed once; a signature
// pending an approval is handed on too (its workflow then waits for the decision).
func TestWalletSignatureSweepStartsAnUnstartedSignature(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(100)}).OK)

	master, err := base64.StdEncoding.DecodeString(env.EncryptionKey)
	require.NoError(t, err)
	box, err := secretbox.New(master)
	require.NoError(t, err)
	store := wallet.NewStore(env.DB, box, client.ChainDev)
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	chain := &wallet.Chain{RPC: rpc, USDC: devchain.USDCAddress}
	recorded, err := store.CreateSignature(ctx, chain, wallet.Prices{}, wallet.NewSignature{Scope: tenantScope(tenant.id), KeyID: "key_x",
		WalletID: w.ID, ID: "sig_swept", Req: client.SignatureRequest{Type: client.SignPersonal, Message: "swept"}}, time.Now())
	require.NoError(t, err)
	require.Equal(t, client.WalletSigQueued, recorded.Status)
	spender := "0x52908400098527886E0F7030069857D2E4169EE7"
	requester := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: tenant.key,
		Body: map[string]any{"name": "requester", "scopes": []string{"wallets:sign"}}, Headers: map[string]string{"Idempotency-Key": "requester"}})
	require.Equal(t, http.StatusCreated, requester.Status, "%s", requester.Raw)
	requesterID := requester.Body["apiKey"].(map[string]any)["id"].(string)
	waiting, err := store.CreateSignature(ctx, chain, wallet.Prices{}, wallet.NewSignature{Scope: tenantScope(tenant.id), KeyID: requesterID,
		WalletID: w.ID, ID: "sig_swept_waiting", Req: client.SignatureRequest{Type: client.SignTypedData,
			TypedData: usdcPermit(w.Address, spender, 150_000_000)}}, time.Now())
	require.NoError(t, err)
	require.Equal(t, client.WalletSigPendingApproval, waiting.Status)

	starts := &wallet.Starts{Store: store, Engine: env.Temporal}
	n, err := starts.SweepSignatures(ctx, time.Hour, 10)
	require.NoError(t, err)
	require.Zero(t, n, "a fresh signature is left to its request")
	n, err = starts.SweepSignatures(ctx, 0, 10)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the queued signature (a pending one is swept only once settled)")
	done := waitWalletSig(t, c, w.ID, "sig_swept")
	require.Equal(t, client.WalletSigSigned, done.Status)
	require.Equal(t, w.Address, recoverSigner(t, done.Digest, *done.Signature).Hex())
	n, err = starts.SweepSignatures(ctx, 0, 10)
	require.NoError(t, err)
	require.Zero(t, n, "a signed signature is not swept again")

	n, err = starts.SweepSignatures(ctx, time.Nanosecond, 10)
	require.NoError(t, err)
	require.Zero(t, n, "a pending signature older than ten settle periods is left alone")
	n, err = starts.SweepSignatures(ctx, time.Since(waiting.CreatedAt)/2, 10)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the pending signature's workflow is started")
	d := approverFor(t, env, tenant).DecideApproval(ctx, *waiting.ApprovalID, client.DecideApprovalRequest{Decision: client.DecisionApprove})
	require.True(t, d.OK, "%v", d.Error)
	require.Equal(t, client.WalletSigSigned, waitWalletSig(t, c, w.ID, "sig_swept_waiting").Status)
}

// TestRecordWalletSigApprovalHistory re-records workflows/testdata/walletsig_approved.json
// (SVC_RECORD_HISTORIES=1): a USDC permit above approvalAboveUsd that waits for its approval, is
// approved, then signed by the production worker.
func TestRecordWalletSigApprovalHistory(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(1)}).OK)
	signed := c.Sign(ctx, w.ID, client.SignatureRequest{Type: client.SignTypedData,
		TypedData: usdcPermit(w.Address, "0x52908400098527886E0F7030069857D2E4169EE7", 2_000_000)})
	a := pendingSigApproval(t, c, signed)
	require.True(t, approverFor(t, env, tenant).DecideApproval(ctx, a.ID, client.DecideApprovalRequest{Decision: client.DecisionApprove}).OK)
	require.Equal(t, client.WalletSigSigned, waitWalletSig(t, c, w.ID, signed.Body.Signature.ID).Status)
	id := workflows.WalletSigWorkflowID(signed.Body.Signature.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 30*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join("..", "workflows", "testdata", "walletsig_approved.json"))
}
