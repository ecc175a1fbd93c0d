package main

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/svcplatform/svc/client"
)

// Bounds of a project's fields, as the API documents them (in characters).
const (
	maxProjectName        = 200
	maxProjectDescription = 2000
)

// projectsHelp is the help of "svc projects".
const projectsHelp = `Usage: svc projects <list|create|get|update|archive> [flags]

  projects list      list projects
  projects create    create a project
  projects get       show a project
  projects update    change a project's name or description
  projects archive   archive a project (it stays readable)

Run "svc projects <command> --help" for details.`

// projectsCommands are the commands of projects, "svc projects ...".
func projectsCommands() []command {
	return []command{
		{name: "projects", help: projectsHelp},
		{name: "projects list", run: (*app).projectsList, help: projectsListHelp, brief: "list projects"},
		{name: "projects create", run: (*app).projectsCreate, help: projectsCreateHelp, brief: "create a project"},
		{name: "projects get", run: (*app).projectsGet, help: projectsGetHelp, brief: "show a project"},
		{name: "projects update", run: (*app).projectsUpdate, help: projectsUpdateHelp,
			brief: "change a project's name or description"},
		{name: "projects archive", run: (*app).projectsArchive, help: projectsArchiveHelp,
			brief: "archive a project (it stays readable)"},
	}
}

// projectsListHelp is the help of "svc projects list".
const projectsListHelp = `Usage: svc projects list [--status active|archived] [--limit N] [--cursor C] [--all]

Lists the account's projects, newest first (scope projects:read). A key bound to a project sees only
that project.

  --status S   only projects in status S: active or archived (default: both)
  --limit N    page size 1..200 (default 50)
  --cursor C   the nextCursor of the previous page
  --all        follow nextCursor through every page

` + globalFlagsHelp

// projectsList lists the projects the key may see.
func (a *app) projectsList(args []string) int {
	const cmd = "projects list"
	fs := a.commandFlags(cmd, nil)
	var (
		pf     pageFlags
		status string
	)
	fs.StringVar(&status, "status", "", "only projects in this status: active or archived")
	if code, ok := a.parsePaged(cmd, fs, &pf, args); !ok {
		return code
	}
	switch status {
	case "", client.ProjectActive, client.ProjectArchived:
	default:
		return a.usageError(cmd, "--status must be %s or %s, not %q", client.ProjectActive, client.ProjectArchived, status)
	}
	projects, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.ProjectList] {
			return c.ListProjects(a.ctx, client.ProjectListParams{ListParams: p, Status: status})
		},
		func(l client.ProjectList) ([]client.Project, *string) { return l.Projects, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.ProjectList{OK: true, Projects: orEmpty(projects), NextCursor: next}, len(projects), "No projects.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tCREATED\tDESCRIPTION")
	for _, p := range projects {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.ID, oneLine(p.Name, 40), p.Status,
			p.CreatedAt.UTC().Format(time.RFC3339), orDash(oneLine(p.Description, 50)))
	}
	_ = tw.Flush()
	var filters []string
	if status != "" {
		filters = append(filters, "--status", status)
	}
	if pf.limit != 0 {
		filters = append(filters, "--limit", fmt.Sprint(pf.limit))
	}
	a.moreHint("projects", cmd, filters, next)
	return exitOK
}

// projectsCreateHelp is the help of "svc projects create".
const projectsCreateHelp = `Usage: svc projects create --name N [--description D] [--idempotency-key K]

Creates an active project (scope projects:write; not with a key bound to a project). Select it for later
commands with --project ID or ` + envProject + `.

  --name N              the project's name, 1..200 characters (required)
  --description D       a description, at most 2000 characters
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// projectsCreate creates a project.
func (a *app) projectsCreate(args []string) int {
	const cmd = "projects create"
	var name, description, idemKey string
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&name, "name", "", "the project's name (required)")
	fs.StringVar(&description, "description", "", "a description")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if strings.TrimSpace(name) == "" {
		return a.usageError(cmd, "--name is required")
	}
	if msg := checkProjectFields(&name, &description); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.CreateProject(a.ctx, client.CreateProjectRequest{Name: name, Description: description}, idemOpts(idemKey)...)
	return answer(a, resp, a.showProject("Created project"))
}

// projectsGetHelp is the help of "svc projects get".
const projectsGetHelp = `Usage: svc projects get ID

Shows the project ID (scope projects:read).

` + globalFlagsHelp

// projectsGet shows a project.
func (a *app) projectsGet(args []string) int {
	return oneID(a, idSpec{cmd: "projects get", what: "project"}, args,
		func(c *client.Client, id string, _ []client.CallOption) client.Response[client.ProjectEnvelope] {
			return c.GetProject(a.ctx, id)
		},
		func(r client.Response[client.ProjectEnvelope]) { a.printProject("", r.Body.Project, false) })
}

// projectsUpdateHelp is the help of "svc projects update".
const projectsUpdateHelp = `Usage: svc projects update ID [--name N] [--description D] [--idempotency-key K]

Changes an active project's name, description or both (scope projects:write); give at least one.
An archived project refuses changes (conflict).

  --name N              the new name, 1..200 characters
  --description D       the new description, at most 2000 characters (--description "" clears it)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// projectsUpdate changes a project's name or description.
func (a *app) projectsUpdate(args []string) int {
	const cmd = "projects update"
	var name, description, idemKey string
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&name, "name", "", "the new name")
	fs.StringVar(&description, "description", "", "the new description (\"\" clears it)")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "project"}, fs, args)
	if !ok {
		return code
	}
	set := flagsGiven(fs)
	var req client.UpdateProjectRequest
	if set["name"] {
		if strings.TrimSpace(name) == "" {
			return a.usageError(cmd, "--name must not be empty")
		}
		req.Name = &name
	}
	if set["description"] {
		req.Description = &description
	}
	if req.Name == nil && req.Description == nil {
		return a.usageError(cmd, "give --name, --description or both")
	}
	if msg := checkProjectFields(req.Name, req.Description); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.UpdateProject(a.ctx, id, req, idemOpts(idemKey)...), a.showProject("Updated project"))
}

// projectsArchiveHelp is the help of "svc projects archive".
const projectsArchiveHelp = `Usage: svc projects archive ID [--idempotency-key K]

Archives the project ID (scope projects:write). An archived project can still be read but refuses
changes; archiving it again answers it unchanged.

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// projectsArchive archives a project.
func (a *app) projectsArchive(args []string) int {
	return oneID(a, idSpec{cmd: "projects archive", what: "project", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.ProjectEnvelope] {
			return c.ArchiveProject(a.ctx, id, opts...)
		},
		a.showProject("Archived project"))
}

// showProject returns the function that shows a project answer under title, marked when replayed.
func (a *app) showProject(title string) func(client.Response[client.ProjectEnvelope]) {
	return func(r client.Response[client.ProjectEnvelope]) { a.printProject(title, r.Body.Project, r.Replayed) }
}

// checkProjectFields checks the bounds of a project's name and description (nil: not given); it returns a
// usage message or "". The name is trimmed, as the server does.
func checkProjectFields(name, description *string) string {
	if name != nil {
		*name = strings.TrimSpace(*name)
		if n := utf8.RuneCountInString(*name); n > maxProjectName {
			return fmt.Sprintf("--name has %d characters; at most %d are allowed", n, maxProjectName)
		}
	}
	if description != nil {
		if n := utf8.RuneCountInString(*description); n > maxProjectDescription {
			return fmt.Sprintf("--description has %d characters; at most %d are allowed", n, maxProjectDescription)
		}
	}
	return ""
}

// printProject shows a project as aligned "key: value" lines, after an optional title line.
func (a *app) printProject(title string, p client.Project, replayed bool) {
	if title != "" {
		fmt.Fprintln(a.stdout, titleLine(title, p.ID, p.Name, replayed))
	}
	tw := a.table()
	fmt.Fprintf(tw, "ID:\t%s\n", p.ID)
	fmt.Fprintf(tw, "Name:\t%s\n", oneLine(p.Name, 0))
	fmt.Fprintf(tw, "Description:\t%s\n", orDash(oneLine(p.Description, 0)))
	fmt.Fprintf(tw, "Status:\t%s\n", p.Status)
	fmt.Fprintf(tw, "Created:\t%s\n", p.CreatedAt.UTC().Format(time.RFC3339))
	fmt.Fprintf(tw, "Updated:\t%s\n", p.UpdatedAt.UTC().Format(time.RFC3339))
	if p.ArchivedAt != nil {
		fmt.Fprintf(tw, "Archived:\t%s\n", p.ArchivedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
}
