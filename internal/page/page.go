// Package page implements the cursor pagination every list route shares: limit 1..200 (default 50) and
// an opaque cursor naming the last row seen by (created_at, id), newest first.
package page

import (
	"encoding/base64"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/strictjson"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Limits of a page.
const (
	DefaultLimit = 50
	MaxLimit     = 200
)

// Cursor is the position after which the next page starts.
type Cursor struct {
	CreatedAt time.Time
	ID        string
}

// Params are a list request's paging inputs, validated.
type Params struct {
	Limit int
	After *Cursor
}

// Parse validates limit (0 means default) and the opaque cursor.
func Parse(limit int, cursor string) (Params, error) {
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		return Params{}, svcerr.Invalid("limit", "limit must be between 1 and %d", MaxLimit)
	}
	p := Params{Limit: limit}
	if cursor == "" {
		return p, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return Params{}, svcerr.Invalid("cursor", "cursor is not one this API issued")
	}
	ts, id, ok := strings.Cut(string(raw), "|")
	t, terr := time.Parse(time.RFC3339Nano, ts)
	if !ok || terr != nil || id == "" || strictjson.CheckText(id) != nil { // a forged id must not carry NUL to SQL
		return Params{}, svcerr.Invalid("cursor", "cursor is not one this API issued")
	}
	p.After = &Cursor{CreatedAt: t, ID: id}
	return p, nil
}

// Encode makes the opaque cursor for a row.
func Encode(c Cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.CreatedAt.UTC().Format(time.RFC3339Nano) + "|" + c.ID))
}

// Next returns the cursor of the page after rows (fetched with Limit+1 rows), and trims rows to Limit.
func Next[T any](p Params, rows []T, key func(T) Cursor) ([]T, *string) {
	if len(rows) <= p.Limit {
		return rows, nil
	}
	rows = rows[:p.Limit]
	c := Encode(key(rows[len(rows)-1]))
	return rows, &c
}
