package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svcplatform/svc/internal/svcerr"
)

// SendRequest is what a sender leaves in the vault.
type SendRequest struct {
	// Files are the local files to copy, one payload each; their base names must differ.
	Files []string
	// Note is optional context for the receiver (never a secret).
	Note string
	// From is the optional sender.
	From *Identity
	// To is the target; it must name a machine (MachineID or Host).
	To Identity
	// Progress, when set, is called as bytes are read: done of total, where total counts every file
	// twice (the secret scan, then the copy).
	Progress func(done, total int64)
}

// source is one file to send, as the scan found it.
type source struct {
	path    string
	name    string
	size    int64
	modTime time.Time
	sha256  string
}

// Send writes a transfer: it scans every file for secrets (refusing the send, naming the finding's kind
// and the file, before writing anything), copies the payload files (each to a temporary file, fsynced,
// renamed), and writes the manifest last, the same way. A failure removes what was written; a crash
// before the manifest leaves a directory no receiver shows.
func (v *Vault) Send(ctx context.Context, req SendRequest) (*Manifest, error) {
	if err := checkSendRequest(req); err != nil {
		return nil, err
	}
	prog := newProgress(req.Progress)
	sources, err := scanSources(ctx, req.Files, prog)
	if err != nil {
		return nil, err
	}
	created := v.now().UTC()
	id, err := newTransferID(created, v.random)
	if err != nil {
		return nil, err
	}
	m := &Manifest{ID: id, Schema: SchemaV1, Status: StatusPending, CreatedAt: created.Format(timestampLayout),
		Note: req.Note, From: req.From, To: req.To}
	if err := v.writeTransfer(ctx, m, sources, prog); err != nil {
		_ = os.RemoveAll(v.transferDir(id))
		return nil, err
	}
	return m, nil
}

// checkSendRequest validates the identities, the file list and the note.
func checkSendRequest(req SendRequest) error {
	if err := req.To.validateTarget("to"); err != nil {
		return err
	}
	if req.From != nil {
		if err := req.From.validate("from"); err != nil {
			return err
		}
	}
	if len(req.Files) == 0 {
		return svcerr.Invalid("files", "files: name at least one file to send")
	}
	if kind := ScanText(req.Note); kind != "" {
		return svcerr.Invalid("note", "note holds a %s; transfers are not for secrets", kind)
	}
	names := map[string]int{}
	for i, f := range req.Files {
		param := fmt.Sprintf("files[%d]", i)
		name := filepath.Base(f)
		if err := checkPayloadName(name); err != nil || f == "" {
			return svcerr.Invalid(param, "%s: not a usable file name", param)
		}
		if j, dup := names[name]; dup {
			return svcerr.Invalid(param, "%s has the same file name as files[%d]; payload names must differ", param, j)
		}
		names[name] = i
		if kind := ScanText(name); kind != "" {
			return svcerr.Invalid(param, "the file name of %s holds a %s; transfers are not for secrets", param, kind)
		}
	}
	return nil
}

// scanSources reads every file once, hashing it and scanning it for secrets, several files at once. On
// failure it reports the first failing file in argument order.
func scanSources(ctx context.Context, files []string, prog *progress) ([]source, error) {
	if prog != nil {
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				prog.total += 2 * fi.Size()
			}
		}
	}
	out := make([]source, len(files))
	err := forEach(ctx, len(files), func(i int) error {
		var err error
		out[i], err = scanSource(files[i], fmt.Sprintf("files[%d]", i), prog)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// forEach runs do(0..n-1) on up to scanWorkers goroutines, handing out indices in order and stopping
// after the first failure or when ctx ends; it returns the failure of the lowest index (so the answer
// does not depend on timing), or ctx's error.
func forEach(ctx context.Context, n int, do func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(scanWorkers(), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = do(i); errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	for i := 0; i < n && !failed.Load() && ctx.Err() == nil; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := firstError(errs); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("stopped: %w", err)
	}
	return nil
}

// scanWorkers is how many files are scanned or copied at once: one per CPU, at most four.
func scanWorkers() int { return max(1, min(runtime.GOMAXPROCS(0), 4)) }

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func scanSource(path, param string, prog *progress) (source, error) {
	fh, fi, err := openRegular(path, param)
	if err != nil {
		return source{}, err
	}
	defer func() { _ = fh.Close() }()
	var sc Scanner
	n, sum, err := scanAndHash(fh, &sc, prog)
	if err != nil {
		return source{}, fmt.Errorf("read %s: %w", path, err)
	}
	if kind := sc.Finding(); kind != "" {
		return source{}, svcerr.Invalid(param, "%s (%s) holds a %s; transfers are not for secrets",
			param, filepath.Base(path), kind)
	}
	return source{path: path, name: filepath.Base(path), size: n, modTime: fi.ModTime(), sha256: sum}, nil
}

// scanChunk is how much of a file is read at a time while scanning or verifying.
const scanChunk = 1 << 20

// chunks recycles the scanChunk buffers of scans and verifications: at most one per worker is in use,
// so a transfer of many files allocates a handful of buffers instead of one per file.
var chunks = sync.Pool{New: func() any { b := make([]byte, scanChunk); return &b }}

// scanAndHash reads r to its end in chunks, hashing each chunk on another goroutine while scanning it,
// and returns the byte count and the hex SHA-256. Memory is one chunk whatever the file's size.
func scanAndHash(r io.Reader, sc *Scanner, prog *progress) (int64, string, error) {
	h := sha256.New()
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	buf := *bp
	var total int64
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			done := make(chan struct{})
			go func() {
				h.Write(buf[:n])
				close(done)
			}()
			_, _ = sc.Write(buf[:n])
			<-done
			total += int64(n)
			prog.add(int64(n))
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			_ = sc.Close()
			return total, hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return 0, "", err
		}
	}
}

// openRegular opens a regular file for reading.
func openRegular(path, param string) (*os.File, os.FileInfo, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, svcerr.Invalid(param, "%s: cannot open %s: %v", param, filepath.Base(path), unwrapPathError(err))
	}
	fi, err := fh.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		_ = fh.Close()
		return nil, nil, svcerr.Invalid(param, "%s: %s is not a regular file", param, filepath.Base(path))
	}
	return fh, fi, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// writeTransfer copies the payloads (several at once), makes their names durable with one fsync of the
// payload directory, and then writes the manifest.
func (v *Vault) writeTransfer(ctx context.Context, m *Manifest, sources []source, prog *progress) error {
	payloadDir := filepath.Join(v.transferDir(m.ID), PayloadDir)
	if err := os.MkdirAll(payloadDir, 0o755); err != nil {
		return fmt.Errorf("create transfer directory: %w", err)
	}
	err := forEach(ctx, len(sources), func(i int) error { return copyPayload(sources[i], payloadDir, prog) })
	if err != nil {
		return err
	}
	if err := syncDir(payloadDir); err != nil {
		return err
	}
	for _, src := range sources {
		m.Payloads = append(m.Payloads, Payload{Name: src.name, MediaType: mediaTypeOf(src.name),
			Bytes: src.size, SHA256: src.sha256, Path: payloadPath(m.ID, src.name)})
	}
	if v.beforeManifest != nil {
		if err := v.beforeManifest(); err != nil {
			return err
		}
	}
	return writeJSONAtomic(filepath.Join(v.transferDir(m.ID), ManifestFile), m)
}

// copyPayload copies one scanned file into the payload directory (the kernel copies where it can),
// refusing a file that changed since the scan. The caller fsyncs the directory.
func copyPayload(src source, payloadDir string, prog *progress) error {
	fh, _, err := openRegular(src.path, src.name)
	if err != nil {
		return err
	}
	defer func() { _ = fh.Close() }()
	tmp, err := createTemp(payloadDir)
	if err != nil {
		return err
	}
	n, err := tmp.ReadFrom(fh)
	prog.add(n)
	if err == nil {
		err = unchanged(fh, src, n)
	}
	if err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("copy %s: %w", src.name, err)
	}
	return renameTemp(tmp, filepath.Join(payloadDir, src.name))
}

// unchanged refuses a source whose size or modification time moved between scan and copy.
func unchanged(fh *os.File, src source, copied int64) error {
	fi, err := fh.Stat()
	if err != nil {
		return fmt.Errorf("stat: %w", err)
	}
	if copied != src.size || fi.Size() != src.size || !fi.ModTime().Equal(src.modTime) {
		return fmt.Errorf("the file changed while it was being sent; send it again")
	}
	return nil
}

// mediaTypeOf guesses a payload's MIME type from its extension.
func mediaTypeOf(name string) string {
	if t := mime.TypeByExtension(strings.ToLower(filepath.Ext(name))); t != "" {
		return t
	}
	return "application/octet-stream"
}

// progress reports bytes read to a callback, from any goroutine (calls are serialised); a nil *progress
// reports nothing.
type progress struct {
	mu          sync.Mutex
	report      func(done, total int64)
	done, total int64
}

func newProgress(report func(done, total int64)) *progress {
	if report == nil {
		return nil
	}
	return &progress{report: report}
}

func (p *progress) add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.report(p.done, p.total)
}
