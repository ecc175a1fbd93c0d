package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// Parts of an import.
const (
	// defaultPartSize is the size of an import's parts unless --part-size says otherwise.
	defaultPartSize = 8 << 20
	// maxPartSize is the largest --part-size.
	maxPartSize = 256 << 20
	// partAttempts is how often one part is sent before the import stops (to be resumed by a rerun).
	partAttempts = 3
	// maxPollFailures is how many polls in a row may fail transiently before waiting gives up.
	maxPollFailures = 5
)

// minPartSize is the smallest --part-size (a variable so that tests can split small archives).
var minPartSize int64 = 1 << 20

// partRetryWait is the wait before the second attempt at a part; each further attempt waits twice as long.
var partRetryWait = time.Second

// dbExportHelp is the help of "svc db export".
const dbExportHelp = `Usage: svc db export -o FILE [--force] [--interval D] [--idempotency-key K] [--transfer ID]

Copies the account's database into a portable ZIP archive and downloads it to FILE (scopes
databases:write to start, databases:read to download). The export runs on the server from one
consistent snapshot; its progress (tables done of all, bytes) goes to stderr, redrawn in place when
stderr is a terminal. The archive then goes to a temporary file beside FILE, is checked against the
size and SHA-256 the server announces, and only then takes FILE's name.

It prints the transfer's id, the archive's size and SHA-256, and the public key that signed it
(the same key GET /v1/health publishes). "svc db import FILE" restores it, here or in another account.

  -o, --output FILE     write the archive to FILE (required)
  --force               overwrite an existing FILE (by default svc refuses)
  --interval D          poll interval while the export runs (default 1s)
  --idempotency-key K   Idempotency-Key of the export's creation (default: random)
  --transfer ID         follow and download the export ID (started before) instead of a new one, e.g.
                        after an interrupted wait or download

With --json, stdout gets the finished transfer's envelope. An export that fails, is cancelled or
expires exits 1 with the transfer's id and error.

` + globalFlagsHelp

// dbImportHelp is the help of "svc db import".
const dbImportHelp = `Usage: svc db import FILE [--allow-unsigned] [--part-size N] [--no-wait] [--interval D]
       [--idempotency-key K]

Restores an archive written by "svc db export" into the account's database (scope databases:write),
replacing every table of schema public in one transaction: a failed import leaves the database as it
was. FILE is uploaded in parts, each checked against its SHA-256, with a progress bar on stderr when
it is a terminal; the server then verifies the archive (sizes, digests, signature) and restores it,
its progress (tables done of all) going to stderr.

An interrupted upload resumes: svc keeps the transfer's id in $XDG_CONFIG_HOME/svc/db-imports/ (or
~/.config/svc/db-imports/) until the import finishes, and rerunning the same command for the same
unchanged file skips the parts the server already accepted and uploads the rest (with the part size
first used). A transfer that is gone, failed, cancelled or expired is replaced by a new one.

  --allow-unsigned      restore an archive that is unsigned or signed by another platform's key
                        (its digests are still checked)
  --part-size N         bytes per part, e.g. 8MiB, 512KiB or 1048576 (default 8MiB, 1MiB to 256MiB;
                        raised for files over 10000 parts when not given)
  --no-wait             return once the parts are uploaded, without waiting for the restore
  --interval D          poll interval while the restore runs (default 1s)
  --idempotency-key K   Idempotency-Key of the transfer's creation (default: random)

With --json, stdout gets the finished transfer's envelope (with --no-wait, the one answering the
upload's completion). An import that fails exits 1 with the transfer's id and error.

` + globalFlagsHelp

// dbExport exports the database to a local file.
func (a *app) dbExport(args []string) int {
	const cmd = "db export"
	var (
		idemKey, output, transferID string
		force                       bool
		interval                    time.Duration
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&transferID, "transfer", "", "follow and download this export instead of starting one")
	fs.StringVar(&output, "output", "", "file to write the archive to")
	fs.StringVar(&output, "o", "", "short for --output")
	fs.BoolVar(&force, "force", false, "overwrite an existing file")
	fs.DurationVar(&interval, "interval", time.Second, "poll interval")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	switch {
	case output == "" || output == "-":
		return a.usageError(cmd, "give the file to write the archive to with --output FILE")
	case interval <= 0:
		return a.usageError(cmd, "--interval must be positive")
	case isDir(output):
		return a.usageError(cmd, "--output %s is a directory; give a file name", output)
	case !force && exists(output):
		return a.localError("file_exists", fmt.Sprintf("%s exists; use --force to overwrite it", output))
	}
	c, s, code, ok := a.authedClient()
	if !ok {
		return code
	}
	var resp client.Response[client.DatabaseTransferEnvelope]
	if transferID == "" {
		resp = c.CreateDatabaseTransfer(a.ctx, client.CreateDatabaseTransferRequest{Kind: client.TransferKindExport}, idemOpts(idemKey)...)
	} else {
		resp = c.GetDatabaseTransfer(a.ctx, transferID)
	}
	if !resp.OK {
		return apiFailure(a, resp)
	}
	if k := resp.Body.Transfer.Kind; k != client.TransferKindExport {
		return a.localError("invalid_transfer", fmt.Sprintf("%s is an %s, not an export", transferID, k))
	}
	resp, code, ok = a.followTransfer(c, resp, interval, "; rerun with --transfer "+resp.Body.Transfer.ID+" to follow it again")
	if !ok {
		return code
	}
	t := resp.Body.Transfer

	dl := a.newClient(s, client.WithHTTPClient(downloadHTTPClient()))
	guard := a.guardDownload()
	defer guard.stop()
	var got client.DatabaseArchiveDownload
	code = a.saveWith(guard.ctx, output, force, func(w io.Writer) error {
		var bar *progressBar
		if t.Archive != nil {
			bar = a.progressFor(t.Archive.Bytes)
		}
		r := dl.DownloadDatabaseArchive(guard.ctx, t.ID, w, guard.progress(bar))
		bar.finish()
		got = r.Body
		if !r.OK {
			return responseError(r)
		}
		return nil
	})
	if code != exitOK {
		fmt.Fprintf(a.stderr, "the archive of export %s is kept on the server%s; rerun with --transfer %s to download it again\n",
			t.ID, expiresWhen(t), t.ID)
		return code
	}
	if a.g.json {
		a.printRaw(resp.Raw)
		return exitOK
	}
	key := got.PublicKey
	if key == "" && t.Archive != nil {
		key = t.Archive.PublicKey
	}
	fmt.Fprintf(a.stdout, "Exported the database to %s.\n", output)
	tw := a.table()
	fmt.Fprintf(tw, "Transfer:\t%s\nTables:\t%d\nSize:\t%s (%d bytes)\nSHA-256:\t%s\nPublic key:\t%s\n", t.ID, t.Progress.TablesTotal,
		client.FormatBytes(got.Bytes), got.Bytes, got.SHA256, orDefault(key, "- (unsigned)"))
	_ = tw.Flush()
	return exitOK
}

// expiresWhen is " until <time>" when the transfer says when it expires, else "".
func expiresWhen(t client.DatabaseTransfer) string {
	if t.ExpiresAt == nil {
		return ""
	}
	return " until " + t.ExpiresAt.UTC().Format(time.RFC3339)
}

// responseError is a failed Response's error as an error (never a nil *client.Error in an interface).
func responseError[T any](r client.Response[T]) error {
	if r.Error == nil {
		return &client.Error{Code: client.CodeInvalidResponse, RequestID: r.RequestID, Message: "the request failed"}
	}
	return r.Error
}

// followTransfer waits for a transfer to finish (showing its progress) and answers the completed
// transfer's last response; otherwise it reports why not (adding hint, when not "", to a wait that
// stopped before the transfer finished) and returns the exit code with ok false.
func (a *app) followTransfer(c *client.Client, resp client.Response[client.DatabaseTransferEnvelope], interval time.Duration,
	hint string) (client.Response[client.DatabaseTransferEnvelope], int, bool) {
	resp = a.waitTransfer(c, resp, interval)
	t := resp.Body.Transfer
	switch {
	case !resp.OK:
		code := apiFailure(a, resp)
		fmt.Fprintf(a.stderr, "stopped following %s %s%s\n", t.Kind, t.ID, hint)
		return resp, code, false
	case !t.Done():
		return resp, a.localError("wait_interrupted", fmt.Sprintf("stopped waiting; %s %s is still %s%s", t.Kind, t.ID, t.Status, hint)), false
	case t.Status != client.TransferStatusCompleted:
		return resp, a.transferFailure(resp), false
	}
	return resp, exitOK, true
}

// waitTransfer polls a transfer every interval until it is done or the context ends (answering then the
// last response read), showing its progress on stderr; a failed poll ends it with that failure, after
// maxPollFailures in a row when they are transient.
func (a *app) waitTransfer(c *client.Client, resp client.Response[client.DatabaseTransferEnvelope], interval time.Duration) client.Response[client.DatabaseTransferEnvelope] {
	id := resp.Body.Transfer.ID
	shown := newTransferLine(a.stderr, a.stderrIsTerminal())
	defer shown.finish()
	shown.show(resp.Body.Transfer)
	last, failures := resp, 0
	for !last.Body.Transfer.Done() {
		t := time.NewTimer(interval)
		select {
		case <-a.ctx.Done():
			t.Stop()
			return last
		case <-t.C:
		}
		r := c.GetDatabaseTransfer(a.ctx, id)
		if !r.OK {
			if a.ctx.Err() != nil { // interrupted mid-request: as between polls
				return last
			}
			if failures++; failures < maxPollFailures && transient(r) && a.ctx.Err() == nil {
				continue
			}
			r.Body = last.Body // the transfer as last seen, to name it
			return r
		}
		failures = 0
		last = r
		shown.show(last.Body.Transfer)
	}
	return last
}

// transient reports whether a failed call may succeed when repeated: no answer, 429, or a 5xx other than
// 501.
func transient[T any](r client.Response[T]) bool {
	if r.Error != nil && r.Error.Code == client.CodeTransportError {
		return true
	}
	return r.StatusCode == http.StatusTooManyRequests || r.StatusCode >= 500 && r.StatusCode != http.StatusNotImplemented
}

// transferFailure reports a transfer that ended without completing, "error: <code>: <kind> <id> <status>:
// <message>" (with --json, after its envelope on stdout), and returns exitAPI.
func (a *app) transferFailure(resp client.Response[client.DatabaseTransferEnvelope]) int {
	t := resp.Body.Transfer
	if a.g.json {
		a.printRaw(resp.Raw)
	}
	e := &client.Error{Code: "transfer_" + t.Status, Message: fmt.Sprintf("%s %s %s", t.Kind, t.ID, t.Status), RequestID: resp.RequestID}
	if t.Error != nil {
		e.Code = orDefault(t.Error.Code, e.Code)
		if t.Error.Message != "" {
			e.Message += ": " + t.Error.Message
		}
	}
	a.printErrorLine(e)
	if t.Kind == client.TransferKindImport && !t.AllowUnsigned && (e.Code == codeArchiveUnsigned || e.Code == codeArchiveSignature) {
		fmt.Fprintln(a.stderr, "the archive is unsigned or signed by another platform's key; if you trust it, import it with --allow-unsigned")
	}
	return exitAPI
}

// Error codes of an import refused for its signature.
const (
	codeArchiveUnsigned  = "archive_unsigned"
	codeArchiveSignature = "archive_signature"
)

// stderrIsTerminal reports whether stderr is a terminal (where progress is redrawn in place).
func (a *app) stderrIsTerminal() bool {
	r, ok := a.stderr.(io.Reader)
	return ok && isTerminal(r)
}

// transferLine shows a transfer's progress: on a terminal one line redrawn in place, elsewhere a line
// each time the status or the count of tables done changes.
type transferLine struct {
	w        io.Writer
	terminal bool
	last     string // the last line shown, or on a terminal the key of the last change
	width    int    // the width of the line drawn on a terminal
}

func newTransferLine(w io.Writer, terminal bool) *transferLine {
	return &transferLine{w: w, terminal: terminal}
}

// show shows the transfer's state, unless nothing worth a new line changed.
func (l *transferLine) show(t client.DatabaseTransfer) {
	line := fmt.Sprintf("%s %s: %s", t.Kind, t.ID, t.Status)
	p := t.Progress
	if p.TablesTotal > 0 || p.TablesDone > 0 {
		line += fmt.Sprintf(", %d/%d tables", p.TablesDone, p.TablesTotal)
	}
	if p.Bytes > 0 {
		line += ", " + client.FormatBytes(p.Bytes) + " of data"
	}
	if t.Kind == client.TransferKindExport && p.ArchiveBytes > 0 {
		line += ", archive " + client.FormatBytes(p.ArchiveBytes)
	}
	if !l.terminal {
		key := fmt.Sprintf("%s %d/%d", t.Status, p.TablesDone, p.TablesTotal)
		if key != l.last {
			l.last = key
			fmt.Fprintln(l.w, line)
		}
		return
	}
	if line == l.last {
		return
	}
	pad := l.width - len(line)
	l.last, l.width = line, len(line)
	fmt.Fprintf(l.w, "\r%s%s", line, strings.Repeat(" ", max(pad, 0)))
}

// finish ends the line drawn on a terminal.
func (l *transferLine) finish() {
	if l.terminal && l.width > 0 {
		fmt.Fprintln(l.w)
		l.width = 0
	}
}

// sizeFlag is a size in bytes given as a number with an optional binary unit: 1048576, 512KiB, 8MiB,
// 1GiB (K, M, G, KB, MB and GB mean the same).
type sizeFlag int64

// String implements flag.Value.
func (s *sizeFlag) String() string { return client.FormatBytes(int64(*s)) }

// Set implements flag.Value.
func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

// parseSize parses a size such as "8MiB", "512k" or "1048576".
func parseSize(v string) (int64, error) {
	t := strings.TrimSpace(v)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') {
		i--
	}
	mult := int64(1)
	switch strings.ToLower(strings.TrimSpace(t[i:])) {
	case "", "b":
	case "k", "kb", "kib":
		mult = 1 << 10
	case "m", "mb", "mib":
		mult = 1 << 20
	case "g", "gb", "gib":
		mult = 1 << 30
	default:
		return 0, fmt.Errorf("%q is not a size (want e.g. 8MiB, 512KiB or 1048576)", v)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t[:i]), 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (want e.g. 8MiB, 512KiB or 1048576)", v)
	}
	return n * mult, nil
}

// importState is what svc keeps while an import is under way, so that rerunning it resumes:
// db-imports/<key>.json beside the config file, the key a digest of the server, the file's absolute path,
// size and modification time.
type importState struct {
	TransferID    string    `json:"transferId"`
	PartSize      int64     `json:"partSize"`
	AllowUnsigned bool      `json:"allowUnsigned"`
	BaseURL       string    `json:"baseUrl"`
	Path          string    `json:"path"`
	Size          int64     `json:"size"`
	ModTime       time.Time `json:"modTime"`
}

// importFile is the local file an import uploads.
type importFile struct {
	f       *os.File
	path    string // absolute
	size    int64
	modTime time.Time
}

// importStatePath is where the state of importing file to the server baseURL is kept.
func importStatePath(getenv func(string) string, baseURL string, file importFile) (string, error) {
	cfg, err := configPath(getenv)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d\x00%d", baseURL, file.path, file.size, file.modTime.UnixNano())))
	return filepath.Join(filepath.Dir(cfg), "db-imports", hex.EncodeToString(h[:16])+".json"), nil
}

// matches reports whether the state is that of importing file to baseURL.
func (s importState) matches(baseURL string, file importFile) bool {
	return s.TransferID != "" && s.BaseURL == baseURL && s.Path == file.path && s.Size == file.size &&
		s.ModTime.Equal(file.modTime) && s.PartSize > 0
}

// loadImportState reads an import's state; a missing or unreadable one is none (ok false).
func loadImportState(path string) (importState, bool) {
	var s importState
	b, err := os.ReadFile(path)
	if err != nil {
		return s, false
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, false
	}
	return s, true
}

// saveImportState writes an import's state atomically, readable by its owner only.
func saveImportState(path string, s importState) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the import's state: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".import-*.json") // mode 0600
	if err != nil {
		return fmt.Errorf("write the import's state: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// removeImportState deletes an import's state once there is nothing to resume, warning when it cannot.
func (a *app) removeImportState(path string) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(a.stderr, "warning: remove the import's state %s: %v\n", path, err)
	}
}

// importRun is one run of "svc db import".
type importRun struct {
	a             *app
	c             *client.Client // calls bounded by requestTimeout
	up            *client.Client // part uploads, without an overall timeout
	file          importFile
	statePath     string
	baseURL       string
	allowUnsigned bool
	partSize      int64
	sizeGiven     bool
	idemKey       string
}

// dbImport uploads an archive in parts (resuming an earlier run's upload) and restores it.
func (a *app) dbImport(args []string) int {
	const cmd = "db import"
	var (
		idemKey       string
		allowUnsigned bool
		noWait        bool
		interval      time.Duration
		partSize      = sizeFlag(defaultPartSize)
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.BoolVar(&allowUnsigned, "allow-unsigned", false, "restore an unsigned archive or one signed by another key")
	fs.Var(&partSize, "part-size", "bytes per part")
	fs.BoolVar(&noWait, "no-wait", false, "do not wait for the restore")
	fs.DurationVar(&interval, "interval", time.Second, "poll interval")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	sizeGiven := flagsGiven(fs)["part-size"]
	switch {
	case len(pos) != 1 || pos[0] == "":
		return a.usageError(cmd, "give one archive file to import")
	case interval <= 0:
		return a.usageError(cmd, "--interval must be positive")
	case int64(partSize) < minPartSize || int64(partSize) > maxPartSize:
		return a.usageError(cmd, "--part-size must be between %s and %s", client.FormatBytes(minPartSize), client.FormatBytes(maxPartSize))
	}
	file, code, ok := a.openImportFile(pos[0])
	if !ok {
		return code
	}
	defer func() { _ = file.f.Close() }()
	c, s, code, ok := a.authedClient()
	if !ok {
		return code
	}
	statePath, err := importStatePath(a.getenv, s.baseURL, file)
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	run := &importRun{a: a, c: c, up: a.newClient(s, client.WithHTTPClient(downloadHTTPClient())), file: file, statePath: statePath,
		baseURL: s.baseURL, allowUnsigned: allowUnsigned, partSize: int64(partSize), sizeGiven: sizeGiven, idemKey: idemKey}
	if parts := partCount(file.size, run.partSize); parts > client.MaxTransferParts {
		if sizeGiven {
			return a.usageError(cmd, "%s makes %d parts of %s, more than %d; raise --part-size", pos[0], parts,
				client.FormatBytes(run.partSize), client.MaxTransferParts)
		}
		run.partSize = (file.size/client.MaxTransferParts + 1<<20) &^ (1<<20 - 1) // whole MiB, enough for the part limit
	}
	return run.run(noWait, interval)
}

// openImportFile opens the archive to import: a non-empty regular file.
func (a *app) openImportFile(path string) (importFile, int, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return importFile{}, a.localError("read_failed", fmt.Sprintf("locate %s: %v", path, err)), false
	}
	f, err := os.Open(abs)
	if err != nil {
		return importFile{}, a.localError("read_failed", fmt.Sprintf("open %s: %v", path, err)), false
	}
	fi, err := f.Stat()
	switch {
	case err != nil || !fi.Mode().IsRegular():
		_ = f.Close()
		return importFile{}, a.localError("read_failed", fmt.Sprintf("%s is not a regular file", path)), false
	case fi.Size() == 0:
		_ = f.Close()
		return importFile{}, a.localError("read_failed", fmt.Sprintf("%s is empty", path)), false
	}
	return importFile{f: f, path: abs, size: fi.Size(), modTime: fi.ModTime()}, 0, true
}

// partCount is the number of parts of size bytes in parts of partSize.
func partCount(size, partSize int64) int64 {
	return (size + partSize - 1) / partSize
}

// run resumes or starts the import, uploads its missing parts, completes it and (unless noWait) waits
// for the restore.
func (r *importRun) run(noWait bool, interval time.Duration) int {
	a := r.a
	t, accepted, code, ok := r.resume()
	if !ok {
		return code
	}
	var resp client.Response[client.DatabaseTransferEnvelope]
	switch t.Status {
	case client.TransferStatusAwaitingParts:
		if code, ok := r.upload(t.ID, accepted); !ok {
			return code
		}
		resp = r.c.CompleteDatabaseTransfer(a.ctx, t.ID)
		if !resp.OK {
			code := apiFailure(a, resp)
			fmt.Fprintf(a.stderr, "every part of import %s is uploaded; rerun the command to complete it\n", t.ID)
			return code
		}
	default: // running or completed: an earlier run completed the upload
		resp = r.c.GetDatabaseTransfer(a.ctx, t.ID)
		if !resp.OK {
			return apiFailure(a, resp)
		}
	}
	if noWait && !resp.Body.Transfer.Done() {
		r.a.removeImportState(r.statePath)
		if a.g.json {
			a.printRaw(resp.Raw)
			return exitOK
		}
		fmt.Fprintf(a.stdout, "Uploaded %s as import %s (%s); the restore is %s.\n", r.file.path, t.ID,
			client.FormatBytes(r.file.size), resp.Body.Transfer.Status)
		return exitOK
	}
	resp, code, ok = a.followTransfer(r.c, resp, interval, "; rerun the same command to wait for it")
	if resp.Body.Transfer.Done() {
		a.removeImportState(r.statePath)
	}
	if !ok {
		return code
	}
	if a.g.json {
		a.printRaw(resp.Raw)
		return exitOK
	}
	done := resp.Body.Transfer
	fmt.Fprintf(a.stdout, "Imported %s into the database (import %s): %s, %s of data.\n", r.file.path, done.ID,
		count(int64(done.Progress.TablesTotal), "table"), client.FormatBytes(done.Progress.Bytes))
	if ar := done.Archive; ar != nil {
		tw := a.table()
		fmt.Fprintf(tw, "SHA-256:\t%s\nPublic key:\t%s\n", ar.SHA256, orDefault(ar.PublicKey, "- (unsigned)"))
		_ = tw.Flush()
	}
	return exitOK
}

// resume answers the transfer to upload to, with the parts it already accepted: the earlier run's
// transfer of this file when it can go on (awaiting parts that are the file's, or already restoring),
// else a new one.
func (r *importRun) resume() (client.DatabaseTransfer, map[int]bool, int, bool) {
	a := r.a
	st, found := loadImportState(r.statePath)
	if found && st.matches(r.baseURL, r.file) {
		resp := r.c.GetDatabaseTransfer(a.ctx, st.TransferID)
		switch {
		case resp.OK && resp.Body.Transfer.Kind == client.TransferKindImport:
			t := resp.Body.Transfer
			switch t.Status {
			case client.TransferStatusRunning, client.TransferStatusCompleted:
				fmt.Fprintf(a.stderr, "import %s of this file is already %s\n", t.ID, t.Status)
				return t, nil, 0, true
			case client.TransferStatusAwaitingParts:
				if t.AllowUnsigned != r.allowUnsigned {
					fmt.Fprintf(a.stderr, "import %s was started %s --allow-unsigned; starting a new one\n", t.ID, map[bool]string{true: "with", false: "without"}[t.AllowUnsigned])
					r.abandon(t.ID)
					break
				}
				accepted, why := r.acceptedParts(t, st.PartSize)
				if why != "" {
					fmt.Fprintf(a.stderr, "import %s: %s; starting a new one\n", t.ID, why)
					r.abandon(t.ID)
					break
				}
				if r.sizeGiven && r.partSize != st.PartSize {
					fmt.Fprintf(a.stderr, "import %s keeps its part size of %s\n", t.ID, client.FormatBytes(st.PartSize))
				}
				r.partSize = st.PartSize
				fmt.Fprintf(a.stderr, "resuming %s: %d of %d parts already accepted\n", t.ID, len(accepted), partCount(r.file.size, r.partSize))
				return t, accepted, 0, true
			default:
				fmt.Fprintf(a.stderr, "import %s of an earlier run is %s; starting a new one\n", t.ID, t.Status)
			}
		case resp.StatusCode == http.StatusNotFound || resp.OK:
			fmt.Fprintf(a.stderr, "import %s of an earlier run is gone; starting a new one\n", st.TransferID)
		default:
			code := apiFailure(a, resp)
			fmt.Fprintf(a.stderr, "could not read import %s of an earlier run; rerun the command to resume it\n", st.TransferID)
			return client.DatabaseTransfer{}, nil, code, false
		}
	}
	resp := r.c.CreateDatabaseTransfer(a.ctx, client.CreateDatabaseTransferRequest{Kind: client.TransferKindImport,
		AllowUnsigned: r.allowUnsigned}, idemOpts(r.idemKey)...)
	if !resp.OK {
		return client.DatabaseTransfer{}, nil, apiFailure(a, resp), false
	}
	t := resp.Body.Transfer
	err := saveImportState(r.statePath, importState{TransferID: t.ID, PartSize: r.partSize, AllowUnsigned: r.allowUnsigned,
		BaseURL: r.baseURL, Path: r.file.path, Size: r.file.size, ModTime: r.file.modTime})
	if err != nil {
		fmt.Fprintf(a.stderr, "warning: an interrupted import will not resume: %v\n", err)
	}
	fmt.Fprintf(a.stderr, "import %s: uploading %s in %s of %s\n", t.ID, client.FormatBytes(r.file.size),
		count(partCount(r.file.size, r.partSize), "part"), client.FormatBytes(r.partSize))
	return t, map[int]bool{}, 0, true
}

// abandon cancels an earlier run's transfer that cannot be resumed, so that its parts are deleted now
// rather than when it expires; a failure only warns.
func (r *importRun) abandon(id string) {
	if resp := r.c.CancelDatabaseTransfer(r.a.ctx, id); !resp.OK && resp.StatusCode != http.StatusNotFound {
		fmt.Fprintf(r.a.stderr, "warning: cancel import %s: %v\n", id, responseError(resp))
	}
}

// acceptedParts checks a transfer's accepted parts against the file split in parts of partSize: it
// answers their numbers, or why they are not the file's.
func (r *importRun) acceptedParts(t client.DatabaseTransfer, partSize int64) (map[int]bool, string) {
	n := partCount(r.file.size, partSize)
	accepted := map[int]bool{}
	for _, p := range t.Parts {
		if p.PartNumber < 1 || int64(p.PartNumber) > n {
			return nil, fmt.Sprintf("it holds part %d, beyond the file's %d parts", p.PartNumber, n)
		}
		off, size := partRange(r.file.size, partSize, p.PartNumber)
		if p.Bytes != size {
			return nil, fmt.Sprintf("its part %d has %d bytes, not %d", p.PartNumber, p.Bytes, size)
		}
		sum, err := sectionSHA256(r.file.f, off, size)
		if err != nil {
			return nil, fmt.Sprintf("read part %d of %s: %v", p.PartNumber, r.file.path, err)
		}
		if !strings.EqualFold(sum, p.SHA256) {
			return nil, fmt.Sprintf("its part %d is not the file's (SHA-256 %s, the file's %s)", p.PartNumber, p.SHA256, sum)
		}
		accepted[p.PartNumber] = true
	}
	return accepted, ""
}

// count is "1 <noun>" or "N <noun>s".
func count(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// partRange is the offset and size of part number n (from 1) of a file of size bytes.
func partRange(size, partSize int64, n int) (int64, int64) {
	off := int64(n-1) * partSize
	return off, min(partSize, size-off)
}

// sectionSHA256 is the SHA-256 (hex) of size bytes of f at off.
func sectionSHA256(f *os.File, off, size int64) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, off, size)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// upload sends the parts of the file the transfer has not accepted yet, with a progress bar over the
// whole file. A part failing partAttempts times (or otherwise than transiently) stops the upload, with a
// hint that a rerun resumes it.
func (r *importRun) upload(id string, accepted map[int]bool) (int, bool) {
	a := r.a
	n := int(partCount(r.file.size, r.partSize))
	var done int64
	for p := range accepted {
		_, size := partRange(r.file.size, r.partSize, p)
		done += size
	}
	bar := a.progressFor(r.file.size)
	bar.update(done, r.file.size)
	for p := 1; p <= n; p++ {
		if accepted[p] {
			continue
		}
		off, size := partRange(r.file.size, r.partSize, p)
		sum, err := sectionSHA256(r.file.f, off, size)
		if err != nil {
			bar.finish()
			return a.localError("read_failed", fmt.Sprintf("read part %d of %s: %v", p, r.file.path, err)), false
		}
		resp := r.sendPart(id, p, off, size, sum, func(sent int64) { bar.update(done+sent, r.file.size) })
		if !resp.OK {
			bar.finish()
			code := apiFailure(a, resp)
			fmt.Fprintf(a.stderr, "import %s stopped at part %d of %d; rerun the same command to resume it\n", id, p, n)
			return code, false
		}
		done += size
		bar.update(done, r.file.size)
	}
	bar.finish()
	return exitOK, true
}

// errUploadStalled ends the upload of a part that sends nothing (or gets no answer) for
// downloadStallTimeout.
var errUploadStalled = fmt.Errorf("no data sent for %s", downloadStallTimeout)

// sendPart uploads one part, again after a transient failure or a stall (up to partAttempts times),
// reporting the bytes sent of this attempt to progress.
func (r *importRun) sendPart(id string, part int, off, size int64, sum string, progress func(sent int64)) client.Response[client.DatabaseTransferPartEnvelope] {
	wait := partRetryWait
	for attempt := 1; ; attempt++ {
		resp := r.sendPartOnce(id, part, off, size, sum, progress)
		if resp.OK || attempt >= partAttempts || !transient(resp) || r.a.ctx.Err() != nil {
			return resp
		}
		if ra := resp.RetryAfter(); ra > wait {
			wait = min(ra, 30*time.Second)
		}
		if !sleepCtx(r.a.ctx, wait) {
			return resp
		}
		wait *= 2
	}
}

// sendPartOnce uploads one part, ending the request when it stalls for downloadStallTimeout.
func (r *importRun) sendPartOnce(id string, part int, off, size int64, sum string, progress func(sent int64)) client.Response[client.DatabaseTransferPartEnvelope] {
	ctx, cancel := context.WithCancelCause(r.a.ctx)
	defer cancel(nil)
	stall := time.AfterFunc(downloadStallTimeout, func() { cancel(errUploadStalled) })
	defer stall.Stop()
	body := &countingReader{r: io.NewSectionReader(r.file.f, off, size), report: func(n int64) {
		stall.Reset(downloadStallTimeout)
		progress(n)
	}}
	resp := r.up.UploadDatabaseTransferPart(ctx, id, part, size, body, sum)
	if !resp.OK && errors.Is(context.Cause(ctx), errUploadStalled) {
		resp.Error = &client.Error{Code: client.CodeTransportError, Message: fmt.Sprintf("upload of part %d stopped: %v", part, errUploadStalled)}
	}
	return resp
}

// sleepCtx waits for d, or less when ctx ends first (answering false).
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// countingReader reports the bytes read through it so far.
type countingReader struct {
	r      io.Reader
	n      int64
	report func(n int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.n += int64(n)
		c.report(c.n)
	}
	return n, err
}
