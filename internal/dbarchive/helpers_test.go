package dbarchive_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func hexSHA(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
