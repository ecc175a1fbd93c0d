package cryptorail

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

func f64(v float64) *float64 { return &v }

// full are the facts of a key that may use every rail: 10 USD of credits, top-ups on the dev chain, a
// paused wallet, one limited to 50 USD and one without a limit.
func full() Facts {
	return Facts{CreditsPerUSD: 100, X402: &X402Offer{Network: "eip155:1337", Asset: "0xA", PayTo: "0xB"}, CanTopUp: true,
		Balance: f64(1000), WalletsConfigured: true, CanSend: true, Wallets: []client.CryptoWallet{
			{ID: "wal_paused", Paused: true},
			{ID: "wal_small", PerTransactionLimitUSD: f64(50)},
			{ID: "wal_big"},
		}}
}

// TestSelect covers each purpose's preference, the bounds of each rail, the wallet choice and the
// refusals of CheckRequest.
func TestSelect(t *testing.T) {
	t.Parallel()
	to := "0x000000000000000000000000000000000000dEaD"
	noTopUps := full()
	noTopUps.X402 = nil
	noBalance := full()
	noBalance.Balance = nil
	for _, c := range []struct {
		name     string
		facts    Facts
		req      client.CryptoActionRequest
		rail     string
		wallet   string
		param    string // a 400 naming it
		conflict string // a 409 saying it
	}{
		{"credits cover", full(), client.CryptoActionRequest{AmountUSD: 10}, client.RailCredits, "", "", ""},
		{"credits short: top up", full(), client.CryptoActionRequest{AmountUSD: 10.01}, client.RailX402TopUp, "", "", ""},
		{"balance unknown: top up", noBalance, client.CryptoActionRequest{AmountUSD: 1}, client.RailX402TopUp, "", "", ""},
		{"nothing for the platform", func() Facts { f := noTopUps; f.Balance = f64(0); return f }(),
			client.CryptoActionRequest{AmountUSD: 1}, "", "", "", "this server sells no x402 top-ups"},
		{"top-up above 500", full(), client.CryptoActionRequest{AmountUSD: 501, Purpose: client.PurposeTopUp}, "", "", "", "not 501"},
		{"top-up", full(), client.CryptoActionRequest{AmountUSD: 500, Purpose: client.PurposeTopUp}, client.RailX402TopUp, "", "", ""},
		{"transfer: first wallet that fits", full(), client.CryptoActionRequest{AmountUSD: 20, To: to}, client.RailWalletSend, "wal_small", "", ""},
		{"transfer above a limit", full(), client.CryptoActionRequest{AmountUSD: 60, To: to}, client.RailWalletSend, "wal_big", "", ""},
		{"named paused wallet", full(), client.CryptoActionRequest{AmountUSD: 1, To: to, WalletID: "wal_paused"}, "", "", "", "wal_paused is paused"},
		{"named wallet over its limit", full(), client.CryptoActionRequest{AmountUSD: 51, To: to, WalletID: "wal_small"}, "", "", "", "at most 50 USD"},
		{"unknown wallet", full(), client.CryptoActionRequest{AmountUSD: 1, To: to, WalletID: "wal_other"}, "", "", "", "no wallet wal_other"},
		{"key may not send", func() Facts { f := full(); f.CanSend = false; return f }(),
			client.CryptoActionRequest{AmountUSD: 1, To: to}, "", "", "", "wallets:transact"},
		{"rail named that does not fit the purpose", full(), client.CryptoActionRequest{Action: client.CryptoPrepare, AmountUSD: 1, To: to, Rail: client.RailCredits}, "", "", "", "credits pay only"},
		{"rail named", full(), client.CryptoActionRequest{Action: client.CryptoPrepare, AmountUSD: 6, Rail: client.RailX402TopUp}, client.RailX402TopUp, "", "", ""},
		{"zero", full(), client.CryptoActionRequest{AmountUSD: 0}, "", "", "amountUsd", ""},
		{"three decimals", full(), client.CryptoActionRequest{AmountUSD: 0.001}, "", "", "amountUsd", ""},
		{"transfer without to", full(), client.CryptoActionRequest{AmountUSD: 1, Purpose: client.PurposeTransfer}, "", "", "to", ""},
		{"rail on select", full(), client.CryptoActionRequest{AmountUSD: 1, Rail: client.RailCredits}, "", "", "rail", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			req := c.req
			if req.Action == "" {
				req.Action = client.CryptoSelect
			}
			purpose, err := CheckRequest(req)
			if c.param != "" {
				var e *svcerr.Error
				require.ErrorAs(t, err, &e)
				require.Equal(t, c.param, e.Param)
				return
			}
			require.NoError(t, err)
			sel, err := Select(c.facts, req, purpose)
			if c.conflict != "" {
				require.True(t, svcerr.Is(err, svcerr.Conflict), "%v", err)
				require.ErrorContains(t, err, c.conflict)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.rail, sel.Rail, sel.Reason)
			require.Equal(t, c.wallet, sel.WalletID)
			require.Len(t, sel.Verdicts, 3)
		})
	}
}

// TestPrepare: a top-up for the platform buys at least the minimum; a wallet send checksums the
// address and quotes first; credits prepare a balance read; nothing is marked executed.
func TestPrepare(t *testing.T) {
	t.Parallel()
	f := full()
	prep := func(r client.CryptoActionRequest) *client.CryptoPrepared {
		t.Helper()
		r.Action = client.CryptoPrepare
		purpose, err := CheckRequest(r)
		require.NoError(t, err)
		f.Balance = f64(0)
		sel, err := Select(f, r, purpose)
		require.NoError(t, err)
		p, err := Prepare(f, r, sel, "http://api.test", "k1")
		require.NoError(t, err)
		require.False(t, p.Executed)
		return p
	}
	p := prep(client.CryptoActionRequest{AmountUSD: 1})
	require.Equal(t, map[string]any{"amountUsd": float64(5)}, p.Request.Body, "at least the smallest top-up")
	require.Equal(t, "http://api.test/v1/credits/x402/top-up", p.Request.URL)
	require.Equal(t, "k1", p.Request.Headers["Idempotency-Key"])
	require.Contains(t, p.Then, "5 USDC on eip155:1337 to 0xB")

	p = prep(client.CryptoActionRequest{AmountUSD: 12.5, To: "0x000000000000000000000000000000000000dead"})
	require.Equal(t, "/v1/wallets/wal_small/transactions", p.Request.Path)
	require.Equal(t, "/v1/wallets/wal_small/transactions/quote", p.Preflight.Path)
	require.Equal(t, map[string]any{"to": "0x000000000000000000000000000000000000dEaD", "amount": "12.5", "asset": "usdc"}, p.Request.Body)

	r := client.CryptoActionRequest{Action: client.CryptoPrepare, AmountUSD: 1, To: "bob"}
	sel, err := Select(full(), r, client.PurposeTransfer)
	require.NoError(t, err)
	_, err = Prepare(full(), r, sel, "http://api.test", "k1")
	var e *svcerr.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "to", e.Param)

	f.Balance = f64(1000)
	sel, err = Select(f, client.CryptoActionRequest{AmountUSD: 1}, client.PurposePlatform)
	require.NoError(t, err)
	p, err = Prepare(f, client.CryptoActionRequest{AmountUSD: 1}, sel, "http://api.test", "k1")
	require.NoError(t, err)
	require.Equal(t, "GET", p.Request.Method)
	require.Empty(t, p.Request.Headers, "a read takes no Idempotency-Key")
}

// TestRails: availability follows the facts, with the reason.
func TestRails(t *testing.T) {
	t.Parallel()
	rails := Rails(Facts{CreditsPerUSD: 100})
	require.Equal(t, []string{client.RailCredits, client.RailX402TopUp, client.RailWalletSend}, []string{rails[0].ID, rails[1].ID, rails[2].ID})
	for _, r := range rails {
		require.False(t, r.Available, r.ID)
		require.NotEmpty(t, r.UnavailableReason, r.ID)
	}
	rails = Rails(full())
	for _, r := range rails {
		require.True(t, r.Available, r.ID)
	}
	require.Nil(t, rails[2].Limits.MaxUSD, "wal_big has no limit")
	require.InDelta(t, 10, *rails[0].Limits.MaxUSD, 0)
}
