package vault_test

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/vault"
	"github.com/svcplatform/svc/internal/vault/vaulttest"
)

// TestReceiverNeverSeesAHalfTransfer replicates a transfer file by file, in random orders (some with the
// manifest first), each file first half written: after every write the receiver either sees nothing or
// the whole transfer with every payload byte-identical to the sender's, and cannot acknowledge before.
// The ack then travels back.
func TestReceiverNeverSeesAHalfTransfer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for seed := uint64(1); seed <= 12; seed++ {
		sender, receiver := openVault(t), openVault(t)
		files := writeFiles(t, "a.txt", strings.Repeat("alpha ", 300), "b.bin", "\x00\x01bravo", "c.md", "# charlie")
		to := vault.Identity{MachineID: "m-b", Runtime: "codex", AgentID: "a1"}
		m, err := sender.Send(ctx, vault.SendRequest{Files: files, To: to, Note: "three files"})
		require.NoError(t, err)

		steps, sawWhole := 0, false
		provider := &vaulttest.Provider{Rand: rand.New(rand.NewPCG(seed, 7)), ManifestFirst: seed%2 == 0, Halves: true,
			Step: func(copied string) {
				steps++
				inbox, err := receiver.Inbox(ctx, vault.InboxQuery{Receiver: to})
				require.NoError(t, err)
				if len(inbox) == 0 {
					_, err := receiver.Ack(ctx, m.ID, to)
					require.Error(t, err, "seed %d after %s: ack before the transfer is whole", seed, copied)
					require.False(t, svcerr.Is(err, svcerr.InvalidRequest))
					return
				}
				require.Len(t, inbox, 1)
				sawWhole = true
				for i, f := range inbox[0].Files {
					want, err := os.ReadFile(files[i])
					require.NoError(t, err)
					got, err := os.ReadFile(f.AbsPath)
					require.NoError(t, err)
					require.Equal(t, want, got, "seed %d: a visible transfer's payload is whole", seed)
				}
			}}
		n, err := provider.Sync(sender.Root(), receiver.Root())
		require.NoError(t, err)
		require.Equal(t, 4, n)
		require.Equal(t, 8, steps)
		require.True(t, sawWhole, "seed %d: the transfer became visible", seed)

		_, err = receiver.Ack(ctx, m.ID, to)
		require.NoError(t, err)
		back := &vaulttest.Provider{Rand: rand.New(rand.NewPCG(seed, 8))}
		n, err = back.Sync(receiver.Root(), sender.Root())
		require.NoError(t, err)
		require.Equal(t, 1, n, "the receiver wrote only its own ack file")
		acks, err := sender.Acks(m.ID)
		require.NoError(t, err)
		require.Len(t, acks, 1)
		require.Equal(t, "a1", acks[0].AgentID)
	}
}
