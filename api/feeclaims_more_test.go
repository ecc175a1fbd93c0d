package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeindex/feetest"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/sponsor"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// countFeeClaims is how many claims wallet walletID has recorded.
func countFeeClaims(t *testing.T, env *apptest.Env, walletID string) int {
	t.Helper()
	n, err := env.DB.NewSelect().Model((*schema.FeeClaim)(nil)).Where("wallet_id = ?", walletID).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

// pendingApprovalOf requires claim (as the claim route answered it) to wait for an approval, named by
// its approvalId, the claim's and its wallet transaction's, and answers the approval's id.
func pendingApprovalOf(t *testing.T, c *client.Client, claim client.FeeClaim) string {
	t.Helper()
	tx := c.GetWalletTransaction(context.Background(), claim.WalletID, claim.TransactionID)
	require.True(t, tx.OK, "%v", tx.Error)
	require.Equal(t, client.WalletTxPendingApproval, tx.Body.Transaction.Status)
	require.NotNil(t, tx.Body.Transaction.ApprovalID)
	require.NotEmpty(t, *tx.Body.Transaction.ApprovalID)
	require.Equal(t, tx.Body.Transaction.ApprovalID, claim.ApprovalID, "the claim names the approval it waits for")
	read := c.FeeClaim(context.Background(), claim.ID)
	require.True(t, read.OK, "%v", read.Error)
	require.Equal(t, client.FeeClaimClaiming, read.Body.Claim.Status, "the claim waits for its approval")
	require.Equal(t, claim.ApprovalID, read.Body.Claim.ApprovalID)
	return *tx.Body.Transaction.ApprovalID
}

// TestFeeClaimWaitsForItsApproval: a wallet whose screening asks for an approval of its next send (its
// burst limit is one send an hour, and the launch was that send) claims: 202 claiming with an approvalId,
// its wallet transaction pending that approval; a second key approves and the claim completes with the
// Release amounts. The next claim waits too; the approver rejects it: the claim fails and the claim
// transaction is never sent (the wallet's nonce does not move).
func TestFeeClaimWaitsForItsApproval(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1, WalletScreening: wallet.ScreeningOptions{
		BurstSends: 1, BurstWindow: time.Hour, FirstRecipientApprovalCents: wallet.DefaultFirstRecipientApprovalCents}})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	w, l, launched := launchAndTrade(t, env, c, ch)
	me := common.HexToAddress(w.Address)
	pending := ch.Pending(launched, me)
	approver := approverFor(t, env, tenant)

	first := c.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{WalletID: w.ID})
	require.Equal(t, http.StatusAccepted, first.StatusCode, "%s", first.Raw)
	require.Equal(t, client.FeeClaimClaiming, first.Body.Claim.Status)
	approvalID := pendingApprovalOf(t, c, first.Body.Claim)
	require.True(t, approver.DecideApproval(ctx, approvalID, client.DecideApprovalRequest{Decision: client.DecisionApprove}).OK)
	done := waitClaim(t, c, first.Body.Claim.ID)
	require.Equal(t, client.FeeClaimClaimed, done.Status, "%+v", done.Error)
	require.Equal(t, pending[0].String(), done.Amount0)
	require.Equal(t, pending[1].String(), done.Amount1)
	require.NotEmpty(t, done.TransactionHash)

	nonce, err := ch.Client.PendingNonceAt(ctx, me)
	require.NoError(t, err)
	second := c.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{WalletID: w.ID})
	require.Equal(t, http.StatusAccepted, second.StatusCode, "%s", second.Raw)
	rejectID := pendingApprovalOf(t, c, second.Body.Claim)
	require.True(t, approver.DecideApproval(ctx, rejectID, client.DecideApprovalRequest{Decision: client.DecisionReject}).OK)
	failed := waitClaim(t, c, second.Body.Claim.ID)
	require.Equal(t, client.FeeClaimFailed, failed.Status)
	require.NotNil(t, failed.Error)
	require.Empty(t, failed.TransactionHash, "a rejected claim sends nothing")
	require.Empty(t, failed.Amount0)
	tx := c.GetWalletTransaction(ctx, w.ID, second.Body.Claim.TransactionID)
	require.True(t, tx.OK, "%v", tx.Error)
	require.Equal(t, client.WalletTxRejected, tx.Body.Transaction.Status)
	require.Nil(t, tx.Body.Transaction.Hash)
	after, err := ch.Client.PendingNonceAt(ctx, me)
	require.NoError(t, err)
	require.Equal(t, nonce, after, "no claim transaction left the wallet")
}

// TestFeeClaimRefusals: a key without wallets:transact is 403 naming the scope; a key without the
// service managed-wallets is 403 naming the service; a wallet that is no beneficiary is 403; the wallet's
// 11th sponsored transaction of the UTC day (a launch, a claim and eight more recorded) is 429 naming the
// limit. None of them records a claim.
func TestFeeClaimRefusals(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, FeeCacheTTL: -1})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	ch := feetest.Attach(t, env.Chain)
	w, l, _ := launchAndTrade(t, env, c, ch)

	childKey := func(r client.CreateAPIKeyRequest) *client.Client {
		made := c.CreateAPIKey(ctx, r)
		require.True(t, made.OK, "%v", made.Error)
		return client.New(client.WithBaseURL(env.URL), client.WithAPIKey(made.Body.APIKey.Secret))
	}
	noScope := childKey(client.CreateAPIKeyRequest{Name: "reader", Scopes: []string{string(client.ScopeWalletsRead)}})
	r := noScope.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{WalletID: w.ID})
	require.Equal(t, http.StatusForbidden, r.StatusCode, "%s", r.Raw)
	require.Equal(t, client.CodeScopeMissing, r.Error.Code, "%s", r.Raw)
	require.Contains(t, r.Error.Message, string(client.ScopeWalletsTransact))
	require.Equal(t, string(client.ScopeWalletsTransact), r.Error.Details["requiredScope"])

	noService := childKey(client.CreateAPIKeyRequest{Name: "workflows only", Services: []string{client.ServiceManagedWorkflows}})
	r = noService.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{WalletID: w.ID})
	require.Equal(t, http.StatusForbidden, r.StatusCode, "%s", r.Raw)
	require.Equal(t, client.CodeServiceAccessDenied, r.Error.Code, "%s", r.Raw)
	require.Equal(t, client.ServiceManagedWallets, r.Error.Details["serviceId"])

	stranger := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "stranger"}).Body.Wallet
	r = c.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{WalletID: stranger.ID})
	require.Equal(t, http.StatusForbidden, r.StatusCode, "%s", r.Raw)
	require.Contains(t, r.Error.Message, "is not a beneficiary")
	require.Zero(t, countFeeClaims(t, env, stranger.ID))
	require.Zero(t, countFeeClaims(t, env, w.ID), "refused keys record nothing")

	// Sponsored today: the launch and one claim, then eight more: ten in all.
	claimed := c.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{WalletID: w.ID})
	require.Equal(t, http.StatusAccepted, claimed.StatusCode, "%s", claimed.Raw)
	require.Nil(t, claimed.Body.Claim.ApprovalID, "a claim that needs no approval names none")
	require.Equal(t, client.FeeClaimClaimed, waitClaim(t, c, claimed.Body.Claim.ID).Status)
	day := time.Now().UTC().Truncate(24 * time.Hour)
	sponsored := func() int {
		n, err := env.DB.NewSelect().Model((*schema.GasSponsorship)(nil)).Where("wallet_id = ? AND day = ?", w.ID, day).Count(ctx)
		require.NoError(t, err)
		return int(n)
	}
	require.Equal(t, 2, sponsored(), "the launch and the claim were sponsored")
	for i := range sponsor.DailyLimit - 2 {
		_, err := env.DB.NewInsert().Model(&schema.GasSponsorship{TransactionID: ids.New(ids.WalletTransaction), WalletID: w.ID,
			AccountID: tenant.id, Purpose: "test", Day: day, ToAddress: w.Address, AmountWei: "0", Status: sponsor.StatusSkipped,
			SponsorAddress: devchain.SponsorAddress.Hex()}).Exec(ctx)
		require.NoError(t, err, "row %d", i)
	}
	over := c.ClaimFees(ctx, l.TokenAddress, client.FeeClaimRequest{WalletID: w.ID})
	require.Equal(t, http.StatusTooManyRequests, over.StatusCode, "%s", over.Raw)
	require.Equal(t, "gas_sponsorships_per_day", over.Error.Details["limit"])
	require.Contains(t, over.Error.Message, "gas_sponsorships_per_day")
	require.Equal(t, 1, countFeeClaims(t, env, w.ID), "the refused claim left no row")
	require.Equal(t, sponsor.DailyLimit, sponsored(), "nor a sponsorship")
}
