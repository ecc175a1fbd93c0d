package accountdb

import (
	"bufio"
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// The pipelined query: one caller statement in one round trip on the session's connection.
//
// The session writes every message of the exchange at once, on the socket pgdriver's connection holds,
// then reads the answers in order:
//
//	(Parse of our own statements, named, on the connection's first query; see prepared.go)
//	Bind/Execute         "BEGIN READ ONLY"     (extended protocol, a named statement, unnamed portal)
//	Parse                the caller's SQL      (unnamed; parameter types left to PostgreSQL)
//	Describe statement   its parameter count, and its columns' names and type OIDs
//	Bind                 the parameters, as text
//	Execute              at most maxRows+1 rows (one more than answered, to learn of truncation)
//	Bind/Execute         "ROLLBACK"
//	Bind/Execute         "SELECT pg_catalog.pg_advisory_unlock_all()"
//	Sync
//
// Everything before Sync is one unit: an error anywhere in it (BEGIN included) makes the server skip
// the rest up to Sync, so the caller's statement never runs outside the READ ONLY transaction. Parse
// refuses a second statement. When all goes well the exchange ends idle, one round trip in all: the
// ROLLBACK has undone every setting a set_config made in the transaction, and session-level advisory
// locks are released. When something failed (ReadyForQuery finds the transaction failed, or idle with
// the error of BEGIN), the session sends the simple Query of pipelineEnd, a second round trip only
// on that path, to do the same. The statement and portal are unnamed, so nothing is left to
// deallocate (the next Parse replaces them; ROLLBACK closes the portal); our own named statements stay
// prepared for the connection's next query.
//
// The deadline is enforced as everywhere in the session (a CancelRequest, then the socket closed); the
// socket's read deadline is pgdriver's read timeout, renewed before each read. A result cut by the byte
// cap is cancelled like that rather than read to its end. A connection whose answers are not all
// accounted for (a read failed, an unknown message, bytes left after the last ReadyForQuery) is never
// pooled again.

// Frontend message types of the pipeline.
const (
	feParse    = 'P'
	feBind     = 'B'
	feDescribe = 'D'
	feExecute  = 'E'
	feSync     = 'S'
	feQuery    = 'Q'
)

// Backend message types the pipeline reads.
const (
	beParseComplete        = '1'
	beBindComplete         = '2'
	beCommandComplete      = 'C'
	beDataRow              = 'D'
	beErrorResponse        = 'E'
	beEmptyQuery           = 'I'
	beNoData               = 'n'
	beNotice               = 'N'
	beNotification         = 'A'
	beParameterDescription = 't'
	beParameterStatus      = 'S'
	bePortalSuspended      = 's'
	beReadyForQuery        = 'Z'
	beRowDescription       = 'T'
)

// ReadyForQuery transaction states.
const (
	txIdle   = 'I'
	txInTx   = 'T'
	txFailed = 'E'
)

// The statements that end a pipelined exchange: within it when all went well, and as the simple query
// pipelineEnd after a failure.
const (
	endRollback = "ROLLBACK"
	endUnlock   = "SELECT pg_catalog.pg_advisory_unlock_all()"
	pipelineEnd = endRollback + "; " + endUnlock
)

// pipelineOverhead is about what a pipelined exchange's messages take besides the caller's SQL (its
// own statements, headers and a few parameters): the initial size of the messages' buffer.
const pipelineOverhead = 256

// maxMessage caps a backend message other than a data row (error texts, row descriptions, notices).
const maxMessage = 16 << 20

// errDesync answers backend messages the pipeline did not expect: the connection is out of step.
var errDesync = errors.New("accountdb: unexpected message from the database")

// serverError is an ErrorResponse of PostgreSQL's read by the pipeline. It has pgdriver.Error's Field
// and message, so sqlError maps both alike.
type serverError struct {
	fields map[byte]string
}

// Field is the error's field of type k ('C' the SQLSTATE, 'M' the message, ...), "" when absent.
func (e *serverError) Field(k byte) string { return e.fields[k] }

func (e *serverError) Error() string {
	return fmt.Sprintf("%s: %s (SQLSTATE=%s)", e.Field('S'), e.Field('M'), e.Field('C'))
}

// query runs the caller's statement q with args in one pipelined exchange (see above) and answers its
// result, under c's row and byte caps (c.hidden is not supported: records use collect).
func (s *session) query(ctx context.Context, q string, args []driver.NamedValue, c *collector) (*client.DatabaseQueryResult, error) {
	m := frontend{b: make([]byte, 0, pipelineOverhead+len(q))} // one allocation for most exchanges
	prepare := !preparedConns.has(s.cn)
	if prepare {
		m.prepareOwn()
	}
	m.executeOwn(stmtBegin)
	m.parse(q)
	m.describeStatement()
	m.bind(args)
	m.execute(c.maxRows + 1)
	m.executeOwn(stmtRollback)
	m.executeOwn(stmtUnlock)
	m.sync()
	w, err := s.send(ctx, m.b)
	if err != nil {
		return nil, err
	}
	p := &pipelined{w: w, c: c, nparams: -1}
	err = p.readStatement()
	if prepare && p.parsed >= len(ownStatements) {
		preparedConns.add(s.cn) // they come first: parsed, they are all prepared
	}
	if err != nil {
		s.cancel() // out of step, or cut short by the byte cap: never read from or written to again
		if p.capped {
			return p.res, nil
		}
		return nil, err
	}
	endErr := w.done()
	if endErr == nil && p.err != nil {
		endErr = s.endFailed(ctx)
	}
	if endErr == nil && ownStatementLost(p.err) {
		endErr = p.err // a connection whose statements are not as recorded is not used again
	}
	if endErr != nil {
		s.markBroken()
	}
	switch {
	case p.nparams >= 0 && p.nparams != len(args):
		return nil, svcerr.Invalid("params", "the statement takes %d parameters; %d were given", p.nparams, len(args))
	case ownStatementLost(p.err):
		return nil, fmt.Errorf("accountdb: the connection's own statements: %v", p.err) // ours, not the caller's: not a 400
	case p.err != nil:
		return nil, p.err
	case endErr != nil:
		return nil, fmt.Errorf("accountdb: end the session: %w", endErr)
	}
	if err := s.nameTypes(ctx, p.res, p.oids); err != nil {
		return nil, err
	}
	return p.res, nil
}

// pipelined is the state of reading a pipelined statement's answers.
type pipelined struct {
	w *wire
	c *collector
	// nparams is the statement's parameter count (-1 before its ParameterDescription).
	nparams int
	oids    []uint32
	res     *client.DatabaseQueryResult
	size    int
	// err is the server's error, if the statement (or BEGIN) failed.
	err error
	// capped is set when the byte cap cut the result (the rest is unread).
	capped bool
	// parsed counts ParseCompletes (the pipeline's own statements, when it prepares them, come first).
	parsed int
	// ended counts the exchange's statements that have ended (CommandComplete, PortalSuspended or
	// EmptyQueryResponse): BEGIN, the caller's, ROLLBACK, the unlock. Data rows while it is 1 are the
	// caller's.
	ended int
}

// Values of pipelined.ended.
const (
	beganTx      = 1 // BEGIN has ended: the caller's statement answers
	callerEnded  = 2 // the caller's statement has ended
	rollbackDone = 3 // ROLLBACK has ended: the unlock answers
)

// readStatement reads the answers up to the Sync's ReadyForQuery. An error it answers leaves the
// connection out of step (or the result capped); the server's own error is kept in p.err.
func (p *pipelined) readStatement() error {
	for {
		typ, body, err := p.w.next(p.rowBudget())
		if errors.Is(err, errTooLarge) && typ == beDataRow && p.res != nil {
			p.res.Truncated, p.capped = true, true
			return err
		}
		if err != nil {
			return err
		}
		switch typ {
		case beParseComplete:
			p.parsed++
		case beBindComplete, beNoData:
		case beCommandComplete, bePortalSuspended, beEmptyQuery:
			p.ended++
		case beParameterDescription:
			n, err := newMsg(body).int16()
			if err != nil {
				return err
			}
			p.nparams = n
		case beRowDescription:
			if p.ended != beganTx {
				return fmt.Errorf("%w: a row description after the statement", errDesync)
			}
			if p.oids, err = p.describe(body); err != nil {
				return err
			}
		case beDataRow:
			if p.ended == rollbackDone {
				continue // the unlock's one row
			}
			if p.ended != beganTx {
				return fmt.Errorf("%w: a data row outside the statement", errDesync)
			}
			if err := p.row(body); err != nil {
				return err
			}
			if p.capped {
				return errors.New("accountdb: the result passed the byte cap")
			}
		case beErrorResponse:
			if p.err == nil {
				p.err = parseError(body)
			}
		case beReadyForQuery:
			return p.ready(body)
		default:
			return fmt.Errorf("%w: %q in a statement's answer", errDesync, typ)
		}
	}
}

// ready checks the exchange's ReadyForQuery: idle when all went well (ROLLBACK ran); after an error,
// whatever state the error left (pipelineEnd follows).
func (p *pipelined) ready(body []byte) error {
	if len(body) != 1 {
		return errDesync
	}
	if status := body[0]; status != txIdle && p.err == nil {
		return fmt.Errorf("%w: transaction status %q after the exchange", errDesync, status)
	}
	if p.err == nil && p.ended != rollbackDone+1 {
		return fmt.Errorf("%w: %d statements ended in the exchange", errDesync, p.ended)
	}
	if p.res == nil {
		p.res = &client.DatabaseQueryResult{OK: true, Columns: []client.DatabaseColumn{}, Rows: []json.RawMessage{}}
	}
	return nil
}

// rowBudget is the largest data row worth reading (memory stays bounded by the byte cap). A row's JSON
// is at least 2/5 of its message (the worst case, a one-digit integer, is 4 bytes of length and 1 of
// text against 2 with its comma), so a larger message cannot fit in what the byte cap leaves; only json
// (not jsonb) text padded with whitespace, which is compacted, could, and is truncated with the rest.
func (p *pipelined) rowBudget() int {
	return 5*(p.c.maxBytes-p.size)/2 + 1024
}

// describe reads a RowDescription into the result's columns, answering their type OIDs.
func (p *pipelined) describe(body []byte) ([]uint32, error) {
	m := newMsg(body)
	n, err := m.int16()
	if err != nil {
		return nil, err
	}
	p.res = &client.DatabaseQueryResult{OK: true, Columns: make([]client.DatabaseColumn, n), Rows: []json.RawMessage{}}
	oids := make([]uint32, n)
	for i := range n {
		name, err := m.cstring()
		if err != nil {
			return nil, err
		}
		// table OID (4), attribute number (2), type OID (4), type size (2), modifier (4), format (2).
		fixed, err := m.bytes(18)
		if err != nil {
			return nil, err
		}
		oids[i] = binary.BigEndian.Uint32(fixed[6:10])
		p.res.Columns[i] = client.DatabaseColumn{Name: name, Type: typeNames[oids[i]]}
	}
	return oids, nil
}

// row adds one DataRow to the result, or marks the result truncated: the row past maxRows is only the
// sign that there are more; a row past the byte cap ends the reading (capped).
func (p *pipelined) row(body []byte) error {
	if p.res == nil {
		return fmt.Errorf("%w: a data row before its description", errDesync)
	}
	if len(p.res.Rows) == p.c.maxRows {
		p.res.Truncated = true
		return nil
	}
	m := newMsg(body)
	n, err := m.int16()
	if err != nil {
		return err
	}
	if n != len(p.oids) {
		return fmt.Errorf("%w: a row of %d values for %d columns", errDesync, n, len(p.oids))
	}
	enc := make([]byte, 0, len(body)+2)
	enc = append(enc, '[')
	for i := range n {
		if i > 0 {
			enc = append(enc, ',')
		}
		text, null, err := m.value()
		if err != nil {
			return err
		}
		var v driver.Value
		if !null {
			if v, err = decodeText(p.oids[i], text); err != nil {
				return fmt.Errorf("accountdb: decode column %d: %w", i, err)
			}
		}
		val, err := renderValue(p.oids[i], v)
		if err != nil {
			return fmt.Errorf("accountdb: render column %d: %w", i, err)
		}
		enc = append(enc, val...)
	}
	enc = append(enc, ']')
	if p.size+len(enc) > p.c.maxBytes {
		p.res.Truncated, p.capped = true, true
		return nil
	}
	p.size += len(enc)
	p.res.Rows = append(p.res.Rows, enc)
	p.res.RowCount++
	return nil
}

// decodeText is the Go value of a column's text as pgdriver decodes it (so renderValue renders both
// alike): booleans, integers, floats, times (timestamp and timestamptz; a time pgdriver cannot parse,
// like 'infinity', stays text), bytea's bytes, strings for text, varchar and date, and the raw text of
// every other type.
func decodeText(oid uint32, b []byte) (driver.Value, error) {
	switch oid {
	case oidBool:
		return len(b) == 1 && (b[0] == 't' || b[0] == '1'), nil
	case oidInt2:
		return strconv.ParseInt(string(b), 10, 16)
	case oidInt4:
		return strconv.ParseInt(string(b), 10, 32)
	case oidInt8:
		return strconv.ParseInt(string(b), 10, 64)
	case oidFloat4:
		return strconv.ParseFloat(string(b), 32)
	case oidFloat8:
		return strconv.ParseFloat(string(b), 64)
	case oidTimestamp, oidTimestamptz:
		if t, err := pgdriver.ParseTime(string(b)); err == nil {
			return t, nil
		}
		return string(b), nil
	case oidDate, oidText, oidVarchar:
		return string(b), nil
	case oidBytea:
		hexText, ok := strings.CutPrefix(string(b), `\x`)
		if !ok {
			return nil, errors.New("bytea is not in hex format")
		}
		return hex.DecodeString(hexText)
	}
	return b, nil
}

// nameTypes names the result's columns whose types typeNames does not know (enums, domains, arrays of
// others) from pg_type, in one more round trip (only when there are such columns).
func (s *session) nameTypes(ctx context.Context, res *client.DatabaseQueryResult, oids []uint32) error {
	var missing []string
	for i, oid := range oids {
		if res.Columns[i].Type == "" {
			missing = append(missing, strconv.FormatUint(uint64(oid), 10))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var m frontend
	m.parseBindExecute("SELECT oid::int8, format_type(oid, NULL) FROM pg_catalog.pg_type WHERE oid = ANY(string_to_array($1, ',')::oid[])",
		[]driver.NamedValue{{Ordinal: 1, Value: strings.Join(missing, ",")}}, 0)
	m.sync()
	w, err := s.send(ctx, m.b)
	if err != nil {
		return err
	}
	named := map[uint32]string{}
	var serr error
	for {
		typ, body, err := w.next(maxMessage)
		if err != nil {
			s.cancel()
			return err
		}
		switch typ {
		case beParseComplete, beBindComplete, beCommandComplete:
		case beDataRow:
			m := newMsg(body)
			n, err1 := m.int16()
			oid, _, err2 := m.value()
			name, _, err3 := m.value()
			if err := errors.Join(err1, err2, err3); err != nil || n != 2 {
				s.cancel()
				return fmt.Errorf("%w: a pg_type row", errDesync)
			}
			id, _ := strconv.ParseUint(string(oid), 10, 32)
			named[uint32(id)] = string(name)
		case beErrorResponse:
			if serr == nil {
				serr = parseError(body)
			}
		case beReadyForQuery:
			err := w.done()
			if err == nil && (len(body) != 1 || body[0] != txIdle) {
				err = fmt.Errorf("%w: a transaction left open by a type lookup", errDesync)
			}
			if err != nil {
				s.markBroken()
				return err
			}
			if serr != nil {
				return serr
			}
			for i, oid := range oids {
				if res.Columns[i].Type == "" {
					res.Columns[i].Type = named[oid]
				}
			}
			return nil
		default:
			s.cancel()
			return fmt.Errorf("%w: %q in a type lookup's answer", errDesync, typ)
		}
	}
}

// send writes a pipeline's messages on the session's socket (bounded by ctx's deadline) and answers
// the reader of their answers. A failed write leaves the connection in an unknown state: it is
// cancelled.
func (s *session) send(ctx context.Context, msgs []byte) (*wire, error) {
	conn := s.cn.Conn()
	deadline, _ := ctx.Deadline()
	_ = conn.SetWriteDeadline(deadline)
	if _, err := conn.Write(msgs); err != nil {
		s.cancel()
		return nil, fmt.Errorf("accountdb: send the statement: %w", err)
	}
	_ = conn.SetWriteDeadline(time.Time{})
	return newWire(conn, s.readTimeout), nil
}

// markBroken marks the connection's state unknown, so it is discarded rather than pooled.
func (s *session) markBroken() {
	s.mu.Lock()
	s.broken = true
	s.mu.Unlock()
}

// ownStatementLost says whether err is PostgreSQL's refusal of a prepared statement name (missing, or
// already there): the pipeline's own statements on the connection are not as recorded.
func ownStatementLost(err error) bool {
	var se *serverError
	if !errors.As(err, &se) {
		return false
	}
	code := se.Field('C')
	return code == "26000" || code == "42P05"
}

// endFailed ends an exchange that failed: the simple query pipelineEnd rolls back whatever the error
// left open and releases advisory locks; the session must end idle.
func (s *session) endFailed(ctx context.Context) error {
	var m frontend
	m.query(pipelineEnd)
	w, err := s.send(ctx, m.b)
	if err != nil {
		return err
	}
	endErr := w.readEnd()
	if err := w.done(); endErr == nil {
		endErr = err
	}
	return endErr
}

// readEnd reads the answers of the closing simple query (pipelineEnd) up to its ReadyForQuery, which
// must find the session out of any transaction.
func (w *wire) readEnd() error {
	var serr error
	for {
		typ, body, err := w.next(maxMessage)
		if err != nil {
			return err
		}
		switch typ {
		case beCommandComplete, beRowDescription, beDataRow, beEmptyQuery:
		case beErrorResponse:
			if serr == nil {
				serr = parseError(body)
			}
		case beReadyForQuery:
			if serr != nil {
				return serr
			}
			if len(body) != 1 || body[0] != txIdle {
				return fmt.Errorf("%w: the session is still in a transaction after ROLLBACK", errDesync)
			}
			return nil
		default:
			return fmt.Errorf("%w: %q in the rollback's answer", errDesync, typ)
		}
	}
}

// timedReader reads a socket with a fresh read deadline before each read (pgdriver's read timeout:
// the longest the database may stay silent).
type timedReader struct {
	conn    net.Conn
	timeout time.Duration
}

func (r timedReader) Read(b []byte) (int, error) {
	if r.timeout > 0 {
		_ = r.conn.SetReadDeadline(time.Now().Add(r.timeout))
	}
	return r.conn.Read(b)
}

// wire reads backend messages off the socket; asynchronous ones (notices, parameter statuses,
// notifications) are skipped wherever they come.
type wire struct {
	conn net.Conn
	rd   *bufio.Reader
	body []byte
}

// Sizes of a wire's buffers: its read buffer, and the largest message body a pooled wire keeps (a
// larger one, a wide row, is left to the garbage collector rather than held by the pool).
const (
	wireBufferSize  = 16 << 10
	wireKeptBodyCap = 64 << 10
)

// wires are the idle wires of finished exchanges: a query takes one rather than allocating (and
// zeroing) a read buffer per request, which profiles of the query route showed as a leading cost.
var wires = sync.Pool{New: func() any { return &wire{rd: bufio.NewReaderSize(nil, wireBufferSize)} }}

// newWire is a wire reading conn, its read deadline renewed to timeout before each read (0: none).
func newWire(conn net.Conn, timeout time.Duration) *wire {
	w := wires.Get().(*wire)
	w.conn = conn
	w.rd.Reset(timedReader{conn: conn, timeout: timeout})
	return w
}

// release gives a wire whose exchange is over back to the pool; w is not used again.
func (w *wire) release() {
	w.conn = nil
	w.rd.Reset(nil)
	if cap(w.body) > wireKeptBodyCap {
		w.body = nil
	}
	wires.Put(w)
}

// errTooLarge answers a message larger than the reader was willing to read (left unread).
var errTooLarge = errors.New("accountdb: a message from the database is larger than allowed")

// next reads the next message that is not asynchronous: its type and body (valid until the next
// call). A data row longer than rowLimit, or another message longer than maxMessage, is left unread,
// answered with errTooLarge and its type.
func (w *wire) next(rowLimit int) (byte, []byte, error) {
	for {
		var hdr [5]byte
		if _, err := io.ReadFull(w.rd, hdr[:]); err != nil {
			return 0, nil, fmt.Errorf("accountdb: read from the database: %w", err)
		}
		typ, n := hdr[0], int(binary.BigEndian.Uint32(hdr[1:]))-4
		if n < 0 {
			return 0, nil, fmt.Errorf("%w: a negative message length", errDesync)
		}
		switch typ {
		case beNotice, beParameterStatus, beNotification:
			if n > maxMessage {
				return typ, nil, errTooLarge
			}
			if _, err := w.rd.Discard(n); err != nil {
				return 0, nil, fmt.Errorf("accountdb: read from the database: %w", err)
			}
			continue
		}
		if typ == beDataRow && n > rowLimit || typ != beDataRow && n > maxMessage {
			return typ, nil, errTooLarge
		}
		if cap(w.body) < n {
			w.body = make([]byte, n)
		}
		w.body = w.body[:n]
		if _, err := io.ReadFull(w.rd, w.body); err != nil {
			return 0, nil, fmt.Errorf("accountdb: read from the database: %w", err)
		}
		return typ, w.body, nil
	}
}

// done ends a read: every byte received was an answer of the exchange (anything more would be out of
// step), and the socket's read deadline is cleared for pgdriver. The wire goes back to the pool: a
// message body it answered is no longer valid, and w is not used again.
func (w *wire) done() error {
	_ = w.conn.SetReadDeadline(time.Time{})
	if n := w.rd.Buffered(); n != 0 {
		return fmt.Errorf("%w: %d bytes after the last answer", errDesync, n)
	}
	w.release()
	return nil
}

// parseError reads an ErrorResponse's fields.
func parseError(body []byte) error {
	e := &serverError{fields: map[byte]string{}}
	m := newMsg(body)
	for {
		code, err := m.bytes(1)
		if err != nil || code[0] == 0 {
			return e
		}
		v, err := m.cstring()
		if err != nil {
			return e
		}
		e.fields[code[0]] = v
	}
}

// msg reads the fields of a backend message's body.
type msg struct {
	b []byte
}

func newMsg(b []byte) *msg { return &msg{b: b} }

// errShort answers a message shorter than its fields.
var errShort = fmt.Errorf("%w: a message shorter than its fields", errDesync)

func (m *msg) bytes(n int) ([]byte, error) {
	if n < 0 || len(m.b) < n {
		return nil, errShort
	}
	b := m.b[:n]
	m.b = m.b[n:]
	return b, nil
}

func (m *msg) int16() (int, error) {
	b, err := m.bytes(2)
	if err != nil {
		return 0, err
	}
	return int(binary.BigEndian.Uint16(b)), nil
}

func (m *msg) cstring() (string, error) {
	i := bytes.IndexByte(m.b, 0)
	if i < 0 {
		return "", errShort
	}
	s := string(m.b[:i])
	m.b = m.b[i+1:]
	return s, nil
}

// value reads one length-prefixed value of a DataRow (null for length -1).
func (m *msg) value() ([]byte, bool, error) {
	b, err := m.bytes(4)
	if err != nil {
		return nil, false, err
	}
	n := int32(binary.BigEndian.Uint32(b))
	if n < 0 {
		return nil, true, nil
	}
	b, err = m.bytes(int(n))
	return b, false, err
}

// frontend builds the frontend messages of a pipeline.
type frontend struct {
	b     []byte
	start int
}

func (f *frontend) begin(typ byte) {
	f.b = append(f.b, typ, 0, 0, 0, 0)
	f.start = len(f.b) - 4
}

func (f *frontend) end() {
	binary.BigEndian.PutUint32(f.b[f.start:], uint32(len(f.b)-f.start))
}

func (f *frontend) cstring(s string) {
	f.b = append(f.b, s...)
	f.b = append(f.b, 0)
}

func (f *frontend) int16(n int) { f.b = binary.BigEndian.AppendUint16(f.b, uint16(n)) }

func (f *frontend) int32(n int) { f.b = binary.BigEndian.AppendUint32(f.b, uint32(n)) }

// parse is Parse of q as the unnamed statement, its parameters' types left to PostgreSQL.
func (f *frontend) parse(q string) {
	f.begin(feParse)
	f.cstring("")
	f.cstring(q)
	f.int16(0)
	f.end()
}

// describeStatement is Describe of the unnamed statement.
func (f *frontend) describeStatement() {
	f.begin(feDescribe)
	f.b = append(f.b, 'S')
	f.cstring("")
	f.end()
}

// bind is Bind of args (as text; nil as NULL) to the unnamed statement, with text results.
func (f *frontend) bind(args []driver.NamedValue) {
	f.begin(feBind)
	f.cstring("")
	f.cstring("")
	f.int16(0)
	f.int16(len(args))
	for _, a := range args {
		if a.Value == nil {
			f.int32(-1)
			continue
		}
		text := paramText(a.Value)
		f.int32(len(text))
		f.b = append(f.b, text...)
	}
	f.int16(0)
	f.end()
}

// paramText is a parameter's text, as pgdriver writes it.
func paramText(v driver.Value) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		if v {
			return "TRUE"
		}
		return "FALSE"
	case []byte:
		return `\x` + hex.EncodeToString(v)
	}
	return fmt.Sprint(v)
}

// execute is Execute of the unnamed portal, at most maxRows rows (0: all).
func (f *frontend) execute(maxRows int) {
	f.begin(feExecute)
	f.cstring("")
	f.int32(maxRows)
	f.end()
}

func (f *frontend) sync() {
	f.begin(feSync)
	f.end()
}

// query is a simple-protocol Query of the platform's own SQL.
func (f *frontend) query(q string) {
	f.begin(feQuery)
	f.cstring(q)
	f.end()
}

// parseBindExecute is Parse, Bind and Execute of one of the platform's own statements.
func (f *frontend) parseBindExecute(q string, args []driver.NamedValue, maxRows int) {
	f.parse(q)
	f.bind(args)
	f.execute(maxRows)
}
