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
