package api

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"syscall"

	"github.com/danielgtaylor/huma/v2"
	"github.com/gin-gonic/gin"
	"github.com/uptrace/bun/driver/pgdriver"
	"go.temporal.io/api/serviceerror"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/svcerr"
)

// apiError is an error answer: it is the whole JSON body and knows its HTTP status. It implements
// huma.StatusError so Huma writes it for validation failures as for handler errors.
type apiError struct {
	status int
	client.ErrorEnvelope
	// headers are sent with the answer (Payment-Required on a 402, say).
	headers http.Header
}

func (e *apiError) Error() string  { return e.ErrorEnvelope.Error.Error() }
func (e *apiError) GetStatus() int { return e.status }

// Schema documents error answers as the client package's ErrorEnvelope.
func (e *apiError) Schema(r huma.Registry) *huma.Schema {
	return r.Schema(reflect.TypeFor[client.ErrorEnvelope](), true, "")
}

// GetHeaders adds Retry-After to answers that invite a retry (503, 409 idempotency_in_flight), and
// X-Svc-Limit-Operation to 429s.
func (e *apiError) GetHeaders() http.Header {
	if e.headers != nil {
		return e.headers
	}
	switch {
	case e.status == http.StatusServiceUnavailable, e.ErrorEnvelope.Error.Code == svcerr.IdempotencyInFlight:
		return http.Header{"Retry-After": []string{"1"}}
	case e.status == http.StatusTooManyRequests:
		d := e.ErrorEnvelope.Error.Details
		return http.Header{"Retry-After": []string{fmt.Sprint(d["retryAfterSeconds"])},
			"X-Svc-Limit-Operation": []string{fmt.Sprint(d["operation"])}}
	}
	return nil
}

func init() {
	// Huma builds its own errors (validation, body parsing) through this hook; route them into the
	// platform's envelope so every failure has the same shape.
	huma.NewErrorWithContext = func(hctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		return humaError(requestIDFrom(hctx.Context()), status, msg, errs)
	}
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		return humaError("", status, msg, errs)
	}
}

// humaError maps an error Huma raised to the envelope: validation problems become invalid_request with
// the first offending field as param.
func humaError(requestID string, status int, msg string, errs []error) *apiError {
	code := codeForStatus(status)
	if status == http.StatusUnprocessableEntity {
		code, status = svcerr.InvalidRequest, http.StatusBadRequest
	}
	e := &svcerr.Error{Code: code, Message: msg}
	var problems []map[string]string
	for _, err := range errs {
		var d *huma.ErrorDetail
		if !errors.As(err, &d) {
			continue
		}
		param := paramOf(d)
		d = withoutGoNames(d, &param)
		problems = append(problems, map[string]string{"param": param, "message": d.Message})
		if e.Param == "" {
			e.Param, e.Message = param, describe(param, d.Message)
		}
	}
	if len(problems) > 1 {
		e.WithDetails("errors", problems)
	}
	if status >= 500 {
		e.Message = "internal error"
	}
	return envelope(requestID, status, e)
}

// unmarshalError matches encoding/json's type errors, which name Go types and fields
// ("json: cannot unmarshal number 1e19 into Go struct field CreateRunRequest.approvalExpiresInSeconds of
// type int"). The edge (strictInput) refuses what causes them; this keeps any other out of answers.
var unmarshalError = regexp.MustCompile(`^json: cannot unmarshal (.+) into Go (?:struct field (\S+)|value) of type (\S+)$`)

// withoutGoNames rewrites a decoding error that names Go types into one naming the JSON field (setting
// *param when it was unknown) and the kind of value expected.
func withoutGoNames(d *huma.ErrorDetail, param *string) *huma.ErrorDetail {
	m := unmarshalError.FindStringSubmatch(d.Message)
	if m == nil {
		if strings.HasPrefix(d.Message, "json: ") {
			return &huma.ErrorDetail{Location: d.Location, Message: "malformed JSON"}
		}
		return d
	}
	if _, field, ok := strings.Cut(m[2], "."); ok && *param == "" {
		*param = field // Go's path of JSON names after the struct's name (array indices are not kept)
	}
	return &huma.ErrorDetail{Location: d.Location, Message: fmt.Sprintf("%s does not fit: expected %s", m[1], jsonKind(m[3]))}
}

// jsonKind names the JSON value a Go type takes.
func jsonKind(goType string) string {
	t := strings.TrimLeft(goType, "*")
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number within range"
	case strings.HasPrefix(t, "float"):
		return "a number within range"
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	}
	return "an object"
}

// paramOf turns Huma's location ("body.scopes[0]", "path.runId", "header.X") into a field name; a
// missing property is reported on its parent, so its name is taken from the message.
func paramOf(d *huma.ErrorDetail) string {
	param := d.Location
	for _, prefix := range []string{"body", "path.", "query.", "header."} {
		if rest, ok := strings.CutPrefix(param, prefix); ok {
			param = strings.TrimPrefix(rest, ".")
			break
		}
	}
	if prop, ok := strings.CutPrefix(d.Message, "expected required property "); ok {
		prop = strings.TrimSuffix(prop, " to be present")
		if param == "" {
			return prop
		}
		return param + "." + prop
	}
	return param
}

func describe(param, msg string) string {
	if param == "" {
		return msg
	}
	return param + ": " + msg
}

func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return svcerr.InvalidRequest
	case http.StatusUnauthorized:
		return svcerr.Unauthenticated
	case http.StatusNotFound:
		return svcerr.NotFound
	case http.StatusMethodNotAllowed:
		return svcerr.MethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return svcerr.PayloadTooLarge
	case http.StatusUnsupportedMediaType:
		return svcerr.UnsupportedMediaType
	case http.StatusServiceUnavailable:
		return svcerr.Unavailable
	}
	if status >= 500 {
		return svcerr.Internal
	}
	return svcerr.InvalidRequest
}

func envelope(requestID string, status int, e *svcerr.Error) *apiError {
	return &apiError{status: status, ErrorEnvelope: client.ErrorEnvelope{OK: false, Error: client.Error{
		Code: e.Code, Message: e.Message, RequestID: requestID, Param: e.Param, Details: e.Details,
	}}}
}

// toAPIError turns any error into an answer. Domain errors keep their code; anything else is logged and
// answered as internal without detail.
func (s *Server) toAPIError(ctx context.Context, err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	rid := requestIDFrom(ctx)
	if e, ok := svcerr.As(err); ok {
		return envelope(rid, svcerr.Status(e.Code), e)
	}
	if pg.NULRefused(err) {
		// Text holding NUL reached PostgreSQL (the edge refuses it in requests, so this is a value from
		// elsewhere, such as an upstream answer): no retry can store it.
		s.log.Warn("unstorable value", slog.String("requestId", rid), slog.Any("err", err))
		return envelope(rid, http.StatusBadRequest, svcerr.New(svcerr.InvalidRequest, "a value holds a character that cannot be stored (U+0000)"))
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return envelope(rid, http.StatusServiceUnavailable, svcerr.New(svcerr.Unavailable, "the request timed out; retry"))
	}
	if dependencyDown(err) {
		s.log.Warn("dependency unavailable", slog.String("requestId", rid), slog.Any("err", err))
		return envelope(rid, http.StatusServiceUnavailable, svcerr.New(svcerr.Unavailable, "a dependency is unavailable; retry shortly"))
	}
	s.log.Error("request failed", slog.String("requestId", rid), slog.Any("err", err))
	return envelope(rid, http.StatusInternalServerError, svcerr.New(svcerr.Internal, "internal error"))
}

// fail writes err as the answer and stops the middleware chain.
func (s *Server) fail(c *gin.Context, err error) {
	ae := s.toAPIError(c.Request.Context(), err)
	for k, v := range ae.GetHeaders() {
		c.Writer.Header()[k] = v
	}
	if isLLMPath(c.Request.URL.Path) {
		// OpenAI clients read the gateway's errors only in OpenAI's shape.
		c.AbortWithStatusJSON(ae.status, openAIError(ae).Body)
		return
	}
	c.AbortWithStatusJSON(ae.status, ae.ErrorEnvelope)
}

// dependencyDown reports whether err says PostgreSQL or Temporal could not be reached, as opposed to a bug.
func dependencyDown(err error) bool {
	var netErr net.Error
	var unavailable *serviceerror.Unavailable
	var pgErr pgdriver.Error
	switch {
	case errors.As(err, &netErr), errors.As(err, &unavailable), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNREFUSED):
		return true
	case errors.As(err, &pgErr):
		// Class 08: connection exception; 57P0x: the server is shutting down or starting.
		code := pgErr.Field('C')
		return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "57P0")
	}
	return false
}
