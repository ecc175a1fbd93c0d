package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// upstream is a provider's answer being read.
type upstream struct {
	provider string
	body     io.ReadCloser
	// events reads a stream's server-sent events; first is the first one, read before the answer was
	// accepted (so a provider that fails before it is failed over).
	events *eventReader
	first  []byte
}

// send calls the model's providers in order until one answers: a transport error, a timeout (no
// answer, or for a stream no first event, within the provider's timeout), 401, 403, 408, 409, 429 or
// a 5xx fails over to the next; another error status is the request's fault and is answered as the
// provider gave it.
func (cl *call) send(ctx context.Context) (*upstream, error) {
	req := cl.req
	req.Model = cl.model.Upstream
	if req.Stream {
		req.StreamOptions = &StreamOptions{IncludeUsage: true}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode the upstream request: %w", err)
	}
	var last error
	for _, id := range cl.model.Providers {
		p, ok := cl.g.catalog.Provider(id)
		if !ok || !p.Configured() {
			continue
		}
		up, err := cl.attempt(ctx, p, body)
		if err == nil {
			return up, nil
		}
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		cl.g.log.Warn("llm: provider failed; failing over", "provider", p.ID, "model", cl.model.ID, "err", err)
		last = err
	}
	if last == nil {
		return nil, unconfigured(cl.model.ID)
	}
	return nil, upstreamFailed(cl.model.ID, last)
}

// retryable reports an upstream status that fails over.
func retryable(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return true
	}
	return status >= 500
}

// attempt calls one provider. It returns *Error for an answer to pass on, another error to fail over.
func (cl *call) attempt(ctx context.Context, p Provider, body []byte) (*upstream, error) {
	actx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(p.Timeout, cancel)
	ok := false
	defer func() {
		if !ok {
			timer.Stop()
			cancel()
		}
	}()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, p.BaseURL.String()+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", p.ID, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if cl.req.Stream {
		hreq.Header.Set("Accept", "text/event-stream")
	}
	if p.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+p.APIKey)
	}
	res, err := cl.g.client.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", p.ID, timeoutOr(actx, ctx, err))
	}
	if res.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		if retryable(res.StatusCode) {
			return nil, fmt.Errorf("provider %s answered %d", p.ID, res.StatusCode)
		}
		var eb ErrorBody
		if json.Unmarshal(data, &eb) != nil || eb.Error.Message == "" {
			eb = ErrorBody{Error: ErrorDetail{Message: fmt.Sprintf("the provider answered %d", res.StatusCode), Type: "invalid_request_error"}}
		}
		return nil, &Error{Status: res.StatusCode, Body: eb}
	}
	up := &upstream{provider: p.ID, body: &cancelBody{ReadCloser: res.Body, cancel: cancel}}
	if cl.req.Stream {
		up.events = newEventReader(res.Body)
		up.first, err = up.events.next()
		if err != nil {
			res.Body.Close()
			return nil, fmt.Errorf("provider %s: stream ended before its first event: %w", p.ID, timeoutOr(actx, ctx, err))
		}
	}
	if !timer.Stop() {
		res.Body.Close()
		return nil, fmt.Errorf("provider %s: timed out after %s", p.ID, p.Timeout)
	}
	ok = true
	return up, nil
}

// timeoutOr names a provider timeout (the attempt's context ended, the call's did not).
func timeoutOr(actx, ctx context.Context, err error) error {
	if actx.Err() != nil && ctx.Err() == nil {
		return fmt.Errorf("timed out: %w", err)
	}
	return err
}

// cancelBody ends the attempt's context when the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// eventReader reads the data of server-sent events.
type eventReader struct {
	r *bufio.Reader
}

func newEventReader(r io.Reader) *eventReader { return &eventReader{r: bufio.NewReaderSize(r, 64<<10)} }

// next returns the next event's data (its data lines joined by line feeds), skipping comments and
// events without data; io.EOF at a clean end.
func (e *eventReader) next() ([]byte, error) {
	var data []byte
	has := false
	for {
		line, err := e.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			var rest []byte
			rest, err = e.r.ReadBytes('\n')
			line = append(append([]byte(nil), line...), rest...)
		}
		if err != nil {
			if errors.Is(err, io.EOF) && has {
				return data, nil
			}
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if has {
				return data, nil
			}
			continue
		}
		field, value, _ := strings.Cut(string(line), ":")
		if field != "data" {
			continue
		}
		value = strings.TrimPrefix(value, " ")
		if has {
			data = append(data, '\n')
		}
		data = append(data, value...)
		has = true
	}
}
