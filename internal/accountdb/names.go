package accountdb

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// DefaultNamePrefix begins the name of every account database and role the cluster creates.
const DefaultNamePrefix = "svcdb_"

// prefixPattern is what a name prefix may be: a safe identifier start, short enough to leave room for
// the account id.
var prefixPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,23}$`)

// maxIdentifier is PostgreSQL's identifier length (NAMEDATALEN - 1).
const maxIdentifier = 63

// roleSuffixes name the two login roles after the database.
const (
	ownerSuffix  = "_owner"
	readerSuffix = "_reader"
)

// names are an account's database and role names: the prefix and the account id, lowercased, with
// every character other than a-z, 0-9 and _ made _; an id too long for PostgreSQL's identifiers is
// replaced by the hex of its SHA-256 (first 32 digits), so names stay unique and safe to quote.
func names(prefix, accountID string) (database, owner, reader string) {
	safe := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '_'
	}, accountID)
	database = prefix + safe
	if len(database)+len(readerSuffix) > maxIdentifier || safe != strings.ToLower(accountID) {
		sum := sha256.Sum256([]byte(accountID))
		database = prefix + "h" + hex.EncodeToString(sum[:16])
	}
	return database, database + ownerSuffix, database + readerSuffix
}

// newPassword is a role password: 256 random bits in URL-safe base64 (no quote or backslash, so it is
// safe inside a quoted literal).
func newPassword() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// passwordAAD binds a sealed role password to its account, role and generation, so a ciphertext moved
// to another row, role or generation does not open.
func passwordAAD(accountID string, role Role, generation int) []byte {
	return []byte("svc/accountdb/" + accountID + "/" + role.String() + "/" + strconv.Itoa(generation))
}

// ValidateNamePrefix checks a configured name prefix.
func ValidateNamePrefix(prefix string) error {
	if !prefixPattern.MatchString(prefix) {
		return fmt.Errorf("accountdb: name prefix %q must match %s", prefix, prefixPattern)
	}
	return nil
}
