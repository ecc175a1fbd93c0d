package accountdb

import (
	"context"
	"database/sql/driver"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// MaxStatements caps the statements of one execute action.
const MaxStatements = 1000

// sessionKeywords are first keywords execute refuses: they would end or change the action's transaction,
// change the session's role or settings for the statements after them (and, committed, for the pooled
// connection), or move data in or out of the server's files and programs.
var sessionKeywords = map[string]bool{
	"BEGIN": true, "START": true, "COMMIT": true, "END": true, "ROLLBACK": true, "ABORT": true, "SAVEPOINT": true,
	"RELEASE": true, "PREPARE": true, "SET": true, "RESET": true, "DISCARD": true, "LISTEN": true, "UNLISTEN": true,
	"COPY": true, "LOAD": true, "CHECKPOINT": true, "VACUUM": true, "DECLARE": true, "FETCH": true, "MOVE": true,
	"CLOSE": true, "DEALLOCATE": true, "EXECUTE": true,
}

// roleObjects are what ALTER may not change through execute: the limits set on the roles and the
// database belong to the platform.
var roleObjects = map[string]bool{"ROLE": true, "USER": true, "GROUP": true, "DATABASE": true, "SYSTEM": true, "DEFAULT": true}

// identRE is what create_table admits as a table or column name: a plain lower-case identifier, so the
// name the caller gives is the name PostgreSQL keeps.
var identRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// typeRE is create_table's allowlist of column types: a base type, an optional modifier where the type
// takes one, and an optional array suffix.
var typeRE = regexp.MustCompile(`^(?i)(smallint|integer|int|int2|int4|int8|bigint|smallserial|serial|bigserial|real|float4|float8|double precision|` +
	`boolean|bool|text|date|timestamptz|timestamp with time zone|timestamp without time zone|timestamp|time|timetz|interval|uuid|json|jsonb|bytea|inet|cidr|macaddr|` +
	`(numeric|decimal)(\(\s*\d{1,4}\s*(,\s*\d{1,4}\s*)?\))?|(varchar|character varying|char|character)(\(\s*\d{1,7}\s*\))?)(\[\])?$`)

// Act runs an action as the owner role in one transaction under limits' deadline: a failure rolls the
// whole action back. Destructive actions need their confirmation string (client.ConfirmTruncateTable,
// ConfirmDropTable, ConfirmResetDatabase).
func Act(ctx context.Context, owner *bun.DB, req client.DatabaseActionRequest, limits Limits) (*client.DatabaseActionResult, error) {
	run, param, err := plan(req)
	if err != nil {
		return nil, err
	}
	limits = limits.withDefaults()
	out := &client.DatabaseActionResult{OK: true, Action: req.Action, Table: req.Table}
	err = withSession(ctx, owner, limits.Timeout, func(ctx context.Context, s *session) error {
		if err := s.exec(ctx, "BEGIN"); err != nil {
			return sqlError(ctx, s, err, param, limits.Timeout)
		}
		err := run(ctx, s, out)
		if err != nil {
			if inSync(err) {
				_ = s.finish(ctx, false)
			} else {
				s.cancel() // the connection may be mid-answer: never write to it again
			}
			return sqlError(ctx, s, err, param, limits.Timeout)
		}
		return sqlError(ctx, s, s.finish(ctx, true), param, limits.Timeout)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// actionFunc does an action's work inside its transaction.
type actionFunc func(ctx context.Context, s *session, out *client.DatabaseActionResult) error

// plan validates an action's request and answers its work and the field its SQL errors name.
func plan(req client.DatabaseActionRequest) (actionFunc, string, error) {
	switch req.Action {
	case client.DatabaseActionExecute:
		stmts, param, err := executeStatements(req)
		return func(ctx context.Context, s *session, out *client.DatabaseActionResult) error {
			return s.execute(ctx, stmts, param, out)
		}, param, err
	case client.DatabaseActionCreateTable:
		q, err := createTableSQL(req)
		return func(ctx context.Context, s *session, _ *client.DatabaseActionResult) error {
			return s.exec(ctx, q)
		}, "table", err
	case client.DatabaseActionInsertRows:
		if len(req.Rows) == 0 {
			return nil, "rows", svcerr.Invalid("rows", "insert_rows needs at least one row")
		}
		return func(ctx context.Context, s *session, out *client.DatabaseActionResult) error {
			return s.insertRows(ctx, req, out)
		}, "rows", nil
	case client.DatabaseActionTruncateTable:
		return tableAction(req, client.ConfirmTruncateTable, "TRUNCATE TABLE public.%s")
	case client.DatabaseActionDropTable:
		return tableAction(req, client.ConfirmDropTable, "DROP TABLE public.%s")
	case client.DatabaseActionResetDatabase:
		if err := confirm(req, client.ConfirmResetDatabase); err != nil {
			return nil, "", err
		}
		return func(ctx context.Context, s *session, out *client.DatabaseActionResult) error {
			return s.reset(ctx, out)
		}, "action", nil
	}
	return nil, "", svcerr.Invalid("action", "action is one of execute, create_table, insert_rows, truncate_table, drop_table, reset_database")
}

// confirm refuses a destructive action without its exact confirmation string.
func confirm(req client.DatabaseActionRequest, want string) error {
	if req.Confirmation != want {
		return svcerr.Invalid("confirmation", "%s destroys data: confirm it with confirmation %q", req.Action, want)
	}
	return nil
}

// tableAction is truncate_table or drop_table: confirmed, on a table the catalog knows.
func tableAction(req client.DatabaseActionRequest, want, format string) (actionFunc, string, error) {
	if err := confirm(req, want); err != nil {
		return nil, "", err
	}
	return func(ctx context.Context, s *session, _ *client.DatabaseActionResult) error {
		t, err := s.lookupTable(ctx, req.Table, "table")
		if err != nil {
			return err
		}
		return s.exec(ctx, fmt.Sprintf(format, quoteIdent(t.name)))
	}, "table", nil
}

// executeStatements are the statements of an execute action, from statements or sql (split at its
// semicolons), each one statement that does not touch the transaction or the session.
func executeStatements(req client.DatabaseActionRequest) ([]string, string, error) {
	if (req.SQL == "") == (len(req.Statements) == 0) {
		return nil, "sql", svcerr.Invalid("sql", "execute takes either sql or statements")
	}
	if len(req.SQL) > MaxSQLBytes {
		return nil, "sql", svcerr.Invalid("sql", "sql is longer than %d bytes", MaxSQLBytes)
	}
	if req.SQL != "" {
		stmts, err := splitStatements(req.SQL)
		if err != nil {
			return nil, "sql", svcerr.Invalid("sql", "sql: %v", err)
		}
		if err := checkWrites(stmts, "sql"); err != nil {
			return nil, "sql", err
		}
		out := make([]string, len(stmts))
		for i, st := range stmts {
			out[i] = st.text
		}
		return out, "sql", nil
	}
	if len(req.Statements) > MaxStatements {
		return nil, "statements", svcerr.Invalid("statements", "at most %d statements", MaxStatements)
	}
	for i, text := range req.Statements {
		param := fmt.Sprintf("statements[%d]", i)
		stmts, err := splitStatements(text)
		switch {
		case err != nil:
			return nil, param, svcerr.Invalid(param, "%s: %v", param, err)
		case len(stmts) != 1:
			return nil, param, svcerr.Invalid(param, "%s holds %d statements; each holds exactly one", param, len(stmts))
		}
		if err := checkWrites(stmts, param); err != nil {
			return nil, param, err
		}
	}
	return req.Statements, "statements", nil
}

func checkWrites(stmts []statement, param string) error {
	if len(stmts) == 0 {
		return svcerr.Invalid(param, "%s holds no statement", param)
	}
	if len(stmts) > MaxStatements {
		return svcerr.Invalid(param, "at most %d statements", MaxStatements)
	}
	for _, st := range stmts {
		if sessionKeywords[st.keyword] {
			return svcerr.Invalid(param, "%s statements are not run by execute: the action is one transaction, and the session is not the caller's", st.keyword)
		}
		if st.keyword == "ALTER" && roleObjects[st.second] {
			return svcerr.Invalid(param, "ALTER %s is not run by execute: roles and the database are the platform's", st.second)
		}
	}
	return nil
}

// execute runs statements in order, each by the extended protocol (one statement each), adding up the
// rows they affected. An error names the statement.
func (s *session) execute(ctx context.Context, stmts []string, param string, out *client.DatabaseActionResult) error {
	var total int64
	for i, q := range stmts {
		st, err := s.prepare(ctx, q)
		if err == nil {
			var n int64
			n, err = st.exec(ctx, nil)
			st.close()
			total += n
		}
		if err != nil {
			if param == "statements" {
				return withParam(err, fmt.Sprintf("statements[%d]", i))
			}
			return err
		}
	}
	out.RowsAffected = &total
	return nil
}

// withParam makes a statement's PostgreSQL error name param.
func withParam(err error, param string) error {
	return &paramError{err: err, param: param}
}

type paramError struct {
	err   error
	param string
}

func (e *paramError) Error() string { return e.err.Error() }
func (e *paramError) Unwrap() error { return e.err }

// createTableSQL validates create_table's names and types and builds its statement.
func createTableSQL(req client.DatabaseActionRequest) (string, error) {
	if !identRE.MatchString(req.Table) {
		return "", svcerr.Invalid("table", "table is a lower-case identifier: letters, digits and _, at most 63, not starting with a digit")
	}
	if len(req.Columns) == 0 {
		return "", svcerr.Invalid("columns", "create_table needs at least one column")
	}
	var defs, pk []string
	seen := map[string]bool{}
	for i, c := range req.Columns {
		param := fmt.Sprintf("columns[%d]", i)
		switch {
		case !identRE.MatchString(c.Name):
			return "", svcerr.Invalid(param+".name", "a column name is a lower-case identifier: letters, digits and _, at most 63, not starting with a digit")
		case seen[c.Name]:
			return "", svcerr.Invalid(param+".name", "column %q is named twice", c.Name)
		case !typeRE.MatchString(strings.TrimSpace(c.Type)):
			return "", svcerr.Invalid(param+".type", "type %q is not one of the column types create_table takes", c.Type)
		case c.PrimaryKey && c.Nullable != nil && *c.Nullable:
			return "", svcerr.Invalid(param+".nullable", "a primary key column is never nullable")
		}
		seen[c.Name] = true
		def := quoteIdent(c.Name) + " " + strings.ToLower(strings.TrimSpace(c.Type))
		if c.Nullable != nil && !*c.Nullable {
			def += " NOT NULL"
		}
		defs = append(defs, def)
		if c.PrimaryKey {
			pk = append(pk, quoteIdent(c.Name))
		}
	}
	if len(pk) > 0 {
		defs = append(defs, "PRIMARY KEY ("+strings.Join(pk, ", ")+")")
	}
	return "CREATE TABLE public." + quoteIdent(req.Table) + " (" + strings.Join(defs, ", ") + ")", nil
}

// insertRows inserts rows into a table the catalog knows, each by a parameterised INSERT of its columns.
func (s *session) insertRows(ctx context.Context, req client.DatabaseActionRequest, out *client.DatabaseActionResult) error {
	t, err := s.lookupTable(ctx, req.Table, "table")
	if err != nil {
		return err
	}
	stmts := map[string]*prepared{}
	defer func() {
		for _, st := range stmts {
			st.close()
		}
	}()
	var total int64
	for i, row := range req.Rows {
		param := fmt.Sprintf("rows[%d]", i)
		cols := make([]string, 0, len(row))
		for name := range row {
			if t.column(name) == nil {
				return svcerr.Invalid(param+"."+name, "table %q has no column %q", t.name, name)
			}
			cols = append(cols, name)
		}
		sort.Strings(cols)
		args := make([]driver.NamedValue, len(cols))
		for j, name := range cols {
			v, err := bindValue(row[name])
			if err != nil {
				return svcerr.Invalid(param+"."+name, "%s.%s: %v", param, name, err)
			}
			args[j] = driver.NamedValue{Ordinal: j + 1, Value: v}
		}
		st, err := s.insertStatement(ctx, stmts, t, cols)
		if err != nil {
			return withParam(err, param)
		}
		n, err := st.exec(ctx, args)
		if err != nil {
			return withParam(err, param)
		}
		total += n
	}
	out.RowsAffected = &total
	return nil
}

// insertStatement is the prepared INSERT of one set of columns, prepared once per action.
func (s *session) insertStatement(ctx context.Context, stmts map[string]*prepared, t *table, cols []string) (*prepared, error) {
	key := strings.Join(cols, "\x00")
	if st := stmts[key]; st != nil {
		return st, nil
	}
	q := "INSERT INTO public." + quoteIdent(t.name) + " DEFAULT VALUES"
	if len(cols) > 0 {
		ph := make([]string, len(cols))
		quoted := make([]string, len(cols))
		for i, c := range cols {
			ph[i] = fmt.Sprintf("$%d", i+1)
			quoted[i] = quoteIdent(c)
		}
		q = "INSERT INTO public." + quoteIdent(t.name) + " (" + strings.Join(quoted, ", ") + ") VALUES (" + strings.Join(ph, ", ") + ")"
	}
	st, err := s.prepare(ctx, q)
	if err != nil {
		return nil, err
	}
	stmts[key] = st
	return st, nil
}

// resetObjectsSQL lists what reset_database drops: the owner's relations, types and routines in schema
// public, views first so tables drop without their dependants in the way.
const resetObjectsSQL = `SELECT kind, name FROM (
  SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END AS kind,
         c.relname::text AS name,
         CASE c.relkind WHEN 'v' THEN 1 WHEN 'm' THEN 1 WHEN 'S' THEN 3 ELSE 2 END AS ord
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND pg_catalog.pg_get_userbyid(c.relowner) = current_user
    AND NOT c.relispartition
  UNION ALL
  SELECT CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.typname::text, 4
  FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
  WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'r', 'c') AND pg_catalog.pg_get_userbyid(t.typowner) = current_user
    AND (t.typrelid = 0 OR (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) = 'c')
  UNION ALL
  SELECT 'ROUTINE', p.oid::regprocedure::text, 5
  FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = 'public' AND pg_catalog.pg_get_userbyid(p.proowner) = current_user
) o ORDER BY ord, name`

// reset drops every relation, type and routine the owner has in schema public (CASCADE, IF EXISTS: a
// cascade may have dropped a later one already).
func (s *session) reset(ctx context.Context, out *client.DatabaseActionResult) error {
	objs, err := s.all(ctx, resetObjectsSQL)
	if err != nil {
		return err
	}
	out.Dropped = []string{}
	for _, o := range objs {
		kind, _ := o[0].(string)
		name, _ := o[1].(string)
		target := "public." + quoteIdent(name)
		if kind == "ROUTINE" {
			target = name // regprocedure text: already qualified and quoted as needed
		}
		if err := s.exec(ctx, fmt.Sprintf("DROP %s IF EXISTS %s CASCADE", kind, target)); err != nil {
			return err
		}
		out.Dropped = append(out.Dropped, strings.ToLower(kind)+" "+name)
	}
	return nil
}
