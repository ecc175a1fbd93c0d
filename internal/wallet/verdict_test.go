package wallet

import (
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

func cents(c int64) *int64 { return &c }

// TestEvaluate: each rule decides in its order and names itself, with the amounts in its message.
func TestEvaluate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	me := common.HexToAddress("0x1111111111111111111111111111111111111111")
	friend := common.HexToAddress("0x2222222222222222222222222222222222222222")
	stranger := common.HexToAddress("0x3333333333333333333333333333333333333333")
	base := DefaultPolicy()
	send := func(usd int64, spent int64) Outbound {
		return Outbound{From: me, To: friend, USDCents: cents(usd), SpentCents: spent}
	}

	require.Equal(t, Verdict{Decision: Allowed}, base.Evaluate(send(50000, 0), now), "exactly the limit")
	v := base.Evaluate(send(50001, 0), now)
	require.Equal(t, Refused, v.Decision)
	require.Equal(t, RulePerTransaction, v.Rule)
	require.Equal(t, "$500.01 is above the per-transaction limit of $500.00", v.Message)
	v = base.Evaluate(send(20000, 40000), now)
	require.Equal(t, RuleDaily, v.Rule)
	require.Equal(t, "$400.00 spent in the last 24 hours plus this $200.00 is above the daily limit of $500.00", v.Message)

	noPrice := Outbound{From: me, To: friend}
	require.Equal(t, RuleNoPrice, base.Evaluate(noPrice, now).Rule)
	off, err := base.Apply(client.UpdateWalletPolicyRequest{DailyLimitUSD: client.DisableUSD(), PerTransactionLimitUSD: client.DisableUSD()}, now)
	require.NoError(t, err)
	require.Equal(t, Allowed, off.Evaluate(noPrice, now).Decision, "no USD limit on: no price needed")
	require.Equal(t, Allowed, off.Evaluate(send(1_000_000_00, 0), now).Decision)

	approve, err := base.Apply(client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(100)}, now)
	require.NoError(t, err)
	v = approve.Evaluate(send(10001, 0), now)
	require.Equal(t, Verdict{Decision: NeedsApproval, Rule: RuleApprovalAbove, Message: "$100.01 is above the approval threshold of $100.00"}, v)
	require.Equal(t, NeedsApproval, approve.Evaluate(send(90000, 0), now).Decision, "above a limit too: the approver decides")

	paused := base
	paused.Paused = true
	require.Equal(t, RulePaused, paused.Evaluate(send(1, 0), now).Rule)
	calls := base
	calls.DisableContractCalls = true
	require.Equal(t, RuleContractCalls, calls.Evaluate(Outbound{From: me, To: friend, USDCents: cents(1), ContractCall: true}, now).Rule)

	listed, err := base.Apply(client.UpdateWalletPolicyRequest{PermittedRecipients: &client.PermittedRecipientsUpdate{
		Enabled: ptr(true), Add: []string{friend.Hex()}}}, now.Add(-2*time.Hour))
	require.NoError(t, err)
	v = listed.Evaluate(send(100, 0), now)
	require.Equal(t, RuleCooldown, v.Rule)
	require.Contains(t, v.Message, "may receive in 22h0m0s")
	require.Equal(t, Allowed, listed.Evaluate(send(100, 0), now.Add(22*time.Hour)).Decision, "usable after the cooldown")
	require.Equal(t, RuleRecipients, listed.Evaluate(Outbound{From: me, To: stranger, USDCents: cents(1)}, now).Rule)
	require.Equal(t, Allowed, listed.Evaluate(Outbound{From: me, To: me, USDCents: cents(1)}, now).Decision, "its own address always passes")
}
