package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// TestDBCommands follows the database's life through the CLI against the real API: provision --wait
// until ready, status, create-table and insert-rows (from --json-body and --body FILE), a query and its
// --json, records paged with --limit 1 and the printed cursor, destructive actions refused without
// --confirm and sent with it, and deprovision --confirm.
func TestDBCommands(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": t.TempDir(), "SVC_BASE_URL": env.URL,
		"SVC_API_KEY": env.FirstKey(t), "SVC_NOT_INTERACTIVE": "1"}
	svc := func(args ...string) result {
		t.Helper()
		return cli(t, vars, "", args...)
	}
	ok := func(r result) string {
		t.Helper()
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		return r.stdout
	}

	r := svc("db", "status")
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Contains(t, r.stderr, "not_found")

	r = svc("db", "provision", "--wait", "--interval", "20ms")
	out := ok(r)
	require.Contains(t, r.stderr, "database ready", "--wait shows the status on stderr")
	require.Regexp(t, `Status:\s+ready\n`, out)
	require.Contains(t, out, "No tables.")

	out = ok(svc("db", "action", "create-table", "--json-body",
		`{"table":"pets","columns":[{"name":"id","type":"integer","primaryKey":true},{"name":"name","type":"text","nullable":false},{"name":"age","type":"integer"}]}`))
	require.Contains(t, out, "Done: create-table on table pets.")
	bodyFile := filepath.Join(t.TempDir(), "rows.json")
	require.NoError(t, os.WriteFile(bodyFile, []byte(`{"rows":[{"id":1,"name":"Rex","age":3},{"id":2,"name":"Tom","age":null},{"id":3,"name":"Kit","age":1}]}`), 0o600))
	out = ok(svc("db", "action", "insert-rows", "--table", "pets", "--body", bodyFile))
	require.Contains(t, out, "Done: insert-rows on table pets, 3 rows affected.")
	out = ok(svc("db", "action", "execute", "--sql", "UPDATE pets SET age = age + 1 WHERE id = 1"))
	require.Contains(t, out, "1 row affected")

	out = ok(svc("db", "status"))
	require.Regexp(t, `(?m)^TABLE\s+ROWS\s+PRIMARY KEY\s+COLUMNS$`, out)
	require.Regexp(t, `pets\s+~?\d+\s+id\s+id integer not null, name text not null, age integer`, out)
	out = ok(svc("--json", "db", "status"))
	var db client.DatabaseEnvelope
	require.NoError(t, json.Unmarshal([]byte(out), &db), out)
	require.Equal(t, client.DatabaseStatusReady, db.Database.Status)
	require.Len(t, db.Database.Tables, 1)
	require.Equal(t, []string{"id"}, db.Database.Tables[0].PrimaryKey)

	out = ok(svc("db", "query", "SELECT id, name, age FROM pets WHERE id <= $1 ORDER BY id", "--param", "2"))
	require.Regexp(t, `(?m)^id\s+name\s+age$`, out)
	require.Regexp(t, `(?m)^1\s+Rex\s+4$`, out)
	require.Regexp(t, `(?m)^2\s+Tom\s+NULL$`, out)
	require.NotContains(t, out, "Kit")
	require.Contains(t, out, "(2 rows)")
	out = ok(svc("db", "query", "SELECT id FROM pets ORDER BY id", "--max-rows", "1"))
	require.Contains(t, out, "Truncated:")
	out = ok(svc("--json", "db", "query", "SELECT name FROM pets WHERE name = $1", "--param", "Kit"))
	var res client.DatabaseQueryResult
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Equal(t, 1, res.RowCount)
	require.JSONEq(t, `["Kit"]`, string(res.Rows[0]))

	// Records, a page of one at a time, following the printed command's cursor.
	cursorRe := regexp.MustCompile(`More rows: svc db query --table pets --limit 1 --cursor (\S+)\n`)
	var seen []string
	args := []string{"db", "query", "--table", "pets", "--limit", "1"}
	for range 4 {
		out = ok(svc(args...))
		m := regexp.MustCompile(`(?m)^(\d)\s+\w+\s+\S+$`).FindStringSubmatch(out)
		require.NotNil(t, m, out)
		seen = append(seen, m[1])
		c := cursorRe.FindStringSubmatch(out)
		if c == nil {
			break
		}
		cursor := strings.Trim(c[1], "'") // shellQuote's quotes
		args = []string{"db", "query", "--table", "pets", "--limit", "1", "--cursor", cursor}
	}
	require.Equal(t, []string{"1", "2", "3"}, seen)
	out = ok(svc("db", "query", "--table", "pets", "--where", "name=Tom", "--where", "age=null"))
	require.Regexp(t, `(?m)^2\s+Tom\s+NULL$`, out)
	require.Contains(t, out, "(1 row)")

	// Destructive actions need --confirm, which sends the exact confirmation.
	r = svc("db", "action", "truncate-table", "--table", "pets")
	require.Equal(t, exitUsage, r.code, r.stdout)
	require.Contains(t, r.stderr, "truncate-table destroys data: add --confirm")
	out = ok(svc("db", "query", "SELECT count(*) AS n FROM pets"))
	require.Regexp(t, `(?m)^3$`, out, "nothing was truncated")
	out = ok(svc("db", "action", "truncate-table", "--table", "pets", "--confirm"))
	require.Contains(t, out, "Done: truncate-table on table pets")
	out = ok(svc("db", "query", "SELECT count(*) AS n FROM pets"))
	require.Regexp(t, `(?m)^0$`, out)
	r = svc("db", "action", "drop-table", "--table", "pets")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "add --confirm")
	r = svc("db", "action", "rename-table", "--table", "pets")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, `unknown action "rename-table"`)
	r = svc("db", "action", "execute", "--sql", "CREATE TABLE x (")
	require.Equal(t, exitAPI, r.code, r.stdout)

	r = svc("db", "deprovision")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "add --confirm")
	out = ok(svc("db", "status"))
	require.Regexp(t, `Status:\s+ready\n`, out, "an unconfirmed deprovision sends nothing")
	out = ok(svc("db", "deprovision", "--confirm"))
	require.Contains(t, out, "Deprovisioned the database")
	r = svc("db", "query", "SELECT 1")
	require.Equal(t, exitAPI, r.code, r.stdout)
}

// TestDBQueryUsage: the query command's modes do not mix, and need no server to say so.
func TestDBQueryUsage(t *testing.T) {
	t.Parallel()
	vars := testEnv(t, nil)
	vars["SVC_API_KEY"] = "svc_sk_unused"
	for _, args := range [][]string{
		{"db", "query"},
		{"db", "query", "SELECT 1", "--table", "t"},
		{"db", "query", "SELECT 1", "--limit", "2"},
		{"db", "query", "--table", "t", "--where", "novalue"},
		{"db", "action"},
		{"db", "action", "create-table", "--json-body", "{}", "--body", "f"},
		{"db", "action", "create-table", "--json-body", `{"tabel":"t"}`},
	} {
		r := cli(t, vars, "", args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", args, r.stderr)
		require.Contains(t, r.stderr, "error: ", args)
	}
	for _, args := range [][]string{{"db", "--help"}, {"db", "query", "--help"}, {"help", "db", "action"}} {
		r := cli(t, vars, "", args...)
		require.Equal(t, exitOK, r.code, args)
		require.Contains(t, r.stdout, "Usage:", args)
	}
}

// TestDBJSONValue: --param and --where values are sent as JSON when they are JSON, else as strings.
func TestDBJSONValue(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"42": `42`, "Rex": `"Rex"`, `"7"`: `"7"`, "null": `null`, "": `""`, "a b": `"a b"`, `{"a":1}`: `{"a":1}`} {
		require.Equal(t, want, string(jsonValue(in)), in)
	}
}
