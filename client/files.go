package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Request headers of an upload, POST /v1/files.
const (
	// HeaderFileName carries the uploaded file's name (a name, never a path).
	HeaderFileName = "X-File-Name"
	// HeaderFilePurpose carries the uploaded file's project-defined purpose.
	HeaderFilePurpose = "X-Svc-File-Purpose"
)

// UploadFileRequest is a file to upload with UploadFile.
type UploadFileRequest struct {
	// Name is the file's name (required): a name, never a path.
	Name string
	// MediaType is the file's media type (application/octet-stream when empty).
	MediaType string
	// Purpose is an optional project-defined purpose.
	Purpose string
	// Size is the exact number of bytes Body yields; it is sent as Content-Length.
	Size int64
	// Body yields the file's bytes; it is streamed, never held in memory.
	Body io.Reader
	// SHA256 is the hex SHA-256 of the bytes, checked by the server (a mismatch stores nothing). When
	// empty and Body is an io.ReadSeeker, UploadFile reads Body once to compute it and seeks back;
	// otherwise the upload is sent without it. Either way UploadFile also computes the SHA-256 of the
	// bytes while streaming them and fails with CodeContentMismatch when the stored file's differs.
	SHA256 string
	// Progress, when not nil, is called with the bytes sent so far and Size as the body is read.
	Progress func(done, total int64)
}

// UploadFile uploads a file, POST /v1/files (scope files:write), streaming Body. The call is
// idempotent: a retry with the same WithIdempotencyKey and the same bytes answers the same file.
func (c *Client) UploadFile(ctx context.Context, r UploadFileRequest, opts ...CallOption) Response[FileEnvelope] {
	switch {
	case r.Name == "":
		return invalidArg[FileEnvelope]("name", "the file name is empty")
	case r.Body == nil:
		return invalidArg[FileEnvelope]("body", "the file body is nil")
	case r.Size < 0:
		return invalidArg[FileEnvelope]("size", "the file size is negative")
	}
	if r.SHA256 == "" {
		sum, err := digestSeeker(r.Body)
		if err != nil {
			return Response[FileEnvelope]{Error: &Error{Code: CodeInvalidRequest, Param: "body", Message: "compute the body's SHA-256: " + err.Error()}}
		}
		r.SHA256 = sum
	}
	mediaType := r.MediaType
	if mediaType == "" {
		mediaType = "application/octet-stream"
	}
	hdr := []CallOption{WithHeader(HeaderFileName, r.Name)}
	if r.SHA256 != "" {
		hdr = append(hdr, WithHeader(HeaderContentSHA256, r.SHA256))
	}
	if r.Purpose != "" {
		hdr = append(hdr, WithHeader(HeaderFilePurpose, r.Purpose))
	}
	var body io.Reader = http.NoBody
	h := sha256.New()
	if r.Size > 0 {
		body = &progressReader{r: io.TeeReader(r.Body, h), total: r.Size, progress: r.Progress}
	}
	out := send[FileEnvelope](ctx, c, call{method: http.MethodPost, path: "/files", raw: body, rawLen: r.Size,
		rawType: mediaType, auth: authKey, idem: true, opts: append(hdr, opts...)})
	if sent := hex.EncodeToString(h.Sum(nil)); out.OK && !strings.EqualFold(out.Body.File.SHA256, sent) {
		out.OK, out.Error = false, &Error{Code: CodeContentMismatch, RequestID: out.RequestID,
			Message: fmt.Sprintf("the server stored a file of SHA-256 %s, but the bytes sent have %s", out.Body.File.SHA256, sent)}
	}
	return out
}

// digestSeeker returns the hex SHA-256 of the rest of body and seeks back, or "" when body cannot seek.
func digestSeeker(body io.Reader) (string, error) {
	s, ok := body.(io.ReadSeeker)
	if !ok {
		return "", nil
	}
	start, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", fmt.Errorf("find the body's position: %w", err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, s); err != nil {
		return "", fmt.Errorf("read the body: %w", err)
	}
	if _, err := s.Seek(start, io.SeekStart); err != nil {
		return "", fmt.Errorf("seek back: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// progressReader reports every read to progress.
type progressReader struct {
	r        io.Reader
	done     int64
	total    int64
	progress func(done, total int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if p.progress != nil && n > 0 {
		p.progress(p.done, p.total)
	}
	return n, err
}

// ListFilesParams filter and page GET /v1/files. Zero fields do not filter.
type ListFilesParams struct {
	ListParams
	// Purpose keeps only the files of this purpose.
	Purpose string
	// Name keeps only the files whose name starts with this prefix.
	Name string
}

// ListFiles lists the live files of the selected project (or of none), newest first (scope files:read).
func (c *Client) ListFiles(ctx context.Context, p ListFilesParams) Response[FileList] {
	q := p.query()
	for k, v := range map[string]string{"purpose": p.Purpose, "name": p.Name} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return send[FileList](ctx, c, call{method: http.MethodGet, path: "/files", query: q, auth: authKey})
}

// GetFile reads a live file's metadata, GET /v1/files/{fileId} (scope files:read).
func (c *Client) GetFile(ctx context.Context, fileID string) Response[FileEnvelope] {
	if fileID == "" {
		return invalidArg[FileEnvelope]("fileId", "the file id is empty")
	}
	return send[FileEnvelope](ctx, c, call{method: http.MethodGet, path: "/files/" + url.PathEscape(fileID), auth: authKey})
}

// DeleteFile deletes a file, DELETE /v1/files/{fileId} (scope files:write): it is gone at once and its
// bytes are purged later. The answer holds the deleted file's metadata.
func (c *Client) DeleteFile(ctx context.Context, fileID string, opts ...CallOption) Response[FileEnvelope] {
	if fileID == "" {
		return invalidArg[FileEnvelope]("fileId", "the file id is empty")
	}
	return send[FileEnvelope](ctx, c, call{method: http.MethodDelete, path: "/files/" + url.PathEscape(fileID),
		auth: authKey, idem: true, opts: opts})
}

// FileContent is a file's content as it arrives; it has the shape of ArtifactContent (SizeBytes is the
// file's Bytes, ContentType its MediaType), and its Body verifies the bytes the same way.
type FileContent = ArtifactContent

// OpenFile starts reading a file's content, GET /v1/files/{fileId}/content (scope files:read), as
// OpenArtifact does for artifacts: when OK, Body.Body streams and verifies the content and the caller
// must close it.
func (c *Client) OpenFile(ctx context.Context, fileID string) Response[*FileContent] {
	if fileID == "" {
		return invalidArg[*FileContent]("fileId", "the file id is empty")
	}
	return c.openContent(ctx, "/files/"+url.PathEscape(fileID)+"/content", fileID, "file")
}

// FileDownload is what DownloadFile received.
type FileDownload struct {
	ID        string
	Name      string
	MediaType string
	Bytes     int64
	SHA256    string
}

// DownloadFile streams a file's content into w (scope files:read), calling progress (when not nil)
// with the bytes written so far and the total. It verifies the length and SHA-256 against
// Content-Length and X-Content-Sha256 while streaming: a difference fails the Response with
// CodeContentMismatch, a broken connection with CodeTransportError and a failing w with
// CodeWriteFailed. w may then hold bytes that are not the file: write to a temporary file and keep it
// only when the Response is OK.
func (c *Client) DownloadFile(ctx context.Context, fileID string, w io.Writer, progress func(done, total int64)) Response[FileDownload] {
	opened := c.OpenFile(ctx, fileID)
	out := Response[FileDownload]{StatusCode: opened.StatusCode, Header: opened.Header, RequestID: opened.RequestID,
		Error: opened.Error, Raw: opened.Raw}
	if !opened.OK {
		return out
	}
	f := opened.Body
	out.Body = FileDownload{ID: f.ID, Name: f.Name, MediaType: f.ContentType, Bytes: f.SizeBytes, SHA256: f.SHA256}
	out.Error = streamContent(f, w, progress, out.RequestID, "file")
	out.OK = out.Error == nil
	return out
}
