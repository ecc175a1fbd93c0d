package main

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/emailauth"
)

// TestDevMailPrintsTheSignInCode: without SVC_SMTP_URL a sign-in code goes to the dev mailbox, `svcd dev
// mail --to` prints it (and only that address's messages) from the database the admin commands reach,
// and the printed code signs in.
func TestDevMailPrintsTheSignInCode(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{NoWorker: true, NoDatabases: true})
	for _, addr := range []string{"gina@example.com", "hal@example.com"} {
		r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/email/start", Body: map[string]any{"email": addr}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	}
	cfg := app.Config{DatabaseURL: env.DatabaseURL}
	var out bytes.Buffer
	require.NoError(t, dispatch(t.Context(), cfg, []string{"dev", "mail", "--to", "Gina@Example.com"}, &out, io.Discard))
	text := out.String()
	require.Contains(t, text, "To:      gina@example.com")
	require.NotContains(t, text, "hal@example.com")
	require.Contains(t, text, "Subject: "+emailauth.Subject)
	code := regexp.MustCompile(`(?m)^\s+(\d{6})$`).FindStringSubmatch(text)
	require.NotNil(t, code, "no code in:\n%s", text)

	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/email/verify",
		Body: map[string]any{"email": "gina@example.com", "code": code[1], "acceptTerms": true}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(t, true, r.Body["newAccount"])

	out.Reset()
	require.NoError(t, dispatch(t.Context(), cfg, []string{"dev", "mail", "--last", "5"}, &out, io.Discard))
	require.Contains(t, out.String(), "hal@example.com")
	require.Contains(t, out.String(), "gina@example.com")
	err := dispatch(t.Context(), cfg, []string{"dev", "mail", "--last", "0"}, &out, io.Discard)
	require.ErrorAs(t, err, new(usageError))
}
