package app

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/catalog"
)

// TestSMTPConfig: SVC_SMTP_URL and SVC_MAIL_FROM are read; a malformed URL stops the API naming the
// variable, never repeating the password.
func TestSMTPConfig(t *testing.T) {
	t.Parallel()
	cfg, err := FromEnv(func(k string) string {
		return map[string]string{"SVC_SMTP_URL": "smtps://u:pw@mail.example.com", "SVC_MAIL_FROM": "ops@example.com"}[k]
	})
	require.NoError(t, err)
	require.Equal(t, "smtps://u:pw@mail.example.com", cfg.SMTPURL)
	require.Equal(t, "ops@example.com", cfg.MailFrom)

	_, err = emailAuthService(APIDeps{SMTPURL: "imap://u:hunter22@mail.example.com"}, catalog.Builtin())
	require.ErrorContains(t, err, "SVC_SMTP_URL")
	require.NotContains(t, err.Error(), "hunter22")
}
