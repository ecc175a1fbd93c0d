package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/outbox"
)

// dbTenant is an account with a root key (every scope and service).
type dbTenant struct {
	id, key string
}

func newDatabaseAccount(t *testing.T, env *apptest.Env) dbTenant {
	t.Helper()
	id, key := databaseAccount(t, env, "db")
	return dbTenant{id: id, key: key}
}

// databaseCall sends one request of the database routes.
func databaseCall(t *testing.T, env *apptest.Env, key, method, idem string, body any) *apptest.Response {
	t.Helper()
	req := apptest.Req{Method: method, Path: "/v1/databases/account", Key: key, Body: body}
	if idem != "" {
		req.Headers = map[string]string{"Idempotency-Key": idem}
	}
	return env.Do(t, req)
}

// waitDatabase polls GET /v1/databases/account until the database has the status, and answers it.
func waitDatabase(t *testing.T, env *apptest.Env, key, want string) map[string]any {
	t.Helper()
	var db map[string]any
	require.Eventually(t, func() bool {
		resp := databaseCall(t, env, key, http.MethodGet, "", nil)
		require.Equal(t, http.StatusOK, resp.Status, "%s", resp.Raw)
		db = resp.Body["database"].(map[string]any)
		return db["status"] == want
	}, 60*time.Second, 50*time.Millisecond, "the database never reached %s (last %v)", want, db)
	return db
}

// TestDatabaseAccountLifecycle: provision through the workflow (202, then ready, database.ready
// recorded), a second provision answers the existing database (200), GET shows the structure, service
// access and tenancy are enforced, a wrong confirmation stores nothing, and deprovision drops it.
func TestDatabaseAccountLifecycle(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	acme, other := newDatabaseAccount(t, env), newDatabaseAccount(t, env)

	none := databaseCall(t, env, acme.key, http.MethodGet, "", nil)
	require.Equal(t, http.StatusNotFound, none.Status, "%s", none.Raw)

	first := databaseCall(t, env, acme.key, http.MethodPost, "p1", nil)
	require.Contains(t, []int{http.StatusAccepted, http.StatusOK}, first.Status, "%s", first.Raw)
	require.Equal(t, acme.id, first.Body["database"].(map[string]any)["accountId"])
	ready := waitDatabase(t, env, acme.key, client.DatabaseStatusReady)
	sdk := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(acme.key))
	second := sdk.ProvisionDatabase(context.Background())
	require.True(t, second.OK, "%+v", second.Error)
	require.Equal(t, http.StatusOK, second.StatusCode)
	require.Equal(t, ready["name"], second.Body.Database.Name, "the existing database is answered")
	require.Equal(t, client.DatabaseStatusReady, second.Body.Database.Status)
	events, err := outbox.List(context.Background(), env.DB, acme.id)
	require.NoError(t, err)
	var readyEvents int
	for _, e := range events {
		if e.Type == outbox.DatabaseReady {
			readyEvents++
		}
	}
	require.Equal(t, 1, readyEvents)

	owner, err := env.Databases.Open(context.Background(), acme.id, accountdb.Owner)
	require.NoError(t, err)
	_, err = owner.ExecContext(context.Background(), "CREATE TABLE notes (id bigint PRIMARY KEY, body text)")
	require.NoError(t, err)
	got := databaseCall(t, env, acme.key, http.MethodGet, "", nil)
	require.Equal(t, http.StatusOK, got.Status, "%s", got.Raw)
	db := got.Body["database"].(map[string]any)
	require.Positive(t, db["sizeBytes"])
	tables := db["tables"].([]any)
	require.Len(t, tables, 1)
	require.Equal(t, "notes", tables[0].(map[string]any)["name"])
	require.Equal(t, []any{"id"}, tables[0].(map[string]any)["primaryKey"])
	viaSDK := sdk.GetDatabase(context.Background())
	require.True(t, viaSDK.OK, "%+v", viaSDK.Error)
	require.Equal(t, "notes", viaSDK.Body.Database.Tables[0].Name)
	require.Equal(t, []client.DatabaseTableColumn{{Name: "id", Type: "bigint"}, {Name: "body", Type: "text", Nullable: true}},
		viaSDK.Body.Database.Tables[0].Columns)

	// Queries reach the provisioned database through the cluster (the API's Connector), as the reader.
	q := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/query", Key: acme.key,
		Body: map[string]any{"sql": "SELECT count(*) AS n FROM notes"}})
	require.Equal(t, http.StatusOK, q.Status, "%s", q.Raw)
	require.Equal(t, []any{[]any{float64(0)}}, q.Body["rows"])

	// Another account sees only its own (none); a key without svc-database is refused.
	foreign := databaseCall(t, env, other.key, http.MethodGet, "", nil)
	require.Equal(t, http.StatusNotFound, foreign.Status, "%s", foreign.Raw)
	noDB := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: acme.key,
		Body: map[string]any{"services": []string{client.ServiceManagedWorkflows}}, Headers: map[string]string{"Idempotency-Key": "k"}})
	require.Equal(t, http.StatusCreated, noDB.Status, "%s", noDB.Raw)
	denied := databaseCall(t, env, noDB.Body["apiKey"].(map[string]any)["secret"].(string), http.MethodGet, "", nil)
	require.Equal(t, http.StatusForbidden, denied.Status, "%s", denied.Raw)
	require.Equal(t, client.CodeServiceAccessDenied, denied.ErrorCode())

	checkDeprovisionRoute(t, env, acme, ready["name"].(string))
}

// checkDeprovisionRoute: a wrong confirmation is 400 naming it and drops nothing; the right one drops
// the database through the workflow.
func checkDeprovisionRoute(t *testing.T, env *apptest.Env, acme dbTenant, name string) {
	t.Helper()
	bad := databaseCall(t, env, acme.key, http.MethodDelete, "d1", map[string]any{"confirmation": "yes"})
	require.Equal(t, http.StatusBadRequest, bad.Status, "%s", bad.Raw)
	require.Equal(t, "confirmation", bad.Body["error"].(map[string]any)["param"])
	missing := databaseCall(t, env, acme.key, http.MethodDelete, "d0", nil)
	require.Equal(t, http.StatusBadRequest, missing.Status, "no body at all: %s", missing.Raw)
	sdk := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(acme.key))
	badSDK := sdk.DeprovisionDatabase(context.Background(), "please")
	require.False(t, badSDK.OK)
	require.Equal(t, "confirmation", badSDK.Error.Param)
	waitDatabase(t, env, acme.key, client.DatabaseStatusReady)

	del := databaseCall(t, env, acme.key, http.MethodDelete, "d2", map[string]any{"confirmation": client.ConfirmDeprovisionDatabase})
	require.Equal(t, http.StatusAccepted, del.Status, "%s", del.Raw)
	gone := waitDatabase(t, env, acme.key, client.DatabaseStatusDeleted)
	require.Nil(t, gone["name"])
	var left int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM pg_database WHERE datname = ?", name).Scan(context.Background(), &left))
	require.Zero(t, left, "the database is dropped")
	_, err := env.Databases.Open(context.Background(), acme.id, accountdb.Reader)
	require.Error(t, err)
	again := sdk.DeprovisionDatabase(context.Background(), client.ConfirmDeprovisionDatabase)
	require.True(t, again.OK, "%+v", again.Error)
	require.Equal(t, http.StatusOK, again.StatusCode, "deprovisioning a deleted database answers it")
	require.Equal(t, client.DatabaseStatusDeleted, again.Body.Database.Status)
}

// TestDatabaseAccountNotConfigured: a server without a database cluster answers the routes 503.
func TestDatabaseAccountNotConfigured(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{NoDatabases: true})
	key := env.FirstKey(t)
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		r := databaseCall(t, env, key, method, "n1", nil)
		require.Equal(t, http.StatusServiceUnavailable, r.Status, "%s %s", method, r.Raw)
	}
}
