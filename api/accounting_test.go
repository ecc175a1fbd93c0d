package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// TestProjectsAuditUsageBalance covers projects (create, read, list, update, archive and the archived
// project's refusal of writes), project isolation, audit listing with filters, usage and the balance.
func TestProjectsAuditUsageBalance(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, token := env.NewAccount(t, "books")
	first := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "k"}})
	require.Equal(t, http.StatusCreated, first.Status)
	root := first.Body["apiKey"].(map[string]any)["secret"].(string)
	do := func(method, path string, body any, headers map[string]string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: method, Path: path, Key: root, Body: body, Headers: headers})
	}
	idem := func(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }

	created := do(http.MethodPost, "/v1/projects", map[string]any{"name": "alpha", "description": "first"}, idem("p1"))
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	proj := created.Body["project"].(map[string]any)
	pid := proj["id"].(string)
	require.Equal(t, "active", proj["status"])
	require.Equal(t, http.StatusBadRequest, do(http.MethodPost, "/v1/projects", map[string]any{"name": ""}, idem("p2")).Status)

	renamed := do(http.MethodPatch, "/v1/projects/"+pid, map[string]any{"name": "alpha 2"}, idem("p3"))
	require.Equal(t, http.StatusOK, renamed.Status, "%s", renamed.Raw)
	require.Equal(t, "alpha 2", renamed.Body["project"].(map[string]any)["name"])
	require.Equal(t, "first", renamed.Body["project"].(map[string]any)["description"])

	// A run inside the project, and one outside it: each is invisible from the other scope.
	inProj := map[string]string{"Idempotency-Key": "r1", "X-Svc-Project": pid}
	run := do(http.MethodPost, "/v1/runs", map[string]any{"serviceId": "managed-workflows", "operationId": "echo"}, inProj)
	require.Equal(t, http.StatusCreated, run.Status, "%s", run.Raw)
	runID := run.Body["run"].(map[string]any)["id"].(string)
	require.Equal(t, http.StatusNotFound, do(http.MethodGet, "/v1/runs/"+runID, nil, nil).Status)
	require.Equal(t, http.StatusOK, do(http.MethodGet, "/v1/runs/"+runID, nil, map[string]string{"X-Svc-Project": pid}).Status)

	// A key bound to the project stays in it.
	bound := do(http.MethodPost, "/v1/api-keys", map[string]any{"projectId": pid}, idem("bound"))
	require.Equal(t, http.StatusCreated, bound.Status, "%s", bound.Raw)
	boundKey := bound.Body["apiKey"].(map[string]any)["secret"].(string)
	other := do(http.MethodPost, "/v1/projects", map[string]any{"name": "beta"}, idem("p4"))
	otherID := other.Body["project"].(map[string]any)["id"].(string)
	asBound := func(method, path string, h map[string]string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: method, Path: path, Key: boundKey, Headers: h})
	}
	require.Equal(t, http.StatusNotFound, asBound(http.MethodGet, "/v1/projects/"+otherID, nil).Status)
	require.Equal(t, http.StatusNotFound, asBound(http.MethodGet, "/v1/services", map[string]string{"X-Svc-Project": otherID}).Status)
	list := asBound(http.MethodGet, "/v1/projects", nil)
	require.Len(t, list.Body["projects"], 1)
	require.Equal(t, http.StatusOK, asBound(http.MethodGet, "/v1/runs/"+runID, nil).Status)

	// Another account sees none of it.
	stranger := env.FirstKey(t)
	require.Equal(t, http.StatusNotFound, env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/projects/" + pid, Key: stranger}).Status)
	require.Equal(t, http.StatusNotFound, env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/services", Key: stranger,
		Headers: map[string]string{"X-Svc-Project": pid}}).Status)

	// Archiving: reads still work, writes in the project answer 409.
	archived := do(http.MethodDelete, "/v1/projects/"+pid, nil, idem("p5"))
	require.Equal(t, http.StatusOK, archived.Status, "%s", archived.Raw)
	require.Equal(t, "archived", archived.Body["project"].(map[string]any)["status"])
	require.Equal(t, http.StatusOK, do(http.MethodGet, "/v1/runs/"+runID, nil, map[string]string{"X-Svc-Project": pid}).Status)
	refused := do(http.MethodPost, "/v1/runs", map[string]any{"serviceId": "managed-workflows", "operationId": "echo"},
		map[string]string{"Idempotency-Key": "r2", "X-Svc-Project": pid})
	require.Equal(t, http.StatusConflict, refused.Status, "%s", refused.Raw)
	require.Equal(t, "conflict", refused.ErrorCode())
	require.Equal(t, http.StatusConflict, do(http.MethodPatch, "/v1/projects/"+pid, map[string]any{"name": "x"}, idem("p6")).Status)
	require.Equal(t, http.StatusConflict, asBound(http.MethodPost, "/v1/projects", map[string]string{"Idempotency-Key": "p7"}).Status)

	// Balance.
	bal := do(http.MethodGet, "/v1/credits/balance", nil, nil)
	require.Equal(t, http.StatusOK, bal.Status)
	require.EqualValues(t, 0, bal.Body["balance"].(map[string]any)["credits"])

	// Audit events: every authenticated request above, filterable; never a secret.
	require.Eventually(t, func() bool {
		r := do(http.MethodGet, "/v1/audit-events?operation=projects.create&limit=200", nil, nil)
		return len(r.Body["auditEvents"].([]any)) == 4 // p1, p2 (400), p4, and the bound key's 409 (p7 is a POST to projects)
	}, 5*time.Second, 20*time.Millisecond)
	conflicts := do(http.MethodGet, "/v1/audit-events?status=409", nil, nil)
	require.GreaterOrEqual(t, len(conflicts.Body["auditEvents"].([]any)), 3)
	page1 := do(http.MethodGet, "/v1/audit-events?limit=2", nil, nil)
	require.Len(t, page1.Body["auditEvents"], 2)
	cursor := page1.Body["nextCursor"].(string)
	page2 := do(http.MethodGet, "/v1/audit-events?limit=2&cursor="+cursor, nil, nil)
	require.NotEqual(t, page1.Body["auditEvents"].([]any)[0].(map[string]any)["id"], page2.Body["auditEvents"].([]any)[0].(map[string]any)["id"])
	inProject := do(http.MethodGet, "/v1/audit-events", nil, map[string]string{"X-Svc-Project": pid})
	for _, e := range inProject.Body["auditEvents"].([]any) {
		require.Equal(t, pid, e.(map[string]any)["projectId"])
	}
	require.NotContains(t, string(do(http.MethodGet, "/v1/audit-events?limit=200", nil, nil).Raw), root[7:])
	require.Equal(t, http.StatusBadRequest, do(http.MethodGet, "/v1/audit-events?from=yesterday", nil, nil).Status)

	// Usage: requests by project, day and operation.
	usage := do(http.MethodGet, "/v1/usage?operation=runs.create", nil, nil)
	require.Equal(t, http.StatusOK, usage.Status, "%s", usage.Raw)
	entries := usage.Body["usage"].([]any)
	require.NotEmpty(t, entries)
	var inProjRuns float64
	for _, e := range entries {
		m := e.(map[string]any)
		now := time.Now().UTC() // today, or yesterday when the test straddles midnight
		require.Contains(t, []any{now.Format(time.DateOnly), now.Add(-time.Hour).Format(time.DateOnly)}, m["date"])
		if m["projectId"] == pid {
			inProjRuns += m["requests"].(float64)
		}
	}
	require.EqualValues(t, 2, inProjRuns, "the created run and the refused one")
	require.Equal(t, http.StatusBadRequest, do(http.MethodGet, "/v1/usage?from=2026-02-01&to=2026-01-01", nil, nil).Status)
}
