// Package connection keeps protected connections: the credentials the platform injects into requests to
// upstream services on a tenant's behalf. A connection belongs to an account's project-less scope or to one
// project, like runs. Its secret is sealed with AES-256-GCM (secretbox, aad = the connection id) and is
// opened only by Store.Credential, whose result applies it to an outgoing request and redacts it everywhere
// else: no returned struct meant for the API, no error and no log line ever carries it.
//
// Auth types:
//
//   - header: the secret is sent as the value of HeaderName (for example X-Api-Key: <secret>).
//   - bearer: Authorization: Bearer <secret>.
//   - basic:  Authorization: Basic base64(<username>:<secret>); Username is a separate field (it may not
//     contain a colon) and is sealed together with the secret, so it is not shown either.
package connection

import (
	"github.com/svcplatform/svc/client"
	"net/textproto"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// IDPrefix is the prefix of connection ids (conn_...).
const IDPrefix = "conn"

// Auth types.
const (
	AuthHeader = "header"
	AuthBearer = "bearer"
	AuthBasic  = "basic"
)

// Statuses.
const (
	StatusActive   = "active"
	StatusDisabled = "disabled"
)

// Limits of the validated fields.
const (
	MaxNameLength     = 100
	MaxSecretLength   = 8192
	MaxUsernameLength = 256
	MaxHeaderName     = 128
)

// NewID returns a fresh connection id.
func NewID() string { return ids.New(IDPrefix) }

// Connection is a stored connection without its secret.
type Connection struct {
	ID         string
	AccountID  string
	ProjectID  *string
	Name       string
	AuthType   string
	HeaderName string
	Status     string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	RotatedAt  *time.Time
}

// View is the API's shape of a connection. It never carries the secret.
type View struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	AuthType   string     `json:"authType"`
	HeaderName string     `json:"headerName,omitempty"`
	Status     string     `json:"status"`
	CreatedAt  time.Time  `json:"createdAt"`
	UpdatedAt  time.Time  `json:"updatedAt"`
	RotatedAt  *time.Time `json:"rotatedAt"`
}

// View returns the API's shape of c, with UTC timestamps.
func (c Connection) View() View {
	v := View{
		ID: c.ID, Name: c.Name, AuthType: c.AuthType, HeaderName: c.HeaderName, Status: c.Status,
		CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC(),
	}
	if c.RotatedAt != nil {
		t := c.RotatedAt.UTC()
		v.RotatedAt = &t
	}
	return v
}

// ToWire converts a connection to the API's shape (its View); it never carries the secret.
func ToWire(c Connection) client.Connection {
	v := c.View()
	return client.Connection{ID: v.ID, Name: v.Name, AuthType: v.AuthType, HeaderName: v.HeaderName, Status: v.Status,
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, RotatedAt: v.RotatedAt}
}

// NewConnection is a request to create a connection.
type NewConnection struct {
	// ID is the connection id; derived from the idempotency record so a retried request finds its row.
	ID       string
	Name     string
	AuthType string
	// HeaderName is the header that carries the secret; only (and required) for AuthHeader.
	HeaderName string
	// Username is the basic-auth user; only (and required) for AuthBasic.
	Username string
	// Secret is the header value, the bearer token, or the basic-auth password.
	Secret string
}

// Patch changes a connection; nil fields stay as they are. Setting Secret (and, for basic, Username)
// rotates the credential.
type Patch struct {
	Name     *string
	Secret   *string
	Username *string
	Disabled *bool
}

// validate checks a new connection; errors name the field and never quote the secret.
func (n NewConnection) validate() error {
	if err := validateName(n.Name); err != nil {
		return err
	}
	switch n.AuthType {
	case AuthHeader, AuthBearer, AuthBasic:
	default:
		return svcerr.Invalid("authType", "authType must be one of header, bearer, basic")
	}
	if err := validateHeaderName(n.AuthType, n.HeaderName); err != nil {
		return err
	}
	if err := validateUsername(n.AuthType, n.Username, n.AuthType == AuthBasic); err != nil {
		return err
	}
	return validateSecret(n.Secret)
}

func validateName(name string) error {
	if strings.TrimSpace(name) == "" {
		return svcerr.Invalid("name", "name is required")
	}
	if utf8.RuneCountInString(name) > MaxNameLength || !utf8.ValidString(name) || hasControl(name) {
		return svcerr.Invalid("name", "name must be valid text of at most %d characters without control characters", MaxNameLength)
	}
	return nil
}

// forbiddenHeaders are headers a connection may not set: transport framing, hop-by-hop headers, and the
// ones the gateway sets itself.
var forbiddenHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true, "Upgrade": true,
	"Te": true, "Trailer": true, "Keep-Alive": true, "Proxy-Authorization": true, "Proxy-Connection": true,
	"Content-Type": true, "Content-Encoding": true, "Accept-Encoding": true, "X-Request-Id": true,
	"Cookie": true, "Expect": true,
}

func validateHeaderName(authType, name string) error {
	if authType != AuthHeader {
		if name != "" {
			return svcerr.Invalid("headerName", "headerName applies only to authType header")
		}
		return nil
	}
	if name == "" {
		return svcerr.Invalid("headerName", "headerName is required for authType header")
	}
	if len(name) > MaxHeaderName || !client.ValidHeaderName(name) {
		return svcerr.Invalid("headerName", "headerName must be an HTTP header name of at most %d characters", MaxHeaderName)
	}
	if forbiddenHeaders[textproto.CanonicalMIMEHeaderKey(name)] {
		return svcerr.Invalid("headerName", "headerName %q is reserved", name)
	}
	return nil
}

func validateUsername(authType, username string, required bool) error {
	if authType != AuthBasic {
		if username != "" {
			return svcerr.Invalid("username", "username applies only to authType basic")
		}
		return nil
	}
	if username == "" && required {
		return svcerr.Invalid("username", "username is required for authType basic")
	}
	if len(username) > MaxUsernameLength || strings.Contains(username, ":") || hasControl(username) || !utf8.ValidString(username) {
		return svcerr.Invalid("username", "username must be at most %d characters, without colons or control characters", MaxUsernameLength)
	}
	return nil
}

// validateSecret checks the secret without ever quoting it.
func validateSecret(secret string) error {
	if secret == "" {
		return svcerr.Invalid("secret", "secret is required")
	}
	if len(secret) > MaxSecretLength {
		return svcerr.Invalid("secret", "secret must be at most %d bytes", MaxSecretLength)
	}
	if hasControl(secret) || !utf8.ValidString(secret) {
		return svcerr.Invalid("secret", "secret must be valid text without control characters")
	}
	return nil
}

// hasControl reports whether s holds an ASCII control character (CR, LF, NUL, DEL...).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
