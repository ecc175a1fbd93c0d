package emailauth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"math/big"
)

// CodeDigits is the length of a one-time code.
const CodeDigits = 6

// codeSpace is 10^CodeDigits: codes are drawn uniformly from [0, codeSpace).
var codeSpace = big.NewInt(1_000_000)

// NewCode draws a 6-digit code, leading zeros kept, uniformly from crypto/rand.
func NewCode() (string, error) {
	n, err := rand.Int(rand.Reader, codeSpace)
	if err != nil {
		return "", fmt.Errorf("draw a one-time code: %w", err)
	}
	return fmt.Sprintf("%0*d", CodeDigits, n.Int64()), nil
}

// HashCode is the stored form of an attempt's code: HMAC-SHA256 under key of the attempt id and the code,
// so a hash says nothing about the code without the key, and is bound to its attempt.
func HashCode(key []byte, attemptID, code string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(attemptID))
	m.Write([]byte{0})
	m.Write([]byte(code))
	return m.Sum(nil)
}

// CodeMatches reports, in constant time, whether code is the one whose hash was stored for attemptID.
func CodeMatches(key []byte, attemptID, code string, stored []byte) bool {
	return hmac.Equal(HashCode(key, attemptID, code), stored)
}

// wellFormedCode reports whether code is exactly CodeDigits ASCII digits.
func wellFormedCode(code string) bool {
	if len(code) != CodeDigits {
		return false
	}
	for i := 0; i < len(code); i++ {
		if code[i] < '0' || code[i] > '9' {
			return false
		}
	}
	return true
}
