package client

import "time"

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
