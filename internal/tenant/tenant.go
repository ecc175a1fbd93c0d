// Package tenant carries the caller's account and selected project, the scope every lookup is bound to.
package tenant

import "github.com/uptrace/bun"

// Scope is an account and, when one is selected, a project. A resource made in one project is invisible
// from another and from the account's project-less scope.
type Scope struct {
	AccountID string
	ProjectID *string
}

// Where restricts q to rows of the scope (columns account_id and project_id).
func (s Scope) Where(q *bun.SelectQuery) *bun.SelectQuery {
	q = q.Where("account_id = ?", s.AccountID)
	if s.ProjectID == nil {
		return q.Where("project_id IS NULL")
	}
	return q.Where("project_id = ?", *s.ProjectID)
}

// Project returns the selected project id or "".
func (s Scope) Project() string {
	if s.ProjectID == nil {
		return ""
	}
	return *s.ProjectID
}
