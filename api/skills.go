package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/skills"
	"github.com/svcplatform/svc/internal/svcerr"
)

// skillsAPI serves skills (issue 27): create or replace from a SKILL.md or a ZIP, list, read, read a
// file, delete, the directory of approved public skills, and install a copy of one. Scopes runs:read /
// runs:write and service access managed-agents, like apps; every lookup is the caller's account's.
type skillsAPI struct {
	// skills is nil on a server without the files capability's blob store: the routes answer 503.
	skills *skills.Store
}

var errNoSkills = svcerr.New(svcerr.Unavailable, "skills are not configured on this server (no file store)")

// skillToWire is a skill as its owner sees it, with its body and files when files is not nil.
func skillToWire(s *skills.Skill, body string, files []skills.File) client.Skill {
	fm := s.Frontmatter
	out := client.Skill{Name: s.Name, Description: s.Description, Version: s.Version, Visibility: s.Visibility,
		ReviewStatus: s.ReviewStatus, ReviewReason: s.ReviewReason, Tags: s.Tags, Emoji: s.Emoji, Homepage: fm.Homepage,
		Body: body, CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()}
	if len(fm.Bins) > 0 || len(fm.Packages) > 0 {
		out.Requires = &client.SkillRequires{Bins: fm.Bins, Packages: fm.Packages}
	}
	if s.Source != nil {
		out.Source = &client.SkillSource{Owner: s.Source.AccountID, Name: s.Source.Name}
	}
	for _, f := range files {
		out.Files = append(out.Files, client.SkillFile{Path: f.Path, Kind: f.Kind, MediaType: f.MediaType, Bytes: f.Bytes,
			SHA256: f.SHA256, UpdatedAt: f.UpdatedAt.UTC()})
	}
	return out
}

// accountOf is the caller's account: skills are the account's, whatever project the key is in.
func accountOf(ctx context.Context) string { return principalFrom(ctx).Scope.AccountID }

// detail answers a skill with its body and files.
func (sa *skillsAPI) detail(ctx context.Context, s *skills.Skill) (*Out[client.SkillEnvelope], error) {
	body, err := sa.skills.Body(ctx, s)
	if err != nil {
		return nil, err
	}
	files, err := sa.skills.Files(ctx, s)
	if err != nil {
		return nil, err
	}
	return reply(client.SkillEnvelope{OK: true, Skill: skillToWire(s, body, files)})
}

type createSkillInput struct {
	ContentType string `header:"Content-Type" doc:"text/markdown (a SKILL.md alone) or application/zip (the skill folder zipped)."`
}

// createSkill reads a SKILL.md or a ZIP of the skill folder, validates all of it and stores it; a skill
// of the same name is replaced.
func (sa *skillsAPI) createSkill(ctx context.Context, in *createSkillInput) (*Out[client.SkillEnvelope], error) {
	if sa.skills == nil {
		return nil, errNoSkills
	}
	files, err := readFolderUpload(ctx, in.ContentType, skills.MaxUploadBytes, map[string]folderReader{
		client.MediaTypeZip:      skills.ReadZip,
		client.MediaTypeMarkdown: skillFileAlone,
		"text/plain":             skillFileAlone,
	}, "a skill is sent as text/markdown (its SKILL.md) or application/zip (its folder zipped)")
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	s, err := sa.skills.Create(ctx, skills.NewSkill{AccountID: p.Scope.AccountID, KeyID: p.keyID(), Files: files})
	if err != nil {
		return nil, err
	}
	return sa.detail(ctx, s)
}

// skillFileAlone is the folder of a SKILL.md sent alone.
func skillFileAlone(data []byte) (map[string][]byte, error) {
	return map[string][]byte{skills.SkillFile: data}, nil
}

func (sa *skillsAPI) listSkills(ctx context.Context, _ *struct{}) (*Out[client.SkillList], error) {
	if sa.skills == nil {
		return nil, errNoSkills
	}
	list, err := sa.skills.List(ctx, accountOf(ctx))
	if err != nil {
		return nil, err
	}
	out := client.SkillList{OK: true, Skills: make([]client.Skill, 0, len(list))}
	for i := range list {
		out.Skills = append(out.Skills, skillToWire(&list[i], "", nil))
	}
	return reply(out)
}

func (sa *skillsAPI) listPublic(ctx context.Context, in *PageQuery) (*Out[client.PublicSkillList], error) {
	if sa.skills == nil {
		return nil, errNoSkills
	}
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	list, next, err := sa.skills.ListPublic(ctx, pg)
	if err != nil {
		return nil, err
	}
	out := client.PublicSkillList{OK: true, Skills: make([]client.PublicSkill, 0, len(list)), NextCursor: next}
	for _, s := range list {
		out.Skills = append(out.Skills, client.PublicSkill{Owner: s.AccountID, Name: s.Name, Description: s.Description,
			Tags: s.Tags, Version: s.Version, Emoji: s.Emoji})
	}
	return reply(out)
}

type skillNameInput struct {
	Name string `path:"name" maxLength:"64" doc:"The skill's name."`
}

func (sa *skillsAPI) getSkill(ctx context.Context, in *skillNameInput) (*Out[client.SkillEnvelope], error) {
	if sa.skills == nil {
		return nil, errNoSkills
	}
	s, err := sa.skills.Get(ctx, accountOf(ctx), in.Name)
	if err != nil {
		return nil, err
	}
	return sa.detail(ctx, s)
}

func (sa *skillsAPI) deleteSkill(ctx context.Context, in *skillNameInput) (*Out[client.SkillEnvelope], error) {
	if sa.skills == nil {
		return nil, errNoSkills
	}
	s, err := sa.skills.Delete(ctx, accountOf(ctx), in.Name)
	if err != nil {
		return nil, err
	}
	return reply(client.SkillEnvelope{OK: true, Skill: skillToWire(s, "", nil)})
}

type installSkillInput struct {
	Body client.InstallSkillRequest
}

func (sa *skillsAPI) installSkill(ctx context.Context, in *installSkillInput) (*Out[client.SkillEnvelope], error) {
	if sa.skills == nil {
		return nil, errNoSkills
	}
	if err := skills.ValidateName("name", in.Body.Name); err != nil {
		return nil, err
	}
	if in.Body.Owner == "" {
		return nil, svcerr.Invalid("owner", "owner is required: the account id owning the public skill")
	}
	p := principalFrom(ctx)
	keyID := ""
	if k := p.keyID(); k != nil {
		keyID = *k
	}
	s, err := sa.skills.Install(ctx, p.Scope.AccountID, keyID, in.Body.Owner, in.Body.Name)
	if err != nil {
		return nil, err
	}
	return sa.detail(ctx, s)
}

// skillResourceOutput is the raw answer of GET /v1/skills/{name}/resources/{path}.
type skillResourceOutput struct {
	ContentType   string `header:"Content-Type" doc:"The file's media type."`
	ContentLength int64  `header:"Content-Length" doc:"The file's size."`
	SHA256        string `header:"X-Content-Sha256" doc:"Hex SHA-256 of the file."`
	Body          []byte
}

// resource answers the bytes of the file at path of the caller's skill name.
func (sa *skillsAPI) resource(ctx context.Context, name, path string) (*skillResourceOutput, error) {
	if sa.skills == nil {
		return nil, errNoSkills
	}
	if err := skills.ValidatePath("path", path); err != nil {
		return nil, err
	}
	s, err := sa.skills.Get(ctx, accountOf(ctx), name)
	if err != nil {
		return nil, err
	}
	data, media, err := sa.skills.ReadFile(ctx, s, path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	return &skillResourceOutput{ContentType: media, ContentLength: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), Body: data}, nil
}

// skillResourceInput addresses a file of a skill's folder: the path spans the rest of the URL path, so a
// resource of any depth (up to skills.MaxPathLen bytes) has its address.
type skillResourceInput struct {
	Name string `path:"name" maxLength:"64" doc:"The skill's name."`
	Path string `path:"path" maxLength:"256" doc:"The file's path in the skill folder (SKILL.md, references/<name>.md, a resource such as scripts/lib/run.py), its segments separated by '/'."`
}

// documentSkillUpload states the two bodies of POST /v1/skills in the OpenAPI document.
func documentSkillUpload(op *huma.Operation) {
	op.RequestBody = &huma.RequestBody{Required: true, Description: "A SKILL.md alone, or the skill folder zipped.",
		Content: map[string]*huma.MediaType{
			client.MediaTypeMarkdown: {Schema: &huma.Schema{Type: "string"}},
			client.MediaTypeZip:      {Schema: &huma.Schema{Type: "string", Format: "binary"}},
		}}
}

// documentSkillResource states that the resource routes answer raw bytes.
func documentSkillResource(op *huma.Operation) {
	if resp := op.Responses["200"]; resp != nil {
		resp.Description = "The file's bytes."
		resp.Content = map[string]*huma.MediaType{"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}
	}
}

// routes are the skills routes.
func (sa *skillsAPI) routes() []Route {
	r := func(rt Route, scope client.Scope) Route {
		rt.Tag, rt.Auth, rt.Scope, rt.Service = "Skills", authKey, scope, client.ServiceManagedAgents
		return rt
	}
	const one = "/v1/skills/{name}"
	return []Route{
		handle(r(Route{Op: client.OpSkillsCreate, Method: http.MethodPost, Path: "/v1/skills", Idem: true, Status: http.StatusCreated, RawBody: true,
			Summary:  "Create or replace a skill: a SKILL.md (text/markdown) or its folder zipped (application/zip); every rule is checked first",
			document: documentSkillUpload}, client.ScopeRunsWrite), sa.createSkill),
		handle(r(Route{Op: client.OpSkillsList, Method: http.MethodGet, Path: "/v1/skills", Summary: "List the account's skills, by name"},
			client.ScopeRunsRead), sa.listSkills),
		handle(Route{Op: client.OpSkillsPublicList, Method: http.MethodGet, Path: "/v1/skills/public", Tag: "Skills", Auth: authNone,
			Summary: "The directory of approved public skills of every account, newest first (no key needed)"}, sa.listPublic),
		handle(r(Route{Op: client.OpSkillsInstall, Method: http.MethodPost, Path: "/v1/skills/install", Idem: true, Status: http.StatusCreated,
			Summary: "Install a copy of another account's approved public skill, with all its files"}, client.ScopeRunsWrite), sa.installSkill),
		handle(r(Route{Op: client.OpSkillsRead, Method: http.MethodGet, Path: one, Summary: "Read a skill: frontmatter, body and files"},
			client.ScopeRunsRead), sa.getSkill),
		handle(r(Route{Op: client.OpSkillsDelete, Method: http.MethodDelete, Path: one, Idem: true, Summary: "Delete a skill with its files"},
			client.ScopeRunsWrite), sa.deleteSkill),
		handle(r(Route{Op: client.OpSkillsResourcesRead, Method: http.MethodGet, Path: "/v1/skills/{name}/resources/{path...}",
			document: documentSkillResource, Summary: "Read a file of a skill's folder (raw bytes), at any depth"}, client.ScopeRunsRead),
			func(ctx context.Context, in *skillResourceInput) (*skillResourceOutput, error) {
				return sa.resource(ctx, in.Name, strings.TrimPrefix(in.Path, "/"))
			}),
	}
}
