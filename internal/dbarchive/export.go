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
	if _, err := conn.ExecContext(ctx, "SET LOCAL search_path = public"); err != nil {
		return nil, fmt.Errorf("set the search path: %w", err)
	}
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
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	if m.Schema, err = writeEntry(zw, SchemaFile, func(w io.Writer) error { _, err := w.Write(schemaSQL); return err }); err != nil {
		return nil, err
	}
	p := Progress{TablesTotal: len(s.tables)}
	for i, t := range s.tables {
		tm, err := exportTable(ctx, conn, zw, t, dataFile(t.name, i))
		if err != nil {
			return nil, err
		}
		m.Tables = append(m.Tables, tm)
		p.TablesDone, p.Bytes = i+1, p.Bytes+tm.Bytes
		if progress != nil {
			progress(p)
		}
	}
	return m, finish(zw, m, signer)
}

// exportTable streams one table's rows into the entry name.
func exportTable(ctx context.Context, conn bun.Conn, zw *zip.Writer, t table, name string) (Table, error) {
	tm := Table{Name: t.name, Columns: t.copyColumns()}
	var rows int64
	f, err := writeEntry(zw, name, func(w io.Writer) error {
		res, err := pgdriver.CopyTo(ctx, conn, w, fmt.Sprintf("COPY %s (%s) TO STDOUT WITH (FORMAT csv, HEADER)",
			quoteIdent(t.name), identList(tm.Columns)))
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

// dataFile names the data entry of the i-th table.
func dataFile(name string, i int) string {
	if safeName.MatchString(name) && !strings.Contains(name, "..") {
		return DataDir + name + ".csv"
	}
	return fmt.Sprintf("%stable-%d.csv", DataDir, i+1)
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
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(conn); err != nil {
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
