package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
)

// TestCrashBeforeManifestLeavesNothingVisible freezes the vault as a sender crash after the payloads and
// before the manifest leaves it (copied aside at that moment), and checks a receiver of that copy sees
// nothing and cannot acknowledge.
func TestCrashBeforeManifestLeavesNothingVisible(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sender, err := Open(t.TempDir(), Options{})
	require.NoError(t, err)
	crashed := t.TempDir()
	src := filepath.Join(t.TempDir(), "big.txt")
	require.NoError(t, os.WriteFile(src, []byte("payload written, manifest not"), 0o644))
	var id string
	errCrash := errors.New("crash")
	sender.beforeManifest = func() error {
		require.NoError(t, os.CopyFS(crashed, os.DirFS(sender.Root())))
		ids, err := sender.transferIDs()
		require.NoError(t, err)
		require.Len(t, ids, 1)
		id = ids[0]
		return errCrash
	}
	to := Identity{MachineID: "m-b"}
	_, err = sender.Send(ctx, SendRequest{Files: []string{src}, To: to})
	require.ErrorIs(t, err, errCrash)

	_, err = os.Stat(filepath.Join(crashed, TransfersDir, id, PayloadDir, "big.txt"))
	require.NoError(t, err, "the crash image holds the payload")
	receiver, err := Open(crashed, Options{})
	require.NoError(t, err)
	inbox, err := receiver.Inbox(ctx, InboxQuery{Receiver: to, All: true})
	require.NoError(t, err)
	require.Empty(t, inbox)
	_, err = receiver.Ack(ctx, id, to)
	require.True(t, svcerr.Is(err, svcerr.Conflict), "%v", err)
	_, err = os.Stat(filepath.Join(crashed, TransfersDir, id, AcksDir))
	require.True(t, os.IsNotExist(err), "a refused ack writes nothing")
	_, err = os.Stat(sender.transferDir(id))
	require.True(t, os.IsNotExist(err), "a failed send (without a crash) cleans up")
}
