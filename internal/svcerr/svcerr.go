// Package svcerr holds the platform's error codes and the Error type that domain packages return.
// The API maps each code to its HTTP status in one place (Status), following CONTRACT.md.
package svcerr

import (
	"errors"
	"fmt"
	"net/http"
)

// Codes of the error envelope.
const (
	InvalidRequest        = "invalid_request"
	IdempotencyKeyMissing = "idempotency_key_missing"
	Unauthenticated       = "unauthenticated"
	PaymentRequired       = "payment_required"
	InsufficientCredits   = "insufficient_credits"
	ScopeMissing          = "scope_missing"
	ServiceAccessDenied   = "service_access_denied"
	Forbidden             = "forbidden"
	LimitWiderThanParent  = "limit_wider_than_parent"
	NotFound              = "not_found"
	MethodNotAllowed      = "method_not_allowed"
	IdempotencyInFlight   = "idempotency_in_flight"
	Conflict              = "conflict"
	PayloadTooLarge       = "payload_too_large"
	UnsupportedMediaType  = "unsupported_media_type"
	IdempotencyKeyReused  = "idempotency_key_reused"
	LimitExceeded         = "limit_exceeded"
	Internal              = "internal"
	Unavailable           = "unavailable"
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
