// Package app wires svc's processes together: configuration from the environment, and one Run function
// per mode (dev, api, worker, migrate) that main calls. Constructors take explicit dependencies; nothing
// here is global.
package app

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/svcplatform/svc/internal/secretbox"
	svctemporal "github.com/svcplatform/svc/temporal"
)

// Config is everything a process reads from its environment. Every variable is documented in README.md.
type Config struct {
	// HTTPAddr is where the API listens (SVC_HTTP_ADDR, default 127.0.0.1:8080).
	HTTPAddr string
	// DatabaseURL is the PostgreSQL URL (DATABASE_URL). In dev mode it is discovered when empty.
	DatabaseURL string
	// DBMaxConns caps the pool (SVC_DB_MAX_CONNS, default 20).
	DBMaxConns int
	// DataDir holds dev-mode state: keys, the Temporal SQLite file, a private PostgreSQL (SVC_DATA_DIR, default .data).
	DataDir string
	// EncryptionKey is the base64 master key (SVC_ENCRYPTION_KEY). Dev mode generates DataDir/keys/master.key.
	EncryptionKey string
	// Temporal is how to reach Temporal (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_CERT,
	// TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_API_KEY).
	Temporal svctemporal.ClientConfig
	// TemporalPort and TemporalUIPort are the dev server's frontend and Web UI ports
	// (SVC_TEMPORAL_PORT default 7233, SVC_TEMPORAL_UI_PORT default 8233; -1 disables the UI).
	TemporalPort   int
	TemporalUIPort int
	// LogLevel is debug, info, warn or error (SVC_LOG_LEVEL, default info); LogFormat is text or json (SVC_LOG_FORMAT).
	LogLevel  string
	LogFormat string
	// Version is the build, set by main.
	Version string
}

// FromEnv reads the configuration through getenv (os.Getenv in main, a map in tests).
func FromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{
		HTTPAddr:      or(getenv("SVC_HTTP_ADDR"), "127.0.0.1:8080"),
		DatabaseURL:   getenv("DATABASE_URL"),
		DataDir:       or(getenv("SVC_DATA_DIR"), ".data"),
		EncryptionKey: getenv("SVC_ENCRYPTION_KEY"),
		Temporal: svctemporal.ClientConfig{
			Address: getenv("TEMPORAL_ADDRESS"), Namespace: getenv("TEMPORAL_NAMESPACE"),
			TLSCertFile: getenv("TEMPORAL_TLS_CERT"), TLSKeyFile: getenv("TEMPORAL_TLS_KEY"),
			TLSCAFile: getenv("TEMPORAL_TLS_CA"), TLSServerName: getenv("TEMPORAL_TLS_SERVER_NAME"),
			APIKey: getenv("TEMPORAL_API_KEY"),
		},
		LogLevel:  or(getenv("SVC_LOG_LEVEL"), "info"),
		LogFormat: or(getenv("SVC_LOG_FORMAT"), "text"),
	}
	var err error
	if cfg.DBMaxConns, err = intVar(getenv, "SVC_DB_MAX_CONNS", 20); err != nil {
		return Config{}, err
	}
	if cfg.TemporalPort, err = intVar(getenv, "SVC_TEMPORAL_PORT", svctemporal.DefaultDevFrontendPort); err != nil {
		return Config{}, err
	}
	if cfg.TemporalUIPort, err = intVar(getenv, "SVC_TEMPORAL_UI_PORT", svctemporal.DefaultDevUIPort); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func intVar(getenv func(string) string, name string, def int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s must be a whole number, got %q", name, v)
	}
	return n, nil
}

// Logger builds the process logger.
func (c Config) Logger() *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(c.LogFormat, "json") {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// Box returns the secret box for SVC_ENCRYPTION_KEY; with allowFile (dev mode), a key file under the
// data directory is created or read instead when the variable is empty.
func (c Config) Box(allowFile bool) (*secretbox.Box, error) {
	var key []byte
	var err error
	switch {
	case c.EncryptionKey != "":
		key, err = secretbox.ParseKey(c.EncryptionKey)
	case allowFile:
		key, err = secretbox.LoadOrCreateKeyFile(filepath.Join(c.DataDir, "keys", "master.key"))
	default:
		return nil, fmt.Errorf("SVC_ENCRYPTION_KEY is required (32 bytes, base64; e.g. `openssl rand -base64 32`)")
	}
	if err != nil {
		return nil, fmt.Errorf("encryption key: %w", err)
	}
	return secretbox.New(key)
}

// DefaultGCPercent is the garbage collector target svcd uses unless GOGC is set: the API allocates
// briefly per request, memory is plentiful and CPU is not, so collecting less often buys throughput.
const DefaultGCPercent = 400

// TuneGC applies DefaultGCPercent when the operator has not set GOGC.
func TuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(DefaultGCPercent)
	}
}
