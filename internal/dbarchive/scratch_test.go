package dbarchive_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/svcplatform/svc/internal/accountdb/accountdbtest"
	"github.com/uptrace/bun"
)

// scratch is a database of its own for one test, owned by a login role, with a second login role that
// may only SELECT its tables, as the managed database provisions them (accountdbtest). Its pools have no
// read timeout, as an account database's must for archives: pgdriver's bounds a whole COPY's output,
// not each read.
type scratch struct {
	name   string
	owner  *bun.DB
	reader *bun.DB
}

// newScratch creates a database with owner and reader roles and drops them all when the test ends.
func newScratch(t testing.TB) *scratch {
	t.Helper()
	d := accountdbtest.New(t, accountdbtest.Options{ReadTimeout: accountdbtest.NoReadTimeout})
	return &scratch{name: d.Name, owner: d.OwnerDB, reader: d.ReaderDB}
}

// exec runs statements as the owner.
func (s *scratch) exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		_, err := s.owner.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
}
