package accountdb

import (
	"runtime"
	"sync"
	"weak"

	"github.com/uptrace/bun/driver/pgdriver"
)

// The pipeline's own statements (BEGIN READ ONLY, ROLLBACK, the advisory unlock) are prepared once per
// connection as named statements, so that each query binds and executes them without PostgreSQL
// parsing or planning them again. The caller's statement stays unnamed: it is parsed every time.
//
// A caller cannot touch them: a query is one SELECT, WITH, VALUES, TABLE, SHOW or EXPLAIN statement
// (checkReadSQL), none of which deallocates, and a statement name of ours that went missing all the
// same fails the exchange before the caller's statement runs and discards the connection.

// ownStatement is one of the pipeline's own statements with its name on the connection.
type ownStatement struct {
	name, sql string
}

// The pipeline's own statements.
var (
	stmtBegin     = ownStatement{name: "svc_begin_read_only", sql: "BEGIN READ ONLY"}
	stmtRollback  = ownStatement{name: "svc_rollback", sql: endRollback}
	stmtUnlock    = ownStatement{name: "svc_unlock_all", sql: endUnlock}
	ownStatements = []ownStatement{stmtBegin, stmtRollback, stmtUnlock}
)

// preparedConns is the set of connections on which ownStatements are prepared. It holds them by weak
// pointer: a connection's entry goes when the connection is collected, and a closed connection is
// never used again, so its stale entry does no harm until then.
var preparedConns = connSet{m: map[weak.Pointer[pgdriver.Conn]]struct{}{}}

// connSet is a set of connections held by weak pointer.
type connSet struct {
	mu sync.Mutex
	m  map[weak.Pointer[pgdriver.Conn]]struct{}
}

// has says whether cn is in the set.
func (s *connSet) has(cn *pgdriver.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[weak.Make(cn)]
	return ok
}

// add puts cn in the set until it is collected.
func (s *connSet) add(cn *pgdriver.Conn) {
	wp := weak.Make(cn)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[wp]; ok {
		return
	}
	s.m[wp] = struct{}{}
	runtime.AddCleanup(cn, s.drop, wp)
}

// remove takes cn out of the set (its statements were deallocated).
func (s *connSet) remove(cn *pgdriver.Conn) {
	s.drop(weak.Make(cn))
}

// drop removes a connection's entry (also when the connection is collected).
func (s *connSet) drop(wp weak.Pointer[pgdriver.Conn]) {
	s.mu.Lock()
	delete(s.m, wp)
	s.mu.Unlock()
}

// prepareOwn is Parse of the pipeline's own statements under their names.
func (f *frontend) prepareOwn() {
	for _, st := range ownStatements {
		f.begin(feParse)
		f.cstring(st.name)
		f.cstring(st.sql)
		f.int16(0)
		f.end()
	}
}

// executeOwn is Bind and Execute of one of the pipeline's own prepared statements (unnamed portal).
func (f *frontend) executeOwn(st ownStatement) {
	f.begin(feBind)
	f.cstring("")
	f.cstring(st.name)
	f.int16(0)
	f.int16(0)
	f.int16(0)
	f.end()
	f.execute(0)
}
