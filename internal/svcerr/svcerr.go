// Package svcerr holds the platform's error codes and the Error type that domain packages return.
// The API maps each code to its HTTP status in one place (Status), following CONTRACT.md.
package svcerr

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/svcplatform/svc/client"
)

// Codes of the error envelope; the client package, the wire contract, defines them.
const (
	InvalidRequest        = client.CodeInvalidRequest
	IdempotencyKeyMissing = client.CodeIdempotencyKeyMissing
	Unauthenticated       = client.CodeUnauthenticated
	PaymentRequired       = client.CodePaymentRequired
	InsufficientCredits   = client.CodeInsufficientCredits
	ScopeMissing          = client.CodeScopeMissing
	ServiceAccessDenied   = client.CodeServiceAccessDenied
	Forbidden             = client.CodeForbidden
	LimitWiderThanParent  = client.CodeLimitWiderThanParent
	NotFound              = client.CodeNotFound
	MethodNotAllowed      = client.CodeMethodNotAllowed
	IdempotencyInFlight   = client.CodeIdempotencyInFlight
	Conflict              = client.CodeConflict
	PayloadTooLarge       = client.CodePayloadTooLarge
	UnsupportedMediaType  = client.CodeUnsupportedMediaType
	IdempotencyKeyReused  = client.CodeIdempotencyKeyReused
	LimitExceeded         = client.CodeLimitExceeded
	UpstreamTimeout       = client.CodeUpstreamTimeout
	UpstreamUnreachable   = client.CodeUpstreamUnreachable
	UpstreamBlocked       = client.CodeUpstreamBlocked
	UpstreamInvalid       = client.CodeUpstreamInvalidResponse
	Internal              = client.CodeInternal
	Unavailable           = client.CodeUnavailable
)

var statuses = map[string]int{
	InvalidRequest:        http.StatusBadRequest,
	IdempotencyKeyMissing: http.StatusBadRequest,
	Unauthenticated:       http.StatusUnauthorized,
	PaymentRequired:       http.StatusPaymentRequired,
	InsufficientCredits:   http.StatusPaymentRequired,
	ScopeMissing:          http.StatusForbidden,
	ServiceAccessDenied:   http.StatusForbidden,
	Forbidden:             http.StatusForbidden,
	LimitWiderThanParent:  http.StatusForbidden,
	NotFound:              http.StatusNotFound,
	MethodNotAllowed:      http.StatusMethodNotAllowed,
	IdempotencyInFlight:   http.StatusConflict,
	Conflict:              http.StatusConflict,
	PayloadTooLarge:       http.StatusRequestEntityTooLarge,
	UnsupportedMediaType:  http.StatusUnsupportedMediaType,
	IdempotencyKeyReused:  http.StatusUnprocessableEntity,
	LimitExceeded:         http.StatusTooManyRequests,
	UpstreamTimeout:       http.StatusGatewayTimeout,
	UpstreamUnreachable:   http.StatusBadGateway,
	UpstreamBlocked:       http.StatusBadGateway,
	UpstreamInvalid:       http.StatusBadGateway,
	Internal:              http.StatusInternalServerError,
	Unavailable:           http.StatusServiceUnavailable,
}

// Status is the HTTP status of a code; unknown codes are 500.
func Status(code string) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is a failure meant for the caller: its message is safe to show.
type Error struct {
	Code    string
	Message string
	Param   string
	Details map[string]any
}

// Error implements error.
func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Param)
	}
	return e.Code + ": " + e.Message
}

// New returns an Error with a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an invalid_request error naming the field at fault.
func Invalid(param, format string, args ...any) *Error {
	return &Error{Code: InvalidRequest, Param: param, Message: fmt.Sprintf(format, args...)}
}

// NotFoundf returns a not_found error; it never says whether the thing exists elsewhere.
func NotFoundf(format string, args ...any) *Error {
	return New(NotFound, format, args...)
}

// WithDetails returns e with a detail added.
func (e *Error) WithDetails(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Is reports whether err carries the given code.
func Is(err error, code string) bool {
	e, ok := As(err)
	return ok && e.Code == code
}
