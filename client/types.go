package client

import (
	"slices"
	"strings"
	"unicode"
)

// Error is the body of every failed response: {"ok": false, "error": {...}}.
type Error struct {
	Code      string         `json:"code" doc:"Stable machine-readable error code, e.g. invalid_request."`
	Message   string         `json:"message" doc:"Human-readable explanation."`
	RequestID string         `json:"requestId" doc:"The X-Request-Id of the failed request."`
	Param     string         `json:"param,omitempty" doc:"The request field, header or parameter at fault."`
	Details   map[string]any `json:"details,omitempty" doc:"Structured extra facts, e.g. requiredScope."`
}

// Error implements the error interface so an *Error can travel as one: "<code>: <message>", followed by
// " (<param>)" only when the message does not already name the param (as in "approval apr_1 is already
// approved", whose param is approvalId), so that nothing is said twice.
func (e *Error) Error() string {
	if e.Param != "" && !namesParam(e.Message, e.Param) {
		return e.Code + ": " + e.Message + " (" + e.Param + ")"
	}
	return e.Code + ": " + e.Message
}

// namesParam reports whether message already names param: the param's words (split at punctuation and
// camelCase, without a trailing "id") appear together in the message, in any case.
func namesParam(message, param string) bool {
	want := words(param)
	if len(want) > 1 && want[len(want)-1] == "id" {
		want = want[:len(want)-1]
	}
	if len(want) == 0 {
		return false
	}
	have := words(message)
	for i := 0; i+len(want) <= len(have); i++ {
		if slices.Equal(have[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

// words splits s into lower-case words of letters and digits, also between a lower-case letter and an
// upper-case one ("approvalId" is "approval", "id").
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			cur = append(cur, r)
		}
		prevLower = unicode.IsLower(r)
	}
	flush()
	return out
}

// ErrorEnvelope is the whole failure body.
type ErrorEnvelope struct {
	OK    bool  `json:"ok" doc:"Always false."`
	Error Error `json:"error"`
}

// HealthCheck is the state of one dependency.
type HealthCheck struct {
	Status    string `json:"status" enum:"ok,down" doc:"ok or down."`
	LatencyMs int64  `json:"latencyMs"`
	Error     string `json:"error,omitempty"`
}

// Health answers /health and /v1/health.
type Health struct {
	OK         bool                   `json:"ok"`
	Status     string                 `json:"status" enum:"ok,degraded" doc:"ok when every dependency answers."`
	APIVersion string                 `json:"apiVersion" doc:"The API version, v1."`
	Version    string                 `json:"version" doc:"The server build."`
	Checks     map[string]HealthCheck `json:"checks" doc:"postgres and temporal."`
	// DatabaseArchivePublicKey is the key that signs database archives (32 bytes, standard base64), for
	// clients to pin; absent on a server without managed databases.
	DatabaseArchivePublicKey string `json:"databaseArchivePublicKey,omitempty" doc:"The key that signs database export archives, the Ed25519 public key in standard base64; pin it to check X-Svc-Archive-Public-Key."`
	// Error is set (code unavailable) when a dependency is down and the answer is 503.
	Error *Error `json:"error,omitempty"`
}

// ValidHeaderName reports whether s is a valid HTTP header field name (an RFC 9110 token), as a
// connection's headerName must be.
func ValidHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}
