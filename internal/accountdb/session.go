package accountdb

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"reflect"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/internal/svcerr"
)

// A session is one pooled connection held for one request, used through pgdriver directly (the driver's
// own statements: BEGIN, the extended protocol's Parse/Bind/Execute, ROLLBACK), because database/sql
// hides what a query of caller SQL needs: the result's column types, and the backend's cancel key.
//
// pgdriver (v1.2.18) cancels nothing when a context ends: it only sets the socket deadline of the read
// it starts, and reads rows without one. So the session enforces the deadline itself: when it passes,
// it sends PostgreSQL a CancelRequest for the backend (no login, no role of any privilege, no pooled
// connection needed) and closes the socket, and the connection is never reused (a late cancel could
// otherwise hit the next request's statement).
//
// A query (pipeline.go) goes further: it writes its messages on the connection's socket and reads the
// answers itself, in one round trip, leaving the connection idle for pgdriver as it found it.
//
// The cancel key, the read timeout and the column type OIDs are fields pgdriver does not export; they are read with
// reflect (read-only), and TestDriverInternals fails if a pgdriver upgrade moves them.
type session struct {
	cn *pgdriver.Conn
	// pid and secret are the backend's cancel key.
	pid, secret int32
	addr        net.Addr
	// readTimeout is pgdriver's read timeout of the connection (0: none), which the pipeline applies too.
	readTimeout time.Duration

	mu        sync.Mutex
	cancelled bool
	timedOut  bool
	// broken is set when the connection's state is unknown (its cleanup failed).
	broken bool
}

// withSession runs f on a connection of db held for the call, with the deadline enforced from Go. A
// connection that was cancelled, timed out or failed is discarded rather than pooled.
func withSession(ctx context.Context, db *bun.DB, timeout time.Duration, f func(ctx context.Context, s *session) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := db.DB.Conn(ctx)
	if err != nil {
		return unavailable(ctx, err)
	}
	defer func() { _ = conn.Close() }()
	var ferr error
	discarded := false
	err = conn.Raw(func(dc any) error {
		cn, ok := dc.(*pgdriver.Conn)
		if !ok {
			return fmt.Errorf("accountdb: the connection is %T, not pgdriver's", dc)
		}
		s := newSession(cn)
		done := s.watch(ctx)
		ferr = f(ctx, s)
		done()
		if s.wasCancelled() || s.isBroken() {
			_ = cn.Close() // never pooled again: its state is unknown, or a cancel may still be in flight
			discarded = true
			return driver.ErrBadConn
		}
		return nil
	})
	if ferr != nil {
		return ferr
	}
	if err != nil && !(discarded && errors.Is(err, driver.ErrBadConn)) {
		return fmt.Errorf("accountdb: session: %w", err)
	}
	return nil
}

func newSession(cn *pgdriver.Conn) *session {
	s := &session{cn: cn, addr: cn.Conn().RemoteAddr()}
	s.pid, s.secret = cancelKey(cn)
	s.readTimeout = readTimeout(cn)
	return s
}

// watch cancels the backend's statement when ctx ends before the answer returned; it answers the
// function to call when the work is over.
func (s *session) watch(ctx context.Context) func() {
	cancelled := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(cancelled)
		s.mu.Lock()
		s.timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		s.mu.Unlock()
		s.cancel()
	})
	return func() {
		if !stop() {
			<-cancelled // the cancel started: wait until it is sent
		}
	}
}

// cancel asks PostgreSQL to cancel the backend's statement, then closes the socket so no read waits for
// the answer. Safe to call more than once, from any goroutine.
func (s *session) cancel() {
	s.mu.Lock()
	if s.cancelled {
		s.mu.Unlock()
		return
	}
	s.cancelled = true
	s.mu.Unlock()
	_ = sendCancelRequest(s.addr, s.pid, s.secret)
	_ = s.cn.Close()
}

func (s *session) wasCancelled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

func (s *session) isBroken() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

// finish ends the session's transaction and clears what the statements may have left in the session,
// in as few round trips as it can. A rolled-back transaction takes every setting it changed with it
// (set_config included), so after a rollback what remains are session-level advisory locks and the
// prepared statements: one message unlocks and deallocates them. After a commit, settings may persist,
// so DISCARD ALL resets everything (it cannot share the message: it refuses to run in a transaction
// block, which the rest of a multi-statement message is). A failure marks the connection broken, so it
// is discarded.
func (s *session) finish(ctx context.Context, commit bool) error {
	if s.wasCancelled() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	preparedConns.remove(s.cn) // DEALLOCATE ALL and DISCARD ALL take the query pipeline's statements too
	var err error
	if commit {
		err = s.exec(ctx, "COMMIT")
		if err == nil {
			err = s.exec(ctx, "DISCARD ALL")
		}
	} else {
		err = s.exec(ctx, "ROLLBACK; SELECT pg_catalog.pg_advisory_unlock_all(); DEALLOCATE ALL")
	}
	if err != nil {
		s.mu.Lock()
		s.broken = true
		s.mu.Unlock()
		return fmt.Errorf("accountdb: end the session: %w", err)
	}
	return nil
}

// inSync reports whether the connection is still in step with the server after err: PostgreSQL's own
// errors are read through to ReadyForQuery by pgdriver, and ours (svcerr) come before or between
// statements; any other (a socket timeout, a broken read) may leave part of an answer unread.
func inSync(err error) bool {
	var pe pgdriver.Error
	if errors.As(err, &pe) {
		return true
	}
	_, ok := svcerr.As(err)
	return ok
}

func (s *session) wasTimedOut() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timedOut
}

// exec runs a statement of the platform's own (never caller SQL) by the simple protocol.
func (s *session) exec(ctx context.Context, q string) error {
	_, err := s.cn.ExecContext(ctx, q, nil)
	return err
}

// prepared is one statement parsed by the extended protocol, which refuses more than one command.
type prepared struct {
	stmt driver.Stmt
}

// prepare parses q (caller SQL or generated) as one unnamed-protocol statement.
func (s *session) prepare(ctx context.Context, q string) (*prepared, error) {
	st, err := s.cn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return &prepared{stmt: st}, nil
}

// numInput is how many parameters the statement takes.
func (p *prepared) numInput() int { return p.stmt.NumInput() }

// query binds args and executes the statement, answering its rows.
func (p *prepared) query(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return p.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

// oids are the type OIDs of the statement's result columns (nil when it returns none).
func (p *prepared) oids() []uint32 { return columnOIDs(p.stmt) }

// exec binds args and executes the statement, answering the rows it affected.
func (p *prepared) exec(ctx context.Context, args []driver.NamedValue) (int64, error) {
	res, err := p.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	if err != nil {
		return 0, err
	}
	if res == nil {
		return 0, nil
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// close forgets the statement. Its server side is deallocated with every other when the session
// finishes (one message instead of a round trip per statement), and pgdriver keeps nothing else.
func (p *prepared) close() {}

// cancelKey reads the backend's process id and secret key that pgdriver keeps unexported.
func cancelKey(cn *pgdriver.Conn) (int32, int32) {
	v := reflect.ValueOf(cn).Elem()
	pid, key := v.FieldByName("processID"), v.FieldByName("secretKey")
	if !pid.IsValid() || !key.IsValid() || pid.Kind() != reflect.Int32 || key.Kind() != reflect.Int32 {
		return 0, 0
	}
	return int32(pid.Int()), int32(key.Int())
}

// readTimeout reads the connection's read timeout from pgdriver's unexported configuration (0 when
// unknown: then only the request's deadline bounds a read).
func readTimeout(cn *pgdriver.Conn) time.Duration {
	conf := reflect.ValueOf(cn).Elem().FieldByName("conf")
	if !conf.IsValid() || conf.Kind() != reflect.Pointer || conf.IsNil() {
		return 0
	}
	d := conf.Elem().FieldByName("ReadTimeout")
	if !d.IsValid() || d.Type() != reflect.TypeOf(time.Duration(0)) {
		return 0
	}
	return time.Duration(d.Int())
}

// columnOIDs reads the type OIDs of a result's columns from pgdriver's statement, described when it was
// parsed (nil when unknown).
func columnOIDs(stmt driver.Stmt) []uint32 {
	v := reflect.ValueOf(stmt)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	desc := v.Elem().FieldByName("rowDesc")
	if !desc.IsValid() || desc.Kind() != reflect.Pointer || desc.IsNil() {
		return nil
	}
	types := desc.Elem().FieldByName("types")
	if !types.IsValid() || types.Kind() != reflect.Slice {
		return nil
	}
	out := make([]uint32, types.Len())
	for i := range out {
		out[i] = uint32(types.Index(i).Int())
	}
	return out
}

// cancelRequestCode is the protocol's CancelRequest code (1234 << 16 | 5678).
const cancelRequestCode = 80877102

// sendCancelRequest sends PostgreSQL the CancelRequest of a backend on a connection of its own.
func sendCancelRequest(addr net.Addr, pid, secret int32) error {
	if pid == 0 || addr == nil {
		return errors.New("accountdb: no cancel key")
	}
	c, err := net.DialTimeout(addr.Network(), addr.String(), 2*time.Second)
	if err != nil {
		return fmt.Errorf("accountdb: dial for cancel: %w", err)
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	var msg [16]byte
	binary.BigEndian.PutUint32(msg[0:], 16)
	binary.BigEndian.PutUint32(msg[4:], cancelRequestCode)
	binary.BigEndian.PutUint32(msg[8:], uint32(pid))
	binary.BigEndian.PutUint32(msg[12:], uint32(secret))
	if _, err := c.Write(msg[:]); err != nil {
		return fmt.Errorf("accountdb: send cancel: %w", err)
	}
	// The server answers nothing and closes; wait for that so the cancel is delivered before we go on.
	var b [1]byte
	_, _ = c.Read(b[:])
	return nil
}
