package dbarchive_test

import (
	"encoding/base64"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
