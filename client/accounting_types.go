package client

import "time"

// Project statuses.
const (
	ProjectActive   = "active"
	ProjectArchived = "archived"
)

// Project groups an account's resources; X-Svc-Project selects one.
type Project struct {
	ID          string     `json:"id" doc:"Project id (proj_...)."`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Status      string     `json:"status" enum:"active,archived"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	ArchivedAt  *time.Time `json:"archivedAt"`
}

// CreateProjectRequest is the body of POST /v1/projects.
type CreateProjectRequest struct {
	Name        string `json:"name" minLength:"1" maxLength:"200"`
	Description string `json:"description,omitempty" maxLength:"2000"`
}

// UpdateProjectRequest is the body of PATCH /v1/projects/{projectId}; absent fields stay as they are.
type UpdateProjectRequest struct {
	Name        *string `json:"name,omitempty" minLength:"1" maxLength:"200"`
	Description *string `json:"description,omitempty" maxLength:"2000"`
}

// ProjectEnvelope answers one project.
type ProjectEnvelope struct {
	OK      bool    `json:"ok"`
	Project Project `json:"project"`
}

// ProjectList answers GET /v1/projects.
type ProjectList struct {
	OK         bool      `json:"ok"`
	Projects   []Project `json:"projects"`
	NextCursor *string   `json:"nextCursor"`
}

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
}

// AuditEventList answers GET /v1/audit-events.
type AuditEventList struct {
	OK          bool         `json:"ok"`
	AuditEvents []AuditEvent `json:"auditEvents"`
	NextCursor  *string      `json:"nextCursor"`
}

// UsageEntry is one project's requests and charged credits for one operation on one UTC day.
type UsageEntry struct {
	Date           string  `json:"date" doc:"UTC day, YYYY-MM-DD."`
	ProjectID      *string `json:"projectId" doc:"null for requests made outside any project."`
	Operation      string  `json:"operation"`
	Requests       int64   `json:"requests"`
	ChargedCredits float64 `json:"chargedCredits"`
}

// Usage answers GET /v1/usage.
type Usage struct {
	OK    bool         `json:"ok"`
	From  string       `json:"from" doc:"First UTC day included."`
	To    string       `json:"to" doc:"Last UTC day included."`
	Usage []UsageEntry `json:"usage"`
}

// Balance is an account's credits.
type Balance struct {
	Credits     float64   `json:"credits" doc:"Credits available to spend."`
	HeldCredits float64   `json:"heldCredits" doc:"Credits reserved for calls in progress."`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// BalanceEnvelope answers GET /v1/credits/balance.
type BalanceEnvelope struct {
	OK      bool    `json:"ok"`
	Balance Balance `json:"balance"`
}
