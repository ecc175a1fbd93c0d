package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/project"
	"github.com/svcplatform/svc/internal/svcerr"
)

// visibility is what projects the caller may see: a project-bound key only its own.
func visibility(ctx context.Context) project.Visibility {
	k := principalFrom(ctx).Key
	return project.Visibility{AccountID: k.AccountID, Only: k.ProjectID}
}

type listProjectsInput struct {
	PageQuery
	Status string `query:"status" enum:"active,archived" doc:"Only projects in this status."`
}

func (pa *projectsAPI) listProjects(ctx context.Context, in *listProjectsInput) (*Out[client.ProjectList], error) {
	p, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	rows, next, err := pa.projects.List(ctx, visibility(ctx), in.Status, p)
	if err != nil {
		return nil, err
	}
	out := client.ProjectList{OK: true, Projects: make([]client.Project, 0, len(rows)), NextCursor: next}
	for i := range rows {
		out.Projects = append(out.Projects, project.ToWire(&rows[i]))
	}
	return reply(out)
}

type createProjectInput struct {
	Body client.CreateProjectRequest
}

func (pa *projectsAPI) createProject(ctx context.Context, in *createProjectInput) (*Out[client.ProjectEnvelope], error) {
	v := visibility(ctx)
	if v.Only != nil {
		return nil, svcerr.New(svcerr.Forbidden, "a key bound to a project cannot create projects")
	}
	p, err := pa.projects.Create(ctx, v.AccountID, newID(ctx, ids.Project), project.Fields{Name: &in.Body.Name, Description: &in.Body.Description})
	if err != nil {
		return nil, err
	}
	return reply(client.ProjectEnvelope{OK: true, Project: project.ToWire(p)})
}

type projectIDInput struct {
	ProjectID string `path:"projectId" doc:"The project id (proj_...)."`
}

func (pa *projectsAPI) getProject(ctx context.Context, in *projectIDInput) (*Out[client.ProjectEnvelope], error) {
	p, err := pa.projects.Get(ctx, visibility(ctx), in.ProjectID)
	if err != nil {
		return nil, err
	}
	return reply(client.ProjectEnvelope{OK: true, Project: project.ToWire(p)})
}

type updateProjectInput struct {
	ProjectID string `path:"projectId" doc:"The project id (proj_...)."`
	Body      client.UpdateProjectRequest
}

func (pa *projectsAPI) updateProject(ctx context.Context, in *updateProjectInput) (*Out[client.ProjectEnvelope], error) {
	p, err := pa.projects.Update(ctx, visibility(ctx), in.ProjectID, project.Fields{Name: in.Body.Name, Description: in.Body.Description})
	if err != nil {
		return nil, err
	}
	return reply(client.ProjectEnvelope{OK: true, Project: project.ToWire(p)})
}

func (pa *projectsAPI) archiveProject(ctx context.Context, in *projectIDInput) (*Out[client.ProjectEnvelope], error) {
	p, err := pa.projects.Archive(ctx, visibility(ctx), in.ProjectID, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	return reply(client.ProjectEnvelope{OK: true, Project: project.ToWire(p)})
}

// projectsAPI serves projects.
type projectsAPI struct {
	projects *project.Store
}

// routes are the projects routes.
func (pa *projectsAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpProjectsList, Method: http.MethodGet, Path: "/v1/projects", Summary: "List projects", Tag: "Projects",
			Auth: authKey, Scope: client.ScopeProjectsRead}, pa.listProjects),
		handle(Route{Op: client.OpProjectsCreate, Method: http.MethodPost, Path: "/v1/projects", Summary: "Create a project", Tag: "Projects",
			Auth: authKey, Scope: client.ScopeProjectsWrite, Idem: true, Status: http.StatusCreated}, pa.createProject),
		handle(Route{Op: client.OpProjectsRead, Method: http.MethodGet, Path: "/v1/projects/{projectId}", Summary: "Read a project", Tag: "Projects",
			Auth: authKey, Scope: client.ScopeProjectsRead}, pa.getProject),
		handle(Route{Op: client.OpProjectsUpdate, Method: http.MethodPatch, Path: "/v1/projects/{projectId}", Summary: "Update a project", Tag: "Projects",
			Auth: authKey, Scope: client.ScopeProjectsWrite, Idem: true}, pa.updateProject),
		handle(Route{Op: client.OpProjectsArchive, Method: http.MethodDelete, Path: "/v1/projects/{projectId}", Summary: "Archive a project", Tag: "Projects",
			Auth: authKey, Scope: client.ScopeProjectsWrite, Idem: true}, pa.archiveProject),
	}
}
