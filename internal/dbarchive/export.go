package dbarchive

import (
	"archive/zip"
	"compress/flate"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Export writes the archive of db's schema public to w: it reads the structure and every table in one
// REPEATABLE READ READ ONLY transaction on one connection (db may connect as a role that can only
// SELECT), streams each table's COPY output into the ZIP while hashing and counting it, and signs the
// manifest with signer. progress, when not nil, is called after each table.
func Export(ctx context.Context, db *bun.DB, w io.Writer, signer ed25519.PrivateKey, progress func(Progress)) (*Manifest, error) {
	if len(signer) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("export database archive: no signing key")
	}
	var m *Manifest
	err := inTx(ctx, db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", func(conn bun.Conn) error {
		var err error
		m, err = export(ctx, conn, w, signer, progress)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("export database archive: %w", err)
	}
	return m, nil
}

func export(ctx context.Context, conn bun.Conn, w io.Writer, signer ed25519.PrivateKey, progress func(Progress)) (*Manifest, error) {
	m := &Manifest{FormatVersion: FormatVersion, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if err := conn.QueryRowContext(ctx, "SELECT current_setting('server_version')").Scan(&m.ServerVersion); err != nil {
		return nil, fmt.Errorf("read the server version: %w", err)
	}
	s, err := readStructure(ctx, conn)
	if err != nil {
		return nil, err
	}
	schemaSQL, err := s.render()
	if err != nil {
		return nil, err
	}
	cw := &countWriter{w: w}
	zw := zip.NewWriter(cw)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	if m.Schema, err = writeEntry(zw, SchemaFile, func(w io.Writer) error { _, err := w.Write(schemaSQL); return err }); err != nil {
		return nil, err
	}
	rep := &reporter{fn: progress, p: Progress{TablesTotal: len(s.tables)}, archive: cw, next: progressEvery}
	used := map[string]bool{}
	for i, t := range s.tables {
		if len(t.copyColumns()) == 0 {
			return nil, refuse(KindStructure, "", "table %q has no columns to copy; archives carry tables with at least one", t.name)
		}
		tm, err := exportTable(ctx, conn, zw, t, uniqueFile(used, t.name, i), rep)
		if err != nil {
			return nil, err
		}
		m.Tables = append(m.Tables, tm)
		rep.tableDone(tm.Bytes)
	}
	return m, finish(zw, m, signer)
}

// progressEvery is how much table data passes between two progress reports within a table.
const progressEvery = 8 << 20

// reporter calls the progress callback after each table and every progressEvery bytes.
type reporter struct {
	fn      func(Progress)
	p       Progress
	archive *countWriter
	// inTable counts the current table's bytes; next is when to report again.
	inTable, next int64
}

func (r *reporter) add(n int) {
	r.inTable += int64(n)
	if r.fn != nil && r.inTable >= r.next {
		r.next = r.inTable + progressEvery
		p := r.p
		p.Bytes += r.inTable
		p.ArchiveBytes = r.archive.n
		r.fn(p)
	}
}

func (r *reporter) tableDone(bytes int64) {
	r.p.TablesDone++
	r.p.Bytes += bytes
	r.inTable, r.next = 0, progressEvery
	if r.fn != nil {
		p := r.p
		p.ArchiveBytes = r.archive.n
		r.fn(p)
	}
}

// countWriter counts what passes to w.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// copyWriter is what CopyTo writes a table into. It never answers an error: pgdriver's CopyTo (v1.2.18)
// stops reading the message in hand when its writer fails and reads the rest of the stream out of step.
// The first error (the writer's, or ctx ending) is kept, the rest of the COPY discarded, and the error
// returned once CopyTo is done.
type copyWriter struct {
	ctx context.Context
	w   io.Writer
	rep *reporter
	err error
}

func (c *copyWriter) Write(p []byte) (int, error) {
	if c.err == nil {
		c.err = c.ctx.Err()
	}
	if c.err != nil {
		return len(p), nil
	}
	n, err := c.w.Write(p)
	c.rep.add(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return len(p), nil
}

// exportTable streams one table's rows into the entry name.
func exportTable(ctx context.Context, conn bun.Conn, zw *zip.Writer, t table, name string, rep *reporter) (Table, error) {
	tm := Table{Name: t.name, Columns: t.copyColumns()}
	var rows int64
	f, err := writeEntry(zw, name, func(w io.Writer) error {
		cw := &copyWriter{ctx: ctx, w: w, rep: rep}
		res, err := pgdriver.CopyTo(ctx, conn, cw, fmt.Sprintf("COPY %s (%s) TO STDOUT WITH (FORMAT csv, HEADER)",
			quoteIdent(t.name), identList(tm.Columns)))
		if cw.err != nil {
			return cw.err
		}
		if err != nil {
			return err
		}
		rows, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return tm, fmt.Errorf("copy table %q: %w", t.name, err)
	}
	tm.Rows, tm.Entry = rows, f
	return tm, nil
}

// finish writes manifest.json and signature.json and closes the ZIP.
func finish(zw *zip.Writer, m *Manifest, signer ed25519.PrivateKey) error {
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the manifest: %w", err)
	}
	sig, err := sign(signer, manifest)
	if err != nil {
		return err
	}
	for _, e := range []struct {
		name string
		body []byte
	}{{ManifestFile, manifest}, {SignatureFile, sig}} {
		if _, err := writeEntry(zw, e.name, func(w io.Writer) error { _, err := w.Write(e.body); return err }); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("close the archive: %w", err)
	}
	return nil
}

// writeEntry adds a deflated entry name whose bytes fill writes, and answers their size and SHA-256.
func writeEntry(zw *zip.Writer, name string, fill func(io.Writer) error) (Entry, error) {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Now().UTC()})
	if err != nil {
		return Entry{}, fmt.Errorf("start entry %s: %w", name, err)
	}
	hw := &hashWriter{w: w, h: sha256.New()}
	if err := fill(hw); err != nil {
		return Entry{}, fmt.Errorf("write entry %s: %w", name, err)
	}
	return Entry{File: name, Bytes: hw.n, SHA256: hex.EncodeToString(hw.h.Sum(nil))}, nil
}

// hashWriter writes through to w, hashing and counting.
type hashWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (hw *hashWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.n += int64(n)
	return n, err
}

// safeName is a table name usable as its data file's name as it is.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}$`)

// uniqueFile names the data entry of the i-th table: data/<name>.csv when the name is safe as a file
// name, else data/table-<i+1>.csv, with a suffix if that is taken.
func uniqueFile(used map[string]bool, name string, i int) string {
	base := fmt.Sprintf("table-%d", i+1)
	if safeName.MatchString(name) && !strings.Contains(name, "..") {
		base = name
	}
	file := DataDir + base + ".csv"
	for n := 2; used[file]; n++ {
		file = fmt.Sprintf("%s%s-%d.csv", DataDir, base, n)
	}
	used[file] = true
	return file
}

func identList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	return strings.Join(q, ", ")
}

// rollbackTimeout bounds the rollback of a failed transaction.
const rollbackTimeout = 10 * time.Second

// inTx runs fn in a transaction begun with begin on one connection of db; it commits when fn succeeds.
// When fn fails it rolls back and discards the connection, which a failed COPY may leave mid-protocol.
func inTx(ctx context.Context, db *bun.DB, begin string, fn func(conn bun.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("take a connection: %w", err)
	}
	defer conn.Close()
	var pid int
	if err := conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		return fmt.Errorf("read the backend's pid: %w", err)
	}
	// pgdriver does not watch ctx (only its deadline): cancel the backend's statement from another
	// connection when ctx ends, as far as the pool can spare one.
	stop := context.AfterFunc(ctx, func() {
		cctx, cancel := context.WithTimeout(context.Background(), rollbackTimeout)
		defer cancel()
		_, _ = db.ExecContext(cctx, "SELECT pg_cancel_backend(?)", pid)
	})
	defer func() {
		if !stop() { // the cancel may hit the connection's next user: do not pool it
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		return fmt.Errorf("begin: %w", err)
	}
	// The roles' statement and idle timeouts bound users' queries; an archive's run is bounded by ctx.
	_, err = conn.ExecContext(ctx, "SET LOCAL statement_timeout = 0; SET LOCAL idle_in_transaction_session_timeout = 0; "+
		"SET LOCAL search_path = public")
	if err != nil {
		err = fmt.Errorf("set the transaction's settings: %w", err)
	} else {
		err = fn(conn)
	}
	if err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		_, _ = conn.ExecContext(rctx, "ROLLBACK")
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		return err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
