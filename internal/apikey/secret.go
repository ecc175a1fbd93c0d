package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"hash/crc32"
	"strings"
)

// SecretPrefix starts every API key secret.
const SecretPrefix = "svc_sk_"

const (
	alphabet     = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	bodyLen      = 32 // 32 base62 characters: about 190 random bits
	checksumLen  = 6  // base62 of a CRC-32 of the body, so typos fail without a database lookup
	displayChars = len(SecretPrefix) + 6
)

// NewSecret returns a new random secret svc_sk_<32 base62><6 base62 checksum>.
func NewSecret() string { return NewSecretWith(SecretPrefix) }

// NewSecretWith returns a new random secret of the same shape with another prefix (partner keys).
func NewSecretWith(prefix string) string {
	var raw [bodyLen]byte
	_, _ = rand.Read(raw[:])
	body := make([]byte, bodyLen)
	for i, b := range raw {
		body[i] = alphabet[int(b)%len(alphabet)] // 256 % 62 bias is negligible at 190 bits
	}
	return prefix + string(body) + checksum(string(body))
}

// WellFormed reports whether s has the secret's shape and a matching checksum.
func WellFormed(s string) bool { return WellFormedWith(SecretPrefix, s) }

// WellFormedWith reports whether s is a well-formed secret with prefix.
func WellFormedWith(prefix, s string) bool {
	if len(s) != len(prefix)+bodyLen+checksumLen || !strings.HasPrefix(s, prefix) {
		return false
	}
	rest := s[len(prefix):]
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(alphabet, rest[i]) < 0 {
			return false
		}
	}
	return checksum(rest[:bodyLen]) == rest[bodyLen:]
}

// Hash is what the database keeps of a secret. Secrets carry 190 random bits, so a fast hash is safe.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// DisplayPrefix is the recognisable start of a secret shown in listings (its prefix, of
// SecretPrefix's length, and six more characters).
func DisplayPrefix(secret string) string {
	return secret[:displayChars]
}

func checksum(body string) string {
	n := crc32.ChecksumIEEE([]byte(body))
	out := make([]byte, checksumLen)
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = alphabet[n%62]
		n /= 62
	}
	return string(out)
}
