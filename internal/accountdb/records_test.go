package accountdb_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/accountdb/accountdbtest"
)

func records(t *testing.T, d *accountdbtest.DB, req client.DatabaseQueryRequest) (*client.DatabaseQueryResult, error) {
	t.Helper()
	return accountdb.Records(context.Background(), d.ReaderDB, req, accountdb.Limits{Timeout: 10 * time.Second})
}

// pageAll pages through req's rows and answers their first values, failing on a page over limit.
func pageAll(t *testing.T, d *accountdbtest.DB, req client.DatabaseQueryRequest) []float64 {
	t.Helper()
	var ids []float64
	for pages := 0; ; pages++ {
		require.Less(t, pages, 1000, "paging ends")
		res, err := records(t, d, req)
		require.NoError(t, err)
		require.LessOrEqual(t, len(res.Rows), req.Limit)
		for _, r := range res.Rows {
			var vals []any
			require.NoError(t, json.Unmarshal(r, &vals))
			ids = append(ids, vals[0].(float64))
		}
		if res.NextCursor == "" {
			return ids
		}
		req.Cursor = res.NextCursor
	}
}

func TestRecordsPageThroughEveryRowOnce(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	mustExec(t, d.OwnerDB, `CREATE TABLE "Items" (id int PRIMARY KEY, grp text NOT NULL, note text)`)
	mustExec(t, d.OwnerDB, `INSERT INTO "Items" SELECT g, CASE WHEN g % 3 = 0 THEN 'a' ELSE 'b' END, CASE WHEN g % 5 = 0 THEN NULL ELSE 'n' END FROM generate_series(1, 257) g`)

	ids := pageAll(t, d, client.DatabaseQueryRequest{Table: "Items", Limit: 10})
	require.Len(t, ids, 257)
	for i, id := range ids {
		require.Equal(t, float64(i+1), id)
	}

	// Ordered by a NOT NULL column, ties by the key: still every row once.
	ids = pageAll(t, d, client.DatabaseQueryRequest{Table: "Items", OrderBy: "grp", Limit: 7})
	require.Len(t, ids, 257)
	seen := map[float64]bool{}
	for _, id := range ids {
		require.False(t, seen[id], "row %v twice", id)
		seen[id] = true
	}
	require.Equal(t, float64(3), ids[0], "group a first")

	// Filtered, with NULL matching NULL.
	ids = pageAll(t, d, client.DatabaseQueryRequest{Table: "Items", Where: map[string]json.RawMessage{"grp": json.RawMessage(`"a"`), "note": json.RawMessage(`null`)}, Limit: 2})
	require.Equal(t, []float64{15, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 180, 195, 210, 225, 240, 255}, ids)

	res, err := records(t, d, client.DatabaseQueryRequest{Table: "Items"})
	require.NoError(t, err)
	require.Len(t, res.Rows, accountdb.DefaultRecordsLimit)
	require.Equal(t, []client.DatabaseColumn{{Name: "id", Type: "integer"}, {Name: "grp", Type: "text"}, {Name: "note", Type: "text"}}, res.Columns)
}

func TestRecordsRefuseUnknownNames(t *testing.T) {
	t.Parallel()
	d := accountdbtest.New(t, accountdbtest.Options{})
	mustExec(t, d.OwnerDB, `CREATE TABLE t (id int PRIMARY KEY, note text); CREATE TABLE nokey (x int)`)
	cases := []struct {
		req   client.DatabaseQueryRequest
		param string
	}{
		{client.DatabaseQueryRequest{Table: "nope"}, "table"},
		{client.DatabaseQueryRequest{Table: `t"; DROP TABLE t; --`}, "table"},
		{client.DatabaseQueryRequest{Table: "nokey"}, "table"},
		{client.DatabaseQueryRequest{Table: "pg_class"}, "table"},
		{client.DatabaseQueryRequest{Table: "t", Where: map[string]json.RawMessage{"nope": json.RawMessage(`1`)}}, "where.nope"},
		{client.DatabaseQueryRequest{Table: "t", OrderBy: "nope"}, "orderBy"},
		{client.DatabaseQueryRequest{Table: "t", OrderBy: "note"}, "orderBy"},
		{client.DatabaseQueryRequest{Table: "t", Cursor: "garbage"}, "cursor"},
		{client.DatabaseQueryRequest{Table: "t", Limit: accountdb.MaxRecordsLimit + 1}, "limit"},
	}
	for _, c := range cases {
		_, err := records(t, d, c.req)
		requireInvalid(t, err, c.param)
	}
	// A cursor of another order is refused.
	mustExec(t, d.OwnerDB, `INSERT INTO t SELECT g FROM generate_series(1, 3) g`)
	res, err := records(t, d, client.DatabaseQueryRequest{Table: "t", Limit: 1})
	require.NoError(t, err)
	require.NotEmpty(t, res.NextCursor)
	_, err = records(t, d, client.DatabaseQueryRequest{Table: "t", OrderBy: "id", Cursor: res.NextCursor})
	requireInvalid(t, err, "cursor")
}
