// Package pg opens the bun database handle on PostgreSQL through pgdriver.
package pg

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Options tune the pool. Zero values take the defaults named on each field.
type Options struct {
	// MaxOpenConns caps open connections (default 20).
	MaxOpenConns int
	// SearchPath, when set, is the schema every connection uses (tests isolate themselves this way).
	SearchPath string
	// ReadTimeout, when set, replaces the 5 s bound on waiting for an answer (for slow statements such as
	// CREATE DATABASE and DROP DATABASE on a busy server).
	ReadTimeout time.Duration
}

// Open connects to url and checks the connection with a ping.
func Open(ctx context.Context, url string, opts Options) (*bun.DB, error) {
	connOpts := []pgdriver.Option{pgdriver.WithDSN(url), pgdriver.WithTimeout(5 * time.Second)}
	if opts.SearchPath != "" {
		connOpts = append(connOpts, pgdriver.WithConnParams(map[string]any{"search_path": opts.SearchPath}))
	}
	if opts.ReadTimeout > 0 {
		connOpts = append(connOpts, pgdriver.WithReadTimeout(opts.ReadTimeout))
	}
	sqldb := sql.OpenDB(pgdriver.NewConnector(connOpts...))
	maxOpen := opts.MaxOpenConns
	if maxOpen == 0 {
		maxOpen = 20
	}
	sqldb.SetMaxOpenConns(maxOpen)
	sqldb.SetMaxIdleConns(maxOpen)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := bun.NewDB(sqldb, newDialect())
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	return db, nil
}
