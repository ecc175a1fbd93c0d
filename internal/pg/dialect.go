package pg

import (
	"bytes"
	"strings"

	"github.com/uptrace/bun/dialect/pgdialect"
)

// dialect is pgdialect with faithful string and JSON literals. bun writes every argument into the SQL
// text (pgdriver sends no separate parameters), and two of its literal writers lose data:
//
//   - AppendString of a string holding a NUL byte writes bun's error marker
//     "?!(bun: string contains a NUL byte (0x00))" in place of the value and the statement is sent
//     anyway, so PostgreSQL answers a misleading `syntax error at or near ":"` (SQLSTATE 42601);
//   - AppendJSON (jsonb fields marshalled from Go values) rewrites the escape \u0000 to \\u0000, so a
//     NUL character is stored as the six characters `\u0000`, and it does not skip the character after
//     a backslash, so the legitimate string `"\\u0000"` (a backslash, then u0000) becomes a NUL
//     escape that jsonb refuses.
//
// Here a string holding NUL is written as an escape string with \x00, which PostgreSQL refuses while
// reading the statement with SQLSTATE 22021 (text cannot hold NUL), and JSON is written byte for byte
// (quotes doubled), so jsonb refuses a \u0000 escape with SQLSTATE 22P05 instead of storing something
// else. Unstorable recognises both errors.
type dialect struct {
	*pgdialect.Dialect
}

func newDialect() dialect { return dialect{pgdialect.New()} }

// AppendString writes s as a string constant.
func (d dialect) AppendString(b []byte, s string) []byte {
	if strings.IndexByte(s, 0) < 0 {
		return d.Dialect.AppendString(b, s)
	}
	return appendEscapeString(b, s)
}

// AppendJSON writes a JSON document as a string constant, unchanged.
func (d dialect) AppendJSON(b, jsonb []byte) []byte {
	if bytes.IndexByte(jsonb, 0) >= 0 {
		return appendEscapeString(b, string(jsonb))
	}
	b = append(b, '\'')
	for _, c := range jsonb {
		if c == '\'' {
			b = append(b, '\'')
		}
		b = append(b, c)
	}
	return append(b, '\'')
}

// appendEscapeString writes s as E'...': backslashes and quotes escaped, NUL as \x00.
func appendEscapeString(b []byte, s string) []byte {
	b = append(b, "E'"...)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 0:
			b = append(b, `\x00`...)
		case '\\':
			b = append(b, `\\`...)
		case '\'':
			b = append(b, `''`...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '\'')
}
