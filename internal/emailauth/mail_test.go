package emailauth_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/emailauth"
	"github.com/svcplatform/svc/internal/emailauth/smtptest"
)

// TestSMTPLogsInOverTLS: with credentials in SVC_SMTP_URL the mailer logs in only over TLS (STARTTLS on
// smtp://, implicit on smtps://) and the real server receives the message; a wrong password fails the
// send; without TLS the password is never sent.
func TestSMTPLogsInOverTLS(t *testing.T) {
	t.Parallel()
	msg := emailauth.Message{To: "lee@example.com", Subject: emailauth.Subject, Body: "code 123456\n"}
	for _, implicit := range []bool{false, true} {
		srv := smtptest.StartWith(t, smtptest.Options{TLS: true, Implicit: implicit, User: "mailer", Password: "s3cret pass"})
		m, err := emailauth.NewSMTP(srv.URL(), "svc <no-reply@example.com>")
		require.NoError(t, err)
		require.NoError(t, m.WithRootCAs(srv.RootCAs).Send(t.Context(), msg), "implicit TLS %v", implicit)
		got := srv.Next(t, 10*time.Second)
		require.Equal(t, "mailer", got.User)
		require.Equal(t, []string{"lee@example.com"}, got.To)
		require.Equal(t, "no-reply@example.com", got.From)
		require.Equal(t, emailauth.Subject, got.Subject)
		require.Contains(t, got.Body, "code 123456")
	}
	srv := smtptest.StartWith(t, smtptest.Options{TLS: true, User: "mailer", Password: "right"})
	bad, err := emailauth.NewSMTP("smtp://mailer:wrong@"+srv.Addr, "")
	require.NoError(t, err)
	require.Error(t, bad.WithRootCAs(srv.RootCAs).Send(t.Context(), msg))

	plain := smtptest.StartWith(t, smtptest.Options{User: "mailer", Password: "right"})
	clear, err := emailauth.NewSMTP("smtp://mailer:right@"+plain.Addr, "")
	require.NoError(t, err)
	require.Error(t, clear.Send(t.Context(), msg), "a login offered without TLS")
	require.Zero(t, plain.Pending())
}
