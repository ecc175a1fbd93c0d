package accountdb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/accountdb/accountdbtest"
	"github.com/svcplatform/svc/internal/svcerr"
)

func raws(vals ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(vals))
	for i, v := range vals {
		out[i] = json.RawMessage(v)
	}
	return out
}

func mustExec(t *testing.T, db *bun.DB, q string) {
	t.Helper()
	_, err := db.ExecContext(context.Background(), q)
	require.NoError(t, err, q)
}

func query(t *testing.T, db *bun.DB, req client.DatabaseQueryRequest) (*client.DatabaseQueryResult, error) {
	t.Helper()
	return accountdb.Query(context.Background(), db, req, accountdb.Limits{Timeout: 10 * time.Second})
}

func requireInvalid(t *testing.T, err error, param string) {
	t.Helper()
	require.Error(t, err)
	se, ok := svcerr.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, svcerr.InvalidRequest, se.Code, "%v", err)
	require.Equal(t, param, se.Param, "%v", err)
}

func TestQueryRefusesWhatIsNotOneRead(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	mustExec(t, d.OwnerDB, "CREATE TABLE t (id int PRIMARY KEY)")
	for _, q := range []string{
		"SET ROLE " + d.Owner, "RESET ALL", "BEGIN READ WRITE", "SELECT 1; DROP TABLE t", "COPY t TO PROGRAM 'x'",
		"SET statement_timeout = 0", "set transaction read write", "COMMIT", "ROLLBACK", "DO $$ BEGIN END $$", "CALL p()",
		"LISTEN x", "INSERT INTO t VALUES (1)", "DELETE FROM t", "", "  -- only a comment", "SELECT 'unterminated",
		"SELECT 1 /* open comment", "SELECT $a$ open", "/* SELECT */ DROP TABLE t", "-- SELECT\nDROP TABLE t",
		"SELECT 1; /* x */ SET ROLE x", "SELECT E'it\\'s'; SET ROLE x", "SELECT $$;$$; RESET ALL", "PREPARE p AS SELECT 1",
		"DECLARE c CURSOR WITH HOLD FOR SELECT 1", "DISCARD ALL", "(SELECT 1)",
	} {
		_, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: q})
		requireInvalid(t, err, "sql")
	}
	// Semicolons and keywords inside literals, identifiers and comments are harmless.
	for _, q := range []string{
		"SELECT ';' AS a", "SELECT E'\\';' AS a", "SELECT $x$ ; SET ROLE y $x$ AS a", "SELECT 1 AS \"a;b\"",
		"SELECT /* ; /* nested ; */ ; */ 1 AS a", "SELECT 1 AS a -- ; SET ROLE x", "SELECT 1 AS a;", "  select 1 as a ;  ",
		"WITH x AS (SELECT 1 AS a) SELECT a FROM x", "VALUES (1)", "TABLE t", "SHOW statement_timeout",
		"EXPLAIN SELECT 1", "SELECT U&'d\\0061t;' AS a",
	} {
		_, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: q})
		require.NoError(t, err, q)
	}
}

func TestQueryIsReadOnlyEvenWhereTheLexerLetsItThrough(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	mustExec(t, d.OwnerDB, "CREATE TABLE t (id int PRIMARY KEY)")
	for _, q := range []string{
		"WITH x AS (INSERT INTO t VALUES (1) RETURNING id) SELECT id FROM x",
		"WITH x AS (DELETE FROM t RETURNING id) SELECT id FROM x",
		"SELECT * FROM t FOR UPDATE",
		"SELECT 1 AS a INTO t2",
		"SELECT set_config('role', '" + d.Owner + "', false)",
		"SELECT set_config('transaction_read_only', 'off', false)",
	} {
		_, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: q})
		requireInvalid(t, err, "sql")
		se, _ := svcerr.As(err)
		require.NotEmpty(t, se.Details["sqlstate"], q)
	}
	res, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT count(*) AS n FROM t"})
	require.NoError(t, err)
	require.JSONEq(t, `[0]`, string(res.Rows[0]), "nothing was written")
}

func TestQuerySessionChangesDoNotPersist(t *testing.T) {
	t.Parallel()
	// One connection, so the second query runs on the session the first one changed.
	d := accountdbtest.New(t, accountdbtest.Options{MaxConns: 1, StatementTimeout: "45s"})
	_, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT set_config('statement_timeout', '0', false), pg_advisory_lock(42)"})
	require.NoError(t, err)
	res, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{
		SQL: "SELECT current_setting('statement_timeout'), (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()), (SELECT string_agg(name, ',' ORDER BY name) FROM pg_prepared_statements)"})
	require.NoError(t, err)
	require.JSONEq(t, `["45s", 0, "svc_begin_read_only,svc_rollback,svc_unlock_all"]`, string(res.Rows[0]),
		"the setting and the lock are gone, and no statement of the caller's is kept (queries use the unnamed one; the pipeline's own stay prepared)")
}

func TestQueryKeepsTheConnectionAfterErrorsAndRowCaps(t *testing.T) {
	t.Parallel()
	// One connection: each query below runs on the same backend unless one discarded it.
	d := accountdbtest.New(t, accountdbtest.Options{MaxConns: 1})
	mustExec(t, d.OwnerDB, `CREATE FUNCTION noisy() RETURNS int LANGUAGE plpgsql AS $$
		BEGIN RAISE NOTICE 'a notice'; PERFORM set_config('application_name', 'changed', false); RETURN 1; END $$`)
	pid := func() string {
		res, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT pg_backend_pid(), current_setting('transaction_read_only'), current_setting('application_name')"})
		require.NoError(t, err)
		var row []any
		require.NoError(t, json.Unmarshal(res.Rows[0], &row))
		require.Equal(t, "on", row[1], "queries run READ ONLY")
		require.NotEqual(t, "changed", row[2])
		return fmt.Sprint(row[0])
	}
	first := pid()
	// A row cap truncates at the limit without cancelling.
	res, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT g FROM generate_series(1, 100000) g", MaxRows: 3})
	require.NoError(t, err)
	require.True(t, res.Truncated)
	require.Equal(t, 3, res.RowCount)
	require.Equal(t, first, pid())
	// PostgreSQL's errors at Parse, at Bind (a parameter's text) and at Execute are the caller's 400.
	for q, params := range map[string][]json.RawMessage{
		"SELECT nope":         nil,
		"SELECT $1::int AS n": raws(`"x"`),
		"SELECT 1 / (g - 2) FROM generate_series(1, 3) g": nil,
	} {
		_, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: q, Params: params})
		requireInvalid(t, err, "sql")
		se, _ := svcerr.As(err)
		require.NotEmpty(t, se.Details["sqlstate"], q)
		require.Equal(t, first, pid(), q)
	}
	// Notices and parameter statuses between the answers are skipped; the function's setting is undone.
	res, err = query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT noisy() AS n"})
	require.NoError(t, err)
	require.JSONEq(t, `[1]`, string(res.Rows[0]))
	require.Equal(t, first, pid())
	// A statement without rows (an empty result) has its columns.
	res, err = query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT 1 AS a WHERE false"})
	require.NoError(t, err)
	require.Equal(t, []client.DatabaseColumn{{Name: "a", Type: "integer"}}, res.Columns)
	require.Empty(t, res.Rows)
	require.False(t, res.Truncated)
}

func TestQueryRefusesANulByte(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	_, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT 1 AS a\x00"})
	requireInvalid(t, err, "sql")
	require.Contains(t, err.Error(), "NUL")
	// In a parameter, PostgreSQL refuses it.
	_, err = query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT $1::text", Params: raws(`"a\u0000b"`)})
	requireInvalid(t, err, "sql")
}

func TestQueryDeadlineCancelsTheBackend(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	admin := d.Superuser(t)
	active := func() int {
		var n int
		require.NoError(t, admin.QueryRowContext(context.Background(),
			"SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%deadline-test%' AND pid <> pg_backend_pid()").Scan(&n))
		return n
	}
	type result struct {
		err  error
		took time.Duration
	}
	done := make(chan result, 1)
	go func() {
		start := time.Now()
		_, err := accountdb.Query(context.Background(), d.ReaderDB,
			client.DatabaseQueryRequest{SQL: "SELECT pg_sleep(30) /* deadline-test */"}, accountdb.Limits{Timeout: time.Second})
		done <- result{err, time.Since(start)}
	}()
	// The statement runs (so the probe below can see it) ...
	require.Eventually(t, func() bool { return active() == 1 }, 3*time.Second, 10*time.Millisecond)
	// ... until the deadline: the call returns promptly with a timeout ...
	r := <-done
	require.Less(t, r.took, 3*time.Second, "the query returns promptly")
	se, ok := svcerr.As(r.err)
	require.True(t, ok, "%v", r.err)
	require.Equal(t, svcerr.UpstreamTimeout, se.Code, "%v", r.err)
	require.Contains(t, se.Message, "deadline")
	// ... and the backend no longer runs it.
	require.Eventually(t, func() bool { return active() == 0 }, 3*time.Second, 10*time.Millisecond)
	// The pool still works.
	res, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT 1"})
	require.NoError(t, err)
	require.Equal(t, 1, res.RowCount)
}

func TestQueryReadTimeoutNeverReusesAConnectionMidAnswer(t *testing.T) {
	t.Parallel()
	// The pool's socket read timeout (shorter than the request's deadline) breaks the read mid-statement:
	// the connection is dropped, never written to again, so the next query on the one-connection pool
	// gets its own answer.
	d := accountdbtest.New(t, accountdbtest.Options{MaxConns: 1, ReadTimeout: 500 * time.Millisecond})
	_, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT pg_sleep(0.8)"})
	se, ok := svcerr.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, svcerr.UpstreamTimeout, se.Code)
	for i := 1; i <= 3; i++ {
		res, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT $1::int AS n", Params: raws(fmt.Sprint(i))})
		require.NoError(t, err)
		require.JSONEq(t, fmt.Sprintf("[%d]", i), string(res.Rows[0]))
	}
}

func TestQueryCapsRowsAndBytes(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	res, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT g FROM generate_series(1, 100000) g", MaxRows: 10})
	require.NoError(t, err)
	require.True(t, res.Truncated)
	require.Equal(t, 10, res.RowCount)
	require.Len(t, res.Rows, 10)
	require.JSONEq(t, `[10]`, string(res.Rows[9]))

	res, err = query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT g FROM generate_series(1, 5) g", MaxRows: 5})
	require.NoError(t, err)
	require.False(t, res.Truncated)
	require.Equal(t, 5, res.RowCount)

	// Rows of 1 KiB each under a 10 KiB cap: at most 9 fit with their JSON quotes and brackets.
	res, err = accountdb.Query(context.Background(), d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT repeat('x', 1024) FROM generate_series(1, 1000000)"},
		accountdb.Limits{Timeout: 10 * time.Second, MaxBytes: 10 << 10})
	require.NoError(t, err)
	require.True(t, res.Truncated)
	require.Equal(t, 9, res.RowCount)

	for _, n := range []int{-1, accountdb.MaxRows + 1} {
		_, err = query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT 1", MaxRows: n})
		requireInvalid(t, err, "maxRows")
	}
}

func TestQueryParamsAndValues(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	mustExec(t, d.OwnerDB, `CREATE TABLE t (id bigint PRIMARY KEY, name text, price numeric, at timestamptz, raw bytea, doc jsonb, ok boolean, f float8)`)
	mustExec(t, d.OwnerDB, `INSERT INTO t VALUES (1, 'a;b', 12345678901234567890.123456789, '2024-05-01 12:00:00+02', '\x0102', '{"k": [1, 2]}', true, 'NaN'), (2, 'o''neil', 1, NULL, NULL, NULL, false, 1.5)`)
	res, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{
		SQL: "SELECT id, name, price, at, raw, doc, ok, f FROM t WHERE id >= $1 AND name <> $2 ORDER BY id", Params: raws(`1`, `"zzz"`)})
	require.NoError(t, err)
	require.Equal(t, 2, res.RowCount)
	types := []string{}
	for _, c := range res.Columns {
		types = append(types, c.Type)
	}
	require.Equal(t, []string{"bigint", "text", "numeric", "timestamp with time zone", "bytea", "jsonb", "boolean", "double precision"}, types)
	require.JSONEq(t, `[1, "a;b", "12345678901234567890.123456789", "2024-05-01T10:00:00Z", "AQI=", {"k": [1, 2]}, true, "NaN"]`, string(res.Rows[0]))
	require.JSONEq(t, `[2, "o'neil", "1", null, null, null, false, 1.5]`, string(res.Rows[1]))

	// A parameter binds as text: an injection attempt is just a value.
	res, err = query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT count(*) FROM t WHERE name = $1", Params: raws(`"x' OR '1'='1"`)})
	require.NoError(t, err)
	require.JSONEq(t, `[0]`, string(res.Rows[0]))
	// An exact numeric parameter keeps its digits.
	res, err = query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT $1::numeric + 0", Params: raws(`12345678901234567890.123456789`)})
	require.NoError(t, err)
	require.JSONEq(t, `["12345678901234567890.123456789"]`, string(res.Rows[0]))

	_, err = query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT $1::int, $2::int", Params: raws(`1`)})
	requireInvalid(t, err, "params")
	_, err = query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT * FROM nope"})
	requireInvalid(t, err, "sql")

	// An enum's type is named from pg_type.
	mustExec(t, d.OwnerDB, "CREATE TYPE mood AS ENUM ('ok', 'sad')")
	res, err = query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT 'ok'::mood AS m"})
	require.NoError(t, err)
	require.Equal(t, "mood", res.Columns[0].Type)
	require.JSONEq(t, `["ok"]`, string(res.Rows[0]))
}

func TestQueryCannotReachAnotherAccountsDatabase(t *testing.T) {
	t.Parallel()
	a := accountdbtest.New(t, accountdbtest.Options{MaxConns: 1})
	b := accountdbtest.New(t, accountdbtest.Options{MaxConns: 1})
	// Neither of a's roles may connect to b's database.
	for _, role := range []string{a.Owner, a.Reader} {
		err := accountdbtest.As(t, b.Name, role).PingContext(context.Background())
		require.Error(t, err, role)
		require.Contains(t, err.Error(), "permission denied", role)
	}
	mustExec(t, b.OwnerDB, "CREATE TABLE secret (id int PRIMARY KEY)")
	_, err := query(t, a.ReaderDB, client.DatabaseQueryRequest{SQL: fmt.Sprintf("SELECT * FROM %s.public.secret", b.Name)})
	requireInvalid(t, err, "sql")
	require.True(t, strings.Contains(err.Error(), "cross-database") || strings.Contains(err.Error(), "not implemented"), "%v", err)
}

// TestQueriesAndRecordsShareAConnection: on one connection, records (whose session ends by deallocating
// every prepared statement) and queries (whose own statements stay prepared) take turns, and each
// answers; the connection is kept throughout.
func TestQueriesAndRecordsShareAConnection(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{MaxConns: 1})
	mustExec(t, d.OwnerDB, "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2); GRANT SELECT ON t TO PUBLIC")
	limits := accountdb.Limits{Timeout: 10 * time.Second}
	var pids []string
	for range 2 {
		res, err := query(t, d.ReaderDB, client.DatabaseQueryRequest{SQL: "SELECT pg_backend_pid()"})
		require.NoError(t, err)
		pids = append(pids, string(res.Rows[0]))
		rec, err := accountdb.Records(context.Background(), d.ReaderDB, client.DatabaseQueryRequest{Table: "t"}, limits)
		require.NoError(t, err)
		require.Equal(t, 2, rec.RowCount)
	}
	require.Equal(t, pids[0], pids[1], "the connection was kept")
}
