package accountdb

import (
	"context"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Records page sizes.
const (
	DefaultRecordsLimit = 100
	MaxRecordsLimit     = 1000
)

// column is a table column as the catalog describes it.
type column struct {
	name    string
	notNull bool
	// pk is the column's position in the primary key (1-based), 0 outside it.
	pk int
}

// table is a table of schema public and its columns in order.
type table struct {
	name    string
	columns []column
}

func (t *table) column(name string) *column {
	for i := range t.columns {
		if t.columns[i].name == name {
			return &t.columns[i]
		}
	}
	return nil
}

// primaryKey is the primary key's columns in key order.
func (t *table) primaryKey() []string {
	var pk []column
	for _, c := range t.columns {
		if c.pk > 0 {
			pk = append(pk, c)
		}
	}
	sort.Slice(pk, func(i, j int) bool { return pk[i].pk < pk[j].pk })
	names := make([]string, len(pk))
	for i, c := range pk {
		names[i] = c.name
	}
	return names
}

const tableColumnsSQL = `SELECT a.attname::text, a.attnotnull, COALESCE(array_position(i.indkey::int2[], a.attnum) - array_lower(i.indkey::int2[], 1) + 1, 0)::int8
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_index i ON i.indrelid = c.oid AND i.indisprimary
WHERE n.nspname = 'public' AND c.relname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`

// lookupTable reads a table of schema public from the catalog; an unknown one is 400 naming param.
func (s *session) lookupTable(ctx context.Context, name, param string) (*table, error) {
	if name == "" {
		return nil, svcerr.Invalid(param, "%s names a table of schema public", param)
	}
	rows, err := s.all(ctx, tableColumnsSQL, name)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, svcerr.Invalid(param, "there is no table %q in schema public", name)
	}
	t := &table{name: name}
	for _, r := range rows {
		n, _ := r[0].(string)
		notNull, _ := r[1].(bool)
		pk, _ := r[2].(int64)
		t.columns = append(t.columns, column{name: n, notNull: notNull, pk: int(pk)})
	}
	return t, nil
}

// all runs a small statement of the platform's (catalog lookups) with text arguments and answers every
// row.
func (s *session) all(ctx context.Context, q string, args ...string) ([][]driver.Value, error) {
	st, err := s.prepare(ctx, q)
	if err != nil {
		return nil, err
	}
	defer st.close()
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	rows, err := st.query(ctx, named)
	if err != nil {
		return nil, err
	}
	var out [][]driver.Value
	for {
		dest := make([]driver.Value, len(rows.Columns()))
		err := rows.Next(dest)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, dest)
	}
}

// quoteIdent quotes an identifier for PostgreSQL.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// recordsCursor is what a records cursor holds: the page's table and order, and the last row's key.
type recordsCursor struct {
	Table   string   `json:"t"`
	OrderBy string   `json:"o,omitempty"`
	Key     []string `json:"k"`
}

func encodeCursor(c recordsCursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string, tbl, orderBy string, keys int) (*recordsCursor, error) {
	if s == "" {
		return nil, nil
	}
	bad := svcerr.Invalid("cursor", "cursor is not a nextCursor of this table and order")
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	var c recordsCursor
	if json.Unmarshal(b, &c) != nil || c.Table != tbl || c.OrderBy != orderBy || len(c.Key) != keys {
		return nil, bad
	}
	return &c, nil
}

// Records answers a page of a table's rows as the reader, in a READ ONLY transaction under limits'
// deadline: the rows matching where (column equality), ordered by orderBy then the primary key (or the
// primary key alone), after the cursor's row. Pages are keyset pages, so paging sees every row once
// even while rows are inserted. Tables and columns are checked against the catalog and quoted; values
// are parameters.
func Records(ctx context.Context, reader *bun.DB, req client.DatabaseQueryRequest, limits Limits) (*client.DatabaseQueryResult, error) {
	limit, err := rowCap(req.Limit, "limit", DefaultRecordsLimit, MaxRecordsLimit)
	if err != nil {
		return nil, err
	}
	limits = limits.withDefaults()
	var out *client.DatabaseQueryResult
	err = withSession(ctx, reader, limits.Timeout, func(ctx context.Context, s *session) error {
		err := s.readOnly(ctx, func(ctx context.Context) error {
			res, err := s.records(ctx, req, limit, limits.MaxBytes)
			out = res
			return err
		})
		return sqlError(ctx, s, err, "table", limits.Timeout)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *session) records(ctx context.Context, req client.DatabaseQueryRequest, limit, maxBytes int) (*client.DatabaseQueryResult, error) {
	t, err := s.lookupTable(ctx, req.Table, "table")
	if err != nil {
		return nil, err
	}
	keys, err := orderKeys(t, req.OrderBy)
	if err != nil {
		return nil, err
	}
	cur, err := decodeCursor(req.Cursor, t.name, req.OrderBy, len(keys))
	if err != nil {
		return nil, err
	}
	q, args, err := recordsSQL(t, req.Where, keys, cur, limit)
	if err != nil {
		return nil, err
	}
	c := &collector{maxRows: limit + 1, maxBytes: maxBytes, hidden: len(keys)}
	res, err := s.collect(ctx, q, args, c)
	if err != nil {
		return nil, err
	}
	more := res.Truncated
	if len(res.Rows) > limit {
		// The extra row only says there is a next page; the cursor is the key of the page's last row.
		res.Rows, res.RowCount, more = res.Rows[:limit], limit, true
		c.last = c.prev
	}
	res.Truncated = false
	if more && len(res.Rows) > 0 {
		res.NextCursor = encodeCursor(recordsCursor{Table: t.name, OrderBy: req.OrderBy, Key: c.last})
	}
	return res, nil
}

// orderKeys are the columns of a records order: orderBy (a NOT NULL column) then the primary key.
func orderKeys(t *table, orderBy string) ([]string, error) {
	pk := t.primaryKey()
	if len(pk) == 0 {
		return nil, svcerr.Invalid("table", "table %q has no primary key, which records pages need", t.name)
	}
	if orderBy == "" {
		return pk, nil
	}
	c := t.column(orderBy)
	switch {
	case c == nil:
		return nil, svcerr.Invalid("orderBy", "table %q has no column %q", t.name, orderBy)
	case !c.notNull:
		return nil, svcerr.Invalid("orderBy", "column %q may be NULL; records are ordered by a NOT NULL column", orderBy)
	case c.pk > 0:
		return pk, nil
	}
	return append([]string{orderBy}, pk...), nil
}

// recordsSQL builds a page's statement: every column, then the order keys as text (hidden), filtered by
// where and the cursor, ordered by the keys, one row more than the page.
func recordsSQL(t *table, where map[string]json.RawMessage, keys []string, cur *recordsCursor, limit int) (string, []driver.NamedValue, error) {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range t.columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdent(c.name))
	}
	for i, k := range keys {
		fmt.Fprintf(&b, ", %s::text AS svc_key_%d", quoteIdent(k), i)
	}
	// The table is aliased r, and the order refers to r's columns, never to the output's names.
	b.WriteString(" FROM public." + quoteIdent(t.name) + " AS r")
	conds, args, err := whereConds(t, where)
	if err != nil {
		return "", nil, err
	}
	if cur != nil {
		ph := make([]string, len(keys))
		for i, k := range cur.Key {
			args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: k})
			ph[i] = fmt.Sprintf("$%d", len(args))
		}
		conds = append(conds, "("+quoteList(keys, "r")+") > ("+strings.Join(ph, ", ")+")")
	}
	if len(conds) > 0 {
		b.WriteString(" WHERE " + strings.Join(conds, " AND "))
	}
	fmt.Fprintf(&b, " ORDER BY %s LIMIT %d", quoteList(keys, "r"), limit+1)
	return b.String(), args, nil
}

// whereConds are the equality conditions of where, in column order; an unknown column is 400 naming
// where.<column>.
func whereConds(t *table, where map[string]json.RawMessage) ([]string, []driver.NamedValue, error) {
	names := make([]string, 0, len(where))
	for name := range where {
		names = append(names, name)
	}
	sort.Strings(names)
	var conds []string
	var args []driver.NamedValue
	for _, name := range names {
		param := "where." + name
		if t.column(name) == nil {
			return nil, nil, svcerr.Invalid(param, "table %q has no column %q", t.name, name)
		}
		v, err := bindValue(where[name])
		if err != nil {
			return nil, nil, svcerr.Invalid(param, "%s: %v", param, err)
		}
		if v == nil {
			conds = append(conds, "r."+quoteIdent(name)+" IS NULL")
			continue
		}
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
		conds = append(conds, fmt.Sprintf("r.%s = $%d", quoteIdent(name), len(args)))
	}
	return conds, args, nil
}

// quoteList quotes names, each qualified by alias.
func quoteList(names []string, alias string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = alias + "." + quoteIdent(n)
	}
	return strings.Join(q, ", ")
}
