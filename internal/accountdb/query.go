package accountdb

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Limits bound one query, records page or action. Zero fields take the defaults.
type Limits struct {
	// Timeout is the deadline of the whole request, enforced from Go (default DefaultTimeout).
	Timeout time.Duration
	// MaxBytes caps the encoded values of a result (default DefaultMaxBytes); past it the result is
	// truncated.
	MaxBytes int
}

// Defaults and caps of queries and records.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultMaxBytes = 8 << 20
	DefaultMaxRows  = 1000
	MaxRows         = 10000
	// MaxSQLBytes caps the SQL text of a query or an action.
	MaxSQLBytes = 256 << 10
)

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// readKeywords are the first keywords of the statements a query may run.
var readKeywords = map[string]bool{"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true, "SHOW": true, "EXPLAIN": true}

// checkReadSQL refuses what a query may not run: empty SQL, more than one statement, or a statement
// that is not a read (an allowlist of first keywords).
func checkReadSQL(src string) error {
	if len(src) > MaxSQLBytes {
		return svcerr.Invalid("sql", "sql is longer than %d bytes", MaxSQLBytes)
	}
	if strings.IndexByte(src, 0) >= 0 {
		return svcerr.Invalid("sql", "sql holds a NUL byte")
	}
	stmts, err := splitStatements(src)
	if err != nil {
		return svcerr.Invalid("sql", "sql: %v", err)
	}
	switch {
	case len(stmts) == 0:
		return svcerr.Invalid("sql", "sql holds no statement")
	case len(stmts) > 1:
		return svcerr.Invalid("sql", "sql holds %d statements; a query runs exactly one", len(stmts))
	case !readKeywords[stmts[0].keyword]:
		return svcerr.Invalid("sql", "a query only reads: its statement starts with SELECT, WITH, VALUES, TABLE, SHOW or EXPLAIN, not %s (use the actions to change data)",
			stmts[0].keyword)
	}
	return nil
}

// Query runs one read-only statement of the caller's as the reader role, in a READ ONLY transaction
// that is always rolled back, under limits' deadline (the backend is cancelled when it passes), in one
// round trip on a pooled connection (pipeline.go). At most maxRows rows are answered (one more is
// fetched to tell a truncated result); past the byte cap the result is truncated and the statement
// cancelled. Parameters bind positionally to $1, $2, ... by the extended protocol, which also refuses a
// second statement.
func Query(ctx context.Context, reader *bun.DB, req client.DatabaseQueryRequest, limits Limits) (*client.DatabaseQueryResult, error) {
	if err := checkReadSQL(req.SQL); err != nil {
		return nil, err
	}
	maxRows, err := rowCap(req.MaxRows, "maxRows", DefaultMaxRows, MaxRows)
	if err != nil {
		return nil, err
	}
	args, err := bindAll(req.Params, "params")
	if err != nil {
		return nil, err
	}
	limits = limits.withDefaults()
	var out *client.DatabaseQueryResult
	err = withSession(ctx, reader, limits.Timeout, func(ctx context.Context, s *session) error {
		res, err := s.query(ctx, req.SQL, args, &collector{maxRows: maxRows, maxBytes: limits.MaxBytes})
		out = res
		return sqlError(ctx, s, err, "sql", limits.Timeout)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// rowCap validates a requested row count against its default and maximum.
func rowCap(n int, param string, def, maxN int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || n > maxN:
		return 0, svcerr.Invalid(param, "%s is from 1 to %d", param, maxN)
	}
	return n, nil
}

// readOnly runs f in a READ ONLY transaction, always rolled back, and resets the session after it.
func (s *session) readOnly(ctx context.Context, f func(ctx context.Context) error) error {
	if err := s.exec(ctx, "BEGIN READ ONLY"); err != nil {
		return err
	}
	err := f(ctx)
	if err != nil && !inSync(err) {
		s.cancel() // the connection may be mid-answer: never write to it again
		return err
	}
	if ferr := s.finish(ctx, false); err == nil && ferr != nil {
		err = ferr
	}
	return err
}

// collector is how a result is collected: its caps, and how many trailing columns are hidden (kept as
// the last row's text in last, not answered).
type collector struct {
	maxRows, maxBytes int
	hidden            int
	// last and prev are the hidden values of the last row answered and of the one before it.
	last, prev []string
}

// collect prepares, binds and executes q and streams its rows into a result.
func (s *session) collect(ctx context.Context, q string, args []driver.NamedValue, c *collector) (*client.DatabaseQueryResult, error) {
	st, err := s.prepare(ctx, q)
	if err != nil {
		return nil, err
	}
	defer st.close()
	if n := st.numInput(); n >= 0 && n != len(args) {
		return nil, svcerr.Invalid("params", "the statement takes %d parameters; %d were given", n, len(args))
	}
	oids := st.oids()
	names, err := s.typeNames(ctx, oids)
	if err != nil {
		return nil, err
	}
	rows, err := st.query(ctx, args)
	if err != nil {
		return nil, err
	}
	cols := rows.Columns()
	cols = cols[:len(cols)-c.hidden]
	res := &client.DatabaseQueryResult{OK: true, Columns: make([]client.DatabaseColumn, len(cols)), Rows: []json.RawMessage{}}
	for i, name := range cols {
		res.Columns[i] = client.DatabaseColumn{Name: name}
		if i < len(names) {
			res.Columns[i].Type = names[i]
		}
	}
	if err := s.stream(rows, oids, res, c); err != nil {
		return nil, err
	}
	return res, nil
}

// stream reads rows one at a time, encoding each, and stops at maxRows or before maxBytes; a result cut
// short is truncated and its statement cancelled (never read to its end).
func (s *session) stream(rows driver.Rows, oids []uint32, res *client.DatabaseQueryResult, c *collector) error {
	shown := len(res.Columns)
	dest := make([]driver.Value, shown+c.hidden)
	size := 0
	for {
		err := rows.Next(dest)
		if errors.Is(err, io.EOF) {
			return rows.Close()
		}
		if err != nil {
			return err
		}
		row, err := encodeRow(oids, dest[:shown])
		if err != nil {
			return err
		}
		if len(res.Rows) == c.maxRows || size+len(row) > c.maxBytes {
			res.Truncated = true
			s.cancel()
			return nil
		}
		size += len(row)
		res.Rows = append(res.Rows, row)
		res.RowCount++
		if c.hidden > 0 {
			c.prev = c.last
			c.last = make([]string, 0, c.hidden)
			for _, v := range dest[shown:] {
				c.last = append(c.last, fmt.Sprint(v))
			}
		}
	}
}

// encodeRow is the JSON array of one row's values.
func encodeRow(oids []uint32, vals []driver.Value) (json.RawMessage, error) {
	b := make([]byte, 0, 16*len(vals)+2)
	b = append(b, '[')
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		var oid uint32
		if i < len(oids) {
			oid = oids[i]
		}
		enc, err := renderValue(oid, v)
		if err != nil {
			return nil, fmt.Errorf("accountdb: render column %d: %w", i, err)
		}
		b = append(b, enc...)
	}
	return append(b, ']'), nil
}

// typeNames names the types of a result's columns: the built-in ones of typeNames, the others (enums,
// domains, arrays of others) from pg_type in one statement.
func (s *session) typeNames(ctx context.Context, oids []uint32) ([]string, error) {
	names := make([]string, len(oids))
	var missing []string
	for i, oid := range oids {
		if names[i] = typeNames[oid]; names[i] == "" {
			missing = append(missing, fmt.Sprint(oid))
		}
	}
	if len(missing) == 0 {
		return names, nil
	}
	st, err := s.prepare(ctx, "SELECT oid::int8, format_type(oid, NULL) FROM pg_catalog.pg_type WHERE oid = ANY(string_to_array($1, ',')::oid[])")
	if err != nil {
		return nil, err
	}
	defer st.close()
	rows, err := st.query(ctx, []driver.NamedValue{{Ordinal: 1, Value: strings.Join(missing, ",")}})
	if err != nil {
		return nil, err
	}
	named := map[uint32]string{}
	dest := make([]driver.Value, 2)
	for {
		err := rows.Next(dest)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		oid, _ := dest[0].(int64)
		name, _ := dest[1].(string)
		named[uint32(oid)] = name
	}
	for i, oid := range oids {
		if names[i] == "" {
			names[i] = named[oid]
		}
	}
	return names, nil
}
