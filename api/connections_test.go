package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// TestConnectionsLifecycleAndIsolation: create, read, list, rotate, disable, delete; other accounts and
// projects get 404; the secret is never answered.
func TestConnectionsLifecycleAndIsolation(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	key := env.FirstKey(t)
	do := func(k, method, path string, body any, h map[string]string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: method, Path: path, Key: k, Body: body, Headers: h})
	}
	idem := func(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }
	const secret = "s3cr3t-value-never-shown"

	bad := do(key, http.MethodPost, "/v1/connections", map[string]any{"name": "x", "authType": "magic", "secret": secret}, idem("b"))
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Equal(t, "authType", errorOf(bad)["param"])
	noHeader := do(key, http.MethodPost, "/v1/connections", map[string]any{"name": "x", "authType": "header", "secret": secret}, idem("b2"))
	require.Equal(t, http.StatusBadRequest, noHeader.Status)
	require.Equal(t, "headerName", errorOf(noHeader)["param"])

	created := do(key, http.MethodPost, "/v1/connections", map[string]any{"name": "upstream", "authType": "bearer", "secret": secret}, idem("c"))
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	id := created.Body["connection"].(map[string]any)["id"].(string)
	rotated := do(key, http.MethodPatch, "/v1/connections/"+id, map[string]any{"secret": "new-" + secret}, idem("r"))
	require.Equal(t, http.StatusOK, rotated.Status, "%s", rotated.Raw)
	require.NotNil(t, rotated.Body["connection"].(map[string]any)["rotatedAt"])
	disabled := do(key, http.MethodPatch, "/v1/connections/"+id, map[string]any{"disabled": true}, idem("d"))
	require.Equal(t, "disabled", disabled.Body["connection"].(map[string]any)["status"])
	list := do(key, http.MethodGet, "/v1/connections", nil, nil)
	require.Len(t, list.Body["connections"], 1)
	for _, r := range []*apptest.Response{created, rotated, disabled, list, do(key, http.MethodGet, "/v1/connections/"+id, nil, nil)} {
		require.NotContains(t, string(r.Raw), secret)
	}

	other := env.FirstKey(t)
	require.Equal(t, http.StatusNotFound, do(other, http.MethodGet, "/v1/connections/"+id, nil, nil).Status)
	require.Equal(t, http.StatusNotFound, do(other, http.MethodDelete, "/v1/connections/"+id, nil, idem("x")).Status)
	proj := do(key, http.MethodPost, "/v1/projects", map[string]any{"name": "p"}, idem("p"))
	pid := proj.Body["project"].(map[string]any)["id"].(string)
	require.Equal(t, http.StatusNotFound, do(key, http.MethodGet, "/v1/connections/"+id, nil, map[string]string{"X-Svc-Project": pid}).Status)

	deleted := do(key, http.MethodDelete, "/v1/connections/"+id, nil, idem("del"))
	require.Equal(t, http.StatusOK, deleted.Status)
	require.Equal(t, http.StatusNotFound, do(key, http.MethodGet, "/v1/connections/"+id, nil, nil).Status)
	var n int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM connections").Scan(context.Background(), &n))
	require.Zero(t, n)
}
