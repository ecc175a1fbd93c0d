package client

import (
	"slices"
	"strings"
	"time"
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

// Limit is one per-key limit. Exactly one of RequestsPerMinute and CreditsPerDay is set.
type Limit struct {
	Operation         string `json:"operation" doc:"Selector: a limit operation id, *, or a services.invoke.<serviceId>[.<operationId>] / runs.create.<serviceId>[.<operationId>] form."`
	RequestsPerMinute int64  `json:"requestsPerMinute,omitempty" minimum:"1" doc:"Requests allowed per rolling minute."`
	CreditsPerDay     int64  `json:"creditsPerDay,omitempty" minimum:"1" doc:"Credits that may be charged per UTC day (credit-metered operations only)."`
}

// APIKey is an API key as the API shows it. Secret is set only in the answer that created it.
type APIKey struct {
	ID        string     `json:"id" doc:"Key id (key_...)."`
	Name      string     `json:"name"`
	Secret    string     `json:"secret,omitempty" doc:"The svc_sk_ secret; shown once, in the creation answer only."`
	Prefix    string     `json:"prefix" doc:"The first characters of the secret, to recognise it."`
	Scopes    []string   `json:"scopes"`
	Services  []string   `json:"services" doc:"Service ids the key may use; [\"*\"] means every service."`
	Limits    []Limit    `json:"limits"`
	ParentID  *string    `json:"parentId"`
	ProjectID *string    `json:"projectId"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
	// Current marks the key that made the request, in listings.
	Current bool `json:"current,omitempty"`
}

// CreateAPIKeyRequest is the body of POST /v1/api-keys. Every field is optional: a first key gets every
// scope and service; a child key inherits what it omits from its parent and may only narrow it.
type CreateAPIKeyRequest struct {
	Name string `json:"name,omitempty" maxLength:"200" doc:"A label for people."`
	// Scopes and Services: nil (sent as null) inherits the parent's; an empty list asks for none.
	Scopes    []string `json:"scopes" required:"false" doc:"Subset of the parent's scopes; null or absent inherits them."`
	Services  []string `json:"services" required:"false" doc:"Subset of the parent's services; null or absent inherits them."`
	Limits    []Limit  `json:"limits,omitempty" doc:"Limits; a child keeps every limit of its parent, at most as wide."`
	ProjectID string   `json:"projectId,omitempty" doc:"Bind the key to one project."`
}

// APIKeyEnvelope answers the creation or revocation of one key.
type APIKeyEnvelope struct {
	OK     bool   `json:"ok"`
	APIKey APIKey `json:"apiKey"`
}

// APIKeyList answers GET /v1/api-keys.
type APIKeyList struct {
	OK         bool     `json:"ok"`
	APIKeys    []APIKey `json:"apiKeys"`
	NextCursor *string  `json:"nextCursor"`
}

// Run statuses.
const (
	RunQueued           = "queued"
	RunRunning          = "running"
	RunAwaitingApproval = "awaiting_approval"
	RunSucceeded        = "succeeded"
	RunFailed           = "failed"
	RunCancelled        = "cancelled"
)

// RunError says why a run failed.
type RunError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Run is a durable invocation of a service operation, executed as a Temporal workflow run/<id>.
type Run struct {
	ID             string         `json:"id" doc:"Run id (run_...)."`
	ServiceID      string         `json:"serviceId"`
	OperationID    string         `json:"operationId"`
	Status         string         `json:"status" enum:"queued,running,awaiting_approval,succeeded,failed,cancelled"`
	Input          map[string]any `json:"input"`
	Output         any            `json:"output"`
	Error          *RunError      `json:"error"`
	ApprovalID     *string        `json:"approvalId"`
	ChargedCredits float64        `json:"chargedCredits"`
	CreatedAt      time.Time      `json:"createdAt"`
	UpdatedAt      time.Time      `json:"updatedAt"`
	CompletedAt    *time.Time     `json:"completedAt"`
}

// Finished reports whether the run reached a final status.
func (r Run) Finished() bool {
	return r.Status == RunSucceeded || r.Status == RunFailed || r.Status == RunCancelled
}

// CreateRunRequest is the body of POST /v1/runs.
type CreateRunRequest struct {
	ServiceID       string         `json:"serviceId" minLength:"1" doc:"The service that executes the run."`
	OperationID     string         `json:"operationId" minLength:"1" doc:"The operation of that service."`
	Input           map[string]any `json:"input,omitempty" doc:"Operation input; {} when omitted."`
	RequireApproval bool           `json:"requireApproval,omitempty" doc:"Wait for an approval before running."`
	// ApprovalExpiresInSeconds bounds the wait for the approval (default 86400, at most 604800).
	ApprovalExpiresInSeconds int `json:"approvalExpiresInSeconds,omitempty" minimum:"0" doc:"How long the run's approval waits (default 86400, at most 604800)."`
}

// RunEnvelope answers one run.
type RunEnvelope struct {
	OK  bool `json:"ok"`
	Run Run  `json:"run"`
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
	// Error is set (code unavailable) when a dependency is down and the answer is 503.
	Error *Error `json:"error,omitempty"`
}

// Price is what one operation costs.
type Price struct {
	ServiceID   string  `json:"serviceId"`
	OperationID string  `json:"operationId"`
	Credits     float64 `json:"credits" doc:"Credits charged per call or run."`
	Unit        string  `json:"unit" doc:"What one charge buys, e.g. request or run."`
	Available   bool    `json:"available" doc:"Whether the operation can be used now."`
}

// Pricing answers /v1/pricing.
type Pricing struct {
	OK            bool    `json:"ok"`
	CreditsPerUSD int64   `json:"creditsPerUsd" doc:"Credits bought by one USD."`
	Prices        []Price `json:"prices"`
}

// Operation is one operation of a managed service.
type Operation struct {
	ID               string `json:"id"`
	Description      string `json:"description"`
	Kind             string `json:"kind" enum:"run,route" doc:"run: started with POST /v1/runs; route: served by its own API route."`
	RequiresApproval bool   `json:"requiresApproval"`
	Available        bool   `json:"available"`
}

// Service is one managed service of the catalog.
type Service struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Available   bool        `json:"available"`
	Operations  []Operation `json:"operations"`
}

// ServiceList answers GET /v1/services and GET /v1/capabilities.
type ServiceList struct {
	OK       bool      `json:"ok"`
	Services []Service `json:"services"`
}

// ServiceEnvelope answers GET /v1/capabilities/{serviceId}.
type ServiceEnvelope struct {
	OK      bool    `json:"ok"`
	Service Service `json:"service"`
	// Preflight is set for external services that follow the generation-service contract: the answers
	// of their /health and /v1/models, checked with the caller's connection.
	Preflight *Preflight `json:"preflight,omitempty"`
}

// Preflight is the result of checking a generation-style service.
type Preflight struct {
	OK       bool           `json:"ok" doc:"Both /health and /v1/models answered 2xx."`
	Health   PreflightCheck `json:"health"`
	Models   PreflightCheck `json:"models"`
	ModelIDs []string       `json:"modelIds" doc:"Models /v1/models listed, when it listed any."`
}

// PreflightCheck is one preflight call.
type PreflightCheck struct {
	Path      string `json:"path"`
	OK        bool   `json:"ok"`
	Status    int    `json:"status" doc:"The HTTP status, 0 when there was no answer."`
	ErrorCode string `json:"errorCode,omitempty"`
	LatencyMs int64  `json:"latencyMs"`
}

// Action is one service operation a key may start, flattened for agents and MCP tools.
type Action struct {
	ServiceID        string  `json:"serviceId"`
	OperationID      string  `json:"operationId"`
	Description      string  `json:"description"`
	Kind             string  `json:"kind"`
	RequiresApproval bool    `json:"requiresApproval"`
	Credits          float64 `json:"credits"`
}

// ActionList answers GET /v1/actions.
type ActionList struct {
	OK      bool     `json:"ok"`
	Actions []Action `json:"actions"`
}
