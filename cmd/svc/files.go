package main

import (
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// filesHelp is the help of "svc files".
const filesHelp = `Usage: svc files <upload|list|get|download|delete> [flags]

Files are bytes stored for the selected project (or for none). Reading needs scope files:read,
uploading and deleting files:write.

  files upload     upload a local file
  files list       list files, newest first
  files get        show a file's metadata
  files download   download a file's content, verified against its SHA-256
  files delete     delete a file

Run "svc files <command> --help" for details.`

// filesCommands are the commands of files, "svc files ...".
func filesCommands() []command {
	return []command{
		{name: "files", help: filesHelp},
		{name: "files upload", run: (*app).filesUpload, help: filesUploadHelp, brief: "upload a local file"},
		{name: "files list", run: (*app).filesList, help: filesListHelp, brief: "list stored files"},
		{name: "files get", run: (*app).filesGet, help: filesGetHelp, brief: "show a file's metadata"},
		{name: "files download", run: (*app).filesDownload, help: filesDownloadHelp,
			brief: "download a file, verified against its SHA-256"},
		{name: "files delete", run: (*app).filesDelete, help: filesDeleteHelp, brief: "delete a file"},
	}
}

// filesUploadHelp is the help of "svc files upload".
const filesUploadHelp = `Usage: svc files upload PATH [--name NAME] [--purpose P] [--media-type T] [--idempotency-key K]

Uploads the local file PATH (scope files:write), streamed and checked by the server against the
SHA-256 svc computes first. A progress bar is shown on stderr for files over 1 MiB when stderr is a
terminal.

  --name NAME           the stored file's name (default: PATH's base name)
  --purpose P           a project-defined purpose
  --media-type T        the media type (default: from the file's extension, else application/octet-stream)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// filesUpload uploads a local file.
func (a *app) filesUpload(args []string) int {
	const cmd = "files upload"
	var name, purpose, mediaType, idemKey string
	flags := a.commandFlags(cmd, &idemKey)
	flags.StringVar(&name, "name", "", "the stored file's name")
	flags.StringVar(&purpose, "purpose", "", "a project-defined purpose")
	flags.StringVar(&mediaType, "media-type", "", "the media type")
	path, code, ok := a.parseID(idSpec{cmd: cmd, what: "file path"}, flags, args)
	if !ok {
		return code
	}
	if name == "" {
		name = filepath.Base(path)
	}
	if mediaType == "" {
		mediaType = mime.TypeByExtension(filepath.Ext(name)) // "" leaves the SDK's application/octet-stream
	}
	f, err := os.Open(path)
	if err != nil {
		return a.localError("read_failed", fmt.Sprintf("open %s: %v", path, err))
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return a.localError("read_failed", fmt.Sprintf("%s is not a regular file", path))
	}
	_, s, code, ok := a.authedClient()
	if !ok {
		return code
	}
	c := a.newClient(s, client.WithHTTPClient(downloadHTTPClient()))
	bar := a.progressFor(fi.Size())
	resp := c.UploadFile(a.ctx, client.UploadFileRequest{Name: name, MediaType: mediaType, Purpose: purpose,
		Size: fi.Size(), Body: f, Progress: bar.update}, idemOpts(idemKey)...)
	bar.finish()
	return answer(a, resp, func(r client.Response[client.FileEnvelope]) {
		fl := r.Body.File
		fmt.Fprintf(a.stdout, "Uploaded %s as file %s (%s, sha256 %s).\n", path, fl.ID, client.FormatBytes(fl.Bytes), fl.SHA256)
	})
}

// filesListHelp is the help of "svc files list".
const filesListHelp = `Usage: svc files list [--purpose P] [--name PREFIX] [--limit N] [--cursor C] [--all]

Lists the files of the selected project (or of none), newest first (scope files:read).

  --purpose P      only the files of this purpose
  --name PREFIX    only the files whose name starts with PREFIX
  --limit N        page size 1..200 (default 50)
  --cursor C       the nextCursor of the previous page (repeat the same filters)
  --all            follow nextCursor through every page

` + globalFlagsHelp

// filesList lists files.
func (a *app) filesList(args []string) int {
	const cmd = "files list"
	flags := a.commandFlags(cmd, nil)
	var (
		pf            pageFlags
		purpose, name string
	)
	flags.StringVar(&purpose, "purpose", "", "only files of this purpose")
	flags.StringVar(&name, "name", "", "only files whose name starts with this prefix")
	if code, ok := a.parsePaged(cmd, flags, &pf, args); !ok {
		return code
	}
	items, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.FileList] {
			return c.ListFiles(a.ctx, client.ListFilesParams{ListParams: p, Purpose: purpose, Name: name})
		},
		func(l client.FileList) ([]client.File, *string) { return l.Files, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.FileList{OK: true, Files: orEmpty(items), NextCursor: next}, len(items), "No files.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "ID\tNAME\tPURPOSE\tTYPE\tSIZE\tCREATED")
	for _, f := range items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.ID, oneLine(f.Name, 40), orDash(oneLine(f.Purpose, 30)), oneLine(f.MediaType, 30),
			client.FormatBytes(f.Bytes), f.CreatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
	var filters []string
	for _, fl := range [][2]string{{"--purpose", purpose}, {"--name", name}} {
		if fl[1] != "" {
			filters = append(filters, fl[0], shellQuote(fl[1]))
		}
	}
	if pf.limit != 0 {
		filters = append(filters, "--limit", fmt.Sprint(pf.limit))
	}
	a.moreHint("files", cmd, filters, next)
	return exitOK
}

// filesGetHelp is the help of "svc files get".
const filesGetHelp = `Usage: svc files get ID

Shows a file's metadata (scope files:read).

` + globalFlagsHelp

// filesGet shows a file's metadata.
func (a *app) filesGet(args []string) int {
	return oneID(a, idSpec{cmd: "files get", what: "file"}, args,
		func(c *client.Client, id string, _ []client.CallOption) client.Response[client.FileEnvelope] {
			return c.GetFile(a.ctx, id)
		},
		func(r client.Response[client.FileEnvelope]) {
			f := r.Body.File
			tw := a.table()
			fmt.Fprintf(tw, "ID\t%s\nNAME\t%s\nPURPOSE\t%s\nTYPE\t%s\nSIZE\t%s (%d bytes)\nSHA256\t%s\nCREATED\t%s\n",
				f.ID, oneLine(f.Name, 200), orDash(oneLine(f.Purpose, 100)), oneLine(f.MediaType, 100), client.FormatBytes(f.Bytes), f.Bytes,
				f.SHA256, f.CreatedAt.UTC().Format(time.RFC3339))
			_ = tw.Flush()
		})
}

// filesDeleteHelp is the help of "svc files delete".
const filesDeleteHelp = `Usage: svc files delete ID [--idempotency-key K]

Deletes a file (scope files:write): it is gone at once and its bytes are purged later.

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// filesDelete deletes a file.
func (a *app) filesDelete(args []string) int {
	return oneID(a, idSpec{cmd: "files delete", what: "file", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.FileEnvelope] {
			return c.DeleteFile(a.ctx, id, opts...)
		},
		func(r client.Response[client.FileEnvelope]) {
			fmt.Fprintf(a.stdout, "Deleted file %s (%s).\n", r.Body.File.ID, oneLine(r.Body.File.Name, 80))
		})
}

// fileDownloadResult is what --json prints after a file download.
type fileDownloadResult struct {
	OK   bool             `json:"ok"`
	File downloadedObject `json:"file"`
}

// filesDownloadHelp is the help of "svc files download".
const filesDownloadHelp = `Usage: svc files download ID [-o FILE|DIR|-] [--force]

Downloads a file's content (scope files:read). The bytes go to a temporary file beside the
destination, are checked against the size and SHA-256 the server announces, and only then take the
destination's name: a failed or tampered download leaves nothing behind. A progress bar is shown on
stderr for content over 1 MiB when stderr is a terminal.

  -o, --output FILE   write to FILE (default: the file's name in the current directory)
  -o, --output DIR    write to the file's name in the existing directory DIR
  -o, --output -      write the content to stdout (verified at the end; exit 1 if it does not match)
  --force             overwrite an existing file (by default svc refuses)

` + globalFlagsHelp

// filesDownload downloads a file's content to a file (atomically, after verifying it) or to stdout.
func (a *app) filesDownload(args []string) int {
	const cmd = "files download"
	var (
		output string
		force  bool
	)
	flags := a.commandFlags(cmd, nil)
	flags.StringVar(&output, "output", "", "file, directory or - (stdout) to write to")
	flags.StringVar(&output, "o", "", "short for --output")
	flags.BoolVar(&force, "force", false, "overwrite an existing file")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "file"}, flags, args)
	if !ok {
		return code
	}
	if given := flagsGiven(flags); (given["output"] || given["o"]) && output == "" {
		return a.usageError(cmd, "--output must not be empty")
	}
	_, s, code, ok := a.authedClient()
	if !ok {
		return code
	}
	c := a.newClient(s, client.WithHTTPClient(downloadHTTPClient()))
	guard := a.guardDownload()
	defer guard.stop()
	resp := c.OpenFile(guard.ctx, id)
	if !resp.OK {
		return apiFailure(a, resp)
	}
	content := resp.Body
	defer func() { _ = content.Body.Close() }()
	bar := a.progressFor(content.SizeBytes)
	progress := guard.progress(bar)
	if output == "-" {
		err := copyWithProgress(a.stdout, content, progress)
		bar.finish()
		return a.downloadFailure(guard.ctx, err)
	}
	dest, code, ok := a.fileDest(output, content.Name, force)
	if !ok {
		return code
	}
	if code := a.saveVerified(guard.ctx, content, dest, force, bar, progress); code != exitOK {
		return code
	}
	if a.g.json {
		a.printJSON(fileDownloadResult{OK: true, File: downloadedObject{ID: content.ID, Name: content.Name,
			ContentType: content.ContentType, SizeBytes: content.SizeBytes, SHA256: content.SHA256, Path: dest}})
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Downloaded file %s to %s (%s, sha256 %s verified).\n", content.ID, dest,
		client.FormatBytes(content.SizeBytes), content.SHA256)
	return exitOK
}

// fileDest is the path a download named name is written to for --output output ("" or a directory:
// name inside it), refusing an existing file without force.
func (a *app) fileDest(output, name string, force bool) (string, int, bool) {
	dest := output
	if output == "" || isDir(output) {
		safe, msg := safeFileName(name)
		if msg != "" {
			return "", a.localError("invalid_name", strings.Replace(msg, "artifact", "file", 1)+"; give the file name with --output"), false
		}
		dest = filepath.Join(orDefault(output, "."), safe)
	}
	if !force && exists(dest) {
		return "", a.localError("file_exists", fmt.Sprintf("%s exists; use --force to overwrite it", dest)), false
	}
	return dest, 0, true
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
