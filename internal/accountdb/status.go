package accountdb

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/schema"
)

// Structure limits: the tables Status describes, and when it counts rows exactly.
const (
	// maxTables bounds the tables one status lists (in name order).
	maxTables = 1000
	// exactCountBytes: a table never analyzed (pg_class.reltuples < 0) whose heap is at most this big
	// is counted exactly (count(*)); a bigger one reports 0 until autovacuum's ANALYZE estimates it.
	exactCountBytes = 8 << 20
	// maxExactCounts bounds the exact counts of one status.
	maxExactCounts = 50
)

// Info is an account's database as Status reads it: its row and, when ready, size and structure.
type Info struct {
	Row       *schema.AccountDatabase
	SizeBytes int64
	Tables    []client.DatabaseTable
}

// ToWire is the database as the API shows it.
func ToWire(i *Info) client.Database {
	r := i.Row
	d := client.Database{AccountID: r.AccountID, Status: r.Status, Name: r.DatabaseName, SizeBytes: i.SizeBytes,
		Tables: i.Tables, CreatedAt: r.CreatedAt, ReadyAt: r.ReadyAt}
	if r.Status == schema.DatabaseDeleted {
		d.Name = ""
	}
	if d.Tables == nil {
		d.Tables = []client.DatabaseTable{}
	}
	return d
}

// Status answers the account's database: its status, and when ready its size (pg_database_size) and the
// tables of schema public with their columns, primary keys and row estimates (pg_class.reltuples; an
// exact count for a small table never analyzed yet), read as the reader role. An account that never
// provisioned one is an svcerr NotFound.
func (c *Cluster) Status(ctx context.Context, accountID string) (*Info, error) {
	r, err := c.Row(ctx, accountID)
	if err != nil {
		return nil, err
	}
	info := &Info{Row: r}
	if r.Status != schema.DatabaseReady {
		return info, nil
	}
	db, err := c.Open(ctx, accountID, Reader)
	if err != nil {
		return nil, err
	}
	if err := db.NewRaw("SELECT pg_database_size(current_database())").Scan(ctx, &info.SizeBytes); err != nil {
		return nil, fmt.Errorf("measure the database of account %s: %w", accountID, err)
	}
	if info.Tables, err = structure(ctx, db); err != nil {
		return nil, fmt.Errorf("read the structure of account %s's database: %w", accountID, err)
	}
	return info, nil
}

// tableRow, columnRow and keyRow are what the catalog queries of structure scan.
type tableRow struct {
	OID      int64  `bun:"oid"`
	Name     string `bun:"name"`
	Tuples   int64  `bun:"tuples"`
	Bytes    int64  `bun:"bytes"`
	Analyzed bool   `bun:"analyzed"`
}

type columnRow struct {
	OID      int64  `bun:"oid"`
	Name     string `bun:"name"`
	Type     string `bun:"type"`
	Nullable bool   `bun:"nullable"`
}

// publicTables selects the ordinary and partitioned tables of schema public.
const publicTables = "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace " +
	"WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')"

// structure reads the tables of schema public from the catalog (which every role may read, so no
// table's privileges hide it).
func structure(ctx context.Context, db bun.IDB) ([]client.DatabaseTable, error) {
	var tables []tableRow
	if err := db.NewRaw("SELECT c.oid::bigint AS oid, c.relname AS name, greatest(c.reltuples, 0)::bigint AS tuples, "+
		"pg_relation_size(c.oid) AS bytes, c.reltuples >= 0 AS analyzed "+publicTables+" ORDER BY c.relname LIMIT ?", maxTables).
		Scan(ctx, &tables); err != nil {
		return nil, err
	}
	var cols []columnRow
	if err := db.NewRaw("SELECT a.attrelid::bigint AS oid, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, "+
		"NOT a.attnotnull AS nullable FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "+
		"WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attrelid, a.attnum").
		Scan(ctx, &cols); err != nil {
		return nil, err
	}
	var keys []columnRow
	if err := db.NewRaw("SELECT i.indrelid::bigint AS oid, a.attname AS name FROM pg_index i "+
		"JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace "+
		"CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) "+
		"JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "+
		"WHERE i.indisprimary AND n.nspname = 'public' ORDER BY i.indrelid, k.ord").Scan(ctx, &keys); err != nil {
		return nil, err
	}
	return assemble(ctx, db, tables, cols, keys), nil
}

// assemble makes the wire tables of the catalog rows, counting the small unanalyzed ones exactly.
func assemble(ctx context.Context, db bun.IDB, tables []tableRow, cols, keys []columnRow) []client.DatabaseTable {
	byOID := make(map[int64]*client.DatabaseTable, len(tables))
	out := make([]client.DatabaseTable, len(tables))
	counts := 0
	for i, t := range tables {
		out[i] = client.DatabaseTable{Name: t.Name, Columns: []client.DatabaseTableColumn{}, PrimaryKey: []string{}, RowEstimate: t.Tuples}
		if !t.Analyzed && t.Bytes <= exactCountBytes && counts < maxExactCounts {
			counts++
			// A table the reader may not read (its owner revoked SELECT) keeps its estimate.
			var n int64
			if err := db.NewRaw("SELECT count(*) FROM public.?", bun.Ident(t.Name)).Scan(ctx, &n); err == nil {
				out[i].RowEstimate, out[i].RowEstimateExact = n, true
			}
		}
		byOID[t.OID] = &out[i]
	}
	for _, col := range cols {
		if t := byOID[col.OID]; t != nil {
			t.Columns = append(t.Columns, client.DatabaseTableColumn{Name: col.Name, Type: col.Type, Nullable: col.Nullable})
		}
	}
	for _, k := range keys {
		if t := byOID[k.OID]; t != nil {
			t.PrimaryKey = append(t.PrimaryKey, k.Name)
		}
	}
	return out
}
