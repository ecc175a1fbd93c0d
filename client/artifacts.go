package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// HeaderContentSHA256 carries the hex SHA-256 of an artifact's content.
const HeaderContentSHA256 = "X-Content-Sha256"

// Artifact is a file or output a run produced. Its bytes are read with DownloadArtifact or
// OpenArtifact.
type Artifact struct {
	ID          string `json:"id"`
	RunID       string `json:"runId"`
	ServiceID   string `json:"serviceId"`
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	SizeBytes   int64  `json:"sizeBytes"`
	// SHA256 is the hex SHA-256 of the content.
	SHA256    string    `json:"sha256"`
	CreatedAt time.Time `json:"createdAt"`
}

// ArtifactList answers GET /v1/artifacts.
type ArtifactList struct {
	OK         bool       `json:"ok"`
	Artifacts  []Artifact `json:"artifacts"`
	NextCursor *string    `json:"nextCursor"`
}

// ListArtifactsParams filter and page GET /v1/artifacts. Zero fields do not filter.
type ListArtifactsParams struct {
	ListParams
	// RunID keeps only the artifacts of this run.
	RunID string
}

func (p ListArtifactsParams) values() url.Values {
	q := p.query()
	if p.RunID != "" {
		q.Set("runId", p.RunID)
	}
	return q
}

// ListArtifacts lists the artifacts of the selected project (or of none), newest first (scope
// artifacts:read). Artifacts of services the key may not use are left out.
func (c *Client) ListArtifacts(ctx context.Context, p ListArtifactsParams) Response[ArtifactList] {
	return send[ArtifactList](ctx, c, call{method: http.MethodGet, path: "/artifacts", query: p.values(), auth: authKey})
}

// ArtifactContent is an artifact's content as it arrives: what the headers announce, and Body, which
// verifies the bytes while they are read. Body's Read answers io.EOF only once exactly SizeBytes bytes
// whose SHA-256 is SHA256 were read; otherwise its last Read fails with an *Error of code
// CodeContentMismatch (or CodeTransportError when the connection broke). Close it when done.
type ArtifactContent struct {
	// ID is the artifact id asked for.
	ID string
	// Name is the artifact's name, from Content-Disposition ("" when absent). It comes from the server:
	// check it before using it as a file name.
	Name        string
	ContentType string
	// SizeBytes is Content-Length.
	SizeBytes int64
	// SHA256 is X-Content-Sha256, in lower case.
	SHA256 string
	Body   io.ReadCloser
}

// ArtifactDownload is what DownloadArtifact received.
type ArtifactDownload struct {
	ID          string
	Name        string
	ContentType string
	SizeBytes   int64
	SHA256      string
}

// OpenArtifact starts reading an artifact's content, GET /v1/artifacts/{artifactId}/content (scope
// artifacts:read and access to the service of the run that produced it). When the Response is OK,
// Body.Body streams the content and verifies it as it is read (see ArtifactContent); the caller must
// close it. When it is not OK, Error says why, as for every other call, Raw holds the error body (if
// any), and there is nothing to close. The client's timeout (WithHTTPClient) bounds the whole download.
func (c *Client) OpenArtifact(ctx context.Context, artifactID string) Response[*ArtifactContent] {
	if artifactID == "" {
		return invalidArg[*ArtifactContent]("artifactId", "the artifact id is empty")
	}
	return c.openContent(ctx, "/artifacts/"+url.PathEscape(artifactID)+"/content", artifactID, "artifact")
}

// openContent starts reading the content at path (relative to the base URL) of the object id, a what
// ("artifact", "file"), wrapped in the verifier.
func (c *Client) openContent(ctx context.Context, path, id, what string) Response[*ArtifactContent] {
	var out Response[*ArtifactContent]
	if ctx == nil {
		ctx = context.Background()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+path, nil)
	if err != nil {
		out.Error = &Error{Code: CodeTransportError, Message: "build request: " + err.Error()}
		return out
	}
	req.Header.Set("Accept", "*/*")
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	if c.apiKey != "" {
		req.Header.Set(HeaderAuthorization, "Bearer "+c.apiKey)
	}
	if c.project != "" {
		req.Header.Set(HeaderProject, c.project)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		out.Error = &Error{Code: CodeTransportError, Message: transportMessage(ctx, err)}
		return out
	}
	out.StatusCode, out.Header = resp.StatusCode, resp.Header
	out.RequestID = resp.Header.Get(HeaderRequestID)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer func() { _ = resp.Body.Close() }()
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
		if err != nil {
			out.Error = &Error{Code: CodeTransportError, RequestID: out.RequestID, Message: "read response: " + transportMessage(ctx, err)}
			return out
		}
		var failed Response[struct{}]
		decode(&failed, resp.StatusCode, data)
		out.Error, out.Raw = failed.Error, data
		if out.Error.RequestID == "" {
			out.Error.RequestID = out.RequestID
		}
		return out
	}
	content, err := contentOf(id, what, resp)
	if err != nil {
		_ = resp.Body.Close()
		out.Error = &Error{Code: CodeInvalidResponse, RequestID: out.RequestID, Message: err.Error()}
		return out
	}
	out.OK, out.Body = true, content
	return out
}

// contentOf reads the headers of a successful content answer and wraps its body in the verifier.
func contentOf(id, what string, resp *http.Response) (*ArtifactContent, error) {
	size := resp.ContentLength
	if size < 0 {
		return nil, errors.New("the content answer has no Content-Length to verify the download against")
	}
	sum := strings.ToLower(strings.TrimSpace(resp.Header.Get(HeaderContentSHA256)))
	if raw, err := hex.DecodeString(sum); err != nil || len(raw) != sha256.Size {
		return nil, fmt.Errorf("the content answer has no valid %s to verify the download against", HeaderContentSHA256)
	}
	a := &ArtifactContent{ID: id, ContentType: resp.Header.Get("Content-Type"), SizeBytes: size, SHA256: sum}
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		a.Name = params["filename"]
	}
	a.Body = &verifier{rc: resp.Body, what: what, want: size, sum: sum, h: sha256.New(), requestID: resp.Header.Get(HeaderRequestID)}
	return a, nil
}

// verifier checks the length and SHA-256 of a body as it is read.
type verifier struct {
	rc        io.ReadCloser
	what      string // "artifact", "file"
	want      int64
	sum       string
	h         hash.Hash
	n         int64
	requestID string
	err       error
}

func (v *verifier) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.rc.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	switch {
	case v.n > v.want:
		v.err = v.mismatch(fmt.Sprintf("received more than the announced %d bytes", v.want))
	case err == io.EOF && v.n < v.want:
		v.err = v.mismatch(fmt.Sprintf("received %d of the announced %d bytes", v.n, v.want))
	case err == io.EOF && hex.EncodeToString(v.h.Sum(nil)) != v.sum:
		v.err = v.mismatch("the content's SHA-256 differs from " + HeaderContentSHA256)
	case err == io.EOF:
		v.err = io.EOF
	case err != nil:
		v.err = &Error{Code: CodeTransportError, RequestID: v.requestID,
			Message: fmt.Sprintf("read "+v.what+" content after %d of %d bytes: %v", v.n, v.want, err)}
	}
	if v.err != nil {
		return n, v.err
	}
	return n, nil
}

func (v *verifier) mismatch(msg string) *Error {
	return &Error{Code: CodeContentMismatch, RequestID: v.requestID, Message: "the download is not the " + v.what + ": " + msg}
}

// Close implements io.Closer.
func (v *verifier) Close() error { return v.rc.Close() }

// DownloadArtifact streams an artifact's content into w (scope artifacts:read and access to the
// service of the run that produced it), calling progress (when not nil) with the bytes written so far and
// the total after each write. It verifies the length and SHA-256 against Content-Length and
// X-Content-Sha256: when they differ the Response fails with CodeContentMismatch; a connection that
// breaks fails with CodeTransportError, and a failing w with CodeWriteFailed. w may then hold bytes that
// are not the artifact, so write to a temporary file and keep it only when the Response is OK. Raw holds
// only a failure's body.
func (c *Client) DownloadArtifact(ctx context.Context, artifactID string, w io.Writer, progress func(done, total int64)) Response[ArtifactDownload] {
	opened := c.OpenArtifact(ctx, artifactID)
	out := Response[ArtifactDownload]{StatusCode: opened.StatusCode, Header: opened.Header, RequestID: opened.RequestID,
		Error: opened.Error, Raw: opened.Raw}
	if !opened.OK {
		return out
	}
	a := opened.Body
	out.Body = ArtifactDownload{ID: a.ID, Name: a.Name, ContentType: a.ContentType, SizeBytes: a.SizeBytes, SHA256: a.SHA256}
	out.Error = streamContent(a, w, progress, out.RequestID, "artifact")
	out.OK = out.Error == nil
	return out
}

// streamContent copies opened, verified content (an artifact's or a file's) into w, calling progress
// (when not nil) first with 0 and then after each write, and closes it. It answers the failure to
// report, nil when every byte was written and verified; what names the content in a write failure.
func streamContent(content *ArtifactContent, w io.Writer, progress func(done, total int64), requestID, what string) *Error {
	defer func() { _ = content.Body.Close() }()
	if progress != nil {
		progress(0, content.SizeBytes)
	}
	if _, err := io.Copy(&progressWriter{w: w, total: content.SizeBytes, progress: progress}, content.Body); err != nil {
		var e *Error
		if !errors.As(err, &e) { // reading failures are *Error already: this one is w's
			e = &Error{Code: CodeWriteFailed, RequestID: requestID, Message: "write " + what + " content: " + err.Error()}
		}
		return e
	}
	return nil
}

// progressWriter reports every write to progress.
type progressWriter struct {
	w        io.Writer
	done     int64
	total    int64
	progress func(done, total int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	if p.progress != nil && n > 0 {
		p.progress(p.done, p.total)
	}
	return n, err
}

// FormatBytes shows a size in bytes in binary units, e.g. "512 B", "1.5 MiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
