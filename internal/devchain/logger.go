package devchain

import (
	"context"
	"log/slog"
	"sync"

	gethlog "github.com/ethereum/go-ethereum/log"
)

// gethLogger adapts cfg's logger for geth. With no logger geth stays silent;
// otherwise only geth's warnings and errors pass, unless the logger is
// enabled at debug level, in which case geth's debug output passes too.
func gethLogger(l *slog.Logger) gethlog.Logger {
	if l == nil {
		return gethlog.NewLogger(gethlog.DiscardHandler())
	}
	floor := slog.LevelWarn
	if l.Enabled(context.Background(), slog.LevelDebug) {
		floor = slog.LevelDebug
	}
	h := l.Handler().WithAttrs([]slog.Attr{slog.String("component", "geth")})
	return gethlog.NewLogger(levelFloor{Handler: h, floor: floor})
}

// levelFloor drops records below floor before they reach the wrapped handler.
type levelFloor struct {
	slog.Handler
	floor slog.Level
}

// expectedWarnings are geth warnings that are normal for an embedded dev
// chain; they pass only when the floor lets debug output through.
var expectedWarnings = map[string]bool{
	"P2P server will be useless, neither dialing nor listening": true, // P2P is off on purpose
	"Head block is not reachable":                               true, // first start on an empty data dir
}

// Handle passes r on unless it is an expected warning below a debug floor.
func (f levelFloor) Handle(ctx context.Context, r slog.Record) error {
	if f.floor > slog.LevelDebug && expectedWarnings[r.Message] {
		return nil
	}
	return f.Handler.Handle(ctx, r)
}

// Enabled reports whether level clears both the floor and the wrapped handler.
func (f levelFloor) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= f.floor && f.Handler.Enabled(ctx, level)
}

// WithAttrs keeps the floor on the derived handler.
func (f levelFloor) WithAttrs(attrs []slog.Attr) slog.Handler {
	return levelFloor{Handler: f.Handler.WithAttrs(attrs), floor: f.floor}
}

// WithGroup keeps the floor on the derived handler.
func (f levelFloor) WithGroup(name string) slog.Handler {
	return levelFloor{Handler: f.Handler.WithGroup(name), floor: f.floor}
}

// rootLogger hides geth's concrete logger type from log.SetDefault, which
// would otherwise also replace the process-wide slog default.
type rootLogger struct{ gethlog.Logger }

// installRootLogger makes l geth's process-wide logger (most of geth logs
// through it, not through the node's logger) and returns a function that
// puts the previous one back. A nil slog logger leaves geth's default, which
// discards everything, alone.
func installRootLogger(l *slog.Logger, gl gethlog.Logger) (restore func()) {
	if l == nil {
		return func() {}
	}
	prev := gethlog.Root()
	gethlog.SetDefault(rootLogger{gl})
	return sync.OnceFunc(func() { gethlog.SetDefault(rootLogger{prev}) })
}
