// Package accountdb is the managed database of seed 000: a real PostgreSQL database per account in the
// configured cluster, with its own login role (the owner, for actions) and a second, read-only role (the
// reader, for queries and records), and the safe ways to use them.
package accountdb

import (
	"context"

	"github.com/uptrace/bun"
)

// Role is which of an account database's login roles a connection uses.
type Role int

const (
	// Owner owns the account's tables: actions and imports connect as it.
	Owner Role = iota
	// Reader may only SELECT: queries, records and exports connect as it.
	Reader
)

// String names the role.
func (r Role) String() string {
	if r == Reader {
		return "reader"
	}
	return "owner"
}

// Connector opens a pooled connection to an account's database as one of its roles. It answers an
// svcerr NotFound naming the database when the account has no ready database.
type Connector interface {
	Open(ctx context.Context, accountID string, role Role) (*bun.DB, error)
}
