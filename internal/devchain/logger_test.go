package devchain

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGethLoggerLevels(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	quiet := gethLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	quiet.Info("geth info")
	quiet.Warn("P2P server will be useless, neither dialing nor listening")
	quiet.Warn("geth warning")
	require.NotContains(t, buf.String(), "geth info")
	require.NotContains(t, buf.String(), "P2P server")
	require.Contains(t, buf.String(), "geth warning")
	require.Contains(t, buf.String(), "component=geth")

	buf.Reset()
	verbose := gethLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	verbose.Debug("geth debug")
	verbose.Warn("P2P server will be useless, neither dialing nor listening")
	require.Contains(t, buf.String(), "geth debug")
	require.Contains(t, buf.String(), "P2P server")

	silent := gethLogger(nil)
	silent.Error("nobody hears this") // must not panic
}

// syncBuffer is a bytes.Buffer safe for geth's goroutines to log into.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestFreshChainStartsWithoutWarnings starts a new chain (deploying the dev USDC) with an info-level logger,
// as svcd dev does on a fresh clone: nothing at warning level or above is logged, so a newcomer sees no
// failure where there is none. Not parallel: geth's process-wide logger would also carry other tests' chains.
func TestFreshChainStartsWithoutWarnings(t *testing.T) {
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	for range 3 { // the warning came from a race: several fresh starts make it show
		chain, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), Logger: log})
		require.NoError(t, err)
		require.NoError(t, chain.Close())
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		require.NotRegexp(t, `level=(WARN|ERROR)`, line)
	}
}
