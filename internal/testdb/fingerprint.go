package testdb

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// structureSQL digests the structure of one schema (its relations, columns with their types and
// defaults, constraints, indexes, triggers, functions and types) and the migrations recorded in it. The
// text names the schema (qualified names) so fingerprints are only compared for the same schema.
const structureSQL = `SELECT md5(coalesce(string_agg(item, E'\n' ORDER BY item), '')) FROM (
	SELECT format('rel %s %s %s', relname, relkind, relrowsecurity) FROM pg_class WHERE relnamespace = ?0::regnamespace
	UNION ALL
	SELECT format('col %s %s %s %s %s %s %s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
			pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated)
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE c.relnamespace = ?0::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
	UNION ALL
	SELECT format('con %s %s', conname, pg_get_constraintdef(oid)) FROM pg_constraint WHERE connamespace = ?0::regnamespace
	UNION ALL
	SELECT format('idx %s', pg_get_indexdef(i.indexrelid)) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relnamespace = ?0::regnamespace
	UNION ALL
	SELECT format('trg %s', pg_get_triggerdef(t.oid)) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
		WHERE c.relnamespace = ?0::regnamespace AND NOT t.tgisinternal
	UNION ALL
	SELECT format('pol %s %s', pol.polname, pg_get_expr(pol.polqual, pol.polrelid)) FROM pg_policy pol
		JOIN pg_class c ON c.oid = pol.polrelid WHERE c.relnamespace = ?0::regnamespace
	UNION ALL
	SELECT format('fn %s %s', oid::regprocedure, md5(prosrc)) FROM pg_proc WHERE pronamespace = ?0::regnamespace
	UNION ALL
	SELECT format('typ %s %s', typname, typtype) FROM pg_type WHERE typnamespace = ?0::regnamespace AND typrelid = 0
) items(item)`

// fingerprint digests schema name's structure and recorded migrations, in transaction tx; an error (the
// schema or its migration table gone) means the schema is not fit for reuse.
func fingerprint(ctx context.Context, tx bun.Tx, name string) (string, error) {
	// Parallel workers cost more to start than this query over the catalogs costs.
	if _, err := tx.ExecContext(ctx, "SET LOCAL max_parallel_workers_per_gather = 0"); err != nil {
		return "", err
	}
	var digest, versions string
	err := tx.QueryRowContext(ctx, "SELECT ("+structureSQL+"), (SELECT string_agg(version, ',' ORDER BY version) FROM "+
		name+".schema_migrations)", name).Scan(&digest, &versions)
	if err != nil {
		return "", fmt.Errorf("fingerprint schema %s: %w", name, err)
	}
	return digest + " " + versions, nil
}
