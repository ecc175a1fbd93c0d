package dbarchive

import (
	"archive/zip"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Default limits of VerifyOptions left zero.
const (
	// DefaultMaxEntries is 10,000 tables and the three fixed files.
	DefaultMaxEntries    = 10_003
	DefaultMaxEntryBytes = 16 << 30
	DefaultMaxRatio      = 1000
	// ratioFloor is the size under which an entry's compression ratio is not checked: a small entry
	// cannot be a bomb whatever its ratio.
	ratioFloor = 1 << 20
	// maxMetaBytes caps manifest.json and signature.json, which are read into memory.
	maxMetaBytes = 16 << 20
	// DefaultMaxSchemaBytes caps schema.sql, which Import reads into memory.
	DefaultMaxSchemaBytes = 16 << 20
)

// VerifyOptions says which key an archive must be signed by and bounds what Open reads.
type VerifyOptions struct {
	// PublicKey is the trusted signer (the platform's archive key).
	PublicKey ed25519.PublicKey
	// AllowUnsigned accepts an archive without a signature, or signed by another key.
	AllowUnsigned bool
	// MaxEntries caps the number of entries (default DefaultMaxEntries).
	MaxEntries int
	// MaxEntryBytes caps any entry's uncompressed size (default DefaultMaxEntryBytes).
	MaxEntryBytes int64
	// MaxRatio caps an entry's uncompressed size over its compressed size, for entries over 1 MiB
	// (default DefaultMaxRatio).
	MaxRatio int64
}

func (o VerifyOptions) withDefaults() VerifyOptions {
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxEntryBytes <= 0 {
		o.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if o.MaxRatio <= 0 {
		o.MaxRatio = DefaultMaxRatio
	}
	return o
}

// Archive is an opened, verified archive, ready to import. It reads its entries from the io.ReaderAt given
// to Open, which must stay open (and is read again, and checked again, by Import).
type Archive struct {
	Manifest Manifest
	// Signed says the archive carries a valid signature by the trusted key.
	Signed  bool
	opts    VerifyOptions
	entries map[string]*zip.File
}

// Open reads the archive of size bytes in r and verifies it: the entry names and layout, sizes and
// compression ratios, the manifest, every file's size and SHA-256 (streamed, in bounded memory) and the
// signature. It refuses with an *Error naming what is wrong.
func Open(r io.ReaderAt, size int64, opts VerifyOptions) (*Archive, error) {
	opts = opts.withDefaults()
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, refuse(KindNotZip, "", "not a readable ZIP archive: %v", err)
	}
	a := &Archive{opts: opts, entries: make(map[string]*zip.File, len(zr.File))}
	if err := a.index(zr.File, size); err != nil {
		return nil, err
	}
	manifest, err := a.readSmall(ManifestFile, maxMetaBytes)
	if err != nil {
		return nil, err
	}
	if err := a.parseManifest(manifest); err != nil {
		return nil, err
	}
	if err := a.checkSignature(manifest); err != nil {
		return nil, err
	}
	for _, f := range a.files() {
		if err := a.verifyFile(f); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// index checks every entry's name, its uniqueness, their number and declared sizes (an archive of size
// bytes).
func (a *Archive) index(files []*zip.File, size int64) error {
	if len(files) > a.opts.MaxEntries {
		return refuse(KindTooManyEntries, "", "the archive has %d entries, more than the %d allowed", len(files), a.opts.MaxEntries)
	}
	for _, f := range files {
		if err := checkName(f.Name); err != nil {
			return err
		}
		if _, dup := a.entries[f.Name]; dup {
			return refuse(KindDuplicateEntry, f.Name, "the entry appears more than once")
		}
		if f.CompressedSize64 > uint64(size) {
			return refuse(KindNotZip, f.Name, "the entry declares more compressed bytes than the archive holds")
		}
		if err := a.checkDeclared(f); err != nil {
			return err
		}
		a.entries[f.Name] = f
	}
	return nil
}

// checkName refuses names outside the layout: absolute, with "..", backslashes or other directories.
func checkName(name string) error {
	switch {
	case name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, ":"):
		return refuse(KindEntryName, name, "entry names must be relative paths")
	case strings.Contains(name, `\`):
		return refuse(KindEntryName, name, "entry names must not hold backslashes")
	case strings.Contains(name, ".."):
		return refuse(KindEntryName, name, "entry names must not hold \"..\"")
	case name == ManifestFile || name == SignatureFile || name == SchemaFile:
		return nil
	case strings.HasPrefix(name, DataDir) && strings.HasSuffix(name, ".csv") &&
		!strings.Contains(strings.TrimPrefix(name, DataDir), "/") && len(name) > len(DataDir)+len(".csv"):
		return nil
	}
	return refuse(KindEntryName, name, "the entry is outside the archive's layout (%s, %s, %s, %s<table>.csv)",
		ManifestFile, SchemaFile, SignatureFile, DataDir)
}

// checkDeclared refuses an entry whose declared size or ratio is over the limits.
func (a *Archive) checkDeclared(f *zip.File) error {
	if f.UncompressedSize64 > uint64(a.opts.MaxEntryBytes) {
		return refuse(KindEntryTooLarge, f.Name, "the entry declares %d bytes uncompressed, more than the %d allowed",
			f.UncompressedSize64, a.opts.MaxEntryBytes)
	}
	if f.UncompressedSize64 > ratioFloor && f.UncompressedSize64 > f.CompressedSize64*uint64(a.opts.MaxRatio) {
		return refuse(KindCompressionRate, f.Name, "the entry declares a compression ratio over %d:1", a.opts.MaxRatio)
	}
	return nil
}

// open opens entry name for reading, its bytes bounded by the limits while they are inflated.
func (a *Archive) open(name string) (io.ReadCloser, *zip.File, error) {
	f := a.entries[name]
	if f == nil {
		return nil, nil, refuse(KindMissingEntry, name, "the archive has no such entry")
	}
	rc, err := f.Open()
	if err != nil {
		return nil, nil, refuse(KindNotZip, name, "cannot read the entry: %v", err)
	}
	limit := a.opts.MaxEntryBytes
	if ratioLimit := int64(max(f.CompressedSize64, 1)) * a.opts.MaxRatio; ratioLimit > ratioFloor {
		limit = min(limit, ratioLimit)
	} else {
		limit = min(limit, ratioFloor)
	}
	return &boundedReader{r: rc, c: rc, left: limit, name: name, f: f}, f, nil
}

// boundedReader refuses an entry that inflates past its limit (what the headers declared does not count).
type boundedReader struct {
	r    io.Reader
	c    io.Closer
	left int64
	read uint64
	name string
	f    *zip.File
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	b.read += uint64(n)
	if b.left < 0 {
		return 0, refuse(KindCompressionRate, b.name, "the entry inflates beyond its size or compression limit")
	}
	// archive/zip answers ErrFormat, and none of the bytes, from the read that inflates past the header's size.
	if errors.Is(err, zip.ErrFormat) {
		return 0, refuse(KindEntryTooLarge, b.name, "the entry inflates beyond the %d bytes its header declares", b.f.UncompressedSize64)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return n, refuse(KindTampered, b.name, "the entry's data is corrupt: %v", err)
	}
	return n, err
}

func (b *boundedReader) Close() error { return b.c.Close() }

// readSmall reads a whole entry of at most limit bytes.
func (a *Archive) readSmall(name string, limit int64) ([]byte, error) {
	rc, _, err := a.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, refuse(KindEntryTooLarge, name, "the entry is over %d bytes", limit)
	}
	return b, nil
}

// parseManifest decodes and checks the manifest against the entries present.
func (a *Archive) parseManifest(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a.Manifest); err != nil {
		return refuse(KindManifest, ManifestFile, "the manifest is not valid: %v", err)
	}
	m := &a.Manifest
	if m.FormatVersion != FormatVersion {
		return refuse(KindManifest, ManifestFile, "format version %d is not supported (want %d)", m.FormatVersion, FormatVersion)
	}
	if m.Schema.File != SchemaFile {
		return refuse(KindManifest, ManifestFile, "the schema file must be %s", SchemaFile)
	}
	if m.Schema.Bytes > DefaultMaxSchemaBytes {
		return refuse(KindEntryTooLarge, SchemaFile, "the schema is over %d bytes", DefaultMaxSchemaBytes)
	}
	listed := map[string]bool{ManifestFile: true, SignatureFile: true, SchemaFile: true}
	names := map[string]bool{}
	for _, t := range m.Tables {
		if err := checkTable(t); err != nil {
			return err
		}
		if names[t.Name] || listed[t.File] {
			return refuse(KindManifest, ManifestFile, "table %q or its file %s is listed twice", t.Name, t.File)
		}
		names[t.Name], listed[t.File] = true, true
	}
	for _, f := range a.files() {
		if a.entries[f.File] == nil {
			return refuse(KindMissingEntry, f.File, "the manifest lists the entry but the archive lacks it")
		}
	}
	for name := range a.entries {
		if !listed[name] {
			return refuse(KindUnexpectedEntry, name, "the entry is not listed in the manifest")
		}
	}
	return nil
}

// checkTable checks one table's manifest entry.
func checkTable(t Table) error {
	switch {
	case t.Name == "" || len(t.Name) > 63 || strings.ContainsRune(t.Name, 0):
		return refuse(KindManifest, ManifestFile, "table name %q is not valid", t.Name)
	case checkName(t.File) != nil || !strings.HasPrefix(t.File, DataDir):
		return refuse(KindManifest, ManifestFile, "table %q's file %q is outside %s", t.Name, t.File, DataDir)
	case len(t.Columns) == 0:
		return refuse(KindManifest, ManifestFile, "table %q lists no columns", t.Name)
	case t.Rows < 0 || t.Bytes < 0:
		return refuse(KindManifest, ManifestFile, "table %q has a negative size", t.Name)
	}
	for _, c := range t.Columns {
		if c == "" || strings.ContainsRune(c, 0) {
			return refuse(KindManifest, ManifestFile, "table %q lists an empty column name", t.Name)
		}
	}
	return nil
}

// checkSignature verifies signature.json unless unsigned archives are allowed.
func (a *Archive) checkSignature(manifest []byte) error {
	if a.entries[SignatureFile] == nil {
		if a.opts.AllowUnsigned {
			return nil
		}
		return refuse(KindUnsigned, SignatureFile, "the archive is not signed; allow unsigned archives to import it")
	}
	raw, err := a.readSmall(SignatureFile, maxMetaBytes)
	if err != nil {
		return err
	}
	err = verifySignature(raw, manifest, a.opts.PublicKey)
	if err != nil && !a.opts.AllowUnsigned {
		return err
	}
	a.Signed = err == nil
	return nil
}

// files are the entries the manifest describes: the schema, then each table's data.
func (a *Archive) files() []Entry {
	out := []Entry{a.Manifest.Schema}
	for _, t := range a.Manifest.Tables {
		out = append(out, t.Entry)
	}
	return out
}

// verifyFile streams one entry and compares its size and SHA-256 with the manifest's.
func (a *Archive) verifyFile(f Entry) error {
	rc, _, err := a.open(f.File)
	if err != nil {
		return err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		if _, ok := AsError(err); ok {
			return err
		}
		return refuse(KindTampered, f.File, "cannot read the entry: %v", err)
	}
	return checkDigest(f, n, h.Sum(nil))
}

// checkDigest compares what was read of an entry with the manifest.
func checkDigest(f Entry, n int64, sum []byte) error {
	if n != f.Bytes {
		return refuse(KindTampered, f.File, "the entry holds %d bytes, the manifest says %d", n, f.Bytes)
	}
	if hex.EncodeToString(sum) != f.SHA256 {
		return refuse(KindTampered, f.File, "the entry's SHA-256 differs from the manifest's")
	}
	return nil
}

// String describes the archive briefly.
func (a *Archive) String() string {
	return fmt.Sprintf("database archive: %d tables, signed=%t", len(a.Manifest.Tables), a.Signed)
}
