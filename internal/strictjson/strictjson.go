// Package strictjson decodes untrusted JSON strictly, refusing what encoding/json lets through or
// silently changes: duplicate object keys (encoding/json keeps the last), invalid UTF-8 and lone
// surrogate escapes (replaced with U+FFFD), NUL and other control characters in strings, numbers that do
// not fit an IEEE double (1e400) and integers beyond ±(2^53−1) (rounded), and nesting deeper than a
// limit. Every refusal is an *Error naming where it is (Path). The API's edge middleware passes every
// request body, path parameter, query parameter and header value through it (see docs/API.md).
package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDepth is the default nesting limit: the body itself is level 1, each object or array inside it one
// level more.
const MaxDepth = 64

// MaxSafeInteger is the largest integer an IEEE double holds exactly; integer literals beyond
// ±MaxSafeInteger are refused, since every JSON reader that uses doubles would round them.
const MaxSafeInteger = 1<<53 - 1

// Options tune Decode.
type Options struct {
	// MaxDepth is the nesting limit (MaxDepth when 0).
	MaxDepth int
	// FreeText reports whether the string value at path is free text, which may hold tab, line feed
	// and carriage return; nil means no string may. Object keys never may.
	FreeText func(path Path) bool
}

// Step is one step of a Path: an object member (Key) or an array element (Index, when IsIndex).
type Step struct {
	Key     string
	Index   int
	IsIndex bool
}

// Path locates a value inside a document; the empty path is the document itself.
type Path []Step

// String writes the path as the API names fields: input.items[2].name, with keys that are not plain
// identifiers quoted (input["a.b"]).
func (p Path) String() string {
	var b strings.Builder
	for _, s := range p {
		switch {
		case s.IsIndex:
			fmt.Fprintf(&b, "[%d]", s.Index)
		case plainKey(s.Key):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		default:
			q, _ := json.Marshal(s.Key)
			b.WriteByte('[')
			b.Write(q)
			b.WriteByte(']')
		}
	}
	return b.String()
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		ok := r == '_' || r == '$' || r == '-' && i > 0 || r < utf8.RuneSelf && (unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r))
		if !ok {
			return false
		}
	}
	return true
}

// Error is a refusal: what is wrong (Message) and where (Path; Offset is the byte offset in the input).
type Error struct {
	Path    Path
	Offset  int
	Message string
}

// Error names the field when there is one.
func (e *Error) Error() string {
	if p := e.Path.String(); p != "" {
		return p + ": " + e.Message
	}
	return e.Message
}

// Param is the field at fault, as the API names it ("" for the document itself).
func (e *Error) Param() string { return e.Path.String() }

// ErrText is the error of CheckText.
var ErrText = errors.New("text must be valid UTF-8 without control characters")

// CheckText refuses text that is not valid UTF-8 or holds a control character (NUL, tab, line breaks,
// DEL, C1), the rule for path and query parameters and header values.
func CheckText(s string) error {
	if msg := textProblem(s, false); msg != "" {
		return fmt.Errorf("%w: %s", ErrText, msg)
	}
	return nil
}

// textProblem describes why s is refused as text, or "".
func textProblem(s string, freeText bool) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Sprintf("invalid UTF-8 at byte %d", i)
		}
		if msg := runeProblem(r, freeText); msg != "" {
			return msg
		}
		i += size
	}
	return ""
}

func runeProblem(r rune, freeText bool) string {
	switch {
	case r == 0:
		return "holds a NUL character (U+0000)"
	case freeText && (r == '\t' || r == '\n' || r == '\r'):
		return ""
	case unicode.IsControl(r):
		return fmt.Sprintf("holds the control character %U", r)
	}
	return ""
}

// Decode checks data against the rules and returns it as map[string]any, []any, string, json.Number,
// bool or nil. Exactly one JSON value, with white space around it, is allowed.
func Decode(data []byte, opts Options) (any, error) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = MaxDepth
	}
	d := &decoder{data: data, opts: opts}
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos < len(d.data) {
		return nil, d.fail("malformed JSON: unexpected data after the value at byte %d", d.pos)
	}
	return v, nil
}

type decoder struct {
	data []byte
	pos  int
	opts Options
	path Path
}

func (d *decoder) fail(format string, args ...any) *Error {
	return &Error{Path: append(Path(nil), d.path...), Offset: d.pos, Message: fmt.Sprintf(format, args...)}
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value decodes the value at pos; depth is the number of objects and arrays around it.
func (d *decoder) value(depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.fail("malformed JSON: unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		if depth >= d.opts.MaxDepth {
			return nil, d.fail("nesting deeper than %d levels", d.opts.MaxDepth)
		}
		if c == '{' {
			return d.object(depth + 1)
		}
		return d.array(depth + 1)
	case c == '"':
		free := d.opts.FreeText != nil && d.opts.FreeText(d.path)
		return d.str(free)
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	for _, lit := range literals {
		if strings.HasPrefix(string(d.data[d.pos:min(len(d.data), d.pos+len(lit.text))]), lit.text) {
			d.pos += len(lit.text)
			return lit.value, nil
		}
	}
	return nil, d.fail("malformed JSON: unexpected character at byte %d", d.pos)
}

var literals = []struct {
	text  string
	value any
}{{"true", true}, {"false", false}, {"null", nil}}

func (d *decoder) object(depth int) (any, error) {
	d.pos++ // {
	out := map[string]any{}
	d.skipSpace()
	if d.peek() == '}' {
		d.pos++
		return out, nil
	}
	for {
		if d.peek() != '"' {
			return nil, d.fail("malformed JSON: expected a member name at byte %d", d.pos)
		}
		keyAt := d.pos
		key, err := d.str(false)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Message = strings.Replace(e.Message, "the string", "a member name", 1)
			}
			return nil, err
		}
		d.path = append(d.path, Step{Key: key.(string)})
		if _, dup := out[key.(string)]; dup {
			d.pos = keyAt
			return nil, d.fail("duplicate member name")
		}
		d.skipSpace()
		if d.peek() != ':' {
			return nil, d.fail("malformed JSON: expected ':' at byte %d", d.pos)
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		out[key.(string)] = v
		d.path = d.path[:len(d.path)-1]
		if done, err := d.next('}'); done || err != nil {
			return out, err
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	d.pos++ // [
	out := []any{}
	d.skipSpace()
	if d.peek() == ']' {
		d.pos++
		return out, nil
	}
	for i := 0; ; i++ {
		d.path = append(d.path, Step{Index: i, IsIndex: true})
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		d.path = d.path[:len(d.path)-1]
		if done, err := d.next(']'); done || err != nil {
			return out, err
		}
	}
}

// next consumes the ',' between members or elements (false) or the closing character (true).
func (d *decoder) next(closing byte) (bool, error) {
	d.skipSpace()
	switch d.peek() {
	case ',':
		d.pos++
		d.skipSpace()
		return false, nil
	case closing:
		d.pos++
		return true, nil
	}
	return false, d.fail("malformed JSON: expected ',' or '%c' at byte %d", closing, d.pos)
}

func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// str decodes the string at pos; free admits tab, line feed and carriage return.
func (d *decoder) str(free bool) (any, error) {
	d.pos++ // "
	var b strings.Builder
	for {
		if d.pos >= len(d.data) {
			return nil, d.fail("malformed JSON: unterminated string")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return b.String(), nil
		case c == '\\':
			r, err := d.escape()
			if err != nil {
				return nil, err
			}
			if msg := runeProblem(r, free); msg != "" {
				return nil, d.fail("the string %s", msg)
			}
			b.WriteRune(r)
		case c < 0x20:
			return nil, d.fail("the string holds an unescaped control character %U", rune(c))
		case c < utf8.RuneSelf:
			if msg := runeProblem(rune(c), free); msg != "" {
				return nil, d.fail("the string %s", msg)
			}
			b.WriteByte(c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				return nil, d.fail("the string holds invalid UTF-8 at byte %d", d.pos)
			}
			if msg := runeProblem(r, free); msg != "" {
				return nil, d.fail("the string %s", msg)
			}
			b.WriteRune(r)
			d.pos += size
		}
	}
}

var simpleEscapes = map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape decodes the escape sequence at pos, joining a surrogate pair into one character.
func (d *decoder) escape() (rune, error) {
	if d.pos+1 >= len(d.data) {
		return 0, d.fail("malformed JSON: unterminated escape")
	}
	c := d.data[d.pos+1]
	d.pos += 2
	if r, ok := simpleEscapes[c]; ok {
		return r, nil
	}
	if c != 'u' {
		return 0, d.fail("malformed JSON: invalid escape \\%c at byte %d", c, d.pos-2)
	}
	r, err := d.hex4()
	if err != nil {
		return 0, err
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return 0, d.fail("the string holds a lone surrogate \\u%04x", r)
	case r < 0xD800 || r > 0xDBFF:
		return r, nil
	}
	if d.pos+1 >= len(d.data) || d.data[d.pos] != '\\' || d.data[d.pos+1] != 'u' {
		return 0, d.fail("the string holds a lone surrogate \\u%04x", r)
	}
	d.pos += 2
	low, err := d.hex4()
	if err != nil {
		return 0, err
	}
	if low < 0xDC00 || low > 0xDFFF {
		return 0, d.fail("the string holds a lone surrogate \\u%04x", r)
	}
	return 0x10000 + (r-0xD800)<<10 + (low - 0xDC00), nil
}

func (d *decoder) hex4() (rune, error) {
	if d.pos+4 > len(d.data) {
		return 0, d.fail("malformed JSON: unterminated \\u escape")
	}
	n, err := strconv.ParseUint(string(d.data[d.pos:d.pos+4]), 16, 32)
	if err != nil {
		return 0, d.fail("malformed JSON: invalid \\u escape at byte %d", d.pos-2)
	}
	d.pos += 4
	return rune(n), nil
}

// number decodes the number at pos, refusing what a double cannot hold.
func (d *decoder) number() (any, error) {
	start := d.pos
	if d.peek() == '-' {
		d.pos++
	}
	switch {
	case d.peek() == '0':
		d.pos++
	case d.digits() == 0:
		return nil, d.fail("malformed JSON: invalid number at byte %d", start)
	}
	integer := true
	if d.peek() == '.' {
		integer = false
		d.pos++
		if d.digits() == 0 {
			return nil, d.fail("malformed JSON: invalid number at byte %d", start)
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		integer = false
		d.pos++
		if c := d.peek(); c == '+' || c == '-' {
			d.pos++
		}
		if d.digits() == 0 {
			return nil, d.fail("malformed JSON: invalid number at byte %d", start)
		}
	}
	text := string(d.data[start:d.pos])
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		d.pos = start
		return nil, d.fail("the number %s is out of range (it does not fit a double)", abbreviate(text))
	}
	if integer && (f > MaxSafeInteger || f < -MaxSafeInteger) {
		d.pos = start
		return nil, d.fail("the integer %s is beyond ±%d and would be rounded; send it as a string", abbreviate(text), MaxSafeInteger)
	}
	return json.Number(text), nil
}

func (d *decoder) digits() int {
	n := 0
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
		n++
	}
	return n
}

// abbreviate shortens a long number for a message.
func abbreviate(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:20] + "…" + s[len(s)-10:]
}
