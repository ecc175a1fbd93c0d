package pg

import (
	"errors"
	"strings"

	"github.com/uptrace/bun/driver/pgdriver"
)

// SQLStates of values PostgreSQL cannot hold: NUL in text (character_not_in_repertoire) and \u0000 in
// jsonb (untranslatable_character).
const (
	stateCharacterNotInRepertoire = "22021"
	stateUntranslatableCharacter  = "22P05"
)

// SQLState is the SQLSTATE of the PostgreSQL error in err's chain, or "" when there is none.
func SQLState(err error) string {
	var pgErr pgdriver.Error
	if !errors.As(err, &pgErr) {
		return ""
	}
	return pgErr.Field('C')
}

// Unstorable reports whether err is PostgreSQL refusing a value itself rather than failing to store it:
// a data exception (SQLSTATE class 22, e.g. 22P05 for \u0000 in jsonb, 22021 for a byte sequence that is
// not UTF-8, 22P02 for malformed JSON) or a program limit (class 54, e.g. 54000 for a value too large).
// Retrying such a write cannot succeed.
func Unstorable(err error) bool {
	code := SQLState(err)
	return strings.HasPrefix(code, "22") || strings.HasPrefix(code, "54")
}

// NULRefused reports whether err is PostgreSQL refusing text that holds NUL (U+0000) or jsonb that holds
// the escape \u0000: a value from outside that no retry can store, unlike other data exceptions, which
// are more likely our own mistakes.
func NULRefused(err error) bool {
	switch SQLState(err) {
	case stateCharacterNotInRepertoire, stateUntranslatableCharacter:
		return true
	}
	return false
}

// IntegrityViolation reports whether err is a constraint violation (SQLSTATE class 23).
func IntegrityViolation(err error) bool {
	return strings.HasPrefix(SQLState(err), "23")
}
