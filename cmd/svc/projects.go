package main

import (
	"flag"
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

// pageFlags are the --limit, --cursor and --all flags of a list command.
type pageFlags struct {
	limit  int
	cursor string
	all    bool
}

// register adds --limit, --cursor and --all to fs.
func (p *pageFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&p.limit, "limit", 0, "page size 1..200 (default 50)")
	fs.StringVar(&p.cursor, "cursor", "", "nextCursor of the previous page")
	fs.BoolVar(&p.all, "all", false, "follow nextCursor through every page")
}

// check validates the flags; it returns a usage message or "".
func (p *pageFlags) check() string {
	if p.limit < 0 || p.limit > 200 {
		return "--limit must be between 1 and 200"
	}
	return ""
}

// params are the list parameters the flags ask for.
func (p *pageFlags) params() client.ListParams {
	return client.ListParams{Limit: p.limit, Cursor: p.cursor}
}

// collectPages builds the authenticated client and fetches one page of a list, or with --all every page
// from --cursor on. In --json mode without --all it prints the page's raw envelope and returns done. A
// missing key or a failed request is reported and its exit code returned with done true.
func collectPages[E, T any](a *app, pf pageFlags, fetch func(*client.Client, client.ListParams) client.Response[E],
	split func(E) ([]T, *string)) (items []T, next *string, code int, done bool) {
	c, _, code, ok := a.authedClient()
	if !ok {
		return nil, nil, code, true
	}
	p := pf.params()
	for {
		resp := fetch(c, p)
		if !resp.OK {
			return nil, nil, apiFailure(a, resp), true
		}
		if a.g.json && !pf.all {
			a.printRaw(resp.Raw)
			return nil, nil, exitOK, true
		}
		page, n := split(resp.Body)
		items, next = append(items, page...), n
		if !pf.all || next == nil || *next == "" {
			return items, next, exitOK, false
		}
		p.Cursor = *next
	}
}

// parsePaged registers pf on fs and parses the flags of a list command, which takes no positional
// argument; it returns the exit code to return at once (help or a usage error) with ok false.
func (a *app) parsePaged(cmd string, fs *flag.FlagSet, pf *pageFlags, args []string) (code int, ok bool) {
	pf.register(fs)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code, false
	}
	if msg := pf.check(); msg != "" {
		return a.usageError(cmd, "%s", msg), false
	}
	return 0, true
}

// listShown prints, in --json mode, the envelope of a collected list or else none when the list has no
// items (n is its length), and reports whether it printed either.
func (a *app) listShown(envelope any, n int, none string) bool {
	if a.g.json {
		a.printJSON(envelope)
		return true
	}
	if n == 0 {
		fmt.Fprintln(a.stdout, none)
		return true
	}
	return false
}

// moreHint prints how to fetch the next page: the command, its filters and --cursor.
func (a *app) moreHint(what, cmd string, filters []string, next *string) {
	if next == nil || *next == "" {
		return
	}
	parts := append([]string{"svc", cmd}, filters...)
	parts = append(parts, "--cursor", shellQuote(*next))
	fmt.Fprintf(a.stdout, "More %s: %s\n", what, strings.Join(parts, " "))
}

// shellQuote quotes s for a POSIX shell when it holds anything beyond plain word characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/=+@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

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

// projectsGet shows a project.
func (a *app) projectsGet(args []string) int {
	return oneID(a, idSpec{cmd: "projects get", what: "project"}, args,
		func(c *client.Client, id string, _ []client.CallOption) client.Response[client.ProjectEnvelope] {
			return c.GetProject(a.ctx, id)
		},
		func(r client.Response[client.ProjectEnvelope]) { a.printProject("", r.Body.Project, false) })
}

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

// idemOpts sends key as the Idempotency-Key when given (the SDK otherwise makes a random one).
func idemOpts(key string) []client.CallOption {
	if key == "" {
		return nil
	}
	return []client.CallOption{client.WithIdempotencyKey(key)}
}

// oneLine puts s on one line (tabs and line breaks become spaces, so tables stay aligned) and, when max
// is positive, shortens it to max characters.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if max > 0 && utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max-1]) + "…"
	}
	return s
}

// orEmpty turns a nil slice into an empty one, so JSON shows [] rather than null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
