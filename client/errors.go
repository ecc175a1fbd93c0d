package client

// Error codes of the error envelope (Error.Code): CONTRACT.md's, and the additions docs/DECISIONS.md lists.
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
	// CodeForbidden: the key may not do this at all (a project-bound key creating a project).
	CodeForbidden = "forbidden"
	// Invoking an external service: no answer in time (504), no connection (502), an address the
	// guard refuses (502), or an answer the platform cannot use (502).
	CodeUpstreamTimeout         = "upstream_timeout"
	CodeUpstreamUnreachable     = "upstream_unreachable"
	CodeUpstreamBlocked         = "upstream_blocked"
	CodeUpstreamInvalidResponse = "upstream_invalid_response"
)

// Error codes the SDK produces itself; the server never sends them.
const (
	// CodeTransportError: no complete response was received (connection refused, timeout, cancelled
	// context, ...). Response.StatusCode is 0.
	CodeTransportError = "transport_error"
	// CodeInvalidResponse: the server answered, but not with the JSON the SDK expects.
	CodeInvalidResponse = "invalid_response"
	// CodeHTTPError: any other non-2xx answer without an error object.
	CodeHTTPError = "http_error"
	// CodeContentMismatch: downloaded content whose length or SHA-256 differs from what its headers
	// announce (DownloadArtifact, OpenArtifact).
	CodeContentMismatch = "content_mismatch"
	// CodeWriteFailed: the writer given to DownloadArtifact failed.
	CodeWriteFailed = "write_failed"
)
