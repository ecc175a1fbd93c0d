package temporal

import (
	"context"
	"log/slog"

	serverlog "go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// Floors for embedded-server logs: the server logs a lot at info level, and
// while shutting down it reports every interrupted poll and connection as a
// warning or error, so it is muted then (Stop returns the errors that count).
const (
	serverLogLevel     = slog.LevelWarn
	serverStopLogLevel = slog.LevelError + 4
)

// slogServerLogger adapts a *slog.Logger to the Temporal server's logger
// interface.
type slogServerLogger struct {
	log *slog.Logger
}

// newServerLogger returns a server logger writing to logger, dropping
// records below min.
func newServerLogger(logger *slog.Logger, min slog.Leveler) slogServerLogger {
	return slogServerLogger{log: slog.New(minLevelHandler{Handler: logger.Handler(), min: min})}
}

var (
	_ serverlog.Logger      = slogServerLogger{}
	_ serverlog.WithLogger  = slogServerLogger{}
	_ serverlog.SLogWrapper = slogServerLogger{}
)

// Debug logs at debug level.
func (l slogServerLogger) Debug(msg string, tags ...tag.Tag) { l.emit(slog.LevelDebug, msg, tags) }

// Info logs at info level.
func (l slogServerLogger) Info(msg string, tags ...tag.Tag) { l.emit(slog.LevelInfo, msg, tags) }

// Warn logs at warn level.
func (l slogServerLogger) Warn(msg string, tags ...tag.Tag) { l.emit(slog.LevelWarn, msg, tags) }

// Error logs at error level.
func (l slogServerLogger) Error(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }

// DPanic logs at error level; an embedded server must not crash its host.
func (l slogServerLogger) DPanic(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }

// Panic logs at error level; an embedded server must not crash its host.
func (l slogServerLogger) Panic(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }

// Fatal logs at error level; an embedded server must not exit its host.
func (l slogServerLogger) Fatal(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }

// With returns a logger that adds tags to every record.
func (l slogServerLogger) With(tags ...tag.Tag) serverlog.Logger {
	return slogServerLogger{log: l.log.With(tagsToArgs(tags)...)}
}

// SLog exposes the (level-filtered) slog logger to server code that wants
// one.
func (l slogServerLogger) SLog() *slog.Logger {
	return l.log
}

// emit writes one record if its level passes the filter.
func (l slogServerLogger) emit(level slog.Level, msg string, tags []tag.Tag) {
	ctx := context.Background()
	if !l.log.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, len(tags))
	for i, t := range tags {
		attrs[i] = slog.Any(t.Key(), t.Value())
	}
	l.log.LogAttrs(ctx, level, msg, attrs...)
}

// tagsToArgs converts server log tags to slog.With arguments.
func tagsToArgs(tags []tag.Tag) []any {
	args := make([]any, len(tags))
	for i, t := range tags {
		args[i] = slog.Any(t.Key(), t.Value())
	}
	return args
}

// minLevelHandler drops records below min before handing them on.
type minLevelHandler struct {
	slog.Handler
	min slog.Leveler
}

// Enabled reports whether level passes both the floor and the wrapped handler.
func (h minLevelHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= h.min.Level() && h.Handler.Enabled(ctx, level)
}

// WithAttrs keeps the level floor on derived handlers.
func (h minLevelHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevelHandler{Handler: h.Handler.WithAttrs(attrs), min: h.min}
}

// WithGroup keeps the level floor on derived handlers.
func (h minLevelHandler) WithGroup(name string) slog.Handler {
	return minLevelHandler{Handler: h.Handler.WithGroup(name), min: h.min}
}
