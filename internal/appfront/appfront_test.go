package appfront_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/appfront"
	"github.com/svcplatform/svc/internal/svcerr"
)

const (
	owner = "acct_owner0000000000000000"
)

func refusal(t *testing.T, err error) *svcerr.Error {
	t.Helper()
	var e *svcerr.Error
	require.True(t, errors.As(err, &e), "a platform error: %v", err)
	return e
}

// TestViewerTokens: a token works for its own app and kind only, and not once expired.
func TestViewerTokens(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := appfront.NewSigner([]byte("k"), func() time.Time { return now })
	link, _, err := s.IssueLink(owner, "probe", owner)
	require.NoError(t, err)
	acct, err := s.VerifyLink(link, owner, "probe")
	require.NoError(t, err)
	require.Equal(t, owner, acct)

	_, err = s.VerifyLink(link, owner, "other-app")
	require.Equal(t, http.StatusUnauthorized, svcerr.Status(refusal(t, err).Code), "another app's token")
	_, err = s.VerifyCookie(link, owner, "probe")
	require.Error(t, err, "a link is not a cookie")
	_, err = appfront.NewSigner([]byte("other key"), nil).VerifyLink(link, owner, "probe")
	require.Error(t, err, "another server's key")

	now = now.Add(appfront.LinkTTL + time.Second)
	_, err = s.VerifyLink(link, owner, "probe")
	require.Contains(t, refusal(t, err).Message, "expired")
}

// TestFrameInjectsTheSDKFirst: the SDK is the first script of the page, wherever the page starts.
func TestFrameInjectsTheSDKFirst(t *testing.T) {
	for _, page := range []string{
		"<!doctype html><html><head><script>app()</script></head></html>",
		"<!DOCTYPE html><HTML lang=en><body><script>app()</script></body></HTML>",
		"<script>app()</script>",
	} {
		out := string(appfront.Frame([]byte(page)))
		sdk := strings.Index(out, "Object.defineProperty(window, 'svc'")
		require.Positive(t, sdk, page)
		require.Less(t, sdk, strings.Index(out, "app()"), page)
		require.False(t, strings.HasPrefix(strings.ToLower(page), "<!doctype") && !strings.HasPrefix(strings.ToLower(out), "<!doctype"),
			"the doctype stays first: %s", page)
	}
}

// TestCallAllowlist: the server refuses methods off the allowlist, host methods, undeclared permissions
// and malformed params, each naming what it refuses, before touching anything.
func TestCallAllowlist(t *testing.T) {
	s := &appfront.Service{}
	app := &appfront.App{Slug: "probe", AccountID: owner, Permissions: []string{"read:appdata"}}
	v := appfront.Viewer{Anonymous: true}
	cases := []struct {
		method, params, param string
		status                int
	}{
		{"eval", `{}`, "method", http.StatusBadRequest},
		{"copy", `{"text": "x"}`, "method", http.StatusBadRequest},
		{"appKV.set", `{"key": "k", "value": 1}`, "permission", http.StatusForbidden},
		{"x402.fetch", `{"url": "https://example.com"}`, "permission", http.StatusForbidden},
		{"appKV.get", `{"key": 5}`, "params.key", http.StatusBadRequest},
		{"appKV.get", `{"key": "k", "extra": true}`, "params.extra", http.StatusBadRequest},
		{"appKV.get", `[]`, "params", http.StatusBadRequest},
		{"appKV.get", `{}`, "params.key", http.StatusBadRequest},
	}
	for _, c := range cases {
		_, err := s.Call(context.Background(), app, v, c.method, json.RawMessage(c.params))
		e := refusal(t, err)
		require.Equal(t, c.status, svcerr.Status(e.Code), "%s %s: %v", c.method, c.params, err)
		require.Equal(t, c.param, e.Param, "%s %s", c.method, c.params)
	}
}

// TestAnonymousRunRefused: an anonymous viewer never starts a script run.
func TestAnonymousRunRefused(t *testing.T) {
	s := &appfront.Service{}
	app := &appfront.App{Slug: "probe", AccountID: owner}
	_, err := s.Call(context.Background(), app, appfront.Viewer{Anonymous: true}, "scripts.run", json.RawMessage(`{"name": "hello"}`))
	require.Equal(t, http.StatusForbidden, svcerr.Status(refusal(t, err).Code))
}

// TestHostPageCarriesTheAllowlist: the host page sandboxes the frame with scripts only and is rendered
// with the allowlist the server enforces.
func TestHostPageCarriesTheAllowlist(t *testing.T) {
	page, err := appfront.HostPage(owner, &appfront.App{Slug: "probe", Title: `<b>"x"</b>`})
	require.NoError(t, err)
	require.Contains(t, string(page), `sandbox="allow-scripts"`)
	require.NotContains(t, string(page), "<b>", "the title is escaped")
	for _, name := range appfront.MethodNames() {
		require.Contains(t, string(page), "&#34;"+name+"&#34;", name)
	}
	require.Contains(t, appfront.HostCSP(), "script-src 'sha256-")
	require.Contains(t, appfront.FrameCSP, "connect-src 'none'")
}
