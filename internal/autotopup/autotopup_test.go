package autotopup_test

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/autotopup"
)

// TestMillicreditsAtThePrice: one ether at 3,000 USD is 300,000 credits; amounts round down; no price or
// no amount credits nothing.
func TestMillicreditsAtThePrice(t *testing.T) {
	t.Parallel()
	ether, _ := new(big.Int).SetString("1000000000000000000", 10)
	require.Equal(t, int64(300_000_000), autotopup.Millicredits(ether, 300_000))
	require.Equal(t, int64(3000), autotopup.Millicredits(big.NewInt(10_000_000_000_999), 300_000), "0.00001 ether is 3 credits, the rest rounded down")
	require.Zero(t, autotopup.Millicredits(ether, 0))
	require.Zero(t, autotopup.Millicredits(big.NewInt(0), 300_000))
	require.Zero(t, autotopup.Millicredits(nil, 300_000))
}

// TestClaimIDIsDerived: the same account, token (any case) and round give the same claim; another round
// another.
func TestClaimIDIsDerived(t *testing.T) {
	t.Parallel()
	a := autotopup.ClaimID("acct_1", "0xAbC0000000000000000000000000000000000001", 1)
	require.Equal(t, a, autotopup.ClaimID("acct_1", "0xabc0000000000000000000000000000000000001", 1))
	require.NotEqual(t, a, autotopup.ClaimID("acct_1", "0xabc0000000000000000000000000000000000001", 2))
	require.Regexp(t, `^fclm_`, a)
	require.Equal(t, "autotopup:"+a, autotopup.Reference(a))
}
