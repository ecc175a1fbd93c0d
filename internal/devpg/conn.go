package devpg

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/internal/pg"
)

const (
	dialTimeout  = 500 * time.Millisecond
	queryTimeout = 5 * time.Second
	// maintenanceDB is the database connected to for CREATE DATABASE.
	maintenanceDB = "postgres"
	superuser     = "postgres"
	// sqlstateDuplicateDatabase is returned when CREATE DATABASE races.
	sqlstateDuplicateDatabase = "42P04"
)

// tryLocal uses the server at opts.LocalAddr when it answers. It returns
// (nil, nil) when nothing usable answers so the caller can fall back.
func tryLocal(ctx context.Context, opts Options) (*Result, error) {
	log := opts.Logger.With("addr", opts.LocalAddr)
	if err := dialTCP(ctx, opts.LocalAddr); err != nil {
		log.Debug("devpg: no local postgres", "err", err)
		return nil, nil
	}
	admin := pgURL(opts.LocalAddr, maintenanceDB)
	if err := ping(ctx, admin); err != nil {
		log.Warn("devpg: local port answers but postgres login failed; using private cluster", "err", err)
		opts.progressf("%s answers but trust login as postgres failed (%v); falling back to a private cluster", opts.LocalAddr, err)
		return nil, nil
	}
	if err := ensureDatabase(ctx, admin, opts.Database); err != nil {
		return nil, fmt.Errorf("devpg: local server %s: %w", opts.LocalAddr, err)
	}
	opts.progressf("using local server %s, database %s", opts.LocalAddr, opts.Database)
	return &Result{URL: pgURL(opts.LocalAddr, opts.Database), Source: SourceLocal, Stop: noopStop}, nil
}

// pgURL builds a pgdriver DSN for user postgres without password.
func pgURL(addr, database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(superuser),
		Host:     addr,
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// dialTCP reports whether something accepts TCP connections at addr.
func dialTCP(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("dial %s: %w", addr, err)
	}
	return conn.Close()
}

func openDB(dsn string) *sql.DB {
	return sql.OpenDB(pgdriver.NewConnector(
		pgdriver.WithDSN(dsn),
		pgdriver.WithDialTimeout(2*time.Second),
		pgdriver.WithApplicationName("svc-devpg"),
	))
}

// ping opens a real connection to dsn and runs SELECT 1.
func ping(ctx context.Context, dsn string) error {
	db := openDB(dsn)
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("SELECT 1: %w", err)
	}
	return nil
}

// waitReady pings dsn until it answers or timeout elapses.
func waitReady(ctx context.Context, dsn string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := ping(ctx, dsn)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for postgres: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ensureDatabase creates database name through the maintenance database at
// adminDSN unless it already exists.
func ensureDatabase(ctx context.Context, adminDSN, name string) error {
	if err := validateDBName(name); err != nil {
		return err
	}
	db := openDB(adminDSN)
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	exists, err := databaseExists(ctx, db, name)
	if err != nil || exists {
		return err
	}
	_, err = db.ExecContext(ctx, "CREATE DATABASE "+quoteIdent(name))
	if err != nil && !isSQLState(err, sqlstateDuplicateDatabase) {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

func databaseExists(ctx context.Context, db *sql.DB, name string) (bool, error) {
	var exists bool
	err := db.QueryRowContext(ctx,
		"SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		return false, fmt.Errorf("check database %s: %w", name, err)
	}
	return exists, nil
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func isSQLState(err error, code string) bool { return pg.SQLState(err) == code }
