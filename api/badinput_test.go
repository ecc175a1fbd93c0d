package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

func errorOf(r *apptest.Response) map[string]any {
	e, _ := r.Body["error"].(map[string]any)
	return e
}

// tamperLast changes a secret's last character to another one, so its checksum no longer matches.
func tamperLast(secret string) string {
	last := byte('x')
	if secret[len(secret)-1] == last {
		last = 'y'
	}
	return secret[:len(secret)-1] + string(last)
}

func countRows(t *testing.T, env *apptest.Env, table string) int {
	t.Helper()
	n, err := env.DB.NewSelect().Table(table).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

// TestBadInput checks that each kind of bad input gets the contract's error naming what is wrong, and
// that nothing is written.
func TestBadInput(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	keysBefore := countRows(t, env, "api_keys")

	post := func(path, key, idem string, body any) *apptest.Response {
		h := map[string]string{}
		if idem != "" {
			h["Idempotency-Key"] = idem
		}
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: path, Key: key, Body: body, Headers: h})
	}
	cases := []struct {
		name   string
		resp   func() *apptest.Response
		status int
		code   string
		param  string
	}{
		{"malformed JSON", func() *apptest.Response { return post("/v1/api-keys", root, "a1", `{"name":`) }, 400, "invalid_request", ""},
		{"unknown field", func() *apptest.Response { return post("/v1/api-keys", root, "a2", map[string]any{"nmae": "x"}) }, 400, "invalid_request", "nmae"},
		{"wrong type", func() *apptest.Response {
			return post("/v1/api-keys", root, "a3", map[string]any{"scopes": "runs:read"})
		}, 400, "invalid_request", "scopes"},
		{"unknown scope", func() *apptest.Response {
			return post("/v1/api-keys", root, "a4", map[string]any{"scopes": []string{"runs:read", "runs:fly"}})
		}, 400, "invalid_request", "scopes[1]"},
		{"unknown service", func() *apptest.Response {
			return post("/v1/api-keys", root, "a5", map[string]any{"services": []string{"nope"}})
		}, 400, "invalid_request", "services[0]"},
		{"bad limit selector", func() *apptest.Response {
			return post("/v1/api-keys", root, "a6", map[string]any{"limits": []map[string]any{{"operation": "runs.explode", "requestsPerMinute": 5}}})
		}, 400, "invalid_request", "limits[0].operation"},
		{"zero limit", func() *apptest.Response {
			return post("/v1/api-keys", root, "a7", map[string]any{"limits": []map[string]any{{"operation": "runs.create"}}})
		}, 400, "invalid_request", "limits[0]"},
		{"creditsPerDay on an unmetered op", func() *apptest.Response {
			return post("/v1/api-keys", root, "a8", map[string]any{"limits": []map[string]any{{"operation": "runs.read", "creditsPerDay": 5}}})
		}, 400, "invalid_request", "limits[0].creditsPerDay"},
		{"missing idempotency key", func() *apptest.Response { return post("/v1/api-keys", root, "", map[string]any{}) }, 400, "idempotency_key_missing", "Idempotency-Key"},
		{"over-long idempotency key", func() *apptest.Response {
			return post("/v1/api-keys", root, strings.Repeat("k", 256), map[string]any{})
		}, 400, "invalid_request", "Idempotency-Key"},
		{"non-ASCII idempotency key", func() *apptest.Response { return post("/v1/api-keys", root, "clé", map[string]any{}) }, 400, "invalid_request", "Idempotency-Key"},
		{"malformed API key", func() *apptest.Response { return post("/v1/api-keys", "svc_sk_nope", "a9", map[string]any{}) }, 401, "unauthenticated", ""},
		{"checksum mismatch", func() *apptest.Response { return post("/v1/api-keys", tamperLast(root), "a10", map[string]any{}) }, 401, "unauthenticated", ""},
		{"no credentials", func() *apptest.Response { return post("/v1/api-keys", "", "a11", map[string]any{}) }, 401, "unauthenticated", ""},
		{"unknown run service", func() *apptest.Response {
			return post("/v1/runs", root, "r1", map[string]any{"serviceId": "nope", "operationId": "echo"})
		}, 400, "invalid_request", "serviceId"},
		{"unknown run operation", func() *apptest.Response {
			return post("/v1/runs", root, "r2", map[string]any{"serviceId": "managed-workflows", "operationId": "nope"})
		}, 400, "invalid_request", "operationId"},
		{"bad sleep input", func() *apptest.Response {
			return post("/v1/runs", root, "r3", map[string]any{"serviceId": "managed-workflows", "operationId": "sleep", "input": map[string]any{"seconds": "soon"}})
		}, 400, "invalid_request", "input.seconds"},
		{"missing serviceId", func() *apptest.Response { return post("/v1/runs", root, "r4", map[string]any{"operationId": "echo"}) }, 400, "invalid_request", "serviceId"},
		{"body over 1 MiB", func() *apptest.Response {
			return post("/v1/runs", root, "r5", map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"x": strings.Repeat("a", 1<<20)}})
		}, 413, "payload_too_large", ""},
		{"form body", func() *apptest.Response {
			return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: root, Body: "serviceId=managed-workflows",
				Headers: map[string]string{"Idempotency-Key": "r6", "Content-Type": "application/x-www-form-urlencoded"}})
		}, 415, "unsupported_media_type", ""},
		{"wrong method", func() *apptest.Response {
			return env.Do(t, apptest.Req{Method: http.MethodPut, Path: "/v1/runs", Key: root})
		}, 405, "method_not_allowed", ""},
		{"unknown route", func() *apptest.Response {
			return env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/nothing", Key: root})
		}, 404, "not_found", ""},
		{"unknown run", func() *apptest.Response {
			return env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/run_doesnotexist", Key: root})
		}, 404, "not_found", ""},
		{"bad pricing filter", func() *apptest.Response {
			return env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/pricing?service=gold"})
		}, 400, "invalid_request", "service"},
		{"bad page size", func() *apptest.Response {
			return env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/api-keys?limit=500", Key: root})
		}, 400, "invalid_request", "limit"},
		{"bad cursor", func() *apptest.Response {
			return env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/api-keys?cursor=zzz", Key: root})
		}, 400, "invalid_request", "cursor"},
		{"unknown project header", func() *apptest.Response {
			return env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/services", Key: root, Headers: map[string]string{"X-Svc-Project": "proj_nope"}})
		}, 404, "not_found", "X-Svc-Project"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := tc.resp()
			require.Equal(t, tc.status, resp.Status, "%s", resp.Raw)
			require.Equal(t, false, resp.Body["ok"])
			e := errorOf(resp)
			require.Equal(t, tc.code, e["code"], "%s", resp.Raw)
			require.NotEmpty(t, e["message"])
			require.Equal(t, resp.Header.Get("X-Request-Id"), e["requestId"])
			if tc.param != "" {
				require.Equal(t, tc.param, e["param"], "%s", resp.Raw)
			}
		})
	}
	require.Equal(t, keysBefore, countRows(t, env, "api_keys"), "a refused request wrote a key")
	require.Equal(t, 0, countRows(t, env, "runs"), "a refused request wrote a run")
}

// TestCreditTokenIsSingleUse spends a token once; a second key with it is refused, while a replay of the
// first request (same Idempotency-Key) still answers the stored, sealed response.
func TestCreditTokenIsSingleUse(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, token := env.NewAccount(t, "single")
	send := func(idem string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
			Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": idem}})
	}
	first := send("one")
	require.Equal(t, http.StatusCreated, first.Status, "%s", first.Raw)
	secret := first.Body["apiKey"].(map[string]any)["secret"].(string)

	again := send("two")
	require.Equal(t, http.StatusUnauthorized, again.Status, "%s", again.Raw)
	require.Equal(t, "unauthenticated", again.ErrorCode())

	replay := send("one")
	require.Equal(t, http.StatusCreated, replay.Status)
	require.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))
	require.Equal(t, secret, replay.Body["apiKey"].(map[string]any)["secret"])

	// The secret is nowhere in the database in clear: keys keep a hash, idempotency records are sealed.
	var dump string
	require.NoError(t, env.DB.NewRaw(`SELECT coalesce(string_agg(t::text, ''), '') FROM (
		SELECT row_to_json(k)::text AS t FROM api_keys k UNION ALL SELECT row_to_json(i)::text FROM idempotency_keys i) s`).
		Scan(context.Background(), &dump))
	require.NotContains(t, dump, secret)
	require.Equal(t, 1, countRows(t, env, "api_keys"))

	bad := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token + "x", "Idempotency-Key": "three"}})
	require.Equal(t, http.StatusUnauthorized, bad.Status)
}

// TestChildKeyNeverWider checks services and limits narrowing, and inheritance of the parent's limits.
func TestChildKeyNeverWider(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	parent := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: root,
		Body:    map[string]any{"services": []string{"managed-workflows"}, "limits": []map[string]any{{"operation": "runs.create", "requestsPerMinute": 10}}},
		Headers: map[string]string{"Idempotency-Key": "p"}})
	require.Equal(t, http.StatusCreated, parent.Status, "%s", parent.Raw)
	pk := parent.Body["apiKey"].(map[string]any)["secret"].(string)

	mk := func(idem string, body map[string]any) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: pk, Body: body, Headers: map[string]string{"Idempotency-Key": idem}})
	}
	svc := mk("c1", map[string]any{"services": []string{"svc-database"}})
	require.Equal(t, http.StatusForbidden, svc.Status)
	require.Equal(t, "service_access_denied", svc.ErrorCode())
	require.Equal(t, "svc-database", errorOf(svc)["details"].(map[string]any)["serviceId"])

	all := mk("c2", map[string]any{"services": []string{"*"}})
	require.Equal(t, http.StatusForbidden, all.Status)

	lim := mk("c3", map[string]any{"limits": []map[string]any{{"operation": "runs.create", "requestsPerMinute": 11}}})
	require.Equal(t, http.StatusForbidden, lim.Status, "%s", lim.Raw)
	require.Equal(t, "limit_wider_than_parent", lim.ErrorCode())
	require.Equal(t, "limits[0]", errorOf(lim)["param"])

	ok := mk("c4", map[string]any{"limits": []map[string]any{{"operation": "runs.read", "requestsPerMinute": 5}}})
	require.Equal(t, http.StatusCreated, ok.Status, "%s", ok.Raw)
	limits := ok.Body["apiKey"].(map[string]any)["limits"].([]any)
	require.Len(t, limits, 2, "the child keeps its parent's runs.create limit")
	require.Equal(t, []any{"managed-workflows"}, ok.Body["apiKey"].(map[string]any)["services"])

	// A key limited to managed-workflows cannot read another service's capabilities or runs of it.
	capDenied := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/capabilities/svc-database", Key: pk})
	require.Equal(t, http.StatusForbidden, capDenied.Status)
	require.Equal(t, "service_access_denied", capDenied.ErrorCode())
	services := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/services", Key: pk})
	require.Equal(t, http.StatusOK, services.Status)
	require.Len(t, services.Body["services"], 1)
}

// TestScopedLookups checks that runs of another account or another project answer 404.
func TestScopedLookups(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	alice, aliceKey := firstKey(t, env)
	bob, _ := firstKey(t, env)
	run := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: alice,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, Headers: map[string]string{"Idempotency-Key": "x"}})
	require.Equal(t, http.StatusCreated, run.Status)
	id := run.Body["run"].(map[string]any)["id"].(string)

	foreign := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + id, Key: bob})
	require.Equal(t, http.StatusNotFound, foreign.Status)

	// A project of alice's account: the account-level run is invisible from it, and vice versa.
	var acct string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM api_keys WHERE id = ?", aliceKey["id"]).Scan(context.Background(), &acct))
	_, err := env.DB.NewRaw("INSERT INTO projects (id, account_id, name) VALUES ('proj_a', ?, 'a')", acct).Exec(context.Background())
	require.NoError(t, err)
	inProject := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + id, Key: alice, Headers: map[string]string{"X-Svc-Project": "proj_a"}})
	require.Equal(t, http.StatusNotFound, inProject.Status)

	// Same idempotency key in another account is another request.
	bobRun := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: bob,
		Body: map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, Headers: map[string]string{"Idempotency-Key": "x"}})
	require.Equal(t, http.StatusCreated, bobRun.Status)
	require.Empty(t, bobRun.Header.Get("Idempotent-Replayed"))
	require.NotEqual(t, id, bobRun.Body["run"].(map[string]any)["id"])
}
