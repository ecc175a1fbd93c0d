package topup_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/internal/topup"
	"github.com/svcplatform/svc/internal/x402"
)

var testX402 = &x402.Config{Network: "eip155:84532", ChainID: big.NewInt(84532), Asset: common.HexToAddress("0x1"),
	PayTo: common.HexToAddress("0x2"), Name: "USD Coin", Version: "2", MaxTimeoutSeconds: 300}

// TestBuyDecidesBeforeTheChain: what Buy answers before any payment reaches the chain: top-ups not
// configured, an amount out of bounds, no payment (what to pay), and a payment that does not decode.
func TestBuyDecidesBeforeTheChain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	purchase := topup.Purchase{Scope: tenant.Scope{AccountID: "acct_t"}, IdempotencyKey: "k1", AmountUSD: 12.5}

	_, err := topup.NewService(nil, nil, topup.Options{}).Buy(ctx, purchase)
	require.True(t, svcerr.Is(err, svcerr.Unavailable), "got %v", err)

	s := topup.NewService(topup.NewStore(testdb.New(t)), nil, topup.Options{X402: testX402})
	for _, usd := range []float64{4.99, 500.01, 10.005} {
		bad := purchase
		bad.AmountUSD = usd
		_, err := s.Buy(ctx, bad)
		e, ok := svcerr.As(err)
		require.True(t, ok, "%v: got %v", usd, err)
		assert.Equal(t, "amountUsd", e.Param, "%v", usd)
	}

	_, err = s.Buy(ctx, purchase)
	var unpaid *topup.PaymentError
	require.True(t, errors.As(err, &unpaid), "got %v", err)
	assert.Equal(t, topup.ReasonPaymentMissing, unpaid.Reason)
	assert.Equal(t, "12500000", unpaid.Requirements.Amount, "12.50 USD in a 6-decimal token")
	assert.Equal(t, testX402.PayTo.Hex(), unpaid.Requirements.PayTo)

	purchase.Payment = "not base64 JSON"
	_, err = s.Buy(ctx, purchase)
	require.True(t, errors.As(err, &unpaid), "got %v", err)
	assert.NotEqual(t, topup.ReasonPaymentMissing, unpaid.Reason)
	assert.NotEmpty(t, unpaid.Message)
}

func TestCents(t *testing.T) {
	t.Parallel()
	for usd, want := range map[float64]int64{5: 500, 12.5: 1250, 500: 50_000, 19.99: 1999} {
		got, err := topup.Cents(usd)
		require.NoError(t, err, "%v", usd)
		assert.Equal(t, want, got, "%v", usd)
	}
}
