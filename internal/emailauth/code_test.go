package emailauth

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNewCodeIsSixDigits: codes are 6 ASCII digits and vary.
func TestNewCodeIsSixDigits(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 200 {
		c, err := NewCode()
		require.NoError(t, err)
		require.Regexp(t, `^[0-9]{6}$`, c)
		require.True(t, wellFormedCode(c))
		seen[c] = true
	}
	require.Greater(t, len(seen), 190, "200 draws gave only %d distinct codes", len(seen))
	for _, bad := range []string{"12345", "1234567", "12345a", "１２３４５６", " 12345"} {
		require.False(t, wellFormedCode(bad), bad)
	}
}

// TestHashCodeBindsKeyAttemptAndCode: the hash matches only the same key, attempt and code, and is not
// the code.
func TestHashCodeBindsKeyAttemptAndCode(t *testing.T) {
	t.Parallel()
	key := []byte("k1")
	h := HashCode(key, "otp_a", "123456")
	require.Len(t, h, 32)
	require.NotContains(t, string(h), "123456")
	require.True(t, CodeMatches(key, "otp_a", "123456", h))
	require.False(t, CodeMatches(key, "otp_a", "123457", h))
	require.False(t, CodeMatches(key, "otp_b", "123456", h))
	require.False(t, CodeMatches([]byte("k2"), "otp_a", "123456", h))
	require.False(t, CodeMatches(key, "otp_a", "123456", h[:31]))
}

// TestNormalizeEmail: trimmed and lower-cased; display names, missing domains and garbage refused
// naming email.
func TestNormalizeEmail(t *testing.T) {
	t.Parallel()
	got, err := NormalizeEmail("  Alice@Example.COM ")
	require.NoError(t, err)
	require.Equal(t, "alice@example.com", got)
	got, err = NormalizeEmail("dev@localhost")
	require.NoError(t, err)
	require.Equal(t, "dev@localhost", got)
	for _, bad := range []string{"", "alice", "alice@", "@example.com", "Alice <alice@example.com>", "a@b", "a b@example.com", "alice@example.com, bob@example.com"} {
		_, err := NormalizeEmail(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "(email)", bad)
	}
}

// TestNewSMTPReadsTheURL: schemes, default ports, credentials and sender; every malformed URL refused
// without repeating it (it may hold a password).
func TestNewSMTPReadsTheURL(t *testing.T) {
	t.Parallel()
	s, err := NewSMTP("smtp://mail.example.com", "")
	require.NoError(t, err)
	require.Equal(t, 587, s.port)
	require.False(t, s.ssl)
	require.Equal(t, DefaultFrom, s.from)
	s, err = NewSMTP("smtps://u%40x:p%3Ass@mail.example.com:2465", "Ops <ops@example.com>")
	require.NoError(t, err)
	require.Equal(t, 2465, s.port)
	require.True(t, s.ssl)
	require.Equal(t, "u@x", s.user)
	require.Equal(t, "p:ss", s.password)
	s, err = NewSMTP("smtps://mail.example.com", "")
	require.NoError(t, err)
	require.Equal(t, 465, s.port)
	for _, bad := range []string{"http://mail.example.com", "smtp://", "smtp://u:secretpw@mail.example.com:99999", "smtp://mail.example.com/x", "smtp://mail.example.com?tls=0"} {
		_, err := NewSMTP(bad, "")
		require.Error(t, err, bad)
		require.NotContains(t, err.Error(), "secretpw")
	}
	_, err = NewSMTP("smtp://mail.example.com", "not an address")
	require.ErrorContains(t, err, "SVC_MAIL_FROM")
}
