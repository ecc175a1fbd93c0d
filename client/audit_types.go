package client

import "time"

// AuditEvent is one authenticated request. It never holds a secret or a body.
type AuditEvent struct {
	ID             string    `json:"id"`
	KeyID          *string   `json:"keyId" doc:"The key that made the request; null for a first-key credit token."`
	ProjectID      *string   `json:"projectId"`
	Operation      string    `json:"operation" doc:"The route's limit operation id."`
	Method         string    `json:"method"`
	Path           string    `json:"path"`
	Status         int       `json:"status"`
	RequestID      string    `json:"requestId"`
	ClientIP       string    `json:"clientIp"`
	ChargedCredits float64   `json:"chargedCredits"`
	CreatedAt      time.Time `json:"createdAt"`
	Sanitized      bool      `json:"sanitized" doc:"A text field (path, ids) held bytes that cannot be stored as text (NUL, invalid UTF-8); each such byte is shown as %XX."`
	SessionAddress *string   `json:"sessionAddress,omitempty" doc:"The signed-in address of a request made through a web session (SIWE); absent for API keys."`
	PartnerID      *string   `json:"partnerId,omitempty" doc:"The partner key (X-Partner-Key) of a request made with one."`
}

// AuditEventList answers GET /v1/audit-events.
type AuditEventList struct {
	OK          bool         `json:"ok"`
	AuditEvents []AuditEvent `json:"auditEvents"`
	NextCursor  *string      `json:"nextCursor"`
}
