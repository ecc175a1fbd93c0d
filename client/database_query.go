package client

import (
	"context"
	"encoding/json"
	"net/http"
)

// QueryDatabase runs one read-only statement on the account's database, or answers a page of a table's
// records when req names a table (POST /v1/databases/query).
func (c *Client) QueryDatabase(ctx context.Context, req DatabaseQueryRequest) Response[DatabaseQueryResult] {
	return send[DatabaseQueryResult](ctx, c, call{method: http.MethodPost, path: "/databases/query", body: req, auth: authKey})
}

// DatabaseAction changes the account database's data or structure in one transaction
// (POST /v1/databases/actions). Destructive actions carry the Confirm* constant in Confirmation.
func (c *Client) DatabaseAction(ctx context.Context, req DatabaseActionRequest, opts ...CallOption) Response[DatabaseActionResult] {
	return send[DatabaseActionResult](ctx, c, call{method: http.MethodPost, path: "/databases/actions", body: req, auth: authKey, idem: true, opts: opts})
}

// DatabaseQueryRequest is the body of POST /v1/databases/query: either a query (SQL) or a page of a
// table's records (Table, no SQL).
type DatabaseQueryRequest struct {
	// SQL is one read-only statement (SELECT, WITH, VALUES, TABLE, SHOW or EXPLAIN).
	SQL string `json:"sql,omitempty" maxLength:"262144" doc:"One read-only statement (SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN); parameters are $1, $2, ... Either sql or table."`
	// Params bind to $1, $2, ... in order.
	Params []json.RawMessage `json:"params,omitempty" maxItems:"1000" doc:"Values of $1, $2, ...: strings, numbers (bound as written), booleans, null, or JSON for json parameters."`
	// MaxRows caps the rows of a query's answer (default 1000, at most 10000).
	MaxRows int `json:"maxRows,omitempty" doc:"Rows answered at most (default 1000, at most 10000); more rows make the answer truncated."`
	// Table names the table whose records are browsed (schema public).
	Table string `json:"table,omitempty" maxLength:"63" doc:"Records: the table to browse (schema public). Either sql or table."`
	// Where filters records by column equality (null matches NULL).
	Where map[string]json.RawMessage `json:"where,omitempty" doc:"Records: column = value filters, all of which must hold (null matches NULL)."`
	// OrderBy is a NOT NULL column to order records by (then by the primary key); the primary key by default.
	OrderBy string `json:"orderBy,omitempty" maxLength:"63" doc:"Records: a NOT NULL column to order by, ties broken by the primary key (default: the primary key)."`
	// Cursor is the nextCursor of the previous page.
	Cursor string `json:"cursor,omitempty" maxLength:"4096" doc:"Records: the nextCursor of the previous page."`
	// Limit caps a records page (default 100, at most 1000).
	Limit int `json:"limit,omitempty" doc:"Records: rows per page (default 100, at most 1000)."`
}

// DatabaseColumn is a result column.
type DatabaseColumn struct {
	Name string `json:"name"`
	// Type is PostgreSQL's name of the column's type (format_type), e.g. "integer", "numeric", "text[]".
	Type string `json:"type"`
}

// DatabaseQueryResult answers a query or a records page. Each row is a JSON array of values in column
// order: numbers for integer and floating types (NaN and infinities as strings), strings for numeric
// (exact), text and every other type's text form, RFC 3339 for timestamps, base64 for bytea, JSON for
// json and jsonb, null for NULL.
type DatabaseQueryResult struct {
	OK       bool              `json:"ok"`
	Columns  []DatabaseColumn  `json:"columns"`
	Rows     []json.RawMessage `json:"rows" doc:"Each row an array of values in column order."`
	RowCount int               `json:"rowCount"`
	// Truncated says the row cap or the byte cap cut the answer short (queries).
	Truncated bool `json:"truncated"`
	// NextCursor continues a records page ("" on the last page).
	NextCursor string `json:"nextCursor,omitempty"`
}

// Actions of POST /v1/databases/actions.
const (
	DatabaseActionExecute       = "execute"
	DatabaseActionCreateTable   = "create_table"
	DatabaseActionInsertRows    = "insert_rows"
	DatabaseActionTruncateTable = "truncate_table"
	DatabaseActionDropTable     = "drop_table"
	DatabaseActionResetDatabase = "reset_database"
)

// DatabaseActionRequest is the body of POST /v1/databases/actions; which fields apply depends on Action.
type DatabaseActionRequest struct {
	Action string `json:"action" enum:"execute,create_table,insert_rows,truncate_table,drop_table,reset_database" doc:"What to do."`
	// SQL (execute) is one or more statements separated by ";".
	SQL string `json:"sql,omitempty" maxLength:"262144" doc:"execute: statements separated by semicolons, run in one transaction."`
	// Statements (execute) run in order in one transaction.
	Statements []string `json:"statements,omitempty" maxItems:"1000" doc:"execute: statements run in order in one transaction."`
	// Table is the table of create_table, insert_rows, truncate_table and drop_table.
	Table string `json:"table,omitempty" maxLength:"63" doc:"create_table, insert_rows, truncate_table, drop_table: the table (schema public)."`
	// Columns (create_table) are the new table's columns.
	Columns []DatabaseColumnSpec `json:"columns,omitempty" maxItems:"1600" doc:"create_table: the columns."`
	// Rows (insert_rows) are the rows to insert, each column name to value.
	Rows []map[string]json.RawMessage `json:"rows,omitempty" maxItems:"10000" doc:"insert_rows: the rows, each column to value."`
	// Confirmation of a destructive action: ConfirmTruncateTable, ConfirmDropTable or ConfirmResetDatabase.
	Confirmation string `json:"confirmation,omitempty" doc:"truncate_table, drop_table, reset_database: exactly \"truncate table\", \"drop table\" or \"reset database\"."`
}

// DatabaseColumnSpec is a column of create_table.
type DatabaseColumnSpec struct {
	Name string `json:"name" maxLength:"63" doc:"Lower-case letters, digits and _, starting with a letter or _."`
	Type string `json:"type" maxLength:"64" doc:"A PostgreSQL type: smallint, integer, bigint, serial, bigserial, real, double precision, numeric[(p[,s])], text, varchar(n), char(n), boolean, date, time, timestamp, timestamptz, interval, uuid, json, jsonb, bytea, inet, cidr, macaddr, each optionally followed by []."`
	// PrimaryKey puts the column in the primary key (which may span several columns).
	PrimaryKey bool `json:"primaryKey,omitempty"`
	// Nullable lets the column hold NULL (default true; never for a primary key column).
	Nullable *bool `json:"nullable,omitempty"`
}

// DatabaseActionResult answers an action.
type DatabaseActionResult struct {
	OK     bool   `json:"ok"`
	Action string `json:"action"`
	// RowsAffected counts the rows the action changed (execute, insert_rows).
	RowsAffected *int64 `json:"rowsAffected,omitempty"`
	// Table is the table the action concerned.
	Table string `json:"table,omitempty"`
	// Dropped names what reset_database dropped.
	Dropped []string `json:"dropped,omitempty"`
}
