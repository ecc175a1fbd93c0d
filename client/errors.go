package client

// Error codes of the error envelope (Error.Code), as listed in CONTRACT.md.
const (
	CodeInvalidRequest        = "invalid_request"
	CodeIdempotencyKeyMissing = "idempotency_key_missing"
	CodeUnauthenticated       = "unauthenticated"
	CodePaymentRequired       = "payment_required"
	CodeInsufficientCredits   = "insufficient_credits"
	CodeScopeMissing          = "scope_missing"
	CodeServiceAccessDenied   = "service_access_denied"
	CodeLimitWiderThanParent  = "limit_wider_than_parent"
	CodeNotFound              = "not_found"
	CodeMethodNotAllowed      = "method_not_allowed"
	CodeIdempotencyInFlight   = "idempotency_in_flight"
	CodeConflict              = "conflict"
	CodePayloadTooLarge       = "payload_too_large"
	CodeUnsupportedMediaType  = "unsupported_media_type"
	CodeIdempotencyKeyReused  = "idempotency_key_reused"
	CodeLimitExceeded         = "limit_exceeded"
	CodeInternal              = "internal"
	CodeUnavailable           = "unavailable"
)

// Error codes the SDK produces itself; the server never sends them.
const (
	// CodeTransportError: no complete response was received (connection refused, timeout, cancelled
	// context, ...). Response.StatusCode is 0.
	CodeTransportError = "transport_error"
	// CodeInvalidResponse: the server answered, but not with the JSON the SDK expects.
	CodeInvalidResponse = "invalid_response"
	// CodeForbidden: a 403 answer without an error object (the platform always sends one).
	CodeForbidden = "forbidden"
	// CodeHTTPError: any other non-2xx answer without an error object.
	CodeHTTPError = "http_error"
)
