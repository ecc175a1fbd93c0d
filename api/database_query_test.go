package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/accountdb/accountdbtest"
)

// databaseAccount makes an account with a key of every scope and service, and answers its id and key.
func databaseAccount(t *testing.T, env *apptest.Env, name string) (string, string) {
	t.Helper()
	id, token := env.NewAccount(t, name)
	resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first-key"}})
	require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
	return id, resp.Body["apiKey"].(map[string]any)["secret"].(string)
}

func TestDatabaseQueryAndActions(t *testing.T) {
	t.Parallel()
	conn := &accountdbtest.Connector{}
	env := apptest.NewWith(t, apptest.Options{DatabaseConn: conn})
	accountID, key := databaseAccount(t, env, "db")
	otherID, otherKey := databaseAccount(t, env, "other")
	conn.Add(accountID, accountdbtest.New(t, accountdbtest.Options{}))
	conn.Add(otherID, accountdbtest.New(t, accountdbtest.Options{MaxConns: 1}))

	action := func(k, idem string, body map[string]any) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/actions", Key: k, Body: body,
			Headers: map[string]string{"Idempotency-Key": idem}})
	}
	query := func(k string, body map[string]any) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/query", Key: k, Body: body})
	}

	made := action(key, "a1", map[string]any{"action": "execute", "sql": "CREATE TABLE t (\n  id int PRIMARY KEY,\n  note text\n);\nINSERT INTO t SELECT g, 'n' || g FROM generate_series(1, 5) g"})
	require.Equal(t, http.StatusOK, made.Status, "%s", made.Raw)
	require.Equal(t, float64(5), made.Body["rowsAffected"])
	replay := action(key, "a1", map[string]any{"action": "execute", "sql": "CREATE TABLE t (\n  id int PRIMARY KEY,\n  note text\n);\nINSERT INTO t SELECT g, 'n' || g FROM generate_series(1, 5) g"})
	require.Equal(t, http.StatusOK, replay.Status, "%s", replay.Raw)
	require.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))

	res := query(key, map[string]any{"sql": "SELECT id, note\nFROM t\nWHERE id > $1\nORDER BY id", "params": []any{3}})
	require.Equal(t, http.StatusOK, res.Status, "%s", res.Raw)
	require.JSONEq(t, `{"ok": true, "columns": [{"name": "id", "type": "integer"}, {"name": "note", "type": "text"}],
		"rows": [[4, "n4"], [5, "n5"]], "rowCount": 2, "truncated": false}`, string(res.Raw))

	page := query(key, map[string]any{"table": "t", "limit": 3})
	require.Equal(t, http.StatusOK, page.Status, "%s", page.Raw)
	require.Len(t, page.Body["rows"], 3)
	next := query(key, map[string]any{"table": "t", "limit": 3, "cursor": page.Body["nextCursor"]})
	require.Equal(t, http.StatusOK, next.Status, "%s", next.Raw)
	require.Equal(t, []any{[]any{float64(4), "n4"}, []any{float64(5), "n5"}}, next.Body["rows"])
	require.Nil(t, next.Body["nextCursor"])

	// Bad input: 400 naming the field.
	for _, c := range []struct {
		body  map[string]any
		param string
	}{
		{map[string]any{"sql": "SET ROLE x"}, "sql"},
		{map[string]any{"sql": "SELECT 1; DROP TABLE t"}, "sql"},
		{map[string]any{"sql": "WITH x AS (INSERT INTO t VALUES (9) RETURNING id) SELECT * FROM x"}, "sql"},
		{map[string]any{}, "sql"},
		{map[string]any{"sql": "SELECT 1", "table": "t"}, "table"},
		{map[string]any{"table": "nope"}, "table"},
		{map[string]any{"table": "t", "where": map[string]any{"nope": 1}}, "where.nope"},
	} {
		r := query(key, c.body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", c.body, r.Raw)
		require.Equal(t, c.param, errorOf(r)["param"], "%v: %s", c.body, r.Raw)
	}
	drop := action(key, "a2", map[string]any{"action": "drop_table", "table": "t"})
	require.Equal(t, http.StatusBadRequest, drop.Status, "%s", drop.Raw)
	require.Equal(t, "confirmation", errorOf(drop)["param"])
	drop = action(key, "a3", map[string]any{"action": "drop_table", "table": "t", "confirmation": client.ConfirmDropTable})
	require.Equal(t, http.StatusOK, drop.Status, "%s", drop.Raw)

	// Another account reaches only its own database.
	other := query(otherKey, map[string]any{"sql": "SELECT count(*) FROM pg_class WHERE relname = 't' AND relnamespace = 'public'::regnamespace"})
	require.Equal(t, http.StatusOK, other.Status, "%s", other.Raw)
	require.Equal(t, []any{[]any{float64(0)}}, other.Body["rows"])

	// The SDK speaks the same routes.
	sdk := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	made2 := sdk.DatabaseAction(context.Background(), client.DatabaseActionRequest{Action: client.DatabaseActionCreateTable, Table: "s",
		Columns: []client.DatabaseColumnSpec{{Name: "id", Type: "integer", PrimaryKey: true}}})
	require.True(t, made2.OK, "%v", made2.Err())
	got := sdk.QueryDatabase(context.Background(), client.DatabaseQueryRequest{SQL: "SELECT count(*) FROM s"})
	require.True(t, got.OK, "%v", got.Err())
	require.Equal(t, `[0]`, string(got.Body.Rows[0]))
	refused := sdk.DatabaseAction(context.Background(), client.DatabaseActionRequest{Action: client.DatabaseActionResetDatabase})
	require.False(t, refused.OK)
	require.Equal(t, "confirmation", refused.Error.Param)

	// An account without a database is 404.
	_, lonelyKey := databaseAccount(t, env, "lonely")
	r := query(lonelyKey, map[string]any{"sql": "SELECT 1"})
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Raw)
}

func TestDatabaseQueryAccess(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{DatabaseConn: &accountdbtest.Connector{}})
	_, root := databaseAccount(t, env, "db")
	mk := func(idem string, body map[string]any) string {
		r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: root, Body: body, Headers: map[string]string{"Idempotency-Key": idem}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
		return r.Body["apiKey"].(map[string]any)["secret"].(string)
	}
	noService := mk("k1", map[string]any{"services": []string{"managed-workflows"}})
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/query", Key: noService, Body: map[string]any{"sql": "SELECT 1"}})
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Raw)
	require.Equal(t, client.CodeServiceAccessDenied, r.ErrorCode())

	readOnly := mk("k2", map[string]any{"scopes": []string{client.ScopeDatabasesRead}})
	r = env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/actions", Key: readOnly, Body: map[string]any{"action": "execute", "sql": "SELECT 1"},
		Headers: map[string]string{"Idempotency-Key": "x"}})
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Raw)
	require.Equal(t, client.CodeScopeMissing, r.ErrorCode())
}

func TestDatabaseQueryNotConfigured(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{NoDatabases: true})
	key := env.FirstKey(t)
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/query", Key: key, Body: map[string]any{"sql": "SELECT 1"}})
	require.Equal(t, http.StatusServiceUnavailable, r.Status, "%s", r.Raw)
	require.Contains(t, string(r.Raw), "managed databases are not configured")
	r = env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/actions", Key: key, Body: map[string]any{"action": "execute", "sql": "SELECT 1"},
		Headers: map[string]string{"Idempotency-Key": "x"}})
	require.Equal(t, http.StatusServiceUnavailable, r.Status, "%s", r.Raw)
}
