package strictjson_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/strictjson"
)

// freeInput treats description and everything under input as free text, as the API does.
func freeInput(p strictjson.Path) bool {
	return len(p) > 0 && !p[0].IsIndex && (p[0].Key == "input" || len(p) == 1 && p[0].Key == "description")
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	cases := []struct {
		name, doc, param, msg string
	}{
		{"NUL escape", `{"name":"a\u0000b"}`, "name", "NUL"},
		{"raw control", "{\"name\":\"a\x01b\"}", "name", "control character"},
		{"escaped control", `{"name":"a\u001fb"}`, "name", "U+001F"},
		{"DEL", `{"name":"a` + "\x7f" + `"}`, "name", "U+007F"},
		{"C1", `{"name":"a\u0085"}`, "name", "U+0085"},
		{"newline in a name", `{"name":"a\nb"}`, "name", "U+000A"},
		{"NUL in free text", `{"input":{"x":"a\u0000"}}`, "input.x", "NUL"},
		{"control in free text", `{"description":"a\u0007"}`, "description", "U+0007"},
		{"control in a key", `{"input":{"a\tb":1}}`, "input", "a member name holds the control character U+0009"},
		{"invalid UTF-8", "{\"name\":\"a\xffb\"}", "name", "invalid UTF-8"},
		{"encoded surrogate", "{\"name\":\"\xed\xa0\x80\"}", "name", "invalid UTF-8"},
		{"lone high surrogate", `{"name":"\ud800"}`, "name", "lone surrogate"},
		{"high surrogate then text", `{"name":"\ud800abc"}`, "name", "lone surrogate"},
		{"lone low surrogate", `{"name":"\udc00"}`, "name", "lone surrogate"},
		{"two high surrogates", `{"name":"\ud800\ud800"}`, "name", "lone surrogate"},
		{"duplicate key", `{"serviceId":"nope","serviceId":"managed-workflows"}`, "serviceId", "duplicate"},
		{"nested duplicate", `{"input":{"a":[{"b":1,"b":2}]}}`, "input.a[0].b", "duplicate"},
		{"too deep", deep, "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]", "deeper than 64"},
		{"1e400", `{"input":{"x":1e400}}`, "input.x", "out of range"},
		{"-1e400", `{"amountUsd":-1e400}`, "amountUsd", "out of range"},
		{"huge integer", `{"n":12345678901234567890}`, "n", "rounded"},
		{"trailing data", `{} {}`, "", "after the value"},
		{"trailing comma", `{"a":1,}`, "", "member name"},
		{"leading zero", `{"a":01}`, "", "expected ','"},
		{"bad escape", `{"a":"\x"}`, "a", "invalid escape"},
		{"short unicode escape", `{"a":"\u12"}`, "a", "invalid \\u escape"},
		{"unterminated", `{"a":"b`, "a", "unterminated"},
		{"empty", ``, "", "end of input"},
		{"bare word", `nul`, "", "unexpected character"},
		{"odd key", `{"a.b":{"c d":"\u0000"}}`, `["a.b"]["c d"]`, "NUL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := strictjson.Decode([]byte(tc.doc), strictjson.Options{FreeText: freeInput})
			require.Error(t, err)
			var e *strictjson.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, tc.param, e.Param())
			require.Contains(t, e.Message, tc.msg)
		})
	}
}

func TestAccepts(t *testing.T) {
	t.Parallel()
	ok := strings.Repeat("[", 64) + strings.Repeat("]", 64)
	docs := map[string]any{
		`{"a":"\\u0000"}`:                     map[string]any{"a": `\u0000`},
		`{"a":"\ud83d\ude00 é ☃"}`:            map[string]any{"a": "😀 é ☃"},
		`{"input":{"text":"line\none\ttab"}}`: map[string]any{"input": map[string]any{"text": "line\none\ttab"}},
		`{"description":"a\r\nb"}`:            map[string]any{"description": "a\r\nb"},
		` [1, -0.5e3, 9007199254740991, -9007199254740991, 1e308, true, false, null] `: []any{json.Number("1"), json.Number("-0.5e3"),
			json.Number("9007199254740991"), json.Number("-9007199254740991"), json.Number("1e308"), true, false, nil},
		`"\u2028\/"`: "\u2028/",
		`{}`:         map[string]any{},
	}
	docs[ok] = nil // checked for no error only
	for doc, want := range docs {
		got, err := strictjson.Decode([]byte(doc), strictjson.Options{FreeText: freeInput})
		require.NoError(t, err, doc)
		if want != nil {
			require.Equal(t, want, got, doc)
		}
	}
}

func TestMaxDepthOption(t *testing.T) {
	t.Parallel()
	_, err0 := strictjson.Decode([]byte(`{"a":{"b":1}}`), strictjson.Options{MaxDepth: 2})
	require.NoError(t, err0)
	_, err := strictjson.Decode([]byte(`{"a":{"b":[]}}`), strictjson.Options{MaxDepth: 2})
	require.ErrorContains(t, err, "a.b: nesting deeper than 2 levels")
}

func TestCheckText(t *testing.T) {
	t.Parallel()
	require.NoError(t, strictjson.CheckText("run_abc é"))
	require.NoError(t, strictjson.CheckText(""))
	for _, s := range []string{"a\x00", "a\tb", "a\nb", "\x7f", "\xff", "\xed\xa0\x80", "\u0085"} {
		require.ErrorIs(t, strictjson.CheckText(s), strictjson.ErrText, "%q", s)
	}
}
