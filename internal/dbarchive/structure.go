package dbarchive

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// loadMarker is the line of schema.sql where the tables' rows are loaded: statements before it create
// the tables, statements after it add constraints and indexes and restart sequences.
const loadMarker = "-- svc:load-data"

// stmtSep ends every statement of schema.sql: a line holding only a semicolon.
const stmtSep = "\n;\n"

// schemaHeader opens schema.sql.
const schemaHeader = `-- svc database archive, format 1: the structure of schema public.
-- Every statement ends with a line holding only ";" and runs alone, in order, in the restore's transaction.
-- The tables' rows are loaded (COPY ... FROM STDIN WITH (FORMAT csv, HEADER MATCH)) at the line "` + loadMarker + `".
`

// column is one column of a table as the catalogs describe it.
type column struct {
	name      string
	typ       string
	builtin   bool
	notNull   bool
	def       string
	identity  string // "a" always, "d" by default, "" none
	generated bool
	serial    bool // its default draws on a sequence the column owns
	sequence  bool // its default draws on another sequence
}

// table is one table of schema public and its columns in order.
type table struct {
	oid     uint32
	name    string
	columns []column
}

// structure is what Export reads of schema public.
type structure struct {
	tables []table
	// post are the statements run after the rows are loaded.
	post []string
}

const tablesSQL = `SELECT c.oid, c.relname, c.relkind, c.relispartition FROM pg_class c
	WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') ORDER BY c.relname`

const columnsSQL = `SELECT a.attrelid, a.attname, format_type(a.atttypid, a.atttypmod),
		t.typnamespace = 'pg_catalog'::regnamespace, a.attnotnull, coalesce(pg_get_expr(d.adbin, d.adrelid), ''),
		a.attidentity::text, a.attgenerated <> '',
		pg_get_serial_sequence(format('public.%I', c.relname), a.attname) IS NOT NULL
	FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type t ON t.oid = a.atttypid
	LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
	WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
	ORDER BY a.attrelid, a.attnum`

// constraintsSQL lists primary keys, unique and exclusion constraints first, then checks, then foreign
// keys, so that each finds what it needs.
const constraintsSQL = `SELECT c.relname, con.conname, con.contype::text, pg_get_constraintdef(con.oid) FROM pg_constraint con
	JOIN pg_class c ON c.oid = con.conrelid
	WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND con.contype IN ('p', 'u', 'x', 'c', 'f')
	ORDER BY CASE con.contype WHEN 'p' THEN 0 WHEN 'u' THEN 1 WHEN 'x' THEN 1 WHEN 'c' THEN 2 ELSE 3 END, c.relname, con.conname`

// indexesSQL lists the indexes no constraint owns.
const indexesSQL = `SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
	JOIN pg_class ic ON ic.oid = i.indexrelid
	WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
		AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.indexrelid AND con.contype IN ('p', 'u', 'x'))
	ORDER BY ic.relname`

// readStructure reads schema public's tables, columns, constraints and indexes on conn.
func readStructure(ctx context.Context, conn bun.Conn) (*structure, error) {
	s := &structure{}
	if err := readTables(ctx, conn, s); err != nil {
		return nil, err
	}
	if err := readColumns(ctx, conn, s); err != nil {
		return nil, err
	}
	if err := readPost(ctx, conn, s); err != nil {
		return nil, err
	}
	return s, nil
}

func readTables(ctx context.Context, conn bun.Conn, s *structure) error {
	rows, err := conn.QueryContext(ctx, tablesSQL)
	if err != nil {
		return fmt.Errorf("list the tables: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t table
		var kind string
		var partition bool
		if err := rows.Scan(&t.oid, &t.name, &kind, &partition); err != nil {
			return fmt.Errorf("list the tables: %w", err)
		}
		if kind == "p" || partition {
			return refuse(KindStructure, "", "table %q is partitioned; archives carry ordinary tables only", t.name)
		}
		s.tables = append(s.tables, t)
	}
	return rows.Err()
}

func readColumns(ctx context.Context, conn bun.Conn, s *structure) error {
	byOID := make(map[uint32]*table, len(s.tables))
	for i := range s.tables {
		byOID[s.tables[i].oid] = &s.tables[i]
	}
	rows, err := conn.QueryContext(ctx, columnsSQL)
	if err != nil {
		return fmt.Errorf("list the columns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var oid uint32
		var c column
		var owned bool
		if err := rows.Scan(&oid, &c.name, &c.typ, &c.builtin, &c.notNull, &c.def, &c.identity, &c.generated, &owned); err != nil {
			return fmt.Errorf("list the columns: %w", err)
		}
		t := byOID[oid]
		if t == nil {
			continue
		}
		if !c.builtin {
			return refuse(KindStructure, "", "column %q of table %q has type %s, defined in the database; archives carry built-in types only",
				c.name, t.name, c.typ)
		}
		if c.identity == "" && !c.generated && strings.HasPrefix(c.def, "nextval(") {
			c.serial, c.sequence = owned, !owned
		}
		t.columns = append(t.columns, c)
	}
	return rows.Err()
}

func readPost(ctx context.Context, conn bun.Conn, s *structure) error {
	rows, err := conn.QueryContext(ctx, constraintsSQL)
	if err != nil {
		return fmt.Errorf("list the constraints: %w", err)
	}
	var foreign []string
	for rows.Next() {
		var tbl, name, kind, def string
		if err := rows.Scan(&tbl, &name, &kind, &def); err != nil {
			rows.Close()
			return fmt.Errorf("list the constraints: %w", err)
		}
		stmt := fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s %s", quoteIdent(tbl), quoteIdent(name), def)
		if kind == "f" {
			foreign = append(foreign, stmt)
		} else {
			s.post = append(s.post, stmt)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list the constraints: %w", err)
	}
	var indexes []string
	if err := conn.NewRaw(indexesSQL).Scan(ctx, &indexes); err != nil {
		return fmt.Errorf("list the indexes: %w", err)
	}
	// Foreign keys come after the indexes, which a foreign key's check may use.
	s.post = append(append(s.post, indexes...), foreign...)
	for _, t := range s.tables {
		for _, c := range t.columns {
			if c.serial || c.identity != "" {
				s.post = append(s.post, fmt.Sprintf("SELECT setval(pg_get_serial_sequence(%s, %s), coalesce(max(%s), 0) + 1, false) FROM %s",
					quoteLiteral("public."+quoteIdent(t.name)), quoteLiteral(c.name), quoteIdent(c.name), quoteIdent(t.name)))
			}
		}
	}
	return nil
}

// copyColumns are the columns a table's CSV holds: all but the generated ones.
func (t table) copyColumns() []string {
	out := make([]string, 0, len(t.columns))
	for _, c := range t.columns {
		if !c.generated {
			out = append(out, c.name)
		}
	}
	return out
}

// createSQL is the CREATE TABLE statement of t.
func (t table) createSQL() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + quoteIdent(t.name) + " (")
	for i, c := range t.columns {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  " + quoteIdent(c.name) + " " + c.columnType())
		switch {
		case c.generated:
			b.WriteString(" GENERATED ALWAYS AS (" + c.def + ") STORED")
		case c.identity == "a":
			b.WriteString(" GENERATED ALWAYS AS IDENTITY")
		case c.identity == "d":
			b.WriteString(" GENERATED BY DEFAULT AS IDENTITY")
		case c.def != "" && !c.serial && !c.sequence:
			b.WriteString(" DEFAULT " + c.def)
		}
		if c.notNull && !c.serial {
			b.WriteString(" NOT NULL")
		}
	}
	b.WriteString("\n)")
	return b.String()
}

// columnType is c's type, serial types for serial columns.
func (c column) columnType() string {
	if c.serial {
		switch c.typ {
		case "smallint":
			return "smallserial"
		case "integer":
			return "serial"
		case "bigint":
			return "bigserial"
		}
	}
	return c.typ
}

// render is schema.sql for s; it refuses a statement that would not split back out of the file.
func (s *structure) render() ([]byte, error) {
	var b strings.Builder
	b.WriteString(schemaHeader)
	write := func(stmt string) error {
		if strings.Contains(stmt, stmtSep) || strings.Contains(stmt, loadMarker) {
			return refuse(KindStructure, "", "a definition holds the archive's statement separator: %.80q", stmt)
		}
		b.WriteString("\n" + stmt + stmtSep)
		return nil
	}
	for _, t := range s.tables {
		if err := write(t.createSQL()); err != nil {
			return nil, err
		}
	}
	b.WriteString("\n" + loadMarker + "\n")
	for _, stmt := range s.post {
		if err := write(stmt); err != nil {
			return nil, err
		}
	}
	return []byte(b.String()), nil
}

// parseSchema splits schema.sql into the statements run before and after the rows are loaded.
func parseSchema(text string) (pre, post []string, err error) {
	before, after, ok := strings.Cut(text, "\n"+loadMarker+"\n")
	if !ok {
		return nil, nil, refuse(KindStructure, SchemaFile, "no %q line", loadMarker)
	}
	if pre, err = splitStatements(before, preAllowed); err != nil {
		return nil, nil, err
	}
	if post, err = splitStatements(after, postAllowed); err != nil {
		return nil, nil, err
	}
	return pre, post, nil
}

var (
	preAllowed  = []string{"CREATE TABLE "}
	postAllowed = []string{"ALTER TABLE ", "CREATE INDEX ", "CREATE UNIQUE INDEX ", "SELECT setval("}
)

// splitStatements cuts text at stmtSep, drops comment lines and blank pieces, and refuses a statement not
// starting with one of allowed.
func splitStatements(text string, allowed []string) ([]string, error) {
	var out []string
	for _, piece := range strings.Split(text+"\n", stmtSep) {
		lines := strings.Split(piece, "\n")
		for len(lines) > 0 && (strings.TrimSpace(lines[0]) == "" || strings.HasPrefix(lines[0], "--")) {
			lines = lines[1:]
		}
		stmt := strings.TrimSpace(strings.Join(lines, "\n"))
		if stmt == "" {
			continue
		}
		if !hasAnyPrefix(stmt, allowed) {
			return nil, refuse(KindStructure, SchemaFile, "statement %.60q is not one an archive may hold (%s)",
				stmt, strings.Join(allowed, ", "))
		}
		out = append(out, stmt)
	}
	return out, nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// quoteIdent quotes an identifier for PostgreSQL.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteLiteral quotes a string constant for PostgreSQL (standard_conforming_strings on).
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
