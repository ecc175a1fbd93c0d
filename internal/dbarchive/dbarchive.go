// Package dbarchive is the format of a managed database's portable copy: a ZIP holding manifest.json,
// schema.sql, one data/<table>.csv per table and signature.json, written by Export from one consistent
// snapshot, checked by Open (layout, sizes, digests, signature) and restored by Archive.Import in one
// transaction. It knows nothing of HTTP or Temporal; transfers call it.
//
// What an archive carries, for the ordinary tables of schema public: columns with their built-in types
// (arrays included), NOT NULL, defaults (a serial column stays serial; a default drawing on a sequence the
// column does not own is left out), identity and stored generated columns, primary keys, unique, check and
// foreign-key constraints, other indexes, and every row. Serial and identity sequences restart after the
// largest value restored. What it does not carry: views, materialized views, sequences not owned by a
// column (nor their exact position: a sequence restarts after the column's maximum), functions, triggers,
// row-level security policies, comments, grants, partitioned tables, and columns of types defined in the
// database (enums, domains, composite or extension types): Export refuses a database using those types
// or partitioned tables rather than write an archive that cannot be restored.
//
// Import replaces the database's tables: every table of schema public is dropped (CASCADE: views over
// them go too), then the archive's tables are created and filled, in one transaction, so a round trip
// yields equal tables and a failure leaves the database as it was.
//
// The pools handed to Export and Import must be opened without pgdriver's read timeout
// (pgdriver.WithReadTimeout(0)): pgdriver sets the read deadline once per COPY, so pg.Open's 5 s bounds a
// whole table's stream and a larger table fails with "i/o timeout". Bound a run with ctx instead: pgdriver
// honours ctx's deadline, and when ctx ends Export and Import cancel their backend (pg_cancel_backend from
// another connection of the pool, when it has one to spare) and stop. Inside their transaction they set
// statement_timeout and idle_in_transaction_session_timeout to 0, since the roles' own limits are meant
// for users' queries. Restores need PostgreSQL 15 or later (COPY's HEADER MATCH).
package dbarchive

import (
	"errors"
	"fmt"
	"time"
)

// FormatVersion is the manifest's formatVersion this package writes and reads.
const FormatVersion = 1

// Entry names of an archive's fixed files; table data lives under DataDir.
const (
	ManifestFile  = "manifest.json"
	SignatureFile = "signature.json"
	SchemaFile    = "schema.sql"
	DataDir       = "data/"
)

// PayloadType is the type the signature binds to the manifest's bytes.
const PayloadType = "application/vnd.svc.dbarchive.manifest+json"

// Manifest describes an archive: where it came from and every file's size and SHA-256.
type Manifest struct {
	FormatVersion int       `json:"formatVersion"`
	ServerVersion string    `json:"serverVersion"`
	CreatedAt     time.Time `json:"createdAt"`
	Tables        []Table   `json:"tables"`
	Schema        Entry     `json:"schema"`
}

// Entry is one entry's name, uncompressed size and SHA-256 (hex).
type Entry struct {
	File   string `json:"file"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Table is one table's data file: its name, the columns its CSV holds (in order, generated columns left
// out), and its row count.
type Table struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	Rows    int64    `json:"rows"`
	Entry
}

// Progress is how far an export or import has come.
type Progress struct {
	TablesDone  int
	TablesTotal int
	// Bytes counts the table data (uncompressed CSV) written or read so far.
	Bytes int64
	// ArchiveBytes counts the archive's bytes written so far (exports only).
	ArchiveBytes int64
}

// Kind names what is wrong with an archive, for the API to map to a 400.
type Kind string

// The kinds of a refused archive.
const (
	KindNotZip          Kind = "not_zip"
	KindEntryName       Kind = "entry_name"
	KindDuplicateEntry  Kind = "duplicate_entry"
	KindTooManyEntries  Kind = "too_many_entries"
	KindEntryTooLarge   Kind = "entry_too_large"
	KindCompressionRate Kind = "compression_ratio"
	KindManifest        Kind = "manifest"
	KindMissingEntry    Kind = "missing_entry"
	KindUnexpectedEntry Kind = "unexpected_entry"
	KindTampered        Kind = "tampered"
	KindSignature       Kind = "signature"
	KindUnsigned        Kind = "unsigned"
	KindRows            Kind = "row_count"
	KindStructure       Kind = "structure"
)

// Error is an archive refused for a reason its message names; the message is safe to show a client.
type Error struct {
	Kind Kind
	// Entry is the entry at fault, when there is one.
	Entry   string
	Message string
}

// Error implements error.
func (e *Error) Error() string {
	if e.Entry != "" {
		return fmt.Sprintf("database archive: %s: %s (%s)", e.Entry, e.Message, e.Kind)
	}
	return fmt.Sprintf("database archive: %s (%s)", e.Message, e.Kind)
}

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// IsKind reports whether err is an archive refused for reason k.
func IsKind(err error, k Kind) bool {
	e, ok := AsError(err)
	return ok && e.Kind == k
}

func refuse(k Kind, entry, format string, args ...any) *Error {
	return &Error{Kind: k, Entry: entry, Message: fmt.Sprintf(format, args...)}
}
