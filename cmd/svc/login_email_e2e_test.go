package main

import (
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/emailauth/smtptest"
)

// TestLoginEmailAgainstTheServer: `svc login email` in its two headless steps against the real API,
// whose code arrives over SMTP; the saved key is read-only (a read works, a write is refused) and a
// second login, a minute later on the server's clock, reuses the account.
func TestLoginEmailAgainstTheServer(t *testing.T) {
	t.Parallel()
	mail := smtptest.Start(t)
	var offset atomic.Int64 // the server's clock runs ahead by this many nanoseconds
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	env := apptest.NewWith(t, apptest.Options{SMTPURL: mail.URL(), EmailNow: clock, NoDatabases: true, NoWorker: true})
	cenv := testEnv(t, nil)
	cenv["SVC_BASE_URL"] = env.URL
	cenv["SVC_NOT_INTERACTIVE"] = "1"
	code := func() string {
		m := regexp.MustCompile(`\b(\d{6})\b`).FindStringSubmatch(mail.Next(t, 10*time.Second).Body)
		require.NotNil(t, m)
		return m[1]
	}

	r := cli(t, cenv, "", "login", "email", "pat@example.com")
	require.Equal(t, exitOK, r.code, r.stderr)
	noConfig(t, cenv)
	first := code()
	r = cli(t, cenv, "", "login", "email", "pat@example.com", "--code", first)
	require.Equal(t, exitAPI, r.code, r.stdout)
	require.Contains(t, r.stderr, "acceptTerms")
	noConfig(t, cenv)
	r = cli(t, cenv, "", "login", "email", "pat@example.com", "--code", first, "--accept-terms")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "new account acct_")
	c, _ := readConfig(t, cenv)
	require.Regexp(t, `^svc_sk_`, c.APIKey)

	r = cli(t, cenv, "", "credits", "balance")
	require.Equal(t, exitOK, r.code, r.stderr)
	r = cli(t, cenv, "", "projects", "create", "--name", "x")
	require.NotEqual(t, exitOK, r.code, r.stdout)
	require.Contains(t, r.stderr, "read-only")

	offset.Store(int64(2 * time.Minute))
	r = cli(t, cenv, "", "login", "email", "pat@example.com")
	require.Equal(t, exitOK, r.code, r.stderr)
	r = cli(t, cenv, "", "login", "email", "pat@example.com", "--code", code(), "--read-write")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NotContains(t, r.stdout, "new account")
}
