package pg_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/testdb"
)

type doc struct {
	bun.BaseModel `bun:"table:docs"`
	ID            int             `bun:"id,pk"`
	Data          map[string]any  `bun:"data,type:jsonb"`
	Raw           json.RawMessage `bun:"raw,type:jsonb"`
	Name          string          `bun:"name"`
}

func docsTable(t *testing.T) *bun.DB {
	t.Helper()
	db := testdb.New(t)
	_, err := db.ExecContext(context.Background(), "CREATE TABLE docs (id int PRIMARY KEY, data jsonb, raw jsonb, name text)")
	require.NoError(t, err)
	return db
}

// TestNULIsRefusedNotASyntaxError: a string holding NUL used to be written as bun's error marker, which
// PostgreSQL read as `syntax error at or near ":"`; it is now refused as a value text cannot hold.
func TestNULIsRefusedNotASyntaxError(t *testing.T) {
	t.Parallel()
	db := docsTable(t)
	ctx := context.Background()
	for _, s := range []string{"a\x00b", "\x00", `it's \ a` + "\x00"} {
		var n int
		err := db.NewSelect().Table("docs").ColumnExpr("count(*)").Where("name = ?", s).Scan(ctx, &n)
		require.Error(t, err)
		require.True(t, pg.Unstorable(err), "%v", err)
		require.NotContains(t, err.Error(), "syntax error")

		_, err = db.NewInsert().Model(&doc{ID: 1, Name: s}).Exec(ctx)
		require.True(t, pg.Unstorable(err), "%v", err)
	}
	require.False(t, pg.Unstorable(nil))
}

// TestLiteralsRoundTrip: strings and JSON with quotes, backslashes and escapes are stored as given.
func TestLiteralsRoundTrip(t *testing.T) {
	t.Parallel()
	db := docsTable(t)
	ctx := context.Background()
	texts := []string{`\u0000`, `\\u0000`, `a'b`, `\'; DROP TABLE docs; --`, `"\"`, `\`, "tab\tnew\nline", "é ☃ 𝄞"}
	for i, s := range texts {
		in := doc{ID: i + 1, Name: s, Data: map[string]any{"s": s, s: []any{s}}, Raw: mustJSON(t, map[string]string{"s": s})}
		_, err := db.NewInsert().Model(&in).Exec(ctx)
		require.NoError(t, err, "%q", s)
		var out doc
		require.NoError(t, db.NewSelect().Model(&out).Where("id = ?", in.ID).Scan(ctx))
		require.Equal(t, s, out.Name)
		require.Equal(t, in.Data, out.Data, "%q", s)
		var raw map[string]string
		require.NoError(t, json.Unmarshal(out.Raw, &raw))
		require.Equal(t, s, raw["s"])
	}
}

// TestJSONNULIsRefused: a NUL character in a jsonb value used to be stored as the six characters
// `\u0000`; jsonb cannot hold it, so the write is refused instead.
func TestJSONNULIsRefused(t *testing.T) {
	t.Parallel()
	db := docsTable(t)
	ctx := context.Background()
	_, err := db.NewInsert().Model(&doc{ID: 1, Data: map[string]any{"s": "a\x00b"}}).Exec(ctx)
	require.True(t, pg.Unstorable(err), "%v", err)
	_, err = db.NewInsert().Model(&doc{ID: 2, Raw: json.RawMessage(`{"s":"a\u0000b"}`)}).Exec(ctx)
	require.True(t, pg.Unstorable(err), "%v", err)
	n, err := db.NewSelect().Table("docs").Count(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
