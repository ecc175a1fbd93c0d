package page_test

import (
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/strictjson"
	"github.com/svcplatform/svc/internal/svcerr"
)

// TestCursorIDMustBeText: a cursor is opaque, but a forged one must not carry an id that is not text
// (a NUL, say) towards SQL.
func TestCursorIDMustBeText(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for _, id := range []string{"run_\x00", "run_\n", "run_\xff", ""} {
		if _, err := page.Parse(0, page.Encode(page.Cursor{CreatedAt: at, ID: id})); !svcerr.Is(err, svcerr.InvalidRequest) {
			t.Errorf("id %q: %v", id, err)
		}
	}
	p, err := page.Parse(10, page.Encode(page.Cursor{CreatedAt: at, ID: "run_1|x"}))
	if err != nil || p.Limit != 10 || p.After.ID != "run_1|x" || !p.After.CreatedAt.Equal(at) {
		t.Fatalf("%+v %v", p, err)
	}
}

// FuzzCursor feeds any cursor and limit to Parse: it never panics, refuses with invalid_request naming
// limit or cursor, accepts only ids that are text, and what it accepts encodes back to the same position.
func FuzzCursor(f *testing.F) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	f.Add(page.Encode(page.Cursor{CreatedAt: at, ID: "run_abc"}), 0)
	f.Add(page.Encode(page.Cursor{CreatedAt: at, ID: "a|b"}), 200)
	f.Add("MjAyNi0wMS0wMlQwMzowNDowNS4wMDAwMDAwMDZafHJ1bl8A", 50) // an id with NUL
	f.Add("zzz", 201)
	f.Add("", -1)
	f.Add("fA", 1) // "|"
	f.Fuzz(func(t *testing.T, cursor string, limit int) {
		p, err := page.Parse(limit, cursor)
		if err != nil {
			e, ok := svcerr.As(err)
			if !ok || e.Code != svcerr.InvalidRequest || (e.Param != "limit" && e.Param != "cursor") {
				t.Fatalf("refusal %#v", err)
			}
			return
		}
		if p.Limit < 1 || p.Limit > page.MaxLimit {
			t.Fatalf("limit %d accepted", p.Limit)
		}
		if p.After == nil {
			return
		}
		if p.After.ID == "" || strictjson.CheckText(p.After.ID) != nil {
			t.Fatalf("cursor id %q accepted", p.After.ID)
		}
		again, err := page.Parse(limit, page.Encode(*p.After))
		if err != nil || again.After.ID != p.After.ID || !again.After.CreatedAt.Equal(p.After.CreatedAt) {
			t.Fatalf("round trip: %+v %v", again, err)
		}
	})
}
