package client

import (
	"encoding/json"
	"strings"
	"time"
)

// Connection auth types.
const (
	AuthHeader = "header"
	AuthBearer = "bearer"
	AuthBasic  = "basic"
)

// Connection is a protected upstream credential's metadata; the secret is never shown.
type Connection struct {
	ID         string     `json:"id" doc:"Connection id (conn_...)."`
	Name       string     `json:"name" doc:"Unique in its project; services.yaml refers to connections by name."`
	AuthType   string     `json:"authType" enum:"header,bearer,basic"`
	HeaderName string     `json:"headerName,omitempty" doc:"The header that carries the secret (authType header)."`
	Status     string     `json:"status" enum:"active,disabled"`
	CreatedAt  time.Time  `json:"createdAt"`
	UpdatedAt  time.Time  `json:"updatedAt"`
	RotatedAt  *time.Time `json:"rotatedAt"`
}

// CreateConnectionRequest is the body of POST /v1/connections.
type CreateConnectionRequest struct {
	Name       string `json:"name" minLength:"1" maxLength:"100"`
	AuthType   string `json:"authType" enum:"header,bearer,basic"`
	HeaderName string `json:"headerName,omitempty" doc:"Required for authType header, e.g. X-Api-Key."`
	Username   string `json:"username,omitempty" doc:"Required for authType basic."`
	Secret     string `json:"secret" minLength:"1" doc:"The header value, bearer token or basic-auth password. Stored encrypted; never shown again."`
}

// UpdateConnectionRequest is the body of PATCH /v1/connections/{connectionId}: rotate the secret (and
// username), rename, or disable/enable. Absent fields stay as they are.
type UpdateConnectionRequest struct {
	Name     *string `json:"name,omitempty" minLength:"1" maxLength:"100"`
	Secret   *string `json:"secret,omitempty" minLength:"1" doc:"A new secret: rotates the credential."`
	Username *string `json:"username,omitempty"`
	Disabled *bool   `json:"disabled,omitempty" doc:"true disables the connection; false enables it."`
}

// ConnectionEnvelope answers one connection.
type ConnectionEnvelope struct {
	OK         bool       `json:"ok"`
	Connection Connection `json:"connection"`
}

// ConnectionList answers GET /v1/connections.
type ConnectionList struct {
	OK          bool         `json:"ok"`
	Connections []Connection `json:"connections"`
	NextCursor  *string      `json:"nextCursor"`
}

// InvokeRequest is the body of POST /v1/services/{serviceId}/invoke.
type InvokeRequest struct {
	OperationID string         `json:"operationId" minLength:"1"`
	Input       map[string]any `json:"input,omitempty" doc:"Sent to the service: the JSON body, or query parameters for GET and DELETE."`
}

// InvokeResult answers an invocation: the owning service's status and result, and what it charged.
type InvokeResult struct {
	OK             bool            `json:"ok"`
	ServiceID      string          `json:"serviceId"`
	OperationID    string          `json:"operationId"`
	Status         int             `json:"status" doc:"The HTTP status the owning service answered."`
	Result         json.RawMessage `json:"result" doc:"What the owning service answered (JSON, or a string)."`
	ChargedCredits float64         `json:"chargedCredits" doc:"Exactly what the owning service reported charging."`
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
