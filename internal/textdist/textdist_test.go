package textdist

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	require.Equal(t, 3, Levenshtein("kitten", "sitting"))
	require.Equal(t, 0, Levenshtein("", ""))
	require.Equal(t, 4, Levenshtein("", "runs"))
	require.Equal(t, 1, Levenshtein("café", "cafe"), "in runes, not bytes")
}
