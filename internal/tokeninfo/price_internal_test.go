package tokeninfo

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPriceKeepsSignificantDigits: a price has 18 decimals, a smaller one keeps 8 significant digits,
// trailing zeros are dropped and a whole price has no point.
func TestPriceKeepsSignificantDigits(t *testing.T) {
	t.Parallel()
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		require.True(t, ok, s)
		return r
	}
	for in, want := range map[string]string{
		"1500":                        "1500",
		"1/3":                         "0.333333333333333333",
		"0.000000000113112366":        "0.000000000113112366",
		"0.0000000000000012345678912": "0.0000000000000012345679",
		"0.5":                         "0.5",
	} {
		require.Equal(t, want, price(rat(in)), in)
	}
}
