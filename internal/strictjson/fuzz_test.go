package strictjson_test

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/svcplatform/svc/internal/strictjson"
)

// FuzzDecode checks, for any input, that Decode never panics; that what it accepts is JSON that
// encoding/json reads to the same value (so no duplicate key, replaced character or rounded number hides
// in it), holding only valid text within the nesting limit; and that its result survives a round trip.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `null`, `"x"`, `0`, `-0.5e-3`, `{"a":[1,2,{"b":null}]}`,
		`{"serviceId":"nope","serviceId":"managed-workflows"}`, `{"a":"\u0000"}`, `{"a":"\\u0000"}`,
		`{"a":"\ud800"}`, `{"a":"\ud83d\ude00"}`, "{\"a\":\"\xff\"}", `{"a":1e400}`, `{"a":12345678901234567890}`,
		`{"input":{"t":"a\nb"}}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		`{"a":tru}`, `{"a":"\u00`, `{"a" 1}`, ` {"a":[1,]} `, `"\/\b\f\n\r\t"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := strictjson.Decode(data, strictjson.Options{FreeText: freeInput})
		if err != nil {
			if _, ok := err.(*strictjson.Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		var std any
		if err := json.Unmarshal(data, &std); err != nil {
			t.Fatalf("accepted what encoding/json refuses (%v): %q", err, data)
		}
		if !sameValue(got, std) {
			t.Fatalf("encoding/json reads another value: %#v vs %#v", got, std)
		}
		if d := depth(got); d > strictjson.MaxDepth {
			t.Fatalf("accepted depth %d", d)
		}
		checkText(t, got, nil)
		again, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		back, err := strictjson.Decode(again, strictjson.Options{FreeText: func(strictjson.Path) bool { return true }})
		if err != nil {
			t.Fatalf("round trip refused: %v (%s)", err, again)
		}
		if !sameValue(back, std) {
			t.Fatalf("round trip changed the value: %s", again)
		}
	})
}

// sameValue compares a strict result with encoding/json's: numbers by their float64 value.
func sameValue(strict, std any) bool {
	switch s := strict.(type) {
	case map[string]any:
		m, ok := std.(map[string]any)
		if !ok || len(m) != len(s) {
			return false
		}
		for k, v := range s {
			if !sameValue(v, m[k]) {
				return false
			}
		}
		return true
	case []any:
		a, ok := std.([]any)
		if !ok || len(a) != len(s) {
			return false
		}
		for i := range s {
			if !sameValue(s[i], a[i]) {
				return false
			}
		}
		return true
	case json.Number:
		f, err := strconv.ParseFloat(string(s), 64)
		g, ok := std.(float64)
		return err == nil && ok && !math.IsInf(f, 0) && f == g
	default:
		return strict == std
	}
}

func depth(v any) int {
	best := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			best = max(best, depth(e))
		}
		return best + 1
	case []any:
		for _, e := range v {
			best = max(best, depth(e))
		}
		return best + 1
	}
	return 0
}

// checkText fails when a string or key is invalid UTF-8 or holds a control character other than the
// white space freeInput admits at its path.
func checkText(t *testing.T, v any, path strictjson.Path) {
	t.Helper()
	text := func(s string, free bool) {
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 accepted: %q", s)
		}
		for _, r := range s {
			if unicode.IsControl(r) && !(free && (r == '\t' || r == '\n' || r == '\r')) {
				t.Fatalf("control character accepted at %s: %q", path, s)
			}
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			text(k, false)
			checkText(t, e, append(path[:len(path):len(path)], strictjson.Step{Key: k}))
		}
	case []any:
		for i, e := range v {
			checkText(t, e, append(path[:len(path):len(path)], strictjson.Step{Index: i, IsIndex: true}))
		}
	case string:
		text(v, freeInput(path))
	}
}
