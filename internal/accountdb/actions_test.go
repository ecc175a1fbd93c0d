package accountdb_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/accountdb/accountdbtest"
)

func act(t *testing.T, d *accountdbtest.DB, req client.DatabaseActionRequest) (*client.DatabaseActionResult, error) {
	t.Helper()
	return accountdb.Act(context.Background(), d.OwnerDB, req, accountdb.Limits{Timeout: 10 * time.Second})
}

func count(t *testing.T, d *accountdbtest.DB, q string) string {
	t.Helper()
	res, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: q})
	require.NoError(t, err)
	return string(res.Rows[0])
}

func TestActExecuteIsOneTransaction(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	res, err := act(t, d, client.DatabaseActionRequest{Action: "execute",
		SQL: "CREATE TABLE t (id int PRIMARY KEY, note text); INSERT INTO t VALUES (1, 'a;b'), (2, $$x;y$$); UPDATE t SET note = 'z' WHERE id = 2"})
	require.NoError(t, err)
	require.Equal(t, int64(3), *res.RowsAffected)
	require.JSONEq(t, `[2]`, count(t, d, "SELECT count(*) FROM t"))

	// The third statement fails: the first two are rolled back with it.
	_, err = act(t, d, client.DatabaseActionRequest{Action: "execute",
		Statements: []string{"INSERT INTO t VALUES (3, 'c')", "CREATE TABLE u (id int)", "INSERT INTO t VALUES (1, 'dup')"}})
	requireInvalid(t, err, "statements[2]")
	require.JSONEq(t, `[2]`, count(t, d, "SELECT count(*) FROM t"))
	require.JSONEq(t, `[0]`, count(t, d, "SELECT count(*) FROM pg_class WHERE relname = 'u'"))

	for _, req := range []client.DatabaseActionRequest{
		{Action: "execute"},
		{Action: "execute", SQL: "SELECT 1", Statements: []string{"SELECT 1"}},
		{Action: "execute", SQL: "INSERT INTO t VALUES (5, 'e'); COMMIT; SET ROLE x"},
		{Action: "execute", SQL: "RESET ALL"},
		{Action: "execute", SQL: "COPY t TO PROGRAM 'id'"},
		{Action: "execute", SQL: "ALTER ROLE CURRENT_USER SET statement_timeout = 0"},
		{Action: "execute", SQL: "BEGIN READ WRITE"},
	} {
		_, err := act(t, d, req)
		requireInvalid(t, err, "sql")
	}
	_, err = act(t, d, client.DatabaseActionRequest{Action: "execute", Statements: []string{"SELECT 1; SELECT 2"}})
	requireInvalid(t, err, "statements[0]")
	_, err = act(t, d, client.DatabaseActionRequest{Action: "nope"})
	requireInvalid(t, err, "action")
}

func TestActTableLifecycle(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	no := false
	res, err := act(t, d, client.DatabaseActionRequest{Action: "create_table", Table: "people", Columns: []client.DatabaseColumnSpec{
		{Name: "id", Type: "bigserial", PrimaryKey: true}, {Name: "name", Type: "varchar(40)", Nullable: &no},
		{Name: "score", Type: "numeric(10, 2)"}, {Name: "tags", Type: "text[]"}, {Name: "doc", Type: "jsonb"},
	}})
	require.NoError(t, err)
	require.Equal(t, "people", res.Table)

	res, err = act(t, d, client.DatabaseActionRequest{Action: "insert_rows", Table: "people", Rows: []map[string]json.RawMessage{
		{"name": json.RawMessage(`"Ann'); DROP TABLE people; --"`), "score": json.RawMessage(`12.5`), "tags": json.RawMessage(`"{a,b}"`), "doc": json.RawMessage(`{"k": 1}`)},
		{"name": json.RawMessage(`"Bob"`)},
	}})
	require.NoError(t, err)
	require.Equal(t, int64(2), *res.RowsAffected)
	require.JSONEq(t, `["Ann'); DROP TABLE people; --", "12.50", "{a,b}", {"k": 1}]`, count(t, d, "SELECT name, score, tags, doc FROM people ORDER BY id LIMIT 1"))

	// A bad row rolls back the whole insert.
	_, err = act(t, d, client.DatabaseActionRequest{Action: "insert_rows", Table: "people", Rows: []map[string]json.RawMessage{
		{"name": json.RawMessage(`"Cy"`)}, {"name": json.RawMessage(`null`)},
	}})
	requireInvalid(t, err, "rows[1]")
	_, err = act(t, d, client.DatabaseActionRequest{Action: "insert_rows", Table: "people", Rows: []map[string]json.RawMessage{{"nope": json.RawMessage(`1`)}}})
	requireInvalid(t, err, "rows[0].nope")
	_, err = act(t, d, client.DatabaseActionRequest{Action: "insert_rows", Table: "ghosts", Rows: []map[string]json.RawMessage{{"a": json.RawMessage(`1`)}}})
	requireInvalid(t, err, "table")
	require.JSONEq(t, `[2]`, count(t, d, "SELECT count(*) FROM people"))

	for _, c := range []struct {
		req   client.DatabaseActionRequest
		param string
	}{
		{client.DatabaseActionRequest{Action: "create_table", Table: "Bad Name", Columns: []client.DatabaseColumnSpec{{Name: "a", Type: "int"}}}, "table"},
		{client.DatabaseActionRequest{Action: "create_table", Table: "x", Columns: []client.DatabaseColumnSpec{{Name: "a", Type: "int); DROP TABLE people; --"}}}, "columns[0].type"},
		{client.DatabaseActionRequest{Action: "create_table", Table: "x", Columns: []client.DatabaseColumnSpec{{Name: "a\"", Type: "int"}}}, "columns[0].name"},
		{client.DatabaseActionRequest{Action: "create_table", Table: "x"}, "columns"},
		{client.DatabaseActionRequest{Action: "create_table", Table: "people", Columns: []client.DatabaseColumnSpec{{Name: "a", Type: "int"}}}, "table"},
		{client.DatabaseActionRequest{Action: "truncate_table", Table: "people"}, "confirmation"},
		{client.DatabaseActionRequest{Action: "truncate_table", Table: "people", Confirmation: "truncate"}, "confirmation"},
		{client.DatabaseActionRequest{Action: "drop_table", Table: "people", Confirmation: client.ConfirmTruncateTable}, "confirmation"},
		{client.DatabaseActionRequest{Action: "reset_database"}, "confirmation"},
		{client.DatabaseActionRequest{Action: "drop_table", Table: "ghosts", Confirmation: client.ConfirmDropTable}, "table"},
	} {
		_, err := act(t, d, c.req)
		requireInvalid(t, err, c.param)
	}
	require.JSONEq(t, `[2]`, count(t, d, "SELECT count(*) FROM people"))

	_, err = act(t, d, client.DatabaseActionRequest{Action: "truncate_table", Table: "people", Confirmation: client.ConfirmTruncateTable})
	require.NoError(t, err)
	require.JSONEq(t, `[0]`, count(t, d, "SELECT count(*) FROM people"))
	_, err = act(t, d, client.DatabaseActionRequest{Action: "drop_table", Table: "people", Confirmation: client.ConfirmDropTable})
	require.NoError(t, err)
	require.JSONEq(t, `[0]`, count(t, d, "SELECT count(*) FROM pg_class WHERE relname = 'people'"))
}

func TestActResetDatabase(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	_, err := act(t, d, client.DatabaseActionRequest{Action: "execute", Statements: []string{
		"CREATE TYPE mood AS ENUM ('ok')", "CREATE DOMAIN pos AS int CHECK (VALUE > 0)",
		"CREATE TABLE a (id serial PRIMARY KEY, m mood, p pos)", "CREATE TABLE b (id int REFERENCES a)", "CREATE VIEW v AS SELECT * FROM a",
		"CREATE SEQUENCE s", "CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql AS 'SELECT x'", "CREATE MATERIALIZED VIEW mv AS SELECT 1 AS one",
		"CREATE TYPE r AS RANGE (subtype = int8)",
	}})
	require.NoError(t, err)
	res, err := act(t, d, client.DatabaseActionRequest{Action: "reset_database", Confirmation: client.ConfirmResetDatabase})
	require.NoError(t, err)
	require.Contains(t, res.Dropped, "table a")
	require.JSONEq(t, `[0, 0, 0]`, count(t, d, `SELECT
		(SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'),
		(SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public'),
		(SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public')`))
	// The reader still reads tables made after the reset.
	_, err = act(t, d, client.DatabaseActionRequest{Action: "execute", SQL: "CREATE TABLE c (id int PRIMARY KEY); INSERT INTO c VALUES (1)"})
	require.NoError(t, err)
	require.JSONEq(t, `[1]`, count(t, d, "SELECT count(*) FROM c"))
}

func TestActSessionChangesDoNotPersist(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{MaxConns: 1, StatementTimeout: "50s"})
	_, err := act(t, d, client.DatabaseActionRequest{Action: "execute", SQL: "SELECT set_config('statement_timeout', '0', false)"})
	require.NoError(t, err)
	var v string
	require.NoError(t, d.OwnerDB.QueryRowContext(context.Background(), "SELECT current_setting('statement_timeout')").Scan(&v))
	require.Equal(t, "50s", v)
}

func TestActDeadline(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	start := time.Now()
	_, err := accountdb.Act(context.Background(), d.OwnerDB, client.DatabaseActionRequest{Action: "execute", SQL: "SELECT pg_sleep(30)"},
		accountdb.Limits{Timeout: time.Second})
	require.Less(t, time.Since(start), 5*time.Second)
	require.Error(t, err)
	require.Contains(t, err.Error(), "upstream_timeout")
}
