package dbarchive

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Import restores the archive into db (connected as the database's owner) in one transaction: every
// table of schema public is dropped, the archive's tables are created, filled with COPY ... FROM STDIN
// (each entry streamed from the ZIP and checked again against the manifest's size, SHA-256 and row
// count) and given their constraints and indexes. Any failure rolls the whole restore back.
func (a *Archive) Import(ctx context.Context, db *bun.DB) error {
	return a.ImportWithProgress(ctx, db, nil)
}

// ImportWithProgress is Import calling progress, when not nil, after each table.
func (a *Archive) ImportWithProgress(ctx context.Context, db *bun.DB, progress func(Progress)) error {
	return a.ImportWith(ctx, db, ImportOptions{Progress: progress})
}

// ImportOptions tunes ImportWith.
type ImportOptions struct {
	// Progress, when not nil, is called after each table.
	Progress func(Progress)
	// BeforeCommit, when not nil, runs in the restore's transaction after its last statement and before
	// COMMIT (to note the transaction's id, say); its error rolls the restore back.
	BeforeCommit func(ctx context.Context, conn bun.Conn) error
}

// ImportWith is Import with options.
func (a *Archive) ImportWith(ctx context.Context, db *bun.DB, o ImportOptions) error {
	progress := o.Progress
	schemaSQL, err := a.readSmall(SchemaFile, DefaultMaxSchemaBytes)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(schemaSQL)
	if err := checkDigest(a.Manifest.Schema, int64(len(schemaSQL)), sum[:]); err != nil {
		return err
	}
	pre, post, err := parseSchema(string(schemaSQL))
	if err != nil {
		return err
	}
	err = inTx(ctx, db, "BEGIN", func(conn bun.Conn) error {
		if err := dropTables(ctx, conn); err != nil {
			return err
		}
		if err := runEach(ctx, conn, pre); err != nil {
			return err
		}
		p := Progress{TablesTotal: len(a.Manifest.Tables)}
		for i, t := range a.Manifest.Tables {
			if err := a.importTable(ctx, conn, t); err != nil {
				return err
			}
			p.TablesDone, p.Bytes = i+1, p.Bytes+t.Bytes
			if progress != nil {
				progress(p)
			}
		}
		if err := runEach(ctx, conn, post); err != nil {
			return err
		}
		if o.BeforeCommit != nil {
			return o.BeforeCommit(ctx, conn)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("import database archive: %w", err)
	}
	return nil
}

// dropTables drops every table of schema public.
func dropTables(ctx context.Context, conn bun.Conn) error {
	var names []string
	err := conn.NewRaw(`SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p')
		AND NOT relispartition ORDER BY relname`).Scan(ctx, &names)
	if err != nil {
		return fmt.Errorf("list the tables to replace: %w", err)
	}
	if len(names) == 0 {
		return nil
	}
	if _, err := conn.ExecContext(ctx, "DROP TABLE "+identList(names)+" CASCADE"); err != nil {
		return fmt.Errorf("drop the tables to replace: %w", err)
	}
	return nil
}

// runEach runs each statement alone, as a prepared statement, so none can carry a second one.
func runEach(ctx context.Context, conn bun.Conn, stmts []string) error {
	for _, q := range stmts {
		st, err := conn.PrepareContext(ctx, q)
		if err != nil {
			return structureError(q, err)
		}
		_, err = st.ExecContext(ctx)
		_ = st.Close()
		if err != nil {
			return structureError(q, err)
		}
	}
	return nil
}

func structureError(stmt string, err error) error {
	var pgErr pgdriver.Error
	if asPG(err, &pgErr) {
		return refuse(KindStructure, SchemaFile, "statement %.80q failed: %s", stmt, pgErr.Field('M'))
	}
	return fmt.Errorf("run %.80q: %w", stmt, err)
}

// importTable streams one table's CSV into it and checks what was read against the manifest.
func (a *Archive) importTable(ctx context.Context, conn bun.Conn, t Table) error {
	rc, _, err := a.open(t.File)
	if err != nil {
		return err
	}
	defer rc.Close()
	hr := &hashReader{r: rc, h: sha256.New()}
	cr := &copyReader{ctx: ctx, r: hr}
	res, err := pgdriver.CopyFrom(ctx, conn, cr, fmt.Sprintf("COPY %s (%s) FROM STDIN WITH (FORMAT csv, HEADER MATCH)",
		quoteIdent(t.Name), identList(t.Columns)))
	if cr.err != nil {
		return cr.err
	}
	if err != nil {
		var pgErr pgdriver.Error
		if asPG(err, &pgErr) {
			return refuse(KindStructure, t.File, "loading table %q failed: %s", t.Name, pgErr.Field('M'))
		}
		return fmt.Errorf("copy into table %q: %w", t.Name, err)
	}
	if err := checkDigest(t.Entry, hr.n, hr.h.Sum(nil)); err != nil {
		return err
	}
	rows, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("copy into table %q: %w", t.Name, err)
	}
	if rows != t.Rows {
		return refuse(KindRows, t.File, "table %q received %d rows, the manifest says %d", t.Name, rows, t.Rows)
	}
	return nil
}

// hashReader hashes and counts what is read through it.
type hashReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (hr *hashReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	hr.n += int64(n)
	return n, err
}

// asPG finds a PostgreSQL error in err's chain.
func asPG(err error, target *pgdriver.Error) bool {
	return errors.As(err, target)
}

// copyReader is what CopyFrom reads a table from. It answers io.EOF only from a read that returns no
// bytes, since pgdriver's CopyFrom (v1.2.18) stops at the first read answering io.EOF without sending the
// bytes that read returned (a ZIP entry's reader answers its last bytes with io.EOF). It never answers
// another error: pgdriver would leave the COPY open without telling the server. The first error (the
// entry's, or ctx ending) is kept and ends the data early, so the COPY completes and the error is
// returned after it.
type copyReader struct {
	ctx context.Context
	r   io.Reader
	eof bool
	err error
}

func (c *copyReader) Read(p []byte) (int, error) {
	if c.err == nil {
		c.err = c.ctx.Err()
	}
	if c.eof || c.err != nil {
		return 0, io.EOF
	}
	n, err := c.r.Read(p)
	switch {
	case errors.Is(err, io.EOF):
		c.eof = true
	case err != nil:
		c.err = err
	}
	if n > 0 || err == nil {
		return n, nil
	}
	return 0, io.EOF
}
