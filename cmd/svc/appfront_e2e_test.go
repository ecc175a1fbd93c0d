package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	svcapp "github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/tenant"
)

// TestAppsOpenAgainstTheServer: svc apps open prints a link that signs its follower in to the owner's
// private app (a cookie for the app's pages) and redirects to the app's page, which then opens.
func TestAppsOpenAgainstTheServer(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner, token := env.NewAccount(t, "apps-open")
	resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first-key"}})
	require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
	secret := resp.Body["apiKey"].(map[string]any)["secret"].(string)
	store := apps.NewStore(env.DB, file.NewStore(env.DB, file.Options{}), blob.WithPrefix(env.Blobs, svcapp.FilePrefix), nil, nil)
	_, err := store.Create(context.Background(), apps.NewApp{ID: ids.New(apps.IDPrefix), Scope: tenant.Scope{AccountID: owner},
		Files: map[string][]byte{"manifest.json": []byte(`{"slug": "mine"}`), "index.html": []byte("<p>mine</p>")}})
	require.NoError(t, err)

	svc := loggedIn(t, env, secret)
	code, out, stderr := svc("apps", "open", "mine")
	require.Equal(t, 0, code, stderr)
	link := strings.TrimSpace(out)
	require.True(t, strings.HasPrefix(link, env.URL+"/apps/"+owner+"/mine/open?token="), link)
	require.Contains(t, stderr, "/apps/"+owner+"/mine/")

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	opened, err := noRedirect.Get(link)
	require.NoError(t, err)
	_ = opened.Body.Close()
	require.Equal(t, http.StatusSeeOther, opened.StatusCode)
	require.Len(t, opened.Cookies(), 1)
	req, err := http.NewRequest(http.MethodGet, env.URL+"/apps/"+owner+"/mine/", nil)
	require.NoError(t, err)
	req.AddCookie(opened.Cookies()[0])
	pageResp, err := noRedirect.Do(req)
	require.NoError(t, err)
	_ = pageResp.Body.Close()
	require.Equal(t, http.StatusOK, pageResp.StatusCode)

	code, _, stderr = svc("apps", "open", "not-mine")
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "not-mine")
}
