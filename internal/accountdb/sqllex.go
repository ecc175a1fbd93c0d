package accountdb

import (
	"errors"
	"strings"
)

// The lexical check of caller SQL. It is not a parser: it finds statement boundaries and first keywords
// while skipping what may hide a ";" or a keyword (comments, string literals, quoted identifiers,
// dollar-quoted bodies), so a ";" inside a string is harmless and "SELECT 1; SET ROLE x" is two
// statements. The real boundary stays the role and the read-only transaction; this check refuses early,
// with an error naming the field, what those would refuse late or not at all (session changes).

// statement is one statement of a text: its source and its first keyword, upper-cased.
type statement struct {
	text    string
	keyword string
	// second is the second word, upper-cased ("" when the second token is not a word).
	second string
}

var (
	errUnterminatedComment = errors.New("a /* comment is not closed")
	errUnterminatedString  = errors.New("a string literal is not closed")
	errUnterminatedIdent   = errors.New("a quoted identifier is not closed")
	errUnterminatedDollar  = errors.New("a dollar-quoted string is not closed")
)

// splitStatements splits src into its statements (empty ones, like a trailing ";", are dropped).
func splitStatements(src string) ([]statement, error) {
	var out []statement
	start, cur, words := 0, statement{}, 0
	for i := 0; i < len(src); {
		next, tok, err := skipToken(src, i)
		if err != nil {
			return nil, err
		}
		switch {
		case tok == ";":
			if cur.keyword != "" {
				cur.text = strings.Trim(src[start:i], spaces)
				out = append(out, cur)
			}
			start, cur, words = next, statement{}, 0
		case tok != "":
			words++
			switch words {
			case 1:
				cur.keyword = upperASCII(tok)
			case 2:
				cur.second = upperASCII(tok)
			}
		}
		i = next
	}
	if cur.keyword != "" {
		cur.text = strings.Trim(src[start:], spaces)
		out = append(out, cur)
	}
	return out, nil
}

// skipToken skips one lexical element at i and answers where the next starts and, for a word, a ";" or
// any other single character that may start a statement, the token ("" for space, comments and
// literals).
func skipToken(src string, i int) (int, string, error) {
	c := src[i]
	switch {
	case c == '-' && strings.HasPrefix(src[i:], "--"):
		// PostgreSQL ends a -- comment at \n or \r: a comment that ran on past a lone \r would hide
		// what PostgreSQL runs (a ";" and a second statement, or a statement's real first keyword).
		if j := strings.IndexAny(src[i:], "\n\r"); j >= 0 {
			return i + j + 1, "", nil
		}
		return len(src), "", nil
	case c == '/' && strings.HasPrefix(src[i:], "/*"):
		j, err := skipBlockComment(src, i)
		return j, "", err
	case c == '\'':
		j, err := skipQuoted(src, i, '\'', false)
		return j, "", err
	case c == '"':
		j, err := skipQuoted(src, i, '"', false)
		if err != nil {
			err = errUnterminatedIdent
		}
		return j, "\"", err
	case c == '$':
		return skipDollar(src, i)
	case isIdentStart(c):
		return skipWord(src, i)
	case strings.IndexByte(spaces, c) >= 0:
		return i + 1, "", nil
	}
	return i + 1, string(c), nil
}

// skipWord skips an identifier or keyword, and a string literal it prefixes (E'..', B'..', X'..',
// U&'..'), which it answers as a literal.
func skipWord(src string, i int) (int, string, error) {
	j := i
	for j < len(src) && isIdentPart(src[j]) {
		j++
	}
	word := src[i:j]
	if j < len(src) && src[j] == '\'' {
		switch upperASCII(word) {
		case "E":
			k, err := skipQuoted(src, j, '\'', true)
			return k, "", err
		case "B", "X", "N":
			k, err := skipQuoted(src, j, '\'', false)
			return k, "", err
		}
	}
	if strings.EqualFold(word, "U") && strings.HasPrefix(src[j:], "&'") {
		k, err := skipQuoted(src, j+1, '\'', false)
		return k, "", err
	}
	return j, word, nil
}

// skipBlockComment skips a /* */ comment, which nests in PostgreSQL.
func skipBlockComment(src string, i int) (int, error) {
	depth := 0
	for j := i; j < len(src)-1; {
		switch {
		case src[j] == '/' && src[j+1] == '*':
			depth++
			j += 2
		case src[j] == '*' && src[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j, nil
			}
		default:
			j++
		}
	}
	return len(src), errUnterminatedComment
}

// skipQuoted skips a literal opened by q at i; a doubled q is one character, and with backslashes set
// (E'..') a backslash escapes the next byte.
func skipQuoted(src string, i int, q byte, backslashes bool) (int, error) {
	for j := i + 1; j < len(src); j++ {
		switch {
		case backslashes && src[j] == '\\':
			j++
		case src[j] == q && j+1 < len(src) && src[j+1] == q:
			j++
		case src[j] == q:
			return j + 1, nil
		}
	}
	return len(src), errUnterminatedString
}

// skipDollar skips a dollar-quoted string $tag$...$tag$; a "$" not opening one ($1, say) is a token.
func skipDollar(src string, i int) (int, string, error) {
	j := i + 1
	if j < len(src) && isIdentStart(src[j]) {
		for j < len(src) && isIdentPart(src[j]) && src[j] != '$' {
			j++
		}
	}
	if j >= len(src) || src[j] != '$' {
		return i + 1, "$", nil
	}
	tag := src[i : j+1]
	end := strings.Index(src[j+1:], tag)
	if end < 0 {
		return len(src), "", errUnterminatedDollar
	}
	return j + 1 + end + len(tag), "", nil
}

// spaces are the bytes the lexer skips between tokens. A statement's text is trimmed of these only: any
// other character (a no-break space, say) is part of a token to PostgreSQL, so trimming it would make the
// text run differ from the text checked ("\u00a0SET ROLE x" is a word "\u00a0SET" to PostgreSQL, and
// would run as SET ROLE if trimmed).
const spaces = " \t\n\r\f\v"

// upperASCII upper-cases a word's ASCII letters only, as PostgreSQL folds keywords: strings.ToUpper would
// make "ſet" (long s) the keyword SET, which PostgreSQL does not take for one, and an invalid UTF-8 byte a
// U+FFFD.
func upperASCII(w string) string {
	b := []byte(w)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}
