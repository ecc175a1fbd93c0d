package pg

import (
	"errors"
	"strings"

	"github.com/uptrace/bun/driver/pgdriver"
)

// Unstorable reports whether err is PostgreSQL refusing a value itself rather than failing to store it:
// a data exception (SQLSTATE class 22, e.g. 22P05 for \u0000 in jsonb, 22021 for a byte sequence that is
// not UTF-8, 22P02 for malformed JSON) or a program limit (class 54, e.g. 54000 for a value too large).
// Retrying such a write cannot succeed.
func Unstorable(err error) bool {
	var pgErr pgdriver.Error
	if !errors.As(err, &pgErr) {
		return false
	}
	code := pgErr.Field('C')
	return strings.HasPrefix(code, "22") || strings.HasPrefix(code, "54")
}
