package handles

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
)

var (
	alice = common.HexToAddress("0x52908400098527886E0F7030069857D2E4169EE7")
	bob   = common.HexToAddress("0x8617E340B3D01FA5F11F306F4090FD50E238070D")
)

// TestResolveEveryKind: addresses, X and Farcaster usernames (any case, with or without @) and
// ENS-style names from the file and from the fixed names resolve; unknown, malformed and unknown kinds
// are the errors that say so.
func TestResolveEveryKind(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "handles.yaml")
	require.NoError(t, os.WriteFile(path, []byte("x:\n  Alice: \""+alice.Hex()+"\"\nfarcaster:\n  bob: \""+bob.Hex()+"\"\nens:\n  alice.eth: \""+alice.Hex()+"\"\n"), 0o600))
	r, err := New(path, Names{"Bob.ETH": bob})
	require.NoError(t, err)
	for _, tc := range []struct {
		kind, value string
		want        common.Address
	}{
		{KindWallet, alice.Hex(), alice},
		{KindWallet, "0x52908400098527886e0f7030069857d2e4169ee7", alice},
		{KindX, "@ALICE", alice},
		{KindX, "alice", alice},
		{KindFarcaster, "Bob", bob},
		{KindENS, "Alice.eth", alice},
		{KindENS, "bob.eth", bob},
	} {
		got, err := r.Resolve(tc.kind, tc.value)
		require.NoError(t, err, "%s %s", tc.kind, tc.value)
		require.Equal(t, tc.want, got, "%s %s", tc.kind, tc.value)
	}
	_, err = r.Resolve(KindX, "carol")
	require.ErrorIs(t, err, ErrNotFound)
	_, err = r.Resolve(KindENS, "carol")
	require.ErrorIs(t, err, ErrMalformed)
	_, err = r.Resolve(KindWallet, "0x52908400098527886e0f7030069857D2E4169EE7")
	require.ErrorIs(t, err, ErrMalformed, "a wrong checksum")
	_, err = r.Resolve("lens", "alice")
	require.ErrorIs(t, err, ErrUnknownKind)

	var none *Resolver
	got, err := none.Resolve(KindWallet, bob.Hex())
	require.NoError(t, err)
	require.Equal(t, bob, got)
	_, err = none.Resolve(KindX, "alice")
	require.ErrorIs(t, err, ErrNotFound)
}

// TestResolverReadsTheFileAgain: a changed file is read again on the next lookup; a file that becomes
// broken fails lookups (naming it) until it is fixed; a broken file fails New.
func TestResolverReadsTheFileAgain(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "handles.yaml")
	write := func(body string, at time.Time) {
		require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
		require.NoError(t, os.Chtimes(path, at, at))
	}
	start := time.Now().Add(-time.Hour)
	write("x:\n  alice: \""+alice.Hex()+"\"\n", start)
	r, err := New(path, nil)
	require.NoError(t, err)
	got, err := r.Resolve(KindX, "alice")
	require.NoError(t, err)
	require.Equal(t, alice, got)

	write("x:\n  alice: \""+bob.Hex()+"\"\n", start.Add(time.Minute))
	got, err = r.Resolve(KindX, "alice")
	require.NoError(t, err)
	require.Equal(t, bob, got, "the new file is read")

	write("x:\n  alice: nope\n", start.Add(2*time.Minute))
	_, err = r.Resolve(KindX, "alice")
	require.ErrorContains(t, err, "x alice")

	_, err = New(path, nil)
	require.ErrorIs(t, err, ErrMalformed)
	_, err = New(filepath.Join(t.TempDir(), "missing.yaml"), nil)
	require.ErrorIs(t, err, os.ErrNotExist)
}
