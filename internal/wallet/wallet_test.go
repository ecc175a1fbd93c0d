package wallet

import (
	"bytes"
	"crypto/rand"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
)

func newBox(t *testing.T) *secretbox.Box {
	t.Helper()
	master := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(master)
	box, err := secretbox.New(master)
	require.NoError(t, err)
	return box
}

// TestKeyEnvelope: a wallet's key opens only for its own id and address, under the master key that
// sealed it; a ciphertext moved to another wallet, a swapped data key or a tampered byte does not open.
func TestKeyEnvelope(t *testing.T) {
	t.Parallel()
	box := newBox(t)
	addr, sealed, err := NewKey(box, "wal_a")
	require.NoError(t, err)
	key, err := OpenKey(box, "wal_a", addr, sealed)
	require.NoError(t, err)
	require.Equal(t, addr, crypto.PubkeyToAddress(key.PublicKey))
	require.False(t, bytes.Contains(sealed.Key, crypto.FromECDSA(key)), "the key is never stored in clear")

	otherAddr, other, err := NewKey(box, "wal_b")
	require.NoError(t, err)
	for name, try := range map[string]func() error{
		"moved to another wallet": func() error { _, err := OpenKey(box, "wal_b", addr, sealed); return err },
		"another address":         func() error { _, err := OpenKey(box, "wal_a", otherAddr, sealed); return err },
		"swapped data key": func() error {
			_, err := OpenKey(box, "wal_a", addr, Sealed{Key: sealed.Key, DataKey: other.DataKey})
			return err
		},
		"another master key": func() error { _, err := OpenKey(newBox(t), "wal_a", addr, sealed); return err },
		"tampered": func() error {
			k := bytes.Clone(sealed.Key)
			k[len(k)-1] ^= 1
			_, err := OpenKey(box, "wal_a", addr, Sealed{Key: k, DataKey: sealed.DataKey})
			return err
		},
	} {
		require.ErrorIs(t, try(), errKey, name)
	}
}

func requireParam(t *testing.T, err error, param string) {
	t.Helper()
	e, ok := svcerr.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, param, e.Param, "%v", err)
}

// TestPolicyApply: defaults, null turns a limit off, bounds and cents are checked naming the field,
// and re-adding a recipient restarts its cooldown.
func TestPolicyApply(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	w := p.ToWire()
	require.Equal(t, 500.0, *w.DailyLimitUSD)
	require.Equal(t, 500.0, *w.PerTransactionLimitUSD)
	require.Nil(t, w.ApprovalAboveUSD)
	require.Equal(t, 24, w.PermittedRecipients.CooldownHours)
	require.False(t, w.PermittedRecipients.Enabled)

	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p2, err := p.Apply(client.UpdateWalletPolicyRequest{DailyLimitUSD: client.DisableUSD(), ApprovalAboveUSD: client.USD(120.5),
		PermittedRecipients: &client.PermittedRecipientsUpdate{Add: []string{"0x52908400098527886E0F7030069857D2E4169EE7"}}}, t0)
	require.NoError(t, err)
	w = p2.ToWire()
	require.Nil(t, w.DailyLimitUSD)
	require.Equal(t, 500.0, *w.PerTransactionLimitUSD, "a field left out keeps its value")
	require.Equal(t, 120.5, *w.ApprovalAboveUSD)
	require.Equal(t, t0.Add(24*time.Hour), w.PermittedRecipients.Entries[0].UsableAt)
	require.Equal(t, 500.0, *p.ToWire().DailyLimitUSD, "Apply leaves the policy it was called on as it was")

	p3, err := p2.Apply(client.UpdateWalletPolicyRequest{PermittedRecipients: &client.PermittedRecipientsUpdate{
		Add: []string{"0x52908400098527886e0f7030069857d2e4169ee7"}}}, t0.Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, p3.Recipients.Entries, 1)
	require.Equal(t, t0.Add(time.Hour), p3.Recipients.Entries[0].AddedAt, "re-adding restarts the cooldown")

	for _, tc := range []struct {
		u     client.UpdateWalletPolicyRequest
		param string
	}{
		{client.UpdateWalletPolicyRequest{DailyLimitUSD: client.USD(0)}, "dailyLimitUsd"},
		{client.UpdateWalletPolicyRequest{PerTransactionLimitUSD: client.USD(1_000_000.01)}, "perTransactionLimitUsd"},
		{client.UpdateWalletPolicyRequest{ApprovalAboveUSD: client.USD(1.005)}, "approvalAboveUsd"},
		{client.UpdateWalletPolicyRequest{PermittedRecipients: &client.PermittedRecipientsUpdate{CooldownHours: ptr(169)}}, "permittedRecipients.cooldownHours"},
		{client.UpdateWalletPolicyRequest{PermittedRecipients: &client.PermittedRecipientsUpdate{Add: []string{"0xabc"}}}, "permittedRecipients.add[0]"},
		{client.UpdateWalletPolicyRequest{PermittedRecipients: &client.PermittedRecipientsUpdate{
			Add: []string{"0x52908400098527886E0F7030069857D2E4169ee7"}}}, "permittedRecipients.add[0]"},
		{client.UpdateWalletPolicyRequest{PermittedRecipients: &client.PermittedRecipientsUpdate{
			Remove: []string{"0x0000000000000000000000000000000000000000"}}}, "permittedRecipients.remove[0]"},
	} {
		_, err := p.Apply(tc.u, t0)
		requireParam(t, err, tc.param)
	}
}

func ptr[T any](v T) *T { return &v }

// TestFormatUnits: atomic amounts as decimal strings without trailing zeros.
func TestFormatUnits(t *testing.T) {
	t.Parallel()
	for atomic, want := range map[int64]string{0: "0", 1: "0.000001", 1_500_000: "1.5", 12_000_000: "12", -250_000: "-0.25"} {
		require.Equal(t, want, FormatUnits(big.NewInt(atomic), 6))
	}
	wei, _ := new(big.Int).SetString("1000000000000000001", 10)
	require.Equal(t, "1.000000000000000001", FormatUnits(wei, 18))
}
