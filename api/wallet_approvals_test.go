package api_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/workflows"
)

// fundedWallet creates a wallet funded with usdc dev USDC and 1 ETH, waiting until the chain shows it.
func fundedWallet(t *testing.T, env *apptest.Env, c *client.Client, usdc int) client.Wallet {
	t.Helper()
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": usdc, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	want := strconv.Itoa(usdc)
	require.Eventually(t, func() bool { return c.GetWalletBalances(ctx, w.ID).Body.Balances[1].Amount == want }, 30*time.Second, 50*time.Millisecond)
	return w
}

// pendingApproval checks that a send answered pending_approval with its approval, listed pending as a
// wallet_transaction approval of the send, and answers the approval id.
func pendingApproval(t *testing.T, c *client.Client, sent client.Response[client.WalletTransactionEnvelope]) string {
	t.Helper()
	require.True(t, sent.OK, "%v", sent.Error)
	require.Equal(t, http.StatusAccepted, sent.StatusCode)
	tx := sent.Body.Transaction
	require.Equal(t, client.WalletTxPendingApproval, tx.Status)
	require.NotNil(t, tx.ApprovalID)
	list := c.ListApprovals(context.Background(), client.ListApprovalsParams{Status: client.ApprovalPending, ServiceID: client.ServiceManagedWallets})
	require.True(t, list.OK, "%v", list.Error)
	for _, a := range list.Body.Approvals {
		if a.ID == *tx.ApprovalID {
			require.Equal(t, "wallet_transaction", a.Kind)
			require.Equal(t, tx.ID, *a.TransactionID)
			return a.ID
		}
	}
	require.Failf(t, "approval not listed", "approval %s is not among the pending approvals", *tx.ApprovalID)
	return ""
}

// TestWalletSendWaitsForApproval: a send above approvalAboveUsd waits in pending_approval with a pending
// approval (its amount reserved); approved, it confirms on chain. A second such send rejected ends
// rejected and releases its reservation, so a following send within the limits is accepted. Each event
// is emitted once.
func TestWalletSendWaitsForApproval(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := fundedWallet(t, env, c, 1000)
	to := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "receiver"}).Body.Wallet
	upd := c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(100), DailyLimitUSD: client.USD(400)})
	require.True(t, upd.OK, "%v", upd.Error)

	q := c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: to.Address, Amount: "150", Asset: "usdc"})
	require.True(t, q.OK, "%v", q.Error)
	require.Equal(t, client.VerdictNeedsApproval, q.Body.Quote.Verdict.Decision)
	sent := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{QuoteID: q.Body.Quote.ID})
	approvalID := pendingApproval(t, c, sent)
	require.Equal(t, "approvalAboveUsd", sent.Body.Transaction.Verdict.Rule)
	require.Equal(t, 150.0, c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: to.Address, Amount: "1", Asset: "usdc"}).Body.Quote.SpentLast24hUSD,
		"the waiting send's amount is reserved")

	d := approverFor(t, env, tenant).DecideApproval(ctx, approvalID, client.DecideApprovalRequest{Decision: client.DecisionApprove})
	require.True(t, d.OK, "%v", d.Error)
	done := waitWalletTx(t, c, w.ID, sent.Body.Transaction.ID)
	require.Equal(t, client.WalletTxConfirmed, done.Status, "%+v", done.Error)
	require.Equal(t, "150", c.GetWalletBalances(ctx, to.ID).Body.Balances[1].Amount)

	// 150 of 400 spent: a 200 USD send waits, is rejected, and its 200 are released.
	second := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: to.Address, Amount: "200", Asset: "usdc"})
	secondApproval := pendingApproval(t, c, second)
	refused := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: to.Address, Amount: "60", Asset: "usdc"})
	require.Equal(t, http.StatusForbidden, refused.StatusCode, "the waiting 200 count against the daily limit: %s", refused.Raw)
	require.Equal(t, "dailyLimitUsd", refused.Error.Details["rule"])
	d = c.DecideApproval(ctx, secondApproval, client.DecideApprovalRequest{Decision: client.DecisionReject})
	require.True(t, d.OK, "%v", d.Error)
	ended := waitWalletTx(t, c, w.ID, second.Body.Transaction.ID)
	require.Equal(t, client.WalletTxRejected, ended.Status)
	require.Nil(t, ended.Hash, "nothing was signed")
	require.Equal(t, "approval_rejected", ended.Error.Code)
	after := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: to.Address, Amount: "60", Asset: "usdc"})
	require.True(t, after.OK, "the rejected send's reservation is released: %v", after.Error)
	require.Equal(t, client.WalletTxConfirmed, waitWalletTx(t, c, w.ID, after.Body.Transaction.ID).Status)

	require.Equal(t, 2, countEvents(t, env, tenant.id, "wallet.transaction.pending_approval"))
	require.Equal(t, 1, countEvents(t, env, tenant.id, "wallet.transaction.rejected"))
	require.Equal(t, 2, countEvents(t, env, tenant.id, "wallet.transaction.confirmed"))
}

// TestWalletApprovedSendBlockedByPause: a send approved while its wallet is paused is never signed: it
// ends failed with code paused.
func TestWalletApprovedSendBlockedByPause(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := fundedWallet(t, env, c, 500)
	to := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "receiver"}).Body.Wallet
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(10)}).OK)
	sent := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: to.Address, Amount: "20", Asset: "usdc"})
	approvalID := pendingApproval(t, c, sent)
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{Paused: ptr(true)}).OK)
	require.True(t, approverFor(t, env, tenant).DecideApproval(ctx, approvalID, client.DecideApprovalRequest{Decision: client.DecisionApprove}).OK)
	done := waitWalletTx(t, c, w.ID, sent.Body.Transaction.ID)
	require.Equal(t, client.WalletTxFailed, done.Status)
	require.Equal(t, wallet.RulePaused, done.Error.Code)
	require.Contains(t, done.Error.Message, "paused")
	require.Nil(t, done.Hash)
	require.Equal(t, "0", c.GetWalletBalances(ctx, to.ID).Body.Balances[1].Amount)
}

// TestWalletScreening: a denylisted recipient is blocked naming the rule (the quote shows it; nothing is
// reserved), the denylist is read again when its file changes, a first-time recipient above the
// threshold and an unlimited token allowance need an approval.
func TestWalletScreening(t *testing.T) {
	t.Parallel()
	deny := filepath.Join(t.TempDir(), "denylist")
	bad := "0x000000000000000000000000000000000000dEaD"
	require.NoError(t, os.WriteFile(deny, []byte("# scam\n"+bad+"\n"), 0o600))
	env := apptest.NewWith(t, apptest.Options{Chain: true, WalletScreening: wallet.ScreeningOptions{DenylistPath: deny,
		FirstRecipientApprovalCents: 50_00, BurstSends: 100, BurstWindow: time.Minute}})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := fundedWallet(t, env, c, 500)
	friend := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "friend"}).Body.Wallet

	q := c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: bad, Amount: "1", Asset: "usdc"})
	require.True(t, q.OK, "%v", q.Error)
	require.Equal(t, client.Screening{Verdict: client.ScreeningBlock, Rule: wallet.ScreenDenylist,
		Reason: q.Body.Quote.Screening.Reason}, *q.Body.Quote.Screening)
	blocked := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: bad, Amount: "1", Asset: "usdc"})
	require.Equal(t, http.StatusForbidden, blocked.StatusCode, "%s", blocked.Raw)
	require.Equal(t, wallet.ScreenDenylist, blocked.Error.Details["rule"])
	require.Contains(t, blocked.Error.Message, "denylist")
	require.Zero(t, c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: friend.Address, Amount: "1", Asset: "usdc"}).Body.Quote.SpentLast24hUSD)

	// The friend's address joins the denylist: the file is read again.
	require.NoError(t, os.WriteFile(deny, []byte(bad+"\n"+strings.ToLower(friend.Address)+" # later\n"), 0o600))
	again := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: friend.Address, Amount: "1", Asset: "usdc"})
	require.Equal(t, http.StatusForbidden, again.StatusCode, "%s", again.Raw)
	require.NoError(t, os.WriteFile(deny, []byte(bad+"\n"), 0o600))

	// First-time recipient above 50 USD: an approval; below it, allowed; once sent to, no longer first.
	first := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: friend.Address, Amount: "60", Asset: "usdc"})
	pendingApproval(t, c, first)
	require.Equal(t, &client.Screening{Verdict: client.ScreeningNeedsApproval, Rule: wallet.ScreenFirstTimeRecipient,
		Reason: first.Body.Transaction.Screening.Reason}, first.Body.Transaction.Screening)
	small := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: friend.Address, Amount: "5", Asset: "usdc"})
	require.True(t, small.OK, "%v", small.Error)
	require.Equal(t, client.ScreeningAllow, small.Body.Transaction.Screening.Verdict)
	require.Equal(t, client.WalletTxConfirmed, waitWalletTx(t, c, w.ID, small.Body.Transaction.ID).Status)
	known := c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: friend.Address, Amount: "60", Asset: "usdc"})
	require.Equal(t, client.ScreeningAllow, known.Body.Quote.Screening.Verdict)

	// approve(spender, 2^256-1) on the USDC contract: an unlimited allowance needs an approval.
	usdc := *c.QuoteTransaction(ctx, w.ID, client.TransactionQuoteRequest{To: friend.Address, Amount: "1", Asset: "usdc"}).Body.Quote.Token
	data := "0x095ea7b3" + strings.Repeat("0", 24) + strings.ToLower(friend.Address[2:]) + strings.Repeat("f", 64)
	allowance := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: usdc, Amount: "0.000001", Asset: "native", Data: data})
	pendingApproval(t, c, allowance)
	require.Equal(t, wallet.ScreenUnlimitedAllowance, allowance.Body.Transaction.Screening.Rule)
}

// TestRecordWalletTxApprovalHistory re-records workflows/testdata/wallettx_approved.json
// (SVC_RECORD_HISTORIES=1): a USDC send above approvalAboveUsd that waits for its approval, is approved,
// then signed, broadcast and confirmed by the production worker.
func TestRecordWalletTxApprovalHistory(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := fundedWallet(t, env, c, 10)
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(1)}).OK)
	sent := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: "0x52908400098527886E0F7030069857D2E4169EE7", Amount: "2", Asset: "usdc"})
	approvalID := pendingApproval(t, c, sent)
	require.True(t, approverFor(t, env, tenant).DecideApproval(ctx, approvalID, client.DecideApprovalRequest{Decision: client.DecisionApprove}).OK)
	require.Equal(t, client.WalletTxConfirmed, waitWalletTx(t, c, w.ID, sent.Body.Transaction.ID).Status)
	id := workflows.WalletTxWorkflowID(sent.Body.Transaction.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 30*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join("..", "workflows", "testdata", "wallettx_approved.json"))
}

// approverFor is a client of a second key of tenant's account holding approvals:write: the key that asked
// for a send cannot approve it.
func approverFor(t *testing.T, env *apptest.Env, tenant dbTenant) *client.Client {
	t.Helper()
	secret, _ := approverKey(t, env, tenant.key)
	return client.New(client.WithBaseURL(env.URL), client.WithAPIKey(secret))
}
