package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// Downloads (artifacts and files).
const (
	// progressMinBytes is the size from which a download shows a progress bar (on a terminal).
	progressMinBytes = 1 << 20
	// downloadStallTimeout ends a download that receives nothing for this long.
	downloadStallTimeout = 60 * time.Second
	// progressInterval is how often the progress bar is redrawn at most.
	progressInterval = 100 * time.Millisecond
)

// errDownloadStalled ends a download that stopped receiving bytes.
var errDownloadStalled = fmt.Errorf("no data received for %s", downloadStallTimeout)

// saveVerified writes content to a temporary file beside dest and renames it to dest once verified.
// It reports the copy to progress and ends the line of bar.
func (a *app) saveVerified(ctx context.Context, content *client.FileContent, dest string, force bool, bar *progressBar,
	progress func(done, total int64)) int {
	return a.saveWith(ctx, dest, force, func(w io.Writer) error {
		err := copyWithProgress(w, content, progress)
		bar.finish()
		return err
	})
}

// saveWith has write fill a temporary file beside dest and renames it to dest once write succeeded
// (write verifies what it copies); a failure removes the temporary file and is reported as downloads'
// failures are.
func (a *app) saveWith(ctx context.Context, dest string, force bool, write func(w io.Writer) error) int {
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".svc-download-*")
	if err != nil {
		return a.localError("write_failed", fmt.Sprintf("create a temporary file beside %s: %v", dest, err))
	}
	committed := false
	defer func() {
		if !committed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if code := a.downloadFailure(ctx, write(tmp)); code != exitOK {
		return code
	}
	if err := finishFile(tmp); err != nil {
		return a.localError("write_failed", fmt.Sprintf("write %s: %v", tmp.Name(), err))
	}
	if err := commitFile(tmp.Name(), dest, force); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return a.localError("file_exists", fmt.Sprintf("%s exists; use --force to overwrite it", dest))
		}
		return a.localError("write_failed", fmt.Sprintf("save %s: %v", dest, err))
	}
	committed = true
	return exitOK
}

// downloadFailure reports a failed copy and returns its exit code, or exitOK when err is nil.
func (a *app) downloadFailure(ctx context.Context, err error) int {
	if err == nil {
		return exitOK
	}
	var e *client.Error
	if !errors.As(err, &e) {
		e = &client.Error{Code: "write_failed", Message: err.Error()}
	}
	if cause := context.Cause(ctx); errors.Is(cause, errDownloadStalled) {
		e = &client.Error{Code: client.CodeTransportError, RequestID: e.RequestID, Message: "download stopped: " + cause.Error()}
	}
	return apiFailure(a, client.Response[struct{}]{Error: e})
}

// copyWithProgress copies an artifact's or a file's verified content into w, reporting progress.
func copyWithProgress(w io.Writer, content *client.ArtifactContent, progress func(done, total int64)) error {
	var done int64
	buf := make([]byte, 256<<10)
	for {
		n, err := content.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			done += int64(n)
			progress(done, content.SizeBytes)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// finishFile makes a downloaded file durable and readable like a file the user created.
func finishFile(f *os.File) error {
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	return f.Close()
}

// commitFile gives the temporary file tmp the name dest. Without force it never replaces a file, even
// one created meanwhile: a hard link fails when dest exists (where links are not supported, an existence
// check precedes a rename).
func commitFile(tmp, dest string, force bool) error {
	if force {
		return os.Rename(tmp, dest)
	}
	err := os.Link(tmp, dest)
	if err == nil {
		return os.Remove(tmp)
	}
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	if exists(dest) {
		return fs.ErrExist
	}
	return os.Rename(tmp, dest)
}

// safeFileName checks an artifact's name as a file name in a directory; it returns the name, or a
// message saying why it cannot be used.
func safeFileName(name string) (string, string) {
	switch {
	case name == "":
		return "", "the server did not name the artifact"
	case strings.ContainsAny(name, `/\`) || hasControl(name) || !filepath.IsLocal(name):
		return "", fmt.Sprintf("the artifact's name %q is not a safe file name", name)
	}
	return name, ""
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// downloadHTTPClient has no overall timeout, since large content takes as long as it takes; the answer's
// headers must arrive within requestTimeout, and a stalled body is ended by downloadStallTimeout.
func downloadHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = requestTimeout
	return &http.Client{Transport: t}
}

// stallGuard bounds one download: its context is cancelled with errDownloadStalled when no progress is
// reported for downloadStallTimeout.
type stallGuard struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
}

// guardDownload starts the stall timer of a download; stop releases it.
func (a *app) guardDownload() *stallGuard {
	ctx, cancel := context.WithCancelCause(a.ctx)
	return &stallGuard{ctx: ctx, cancel: cancel, timer: time.AfterFunc(downloadStallTimeout, func() { cancel(errDownloadStalled) })}
}

// progress reports a download's progress: it resets the stall timer and draws bar (nil: none).
func (g *stallGuard) progress(bar *progressBar) func(done, total int64) {
	return func(done, total int64) {
		g.timer.Reset(downloadStallTimeout)
		bar.update(done, total)
	}
}

func (g *stallGuard) stop() {
	g.timer.Stop()
	g.cancel(nil)
}

// progressFor returns the progress bar of a download of total bytes: one on stderr when it is a terminal
// and the content is large, else nil (no bar).
func (a *app) progressFor(total int64) *progressBar {
	r, ok := a.stderr.(io.Reader)
	if !ok || !isTerminal(r) || total <= progressMinBytes {
		return nil
	}
	return &progressBar{w: a.stderr, now: time.Now}
}

// progressBar draws a one-line progress bar, redrawing it at most every progressInterval. A nil
// progressBar draws nothing.
type progressBar struct {
	w     io.Writer
	now   func() time.Time
	last  time.Time
	drawn bool
}

// barWidth is the number of cells of the bar.
const barWidth = 30

// update redraws the bar for done of total bytes, unless it was drawn very recently (the final state is
// always drawn).
func (p *progressBar) update(done, total int64) {
	if p == nil {
		return
	}
	now := p.now()
	if p.drawn && done < total && now.Sub(p.last) < progressInterval {
		return
	}
	p.last, p.drawn = now, true
	pct := int64(100)
	if total > 0 {
		pct = done * 100 / total
	}
	cells := int(pct * barWidth / 100)
	bar := strings.Repeat("=", cells)
	if cells < barWidth {
		bar += ">" + strings.Repeat(" ", barWidth-cells-1)
	}
	fmt.Fprintf(p.w, "\r%3d%% [%s] %s / %s ", pct, bar, client.FormatBytes(done), client.FormatBytes(total))
}

// finish ends the bar's line.
func (p *progressBar) finish() {
	if p == nil || !p.drawn {
		return
	}
	fmt.Fprintln(p.w)
}
