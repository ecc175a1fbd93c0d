package devchain

import (
	"bytes"
	"log/slog"
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
