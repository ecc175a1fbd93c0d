package siwe

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
)

// TestParseAcceptsSpecAndViemForms: the EIP-4361 layout with and without a statement (and viem's, which
// has no empty line after a statement) round-trips; each malformed field is refused naming it.
func TestParseAcceptsSpecAndViemForms(t *testing.T) {
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	exp := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	m := &Message{Scheme: "https", Domain: "svc.example:8443", Address: crypto.PubkeyToAddress(key.PublicKey), Statement: "Hi",
		URI: "https://svc.example:8443", Version: "1", ChainID: 1337, Nonce: "abcdEFGH1234",
		IssuedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), ExpirationTime: &exp, RequestID: "r1", Resources: []string{"https://a", "https://b"}}
	got, err := Parse(m.String())
	require.NoError(t, err)
	require.Equal(t, m, got)

	viem := strings.Replace(m.String(), "Hi\n\nURI", "Hi\nURI", 1)
	got, err = Parse(viem)
	require.NoError(t, err)
	require.Equal(t, "Hi", got.Statement)

	m.Statement = ""
	got, err = Parse(m.String())
	require.NoError(t, err)
	require.Empty(t, got.Statement)

	text := m.String()
	for field, bad := range map[string]string{
		"message.domain":   strings.Replace(text, " wants you", " would like you", 1),
		"message.address":  strings.Replace(text, m.Address.Hex(), strings.ToLower(m.Address.Hex()), 1),
		"message.version":  strings.Replace(text, "Version: 1", "Version: 2", 1),
		"message.chainId":  strings.Replace(text, "Chain ID: 1337", "Chain ID: 01337", 1),
		"message.nonce":    strings.Replace(text, "Nonce: abcdEFGH1234", "Nonce: short", 1),
		"message.issuedAt": strings.Replace(text, "Issued At: 2026-01-02T03:04:05Z", "Issued At: yesterday", 1),
		"message.uri":      strings.Replace(text, "URI: https://svc.example:8443\n", "", 1),
		"message.format":   text + "\nExtra: line",
	} {
		_, err := Parse(bad)
		var se *svcerr.Error
		require.True(t, errors.As(err, &se), "%s: %v", field, err)
		require.Equal(t, field, se.Param, "%s: %v", field, err)
		require.Equal(t, svcerr.Unauthenticated, se.Code)
	}
}

// TestRecoverFindsTheSigner: Sign and Recover agree; another message recovers another address.
func TestRecoverFindsTheSigner(t *testing.T) {
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	sig, err := Sign("hello", key)
	require.NoError(t, err)
	addr, err := Recover("hello", sig)
	require.NoError(t, err)
	require.Equal(t, crypto.PubkeyToAddress(key.PublicKey), addr)
	other, err := Recover("hellO", sig)
	require.NoError(t, err)
	require.NotEqual(t, addr, other)
	_, err = Recover("hello", "0x1234")
	require.Error(t, err)
}
