package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// dbHelp is the help of "svc db".
const dbHelp = `Usage: svc db <provision|status|query|action|export|import|deprovision> [flags]

The account's own managed PostgreSQL database (service svc-database). Reading needs scope
databases:read, changing databases:write.

  db provision     provision the database (--wait until it is ready)
  db status        show its status, size and tables
  db query         run a read-only query, or browse a table's records
  db action        change data or structure (execute, create-table, insert-rows, ...)
  db export        copy the database into a signed ZIP archive, downloaded to a file
  db import        restore an archive into the database (an interrupted upload resumes)
  db deprovision   drop the database (--confirm)

Run "svc db <command> --help" for details.`

// dbCommands are the commands of the managed database, "svc db ...".
func dbCommands() []command {
	return []command{
		{name: "db", help: dbHelp},
		{name: "db provision", run: (*app).dbProvision, help: dbProvisionHelp, brief: "provision the account's database"},
		{name: "db status", run: (*app).dbStatus, help: dbStatusHelp, brief: "show the database's status and tables"},
		{name: "db query", args: "[SQL]", run: (*app).dbQuery, help: dbQueryHelp, brief: "run a read-only query or browse records"},
		{name: "db action", args: "ACTION", run: (*app).dbAction, help: dbActionHelp, brief: "change the database's data or structure"},
		{name: "db export", run: (*app).dbExport, help: dbExportHelp, brief: "export the database to a signed archive file"},
		{name: "db import", args: "FILE", run: (*app).dbImport, help: dbImportHelp, brief: "restore an archive into the database"},
		{name: "db deprovision", run: (*app).dbDeprovision, help: dbDeprovisionHelp, brief: "drop the database (--confirm)"},
	}
}

// dbProvisionHelp is the help of "svc db provision".
const dbProvisionHelp = `Usage: svc db provision [--wait] [--interval D] [--idempotency-key K]

Provisions the account's managed database (scope databases:write). Provisioning runs in the
background; a second call answers the existing database.

  --wait                poll until the database is ready, showing each status on stderr
  --interval D          poll interval with --wait (default 1s)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// dbProvision provisions the database and, with --wait, polls until it is ready.
func (a *app) dbProvision(args []string) int {
	const cmd = "db provision"
	var (
		idemKey  string
		wait     bool
		interval time.Duration
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.BoolVar(&wait, "wait", false, "wait until the database is ready")
	fs.DurationVar(&interval, "interval", time.Second, "poll interval with --wait")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if interval <= 0 {
		return a.usageError(cmd, "--interval must be positive")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.ProvisionDatabase(a.ctx, idemOpts(idemKey)...)
	if wait && resp.OK {
		resp = a.waitDatabase(c, resp, interval)
		if !resp.OK {
			return apiFailure(a, resp)
		}
		if st := resp.Body.Database.Status; st != client.DatabaseStatusReady {
			return a.localError("database_not_ready", "the database is "+st+", not ready")
		}
	}
	return answer(a, resp, func(r client.Response[client.DatabaseEnvelope]) { a.printDatabase(r.Body.Database) })
}

// waitDatabase polls the database every interval until it is no longer provisioning (or the context
// ends), printing each status on stderr, and answers the last response.
func (a *app) waitDatabase(c *client.Client, resp client.Response[client.DatabaseEnvelope], interval time.Duration) client.Response[client.DatabaseEnvelope] {
	status := resp.Body.Database.Status
	fmt.Fprintf(a.stderr, "database %s\n", status)
	start := time.Now()
	for resp.OK && resp.Body.Database.Status == client.DatabaseStatusProvisioning {
		t := time.NewTimer(interval)
		select {
		case <-a.ctx.Done():
			t.Stop()
			return resp
		case <-t.C:
		}
		resp = c.GetDatabase(a.ctx)
		if resp.OK && resp.Body.Database.Status != status {
			status = resp.Body.Database.Status
			fmt.Fprintf(a.stderr, "database %s (%s)\n", status, time.Since(start).Round(100*time.Millisecond))
		}
	}
	return resp
}

// dbStatusHelp is the help of "svc db status".
const dbStatusHelp = `Usage: svc db status

Shows the account's database (scope databases:read): status, size, and each table of schema public
with its columns, primary key and rows (an estimate, "~", unless counted exactly).

` + globalFlagsHelp

// dbStatus shows the database's status and structure.
func (a *app) dbStatus(args []string) int {
	const cmd = "db status"
	fs := a.commandFlags(cmd, nil)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.GetDatabase(a.ctx), func(r client.Response[client.DatabaseEnvelope]) { a.printDatabase(r.Body.Database) })
}

// printDatabase shows a database's status lines and then its tables.
func (a *app) printDatabase(d client.Database) {
	tw := a.table()
	ready := "-"
	if d.ReadyAt != nil {
		ready = d.ReadyAt.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(tw, "Status:\t%s\nName:\t%s\nSize:\t%s\nCreated:\t%s\nReady:\t%s\n", d.Status, orDash(d.Name),
		client.FormatBytes(d.SizeBytes), d.CreatedAt.UTC().Format(time.RFC3339), ready)
	_ = tw.Flush()
	if d.Status != client.DatabaseStatusReady {
		return
	}
	fmt.Fprintln(a.stdout)
	if len(d.Tables) == 0 {
		fmt.Fprintln(a.stdout, "No tables.")
		return
	}
	tw = a.table()
	fmt.Fprintln(tw, "TABLE\tROWS\tPRIMARY KEY\tCOLUMNS")
	for _, t := range d.Tables {
		rows := fmt.Sprint(t.RowEstimate)
		if !t.RowEstimateExact {
			rows = "~" + rows
		}
		cols := make([]string, len(t.Columns))
		for i, col := range t.Columns {
			cols[i] = col.Name + " " + col.Type
			if !col.Nullable {
				cols[i] += " not null"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, rows, orDash(strings.Join(t.PrimaryKey, ",")), oneLine(strings.Join(cols, ", "), 120))
	}
	_ = tw.Flush()
}

// dbQueryHelp is the help of "svc db query".
const dbQueryHelp = `Usage: svc db query "SQL" [--param V ...] [--max-rows N]
       svc db query --table T [--where COL=V ...] [--order-by COL] [--limit N] [--cursor C]

Runs one read-only statement (SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN) on the account's database
and prints its rows as a table (scope databases:read). With --table it browses a table's records
instead, a page at a time, and prints the command that fetches the next page.

A value (--param, --where) that is JSON (42, true, null, "text", {"a":1}) is sent as that JSON;
anything else is sent as a string.

  --param V        the value of $1, $2, ... in order (repeatable)
  --max-rows N     rows answered at most (default 1000, at most 10000)
  --table T        browse the records of table T
  --where COL=V    only records whose column COL equals V (repeatable)
  --order-by COL   a NOT NULL column to order by (default: the primary key)
  --limit N        records per page (default 100, at most 1000)
  --cursor C       the nextCursor of the previous page (repeat the same filters)

` + globalFlagsHelp

// valueList is a repeatable flag of values, each kept as given.
type valueList []string

// String implements flag.Value.
func (l *valueList) String() string { return strings.Join(*l, " ") }

// Set implements flag.Value.
func (l *valueList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// dbQuery runs a query, or a records page with --table.
func (a *app) dbQuery(args []string) int {
	const cmd = "db query"
	var (
		params, where          valueList
		maxRows, limit         int
		table, orderBy, cursor string
	)
	fs := a.commandFlags(cmd, nil)
	fs.Var(&params, "param", "value of $1, $2, ... (repeatable)")
	fs.IntVar(&maxRows, "max-rows", 0, "rows answered at most")
	fs.StringVar(&table, "table", "", "browse this table's records")
	fs.Var(&where, "where", "COL=V filter (repeatable)")
	fs.StringVar(&orderBy, "order-by", "", "column to order records by")
	fs.IntVar(&limit, "limit", 0, "records per page")
	fs.StringVar(&cursor, "cursor", "", "nextCursor of the previous page")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	req, msg := dbQueryRequest(pos, params, where, maxRows, table, orderBy, cursor, limit)
	if msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.QueryDatabase(a.ctx, req), func(r client.Response[client.DatabaseQueryResult]) {
		a.printQueryResult(r.Body)
		if r.Body.NextCursor != "" {
			a.moreHint("rows", cmd, recordFilters(table, where, orderBy, limit), &r.Body.NextCursor)
		}
	})
}

// dbQueryRequest builds the query's request from the command line, or answers a usage message.
func dbQueryRequest(pos []string, params, where valueList, maxRows int, table, orderBy, cursor string, limit int) (client.DatabaseQueryRequest, string) {
	var req client.DatabaseQueryRequest
	if table == "" {
		if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
			return req, "give one SQL statement, or --table T to browse records"
		}
		if len(where) > 0 || orderBy != "" || cursor != "" || limit != 0 {
			return req, "--where, --order-by, --limit and --cursor browse records; use them with --table"
		}
		req.SQL, req.MaxRows = pos[0], maxRows
		for _, p := range params {
			req.Params = append(req.Params, jsonValue(p))
		}
		return req, ""
	}
	if len(pos) > 0 || len(params) > 0 || maxRows != 0 {
		return req, "--table browses records; it takes no SQL, --param or --max-rows"
	}
	req.Table, req.OrderBy, req.Cursor, req.Limit = table, orderBy, cursor, limit
	for _, w := range where {
		col, v, ok := strings.Cut(w, "=")
		if !ok || col == "" {
			return req, fmt.Sprintf("--where %q: want COL=VALUE", w)
		}
		if req.Where == nil {
			req.Where = map[string]json.RawMessage{}
		}
		req.Where[col] = jsonValue(v)
	}
	return req, ""
}

// recordFilters are the flags that repeat a records query for its next page.
func recordFilters(table string, where valueList, orderBy string, limit int) []string {
	f := []string{"--table", shellQuote(table)}
	for _, w := range where {
		f = append(f, "--where", shellQuote(w))
	}
	if orderBy != "" {
		f = append(f, "--order-by", shellQuote(orderBy))
	}
	if limit != 0 {
		f = append(f, "--limit", fmt.Sprint(limit))
	}
	return f
}

// jsonValue is v as JSON: v itself when it is valid JSON, else v as a JSON string.
func jsonValue(v string) json.RawMessage {
	if t := strings.TrimSpace(v); t != "" && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	b, _ := json.Marshal(v)
	return b
}

// printQueryResult shows a query's columns and rows as a table, then the row count and whether the
// answer was truncated.
func (a *app) printQueryResult(r client.DatabaseQueryResult) {
	if len(r.Columns) > 0 {
		tw := a.table()
		names := make([]string, len(r.Columns))
		for i, c := range r.Columns {
			names[i] = oneLine(c.Name, 40)
		}
		fmt.Fprintln(tw, strings.Join(names, "\t"))
		for _, row := range r.Rows {
			fmt.Fprintln(tw, strings.Join(rowCells(row), "\t"))
		}
		_ = tw.Flush()
	}
	noun := "rows"
	if r.RowCount == 1 {
		noun = "row"
	}
	fmt.Fprintf(a.stdout, "(%d %s)\n", r.RowCount, noun)
	if r.Truncated {
		fmt.Fprintln(a.stdout, "Truncated: the answer holds only the first rows; raise --max-rows or narrow the query.")
	}
}

// rowCells shows each value of a row: strings as they are, NULL for null, other values as JSON.
func rowCells(row json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(row))
	dec.UseNumber()
	var vals []any
	if err := dec.Decode(&vals); err != nil {
		return []string{oneLine(string(row), 80)}
	}
	cells := make([]string, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
			cells[i] = "NULL"
		case string:
			cells[i] = oneLine(v, 60)
		default:
			cells[i] = oneLine(compactJSON(v), 60)
		}
	}
	return cells
}

// dbActionHelp is the help of "svc db action".
const dbActionHelp = `Usage: svc db action execute --sql "SQL" [--idempotency-key K]
       svc db action create-table|insert-rows (--json-body JSON | --body FILE) [--table T]
       svc db action truncate-table|drop-table --table T --confirm
       svc db action reset-database --confirm

Changes the account database's data or structure in one transaction (scope databases:write).
The body is the JSON of POST /v1/databases/actions without "action", e.g.
  svc db action create-table --json-body '{"table":"t","columns":[{"name":"id","type":"integer","primaryKey":true}]}'
  svc db action insert-rows --json-body '{"table":"t","rows":[{"id":1}]}'

  --sql SQL             execute: statements separated by semicolons
  --table T             the table (overrides the body's)
  --json-body JSON      the request's fields as a JSON object
  --body FILE           file holding that JSON object (- for stdin)
  --confirm             required by truncate-table, drop-table and reset-database, which destroy data
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// dbActionConfirmations are the confirmations of the destructive actions, by action.
var dbActionConfirmations = map[string]string{
	client.DatabaseActionTruncateTable: client.ConfirmTruncateTable,
	client.DatabaseActionDropTable:     client.ConfirmDropTable,
	client.DatabaseActionResetDatabase: client.ConfirmResetDatabase,
}

// dbActions are the actions the command knows, as the API names them.
var dbActions = []string{client.DatabaseActionExecute, client.DatabaseActionCreateTable, client.DatabaseActionInsertRows,
	client.DatabaseActionTruncateTable, client.DatabaseActionDropTable, client.DatabaseActionResetDatabase}

// dbAction runs one action.
func (a *app) dbAction(args []string) int {
	const cmd = "db action"
	var (
		idemKey, sql, table, body, bodyFile string
		confirm                             bool
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&sql, "sql", "", "execute: statements separated by semicolons")
	fs.StringVar(&table, "table", "", "the table")
	fs.StringVar(&body, "json-body", "", "the request as a JSON object")
	fs.StringVar(&bodyFile, "body", "", "file holding the request JSON (- for stdin)")
	fs.BoolVar(&confirm, "confirm", false, "confirm a destructive action")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return a.usageError(cmd, "give one action: %s", strings.ReplaceAll(strings.Join(dbActions, ", "), "_", "-"))
	}
	req, msg := a.dbActionRequest(pos[0], body, bodyFile)
	if msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	if sql != "" {
		req.SQL = sql
	}
	if table != "" {
		req.Table = table
	}
	if want, destructive := dbActionConfirmations[req.Action]; destructive {
		if !confirm {
			return a.usageError(cmd, "%s destroys data: add --confirm to do it", pos[0])
		}
		req.Confirmation = want
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.DatabaseAction(a.ctx, req, idemOpts(idemKey)...), func(r client.Response[client.DatabaseActionResult]) {
		a.printActionResult(r.Body, r.Replayed)
	})
}

// dbActionRequest is the request of action name ("create-table" or "create_table") with the body of
// --json-body or --body, or a usage message.
func (a *app) dbActionRequest(name, body, bodyFile string) (client.DatabaseActionRequest, string) {
	var req client.DatabaseActionRequest
	action := strings.ReplaceAll(name, "-", "_")
	known := false
	for _, k := range dbActions {
		known = known || k == action
	}
	if !known {
		return req, fmt.Sprintf("unknown action %q; want one of %s", name, strings.ReplaceAll(strings.Join(dbActions, ", "), "_", "-"))
	}
	raw := []byte(body)
	switch {
	case body != "" && bodyFile != "":
		return req, "use --json-body or --body, not both"
	case bodyFile != "":
		var err error
		if raw, err = a.readInputFile(bodyFile); err != nil {
			return req, fmt.Sprintf("--body: %v", err)
		}
	}
	if raw = bytes.TrimSpace(raw); len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return req, fmt.Sprintf("body: not a JSON object of the action's fields: %v", err)
		}
	}
	if req.Action != "" && req.Action != action {
		return req, fmt.Sprintf("the body's action %q is not %s", req.Action, name)
	}
	req.Action = action
	return req, ""
}

// printActionResult shows what an action did.
func (a *app) printActionResult(r client.DatabaseActionResult, replayed bool) {
	line := "Done: " + strings.ReplaceAll(r.Action, "_", "-")
	if r.Table != "" {
		line += " on table " + r.Table
	}
	if r.RowsAffected != nil {
		line += fmt.Sprintf(", %s affected", countRows(*r.RowsAffected))
	}
	if len(r.Dropped) > 0 {
		line += ", dropped " + strings.Join(r.Dropped, ", ")
	}
	if replayed {
		line += " [replayed answer]"
	}
	fmt.Fprintln(a.stdout, line+".")
}

// dbDeprovisionHelp is the help of "svc db deprovision".
const dbDeprovisionHelp = `Usage: svc db deprovision --confirm [--idempotency-key K]

Drops the account's managed database and its roles, with every table and row (scope
databases:write). It cannot be undone, so --confirm is required.

  --confirm             confirm dropping the database
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// dbDeprovision drops the database.
func (a *app) dbDeprovision(args []string) int {
	const cmd = "db deprovision"
	var (
		idemKey string
		confirm bool
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.BoolVar(&confirm, "confirm", false, "confirm dropping the database")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if !confirm {
		return a.usageError(cmd, "deprovision drops the database and all its data: add --confirm to do it")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.DeprovisionDatabase(a.ctx, client.ConfirmDeprovisionDatabase, idemOpts(idemKey)...)
	return answer(a, resp, func(r client.Response[client.DatabaseEnvelope]) {
		fmt.Fprintf(a.stdout, "Deprovisioned the database (status %s).\n", r.Body.Database.Status)
	})
}

// countRows is "1 row" or "N rows".
func countRows(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}
