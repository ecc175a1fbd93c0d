package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// TestAgentUSDCSendOnConfirm: a prompt whose model asks for a USDC send waits in awaiting_confirmation
// with nothing sent; approved, the send runs as the job's key and is one confirmed transaction on the
// dev chain (the recipient holds the USDC); the job answers with the send's result.
func TestAgentUSDCSendOnConfirm(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true, AgentModel: newScriptedModel()})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "main"}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 10, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.Eventually(t, func() bool {
		p := c.Portfolio(ctx, client.PortfolioParams{})
		return p.OK && p.Body.Portfolio.Balances[1].Amount == "10"
	}, 30*time.Second, 50*time.Millisecond)

	r := agentPrompt(t, env, tenant.key, "u1", map[string]any{"prompt": "send 1 usdc to the dead address"})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Raw)
	id := r.Body["job"].(map[string]any)["id"].(string)
	waiting := waitJob(t, c, id, client.AgentJobAwaitingConfirmation)
	txs := c.ListWalletTransactions(ctx, w.ID, client.ListParams{})
	require.True(t, txs.OK, "%v", txs.Error)
	require.Empty(t, txs.Body.Transactions, "nothing is sent before the confirmation")

	step := waiting.Steps[len(waiting.Steps)-1]
	require.True(t, c.ConfirmAgentJob(ctx, id, client.AgentConfirmRequest{StepID: step.ID, Decision: "approve"}).OK)
	done := waitJob(t, c, id, client.AgentJobSucceeded)
	tool := done.Steps[len(done.Steps)-2]
	require.Equal(t, "wallet_send", tool.Tool)
	require.Equal(t, "succeeded", tool.Status, "%+v", tool)

	txs = c.ListWalletTransactions(ctx, w.ID, client.ListParams{})
	require.True(t, txs.OK, "%v", txs.Error)
	require.Len(t, txs.Body.Transactions, 1, "one transaction")
	tx := waitWalletTx(t, c, w.ID, txs.Body.Transactions[0].ID)
	require.Equal(t, client.WalletTxConfirmed, tx.Status, "%+v", tx.Error)
	require.Equal(t, "0x000000000000000000000000000000000000dEaD", tx.To)
	require.Equal(t, "usdc", tx.Asset)
}
