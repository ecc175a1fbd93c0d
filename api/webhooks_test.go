package api_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// TestWebhooksLifecycle: create, list, update, rotate, delete (disable); the secret is answered only by
// creation and rotation, and is sealed at rest both in the table and in the stored idempotent answers;
// another account gets 404.
func TestWebhooksLifecycle(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	key := env.FirstKey(t)
	do := func(k, method, path string, body any, idemKey string) *apptest.Response {
		var h map[string]string
		if idemKey != "" {
			h = map[string]string{"Idempotency-Key": idemKey}
		}
		return env.Do(t, apptest.Req{Method: method, Path: path, Key: k, Body: body, Headers: h})
	}
	hook := func(r *apptest.Response) map[string]any { return r.Body["webhook"].(map[string]any) }

	created := do(key, http.MethodPost, "/v1/webhooks", map[string]any{"url": "http://127.0.0.1:9/hook",
		"events": []string{"run.succeeded", "run.failed"}, "description": "ci"}, "c")
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	id := hook(created)["id"].(string)
	secret, _ := hook(created)["secret"].(string)
	require.Regexp(t, `^whsec_[A-Za-z0-9+/]{43}=$`, secret)
	require.Equal(t, true, hook(created)["enabled"])
	replayed := do(key, http.MethodPost, "/v1/webhooks", map[string]any{"url": "http://127.0.0.1:9/hook",
		"events": []string{"run.succeeded", "run.failed"}, "description": "ci"}, "c")
	require.Equal(t, http.StatusCreated, replayed.Status)
	require.Equal(t, secret, hook(replayed)["secret"], "a replayed creation answers the same secret")

	list := do(key, http.MethodGet, "/v1/webhooks", nil, "")
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	require.Len(t, list.Body["webhooks"], 1)

	updated := do(key, http.MethodPatch, "/v1/webhooks/"+id, map[string]any{"events": []string{"*"}, "description": "all"}, "u")
	require.Equal(t, http.StatusOK, updated.Status, "%s", updated.Raw)
	require.Equal(t, []any{"*"}, hook(updated)["events"])
	require.Equal(t, "all", hook(updated)["description"])

	rotated := do(key, http.MethodPost, "/v1/webhooks/"+id+"/rotate-secret", nil, "r")
	require.Equal(t, http.StatusOK, rotated.Status, "%s", rotated.Raw)
	newSecret, _ := hook(rotated)["secret"].(string)
	require.Regexp(t, `^whsec_`, newSecret)
	require.NotEqual(t, secret, newSecret)
	require.NotEmpty(t, hook(rotated)["previousSecretExpiresAt"])

	other := env.FirstKey(t)
	require.Equal(t, http.StatusNotFound, do(other, http.MethodPatch, "/v1/webhooks/"+id, map[string]any{"enabled": false}, "x").Status)
	require.Equal(t, http.StatusNotFound, do(other, http.MethodPost, "/v1/webhooks/"+id+"/rotate-secret", nil, "y").Status)
	require.Equal(t, http.StatusNotFound, do(other, http.MethodDelete, "/v1/webhooks/"+id, nil, "z").Status)
	require.Empty(t, do(other, http.MethodGet, "/v1/webhooks", nil, "").Body["webhooks"])

	deleted := do(key, http.MethodDelete, "/v1/webhooks/"+id, nil, "d")
	require.Equal(t, http.StatusOK, deleted.Status, "%s", deleted.Raw)
	require.Equal(t, false, hook(deleted)["enabled"])
	require.NotEmpty(t, hook(deleted)["disabledReason"])
	list = do(key, http.MethodGet, "/v1/webhooks", nil, "")
	require.Equal(t, false, list.Body["webhooks"].([]any)[0].(map[string]any)["enabled"])

	for _, r := range []*apptest.Response{list, updated, deleted} {
		require.NotContains(t, string(r.Raw), secret)
		require.NotContains(t, string(r.Raw), newSecret)
		require.NotContains(t, string(r.Raw), `"secret"`)
	}

	ctx := context.Background()
	var stored [][]byte
	require.NoError(t, env.DB.NewRaw("SELECT convert_to(w::text, 'UTF8') FROM webhooks w").Scan(ctx, &stored))
	var idem []struct {
		Body []byte `bun:"response_body"`
	}
	require.NoError(t, env.DB.NewRaw("SELECT response_body FROM idempotency_keys WHERE response_body IS NOT NULL").Scan(ctx, &idem))
	require.NotEmpty(t, idem)
	for _, r := range idem {
		stored = append(stored, r.Body)
	}
	require.Len(t, stored, 1+len(idem))
	for _, b := range stored {
		require.False(t, bytes.Contains(b, []byte(secret[len("whsec_"):])), "the first secret is sealed at rest")
		require.False(t, bytes.Contains(b, []byte(newSecret[len("whsec_"):])), "the rotated secret is sealed at rest")
	}
}

// TestWebhooksBadInput: each bad input answers 400 naming the field and stores nothing. The test API runs
// in dev mode, which admits http and loopback but still refuses private and metadata addresses.
func TestWebhooksBadInput(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	key := env.FirstKey(t)
	cases := []struct {
		url    string
		events []string
		param  string
	}{
		{"not a url", []string{"run.succeeded"}, "url"},
		{"ftp://x", []string{"run.succeeded"}, "url"},
		{"https://169.254.169.254/x", []string{"run.succeeded"}, "url"},
		{"https://10.0.0.1/x", []string{"run.succeeded"}, "url"},
		{"http://127.0.0.1:9/x", []string{"run.exploded"}, "events"},
		{"http://127.0.0.1:9/x", []string{}, "events"},
	}
	for i, c := range cases {
		r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/webhooks", Key: key,
			Body:    map[string]any{"url": c.url, "events": c.events},
			Headers: map[string]string{"Idempotency-Key": "bad-" + string(rune('a'+i))}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", c.url, r.Raw)
		require.Equal(t, c.param, errorOf(r)["param"], "%s: %s", c.url, r.Raw)
	}
	require.Zero(t, countRows(t, env, "webhooks"))

	created := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/webhooks", Key: key,
		Body: map[string]any{"url": "http://127.0.0.1:9/x", "events": []string{"*"}}, Headers: map[string]string{"Idempotency-Key": "ok"}})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	id := created.Body["webhook"].(map[string]any)["id"].(string)
	bad := env.Do(t, apptest.Req{Method: http.MethodPatch, Path: "/v1/webhooks/" + id, Key: key,
		Body: map[string]any{"url": "https://169.254.169.254/x"}, Headers: map[string]string{"Idempotency-Key": "p"}})
	require.Equal(t, http.StatusBadRequest, bad.Status, "%s", bad.Raw)
	require.Equal(t, "url", errorOf(bad)["param"])
}
