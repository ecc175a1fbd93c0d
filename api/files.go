package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// filesAPI serves project files: uploads streamed to the blob store, metadata, downloads and soft deletes.
type filesAPI struct {
	files *file.Store
	// blobs holds the files' bytes (the platform store below app.FilePrefix).
	blobs blob.Store
	// purges start the purge timers of deleted files (nil: none started).
	purges *file.Purges
	log    *slog.Logger
}

// uploadFileInput documents the upload's headers; the body is read by the handler as a stream.
type uploadFileInput struct {
	FileName      string `header:"X-File-Name" doc:"Required: the file's name (a name, never a path)."`
	ContentSHA256 string `header:"X-Content-Sha256" doc:"Optional hex SHA-256 of the body; a mismatch stores nothing."`
	Purpose       string `header:"X-Svc-File-Purpose" doc:"Optional project-defined purpose."`
	ContentType   string `header:"Content-Type" doc:"The file's media type (application/octet-stream when absent)."`
}

// errNoBlobStore answers file transfers of a server built without a blob store.
var errNoBlobStore = svcerr.New(svcerr.Unavailable, "files are not configured on this server (no blob store)")

// upload is what one upload attempt holds: the reservation and the blob it wrote, undone on failure.
type upload struct {
	id      string
	res     file.Reservation
	blobKey string
	stored  bool
}

// uploadFile streams the raw body to the blob store while its size and SHA-256 are measured, under a
// quota reserved for its Content-Length first, and records the file. Any failure releases the
// reservation and deletes the blob, so nothing is stored.
func (fa *filesAPI) uploadFile(ctx context.Context, in *uploadFileInput) (*Out[client.FileEnvelope], error) {
	if fa.blobs == nil {
		return nil, errNoBlobStore
	}
	p := principalFrom(ctx)
	body, length, err := checkUpload(ctx, in)
	if err != nil {
		return nil, err
	}
	res, err := fa.files.Reserve(ctx, p.Scope.AccountID, length)
	if err != nil {
		return nil, err
	}
	id := newID(ctx, ids.File)
	// The blob key is new on every attempt, so a replayed attempt never overwrites the bytes of the file
	// its first attempt recorded.
	up := &upload{id: id, res: res, blobKey: p.Scope.AccountID + "/" + id + "/" + res.ID}
	f, err := fa.store(ctx, up, body, length, in)
	if err != nil {
		fa.undo(ctx, up)
		return nil, err
	}
	return reply(client.FileEnvelope{OK: true, File: file.ToWire(f)})
}

// checkUpload validates the upload's headers and answers its body and length.
func checkUpload(ctx context.Context, in *uploadFileInput) (io.Reader, int64, error) {
	body, length := rawBodyFrom(ctx)
	if in.FileName == "" {
		return nil, 0, svcerr.Invalid("X-File-Name", "an upload names its file in the X-File-Name header")
	}
	if err := file.ValidateName(in.FileName); err != nil {
		return nil, 0, namingHeader(err, "X-File-Name")
	}
	if err := file.ValidateMediaType(strings.TrimSpace(in.ContentType)); err != nil {
		return nil, 0, namingHeader(err, "Content-Type")
	}
	if err := file.ValidatePurpose(in.Purpose); err != nil {
		return nil, 0, namingHeader(err, "X-Svc-File-Purpose")
	}
	if in.ContentSHA256 != "" && !isSHA256Hex(strings.ToLower(in.ContentSHA256)) {
		return nil, 0, svcerr.Invalid("X-Content-Sha256", "X-Content-Sha256 is the body's SHA-256 in 64 hex digits")
	}
	if body == nil || length < 0 {
		return nil, 0, svcerr.Invalid("Content-Length", "an upload declares its size in Content-Length (chunked bodies are refused)")
	}
	return body, length, nil
}

// namingHeader makes a validation error of a file's field name the upload header that carried it.
func namingHeader(err error, header string) error {
	var se *svcerr.Error
	if errors.As(err, &se) {
		se.Message = strings.Replace(se.Message, se.Param, header, 1)
		se.Param = header
	}
	return err
}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// errReader records the first error of the client's body, to tell it from a failure of the store.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// store writes the body to the blob store, checks what it measured against the headers, and settles
// the reservation into the file's row.
func (fa *filesAPI) store(ctx context.Context, up *upload, body io.Reader, length int64, in *uploadFileInput) (*schema.File, error) {
	p := principalFrom(ctx)
	src := &errReader{r: io.LimitReader(body, length+1)} // one byte more, to see a body longer than declared
	size, sum, err := fa.blobs.Put(ctx, up.blobKey, src)
	up.stored = err == nil
	switch {
	case src.err != nil:
		return nil, svcerr.Invalid("Content-Length", "the body ended before its Content-Length of %d bytes: nothing is stored", length)
	case err != nil:
		return nil, fmt.Errorf("store file bytes: %w", err)
	case size != length:
		return nil, svcerr.Invalid("Content-Length", "the body has %d bytes, not its Content-Length of %d: nothing is stored", size, length)
	case in.ContentSHA256 != "" && !strings.EqualFold(in.ContentSHA256, sum):
		return nil, svcerr.Invalid("X-Content-Sha256", "the body's SHA-256 is %s, not the X-Content-Sha256 sent: nothing is stored", sum)
	}
	f, created, err := fa.files.Create(ctx, up.res, file.NewFile{ID: up.id, Scope: p.Scope, KeyID: p.keyID(),
		Name: in.FileName, MediaType: strings.TrimSpace(in.ContentType), Purpose: in.Purpose,
		Bytes: size, SHA256: sum, BlobKey: up.blobKey})
	if err != nil {
		return nil, err
	}
	if !created {
		fa.undo(ctx, up) // a replay: the first attempt's file is answered, this attempt's bytes dropped
	}
	return f, nil
}

// undo releases an upload's reservation (idempotent) and deletes its blob, with a context that outlives
// the request's.
func (fa *filesAPI) undo(ctx context.Context, up *upload) {
	ctx = context.WithoutCancel(ctx)
	if err := fa.files.Release(ctx, up.res); err != nil {
		fa.log.Error("release storage reservation", slog.String("requestId", requestIDFrom(ctx)), slog.String("reservation", up.res.ID), slog.Any("err", err))
	}
	if err := fa.blobs.Delete(ctx, up.blobKey); err != nil {
		fa.log.Error("delete the blob of a failed upload", slog.String("requestId", requestIDFrom(ctx)), slog.String("blobKey", up.blobKey), slog.Any("err", err))
	}
}

type listFilesInput struct {
	PageQuery
	Purpose string `query:"purpose" maxLength:"100" doc:"Only files of this purpose."`
	Name    string `query:"name" maxLength:"255" doc:"Only files whose name starts with this prefix."`
}

// listFiles lists the live files of the caller's scope, newest first.
func (fa *filesAPI) listFiles(ctx context.Context, in *listFilesInput) (*Out[client.FileList], error) {
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	rows, next, err := fa.files.List(ctx, principalFrom(ctx).Scope, file.Filter{Purpose: in.Purpose, NamePrefix: in.Name}, pg)
	if err != nil {
		return nil, err
	}
	out := client.FileList{OK: true, Files: make([]client.File, 0, len(rows)), NextCursor: next}
	for i := range rows {
		out.Files = append(out.Files, file.ToWire(&rows[i]))
	}
	return reply(out)
}

type fileIDInput struct {
	FileID string `path:"fileId" maxLength:"200" doc:"The file id (file_...)."`
}

// getFile answers a live file's metadata; another scope's file, or a deleted one, is 404.
func (fa *filesAPI) getFile(ctx context.Context, in *fileIDInput) (*Out[client.FileEnvelope], error) {
	f, err := fa.files.Get(ctx, principalFrom(ctx).Scope, in.FileID)
	if err != nil {
		return nil, err
	}
	return reply(client.FileEnvelope{OK: true, File: file.ToWire(f)})
}

// deleteFile soft-deletes a file (it leaves listings and reads at once) and starts its purge timer,
// workflow file-purge/<id>, due at the row's purge_at. A start that fails is logged and the answer is
// still the deletion, which has committed; the purge sweep starts it later.
func (fa *filesAPI) deleteFile(ctx context.Context, in *fileIDInput) (*Out[client.FileEnvelope], error) {
	f, err := fa.files.Delete(ctx, principalFrom(ctx).Scope, in.FileID)
	if err != nil {
		return nil, err
	}
	fa.startPurge(ctx, f)
	return reply(client.FileEnvelope{OK: true, File: file.ToWire(f)})
}

// startPurge starts the deleted file's purge workflow. A failure is logged, not answered: the delete has
// committed, and the purge sweep (file.Purges.Sweep, a job of the API process) starts it later.
func (fa *filesAPI) startPurge(ctx context.Context, f *schema.File) {
	if fa.purges == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if err := fa.purges.Start(ctx, f); err != nil {
		fa.log.Error("start file purge (the sweep retries it)", slog.String("requestId", requestIDFrom(ctx)),
			slog.String("fileId", f.ID), slog.Any("err", err))
	}
}

type fileContentInput struct {
	FileID      string `path:"fileId" maxLength:"200" doc:"The file id (file_...)."`
	Range       string `header:"Range" doc:"One byte range (bytes=first-last, bytes=first-, bytes=-suffix); 206 answers it."`
	IfNoneMatch string `header:"If-None-Match" doc:"An ETag the client holds; 304 when it is the file's."`
}

// fileContentOutput is the streamed answer of GET /v1/files/{fileId}/content.
type fileContentOutput struct {
	ContentType        string `header:"Content-Type" doc:"The file's media type."`
	ContentLength      int64  `header:"Content-Length" doc:"The size of the bytes sent."`
	ContentRange       string `header:"Content-Range" doc:"The range sent, on 206."`
	AcceptRanges       string `header:"Accept-Ranges" doc:"bytes: single ranges are served."`
	ETag               string `header:"ETag" doc:"The file's SHA-256, quoted."`
	SHA256             string `header:"X-Content-Sha256" doc:"Hex SHA-256 of the whole file."`
	ContentDisposition string `header:"Content-Disposition" doc:"attachment, with the file's name (filename and RFC 5987 filename*)."`
	Body               func(huma.Context)
}

// fileContent streams a file's bytes (or one range of them). The monthly download volume is consumed
// for the bytes about to be sent (429 past it) and refunded for those a cut transfer did not send.
func (fa *filesAPI) fileContent(ctx context.Context, in *fileContentInput) (*fileContentOutput, error) {
	if fa.blobs == nil {
		return nil, errNoBlobStore
	}
	p := principalFrom(ctx)
	f, err := fa.files.Get(ctx, p.Scope, in.FileID)
	if err != nil {
		return nil, err
	}
	etag := `"` + f.SHA256 + `"`
	out := &fileContentOutput{ContentType: f.MediaType, AcceptRanges: "bytes", ETag: etag, SHA256: f.SHA256,
		ContentDisposition: contentDisposition(f.Name)}
	if etagMatches(in.IfNoneMatch, f.SHA256) {
		out.ContentType = ""
		out.Body = func(hctx huma.Context) { hctx.SetStatus(http.StatusNotModified) }
		return out, nil
	}
	first, n, partial := parseRange(in.Range, f.Bytes)
	if first < 0 {
		out.ContentType = ""
		out.ContentRange = "bytes */" + strconv.FormatInt(f.Bytes, 10)
		out.Body = func(hctx huma.Context) { hctx.SetStatus(http.StatusRequestedRangeNotSatisfiable) }
		return out, nil
	}
	grant, err := fa.files.ConsumeDownload(ctx, p.Scope.AccountID, n)
	if err != nil {
		return nil, err
	}
	rc, err := fa.open(ctx, f, first, n, partial)
	if err != nil {
		fa.refund(ctx, grant, n)
		return nil, err
	}
	status := http.StatusOK
	if partial {
		status = http.StatusPartialContent
		out.ContentRange = fmt.Sprintf("bytes %d-%d/%d", first, first+n-1, f.Bytes)
	}
	out.ContentLength = n
	out.Body = fa.stream(ctx, f, rc, status, grant, n)
	return out, nil
}

// open opens the bytes to send, checking the blob's size against the recorded one.
func (fa *filesAPI) open(ctx context.Context, f *schema.File, first, n int64, partial bool) (blob.Reader, error) {
	var rc blob.Reader
	var err error
	if partial {
		rc, err = fa.blobs.OpenRange(ctx, f.BlobKey, first, n)
	} else {
		rc, err = fa.blobs.Open(ctx, f.BlobKey)
	}
	if err != nil {
		return nil, fmt.Errorf("open file %s: %w", f.ID, err)
	}
	if rc.Size() != f.Bytes {
		_ = rc.Close()
		return nil, fmt.Errorf("file %s: blob of %d bytes, row of %d", f.ID, rc.Size(), f.Bytes)
	}
	return rc, nil
}

// stream is the body of a download: it copies the bytes and refunds those not sent.
func (fa *filesAPI) stream(ctx context.Context, f *schema.File, rc blob.Reader, status int, grant file.Grant, n int64) func(huma.Context) {
	return func(hctx huma.Context) {
		defer rc.Close()
		hctx.SetStatus(status)
		sent, err := io.Copy(hctx.BodyWriter(), rc)
		if err != nil || sent != n {
			fa.log.Warn("stream file", slog.String("requestId", requestIDFrom(ctx)), slog.String("fileId", f.ID),
				slog.Int64("sent", sent), slog.Any("err", err))
			fa.refund(ctx, grant, n-sent)
		}
	}
}

func (fa *filesAPI) refund(ctx context.Context, g file.Grant, unsent int64) {
	if err := fa.files.RefundDownload(context.WithoutCancel(ctx), g, unsent); err != nil {
		fa.log.Error("refund download volume", slog.String("requestId", requestIDFrom(ctx)), slog.Any("err", err))
	}
}

// etagMatches reports whether an If-None-Match header names the file's ETag (or is "*").
func etagMatches(header, sha string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == `"`+sha+`"` {
			return true
		}
	}
	return false
}

// parseRange reads a Range header of one byte range against a file of size bytes. It answers the first
// byte and the count to send, and whether it is a partial answer; a header that is absent, malformed or
// names several ranges is ignored (the whole file, as RFC 9110 allows), and an unsatisfiable range
// answers first -1 (416).
func parseRange(header string, size int64) (first, n int64, partial bool) {
	spec, ok := strings.CutPrefix(strings.TrimSpace(header), "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return 0, size, false
	}
	a, b, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return 0, size, false
	}
	if a == "" { // a suffix: the last b bytes
		suffix, err := strconv.ParseInt(b, 10, 64)
		if err != nil || suffix < 0 {
			return 0, size, false
		}
		if suffix == 0 || size == 0 {
			return -1, 0, false
		}
		suffix = min(suffix, size)
		return size - suffix, suffix, true
	}
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil || start < 0 {
		return 0, size, false
	}
	last := size - 1
	if b != "" {
		if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < start {
			return 0, size, false
		}
		last = min(last, size-1)
	}
	if start >= size {
		return -1, 0, false
	}
	return start, last - start + 1, true
}

// contentDisposition is an attachment header carrying name safely: an ASCII fallback in filename (every
// character outside printable ASCII, and '"' and '\', as '_') and the exact name in filename* (RFC 6266,
// percent-encoded UTF-8 as RFC 5987 says).
func contentDisposition(name string) string {
	var fallback, exact strings.Builder
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			fallback.WriteByte('_')
		} else {
			fallback.WriteRune(r)
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			exact.WriteByte(c)
		} else {
			fmt.Fprintf(&exact, "%%%02X", c)
		}
	}
	return `attachment; filename="` + fallback.String() + `"; filename*=UTF-8''` + exact.String()
}

// documentUpload states in the OpenAPI document that an upload's body is the raw file.
func documentUpload(op *huma.Operation) {
	op.RequestBody = &huma.RequestBody{Required: true, Description: "The file's bytes, raw (Content-Length required).",
		Content: map[string]*huma.MediaType{"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}}
}

// documentFileContent states in the OpenAPI document that the content route answers raw bytes.
func documentFileContent(op *huma.Operation) {
	raw := map[string]*huma.MediaType{"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}
	if resp := op.Responses["200"]; resp != nil {
		resp.Description, resp.Content = "The file's bytes, streamed.", raw
	}
	op.Responses["206"] = &huma.Response{Description: "The requested range of the file's bytes.", Content: raw}
	op.Responses["304"] = &huma.Response{Description: "The file is the one the If-None-Match ETag names."}
	op.Responses["416"] = &huma.Response{Description: "The range lies outside the file."}
}

// routes are the files routes (seed 000's table "Projects, usage, files, connections").
func (fa *filesAPI) routes() []Route {
	v1 := fa.v1Routes()
	routes := append([]Route(nil), v1...)
	for _, r := range v1 {
		routes = append(routes, userFilesRoute(r))
	}
	return routes
}

// userFilesRoute is seed 002's twin of a /v1/files route: /user/files/… at the host root, the same
// handler, scope, idempotency and limit operation, with an operation id of its own ("user." + the
// /v1 one) so the one OpenAPI document lists both.
func userFilesRoute(r Route) Route {
	r.Limit = r.LimitOp()
	r.Op = "user." + r.Op
	r.Path = "/user" + strings.TrimPrefix(r.Path, "/v1")
	r.Summary += " (seed 002's path)"
	r.Session = true
	return r
}

func (fa *filesAPI) v1Routes() []Route {
	return []Route{
		handle(Route{Op: client.OpFilesCreate, Method: http.MethodPost, Path: "/v1/files", Summary: "Upload a file (the raw body, streamed)", Tag: "Files",
			Auth: authKey, Scope: client.ScopeFilesWrite, Idem: true, Status: http.StatusCreated, RawBody: true, Lease: 10 * time.Minute,
			document: documentUpload}, fa.uploadFile),
		handle(Route{Op: client.OpFilesList, Method: http.MethodGet, Path: "/v1/files", Summary: "List files, newest first", Tag: "Files",
			Auth: authKey, Scope: client.ScopeFilesRead}, fa.listFiles),
		handle(Route{Op: client.OpFilesRead, Method: http.MethodGet, Path: "/v1/files/{fileId}", Summary: "Read a file's metadata", Tag: "Files",
			Auth: authKey, Scope: client.ScopeFilesRead}, fa.getFile),
		handle(Route{Op: client.OpFilesContentRead, Limit: client.OpFilesRead, Method: http.MethodGet, Path: "/v1/files/{fileId}/content",
			Summary: "Download a file's bytes", Tag: "Files", Auth: authKey, Scope: client.ScopeFilesRead, document: documentFileContent}, fa.fileContent),
		handle(Route{Op: client.OpFilesDelete, Method: http.MethodDelete, Path: "/v1/files/{fileId}", Summary: "Delete a file (soft: purged 24 hours later)", Tag: "Files",
			Auth: authKey, Scope: client.ScopeFilesWrite, Idem: true}, fa.deleteFile),
	}
}
