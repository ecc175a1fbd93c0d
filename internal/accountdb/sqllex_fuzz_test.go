package accountdb

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// FuzzSQLLexer checks the lexical check of caller SQL (splitStatements and the query and execute checks
// on top of it) against refSplit, a second lexer written from PostgreSQL's own rules (scan.l) as a plain
// state machine, and against itself:
//
//   - it never panics;
//   - it errs exactly when the reference finds an unclosed comment, literal or identifier, and otherwise
//     finds the same statements, first keywords and second words;
//   - a statement's text, lexed again on its own (execute runs each text by itself), is one statement with
//     the same keyword and second word;
//   - what checkReadSQL accepts is, for the reference, exactly one statement that starts with a read
//     keyword, and what execute's check accepts holds, for the reference, no statement it refuses.
//
// The seeds run with every go test; go test -fuzz FuzzSQLLexer explores further.
func FuzzSQLLexer(f *testing.F) {
	for _, seed := range []string{
		"SELECT 1",
		"SELECT 1; SELECT 2;",
		";;;",
		"SELECT ';' FROM t; SET ROLE x",
		"SET ROLE postgres",
		"SET SESSION AUTHORIZATION postgres",
		"BEGIN READ WRITE; INSERT INTO t VALUES (1); COMMIT",
		"START TRANSACTION READ WRITE",
		"COPY t TO PROGRAM 'rm -rf /'",
		"COPY (SELECT 1) TO PROGRAM 'id'",
		"SELECT $$;$$; SELECT $a$ $$ ; $a$",
		"SELECT $a$ $b$ ; $a$; DROP TABLE t",
		"SELECT $1, $2::int FROM t WHERE a$b$ = 1; SET x = 1",
		"SELECT $ab",
		"SELECT /* a /* nested ; */ still ; */ 1; RESET ALL",
		"SELECT /*/ 1; */ 2",
		"SELECT /**/1/***/",
		"SELECT E'\\'; SET ROLE x'",
		"SELECT e'it''s \\\\'; SET ROLE x",
		"SELECT 'a\\'; SET ROLE x",
		"SELECT B'0101', X'ff', N'nat''l', U&'d\\0061t\\+000061' UESCAPE '!'",
		"SELECT U&\"d;t\" FROM \"semi;colon\"\"\"",
		"-- comment ; still\nSELECT 1",
		"SELECT 1 -- trailing ; comment",
		"WITH x AS (SELECT 1) SELECT * FROM x",
		"EXPLAIN ANALYZE SELECT 1",
		"VALUES (1), (2)",
		"TABLE t",
		"SHOW search_path",
		"ALTER ROLE x SUPERUSER",
		"ALTER /* c */ DATABASE d SET x = 1",
		"alter system set fsync = off",
		"SELECT 'unterminated",
		"SELECT \"unterminated",
		"SELECT $q$ unterminated",
		"SELECT /* unterminated /* */",
		"SELECT 'naïve', 日本語 FROM tãble; SELECT 'ü'",
		"SELECT 1\f;\vSELECT 2\t;\r\nSELECT 3",
		"sElEcT 1",
		"(SELECT 1)",
		"1; 2",
		"SELECT 1; \x00; SET ROLE x",
		// Regressions: what the fuzzer and the reference lexer found.
		"\xe8",                            // an invalid UTF-8 byte was upper-cased to U+FFFD
		"\u017fet role x",                 // so was the long s to S: "ſet" is no keyword to PostgreSQL
		"SELECT 1 --\r; SET ROLE x",       // -- ends at \r too: two statements, not one
		"--\rCOMMIT AND\nCHAIN",           // COMMIT AND CHAIN, which execute took for "CHAIN"
		"SELECT 1;\u00a0SET ROLE x",       // the text was trimmed of the no-break space it was checked with
		"SELECT 1 -- c\u0085; SET ROLE x", // U+0085 (NEL) is no newline to PostgreSQL
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		got, err := splitStatements(src)
		want, ok := refSplit(src)
		if (err == nil) != ok {
			t.Fatalf("%q: lexer error %v, reference ok %v", src, err, ok)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d statements, the reference %d: %+v against %+v", src, len(got), len(want), got, want)
		}
		for i, st := range got {
			if st.text != want[i].text || st.keyword != want[i].keyword || st.second != want[i].second {
				t.Fatalf("%q: statement %d is %q, the reference's %q", src, i, []string{st.text, st.keyword, st.second},
					[]string{want[i].text, want[i].keyword, want[i].second})
			}
			alone, err := splitStatements(st.text)
			if err != nil || len(alone) != 1 || alone[0] != st {
				t.Fatalf("%q: statement %d (%q) lexed alone is %+v (%v)", src, i, st.text, alone, err)
			}
		}
		if checkReadSQL(src) == nil && (len(want) != 1 || !readKeywords[want[0].keyword]) {
			t.Fatalf("%q: the query check accepts what PostgreSQL sees as %+v", src, want)
		}
		if checkWrites(got, "sql") == nil {
			for _, st := range got {
				seen, _ := refSplit(st.text)
				for _, s := range seen {
					if sessionKeywords[s.keyword] || s.keyword == "ALTER" && roleObjects[s.second] {
						t.Fatalf("%q: execute's check accepts %q, which PostgreSQL sees as %+v", src, st.text, seen)
					}
				}
			}
		}
	})
}

// refSplit is the reference lexer: PostgreSQL's lexical rules (src/backend/parser/scan.l, with
// standard_conforming_strings on) as a state machine over bytes, answering the statements as
// splitStatements does (text trimmed of the spaces PostgreSQL skips, the first two tokens, words
// upper-cased as PostgreSQL folds them, ASCII only), or false when a comment, literal or quoted
// identifier is not closed.
func refSplit(src string) ([]statement, bool) {
	const (
		top = iota
		lineComment
		blockComment
		plainString  // '...', B'...', X'...', N'...', U&'...': a doubled quote is one
		escapeString // E'...': a backslash escapes the next byte too
		quotedIdent  // "...": a doubled quote is one
		dollarString // $tag$...$tag$
	)
	var out []statement
	state, depth, tag, start := top, 0, "", 0
	var toks []string // the statement's first two tokens
	add := func(tok string) {
		if len(toks) < 2 {
			toks = append(toks, tok)
		}
	}
	flush := func(end int) {
		if len(toks) > 0 {
			st := statement{text: strings.Trim(src[start:end], pgSpace), keyword: toks[0]}
			if len(toks) > 1 {
				st.second = toks[1]
			}
			out = append(out, st)
		}
		toks = nil
	}
	at := func(i int, s string) bool { return strings.HasPrefix(src[i:], s) }
	for i := 0; i < len(src); {
		c := src[i]
		switch state {
		case lineComment: // -- runs to a newline, which is \n or \r
			if c == '\n' || c == '\r' {
				state = top
			}
			i++
		case blockComment: // /* */ nest
			switch {
			case at(i, "/*"):
				depth, i = depth+1, i+2
			case at(i, "*/"):
				depth, i = depth-1, i+2
				if depth == 0 {
					state = top
				}
			default:
				i++
			}
		case plainString, escapeString, quotedIdent:
			q := byte('\'')
			if state == quotedIdent {
				q = '"'
			}
			switch {
			case state == escapeString && c == '\\':
				i += 2
			case c == q && i+1 < len(src) && src[i+1] == q:
				i += 2
			case c == q:
				state, i = top, i+1
			default:
				i++
			}
		case dollarString:
			if at(i, tag) {
				state, i = top, i+len(tag)
			} else {
				i++
			}
		default:
			switch {
			case at(i, "--"):
				state, i = lineComment, i+2
			case at(i, "/*"):
				state, depth, i = blockComment, 1, i+2
			case c == '\'':
				state, i = plainString, i+1
			case c == '"':
				add(`"`)
				state, i = quotedIdent, i+1
			case c == ';':
				flush(i)
				start, i = i+1, i+1
			case c == '$':
				if t := dollarTag(src[i:]); t != "" {
					state, tag, i = dollarString, t, i+len(t)
				} else {
					add("$")
					i++
				}
			case strings.IndexByte(pgSpace, c) >= 0:
				i++
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80:
				j := i + 1
				for j < len(src) && (isIdentStart(src[j]) || src[j] >= '0' && src[j] <= '9' || src[j] == '$') {
					j++
				}
				word := src[i:j]
				switch {
				case j < len(src) && src[j] == '\'' && (word == "e" || word == "E"):
					state, i = escapeString, j+1
				case j < len(src) && src[j] == '\'' && len(word) == 1 && strings.Contains("bBxXnN", word):
					state, i = plainString, j+1
				case (word == "u" || word == "U") && at(j, "&'"):
					state, i = plainString, j+2
				default:
					add(foldASCII(word))
					i = j
				}
			default:
				add(string(c))
				i++
			}
		}
	}
	if state != top && state != lineComment {
		return nil, false
	}
	flush(len(src))
	return out, true
}

// pgSpace are the bytes PostgreSQL's lexer skips as space (and \v, which the lexer here skips too).
const pgSpace = " \t\n\r\f\v"

// dollarTag is the $tag$ that s starts with ("" when it starts none): a $, then optionally an identifier
// start and identifier characters other than $, then a $.
func dollarTag(s string) string {
	j := 1
	if j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] == '_' || s[j] >= 0x80) {
		for j < len(s) && s[j] != '$' && (isIdentStart(s[j]) || s[j] >= '0' && s[j] <= '9') {
			j++
		}
	}
	if j < len(s) && s[j] == '$' {
		return s[:j+1]
	}
	return ""
}

// foldASCII upper-cases the ASCII letters of a word, as PostgreSQL's keyword lookup compares them.
func foldASCII(w string) string {
	b := []byte(w)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// TestLexerRefusesHiddenStatements pins the fuzzer's findings at the level of the checks: what PostgreSQL
// runs as a session statement, or as a second statement, is refused before it reaches the database.
func TestLexerRefusesHiddenStatements(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"--\rCOMMIT AND\nCHAIN",
		"--\rSET statement_timeout =\n0",
		"CREATE TABLE t (id int);\u00a0SET ROLE x",
		"\u00a0SET ROLE x",
	} {
		stmts, _, err := executeStatements(client.DatabaseActionRequest{Action: client.DatabaseActionExecute, SQL: src})
		if err == nil {
			// Accepted only if no text is a session statement to PostgreSQL.
			for _, text := range stmts {
				seen, _ := refSplit(text)
				require.False(t, len(seen) > 0 && sessionKeywords[seen[0].keyword], "%q runs %q", src, text)
			}
		}
		if strings.Contains(src, "\u00a0") {
			continue // PostgreSQL refuses the word "\u00a0SET" itself
		}
		require.Error(t, err, "%q", src)
	}
	for _, src := range []string{"SELECT 1 --\r; SET ROLE x", "--\rSET search_path TO\nshow"} {
		require.Error(t, checkReadSQL(src), "%q", src)
	}
}
