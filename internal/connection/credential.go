package connection

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
)

// redacted stands in for the secret wherever a Credential is printed.
const redacted = "[REDACTED]"

// Credential is an opened connection secret, ready to be applied to one outgoing request. Printing it
// (fmt verbs, %#v, JSON, slog) shows its id and auth type only; the secret leaves it only through Apply.
type Credential struct {
	id         string
	authType   string
	headerName string
	username   string
	secret     string
}

// sealedSecret is what is sealed in secret_sealed.
type sealedSecret struct {
	Username string `json:"username,omitempty"`
	Secret   string `json:"secret"`
}

// ID returns the connection id.
func (c Credential) ID() string { return c.id }

// AuthType returns the auth type (header, bearer or basic).
func (c Credential) AuthType() string { return c.authType }

// Apply sets the credential on req: the header, Authorization: Bearer, or basic auth. A zero Credential
// sets nothing.
func (c Credential) Apply(req *http.Request) {
	switch c.authType {
	case AuthHeader:
		req.Header.Set(c.headerName, c.secret)
	case AuthBearer:
		req.Header.Set("Authorization", "Bearer "+c.secret)
	case AuthBasic:
		req.SetBasicAuth(c.username, c.secret)
	}
}

// String describes the credential without its secret.
func (c Credential) String() string {
	return fmt.Sprintf("connection.Credential{id: %s, authType: %s, secret: %s}", c.id, c.authType, redacted)
}

// GoString is String, so %#v redacts too.
func (c Credential) GoString() string { return c.String() }

// Format prints String for every verb (%v, %+v, %#v, %s, %q, ...).
func (c Credential) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// MarshalJSON encodes the id and auth type and a redacted secret.
func (c Credential) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"id": c.id, "authType": c.authType, "secret": redacted})
}

// LogValue makes slog print the redacted form.
func (c Credential) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", c.id), slog.String("authType", c.authType), slog.String("secret", redacted))
}
