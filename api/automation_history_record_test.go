package api_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/workflows"
)

// TestRecordAutomationHistories re-records workflows/testdata/automation_fire.json
// (SVC_RECORD_HISTORIES=1): a fire of an automation's schedule, triggered through the API, run by the
// production worker until the run it started ended.
func TestRecordAutomationHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.New(t)
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	created := c.CreateAutomation(ctx, echoAutomation("recorded"))
	require.True(t, created.OK, "%v", created.Error)
	id := created.Body.Automation.ID
	require.True(t, c.TriggerAutomation(ctx, id).OK)

	var fireID string
	require.Eventually(t, func() bool {
		d, err := env.Temporal.ScheduleClient().GetHandle(ctx, workflows.AutomationScheduleID(id)).Describe(ctx)
		require.NoError(t, err)
		if len(d.Info.RecentActions) == 0 {
			return false
		}
		fireID = d.Info.RecentActions[0].StartWorkflowResult.WorkflowID
		return workflowClosed(env, fireID)
	}, 30*time.Second, 50*time.Millisecond)
	runs := automationRuns(t, c, id)
	require.Len(t, runs, 1)
	require.Equal(t, client.RunSucceeded, runs[0].Status)
	writeHistory(t, env, fireID, filepath.Join("..", "workflows", "testdata", "automation_fire.json"))
}

// TestRecordWalletTxHistory re-records workflows/testdata/wallettx_confirmed.json (SVC_RECORD_HISTORIES=1):
// a USDC send on the dev chain, signed, broadcast and confirmed by the production worker.
func TestRecordWalletTxHistory(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 10, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.Eventually(t, func() bool { return c.GetWalletBalances(ctx, w.ID).Body.Balances[1].Amount == "10" }, 30*time.Second, 50*time.Millisecond)
	sent := c.SendTransaction(ctx, w.ID, client.CreateTransactionRequest{To: "0x52908400098527886E0F7030069857D2E4169EE7", Amount: "1", Asset: "usdc"})
	require.True(t, sent.OK, "%v", sent.Error)
	require.Equal(t, client.WalletTxConfirmed, waitWalletTx(t, c, w.ID, sent.Body.Transaction.ID).Status)
	id := workflows.WalletTxWorkflowID(sent.Body.Transaction.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 10*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join("..", "workflows", "testdata", "wallettx_confirmed.json"))
}

// TestRecordWalletSigHistory records a personal_sign signature's workflow history.
func TestRecordWalletSigHistory(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	signed := c.Sign(ctx, w.ID, client.SignatureRequest{Type: "personal_sign", Message: "hello"})
	require.True(t, signed.OK, "%v", signed.Error)
	id := workflows.WalletSigWorkflowID(signed.Body.Signature.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 10*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join("..", "workflows", "testdata", "walletsig_signed.json"))
}
