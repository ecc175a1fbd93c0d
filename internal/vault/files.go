package vault

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/svcplatform/svc/internal/svcerr"
)

// tempPrefix starts the name of every temporary file this package writes; receivers never read them.
const tempPrefix = ".svc-tmp-"

// syncArtifact reports whether a file name is a sync provider's temporary or conflict file (or one of
// ours), which receivers ignore: .syncthing.*, ~syncthing~*, *.sync-conflict-*.
func syncArtifact(name string) bool {
	return strings.HasPrefix(name, ".syncthing.") || strings.HasPrefix(name, "~syncthing~") ||
		strings.Contains(name, ".sync-conflict-") || strings.HasPrefix(name, tempPrefix)
}

// checkPayloadName refuses a payload file name that could leave the payload directory, hide among sync
// artifacts, or is not plain text.
func checkPayloadName(name string) error {
	switch {
	case name == "" || name == "." || name == ".." || len(name) > 255:
		return fmt.Errorf("file name %q is empty, '.', '..' or longer than 255 bytes", name)
	case strings.ContainsAny(name, "/\\") || !utf8.ValidString(name):
		return fmt.Errorf("file name %q holds a path separator or is not UTF-8", name)
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("file name %q holds a control character", name)
	case syncArtifact(name):
		return fmt.Errorf("file name %q looks like a sync provider's temporary or conflict file", name)
	}
	return nil
}

// createTemp creates a temporary file in dir (so a rename onto its final name stays on one filesystem).
func createTemp(dir string) (*os.File, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("temporary file name: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, tempPrefix+hex.EncodeToString(b[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create temporary file in %s: %w", dir, err)
	}
	return f, nil
}

// commitTemp fsyncs and closes f, then renames it onto final and fsyncs the directory, so final either
// does not exist or holds every byte. On failure the temporary file is removed.
func commitTemp(f *os.File, final string) error {
	if err := renameTemp(f, final); err != nil {
		return err
	}
	return syncDir(filepath.Dir(final))
}

// renameTemp is commitTemp without the directory fsync, for a caller that renames several files into one
// directory and fsyncs it once.
func renameTemp(f *os.File, final string) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), final)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("commit %s: %w", filepath.Base(final), err)
	}
	return nil
}

// writeFileAtomic writes data to path through a temporary file in the same directory.
func writeFileAtomic(path string, data []byte) error {
	f, err := createTemp(filepath.Dir(path))
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return commitTemp(f, path)
}

// writeJSONAtomic writes v as indented JSON to path atomically.
func writeJSONAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return writeFileAtomic(path, append(data, '\n'))
}

// syncDir fsyncs a directory so a rename in it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory %s: %w", dir, err)
	}
	defer func() { _ = d.Close() }()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// errNotFound is the answer for a transfer id that is malformed, absent or not (yet) whole.
func errNotFound(id string) error {
	return svcerr.NotFoundf("no visible transfer %q in the vault", id)
}
