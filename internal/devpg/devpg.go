// Package devpg finds or provisions a PostgreSQL server for local
// development ("embedded defaults").
//
// Ensure tries, in order:
//
//  1. DATABASE_URL (Options.DatabaseURL), returned untouched;
//  2. a server answering on Options.LocalAddr (default 127.0.0.1:5432) with
//     trust authentication for user postgres, where the application
//     database is created when missing;
//  3. a private cluster under <DataDir>/pg, initialised and started with the
//     system's initdb/pg_ctl (Debian's postgresql package is installed when
//     no binaries exist, the process runs as root and Options.AllowInstall is
//     set).
package devpg

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"regexp"
	"strconv"
)

// Source values reported in Result.Source.
const (
	// SourceEnv means the URL came from DATABASE_URL.
	SourceEnv = "env"
	// SourceLocal means a server already listening on LocalAddr is used.
	SourceLocal = "local"
	// SourcePrivate means a private cluster under DataDir/pg is used.
	SourcePrivate = "private"
)

// Defaults applied by Ensure to zero-valued Options fields.
const (
	// DefaultLocalAddr is the address probed for an existing server.
	DefaultLocalAddr = "127.0.0.1:5432"
	// DefaultPrivatePort is the TCP port of the private cluster.
	DefaultPrivatePort = 5433
	// DefaultDatabase is the application database name.
	DefaultDatabase = "svc"
)

// Options configures Ensure. Zero values select the defaults.
type Options struct {
	// DatabaseURL, when non-empty, is returned as is (Source "env").
	DatabaseURL string
	// DataDir holds the private cluster in DataDir/pg (e.g. ".data").
	DataDir string
	// LocalAddr is the host:port probed for an existing server
	// (default 127.0.0.1:5432).
	LocalAddr string
	// PrivatePort is the port the private cluster listens on, on
	// 127.0.0.1 only (default 5433). It must differ from LocalAddr's port.
	PrivatePort int
	// Database is the application database, matching [a-z_][a-z0-9_]*
	// (default "svc"). It is created when missing.
	Database string
	// AllowInstall permits "apt-get install -y postgresql" when no server
	// binaries exist and the process runs as root.
	AllowInstall bool
	// Logger receives structured diagnostics (default: discarded).
	Logger *slog.Logger
	// Progress receives human-readable progress lines (default: discarded).
	Progress io.Writer
}

// Result describes the server Ensure settled on.
type Result struct {
	// URL is a pgdriver DSN, e.g.
	// postgres://postgres@127.0.0.1:5432/svc?sslmode=disable.
	URL string
	// Source is SourceEnv, SourceLocal or SourcePrivate.
	Source string
	// Stop stops the private cluster if Ensure started it; otherwise it is
	// a no-op. It is never nil.
	Stop func(context.Context) error
}

var dbNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// maxIdentLen is PostgreSQL's NAMEDATALEN-1.
const maxIdentLen = 63

// Ensure returns a usable PostgreSQL URL following the order described in
// the package documentation.
func Ensure(ctx context.Context, opts Options) (*Result, error) {
	if opts.DatabaseURL != "" {
		return &Result{URL: opts.DatabaseURL, Source: SourceEnv, Stop: noopStop}, nil
	}
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	res, err := tryLocal(ctx, opts)
	if err == nil && res == nil {
		res, err = ensurePrivate(ctx, opts)
	}
	if err != nil {
		return nil, err
	}
	opts.Logger.Info("devpg: postgres ready", "source", res.Source, "url", res.URL)
	return res, nil
}

func noopStop(context.Context) error { return nil }

func (o Options) withDefaults() Options {
	if o.LocalAddr == "" {
		o.LocalAddr = DefaultLocalAddr
	}
	if o.PrivatePort == 0 {
		o.PrivatePort = DefaultPrivatePort
	}
	if o.Database == "" {
		o.Database = DefaultDatabase
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

func (o Options) validate() error {
	if err := validateDBName(o.Database); err != nil {
		return err
	}
	if o.PrivatePort < 1 || o.PrivatePort > 65535 {
		return fmt.Errorf("devpg: invalid private port %d", o.PrivatePort)
	}
	_, port, err := net.SplitHostPort(o.LocalAddr)
	if err != nil {
		return fmt.Errorf("devpg: invalid local address %q: %w", o.LocalAddr, err)
	}
	if port == strconv.Itoa(o.PrivatePort) {
		return fmt.Errorf("devpg: private port %d collides with local address %s", o.PrivatePort, o.LocalAddr)
	}
	return nil
}

func validateDBName(name string) error {
	if len(name) > maxIdentLen || !dbNameRE.MatchString(name) {
		return fmt.Errorf("devpg: invalid database name %q (want [a-z_][a-z0-9_]*, at most %d chars)", name, maxIdentLen)
	}
	return nil
}

// progressf writes one human progress line.
func (o Options) progressf(format string, args ...any) {
	_, _ = fmt.Fprintf(o.Progress, "postgres: "+format+"\n", args...)
}
