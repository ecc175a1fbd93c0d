package accountdb

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// scramIterations is the PBKDF2 iteration count of the verifiers (PostgreSQL's default,
// scram_iterations = 4096).
const scramIterations = 4096

// scramVerifier is the SCRAM-SHA-256 verifier PostgreSQL stores for password (RFC 5802, RFC 7677), in
// the form CREATE/ALTER ROLE ... PASSWORD accepts as already hashed: the plaintext never reaches the
// server, so it cannot appear in its statement log.
func scramVerifier(password string) (string, error) {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	return scramVerifierWithSalt(password, salt, scramIterations)
}

// scramVerifierWithSalt is scramVerifier with the salt and iteration count given.
func scramVerifierWithSalt(password string, salt []byte, iterations int) (string, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return "", fmt.Errorf("derive the SCRAM key: %w", err)
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	server := hmacSHA256(salted, "Server Key")
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(stored[:]), b64(server)), nil
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}
