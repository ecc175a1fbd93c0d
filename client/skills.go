package client

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Operation ids of skills (issue 27).
const (
	OpSkillsCreate        = "skills.create"
	OpSkillsList          = "skills.list"
	OpSkillsRead          = "skills.read"
	OpSkillsResourcesRead = "skills.resources.read"
	OpSkillsDelete        = "skills.delete"
	OpSkillsPublicList    = "skills.public.list"
	OpSkillsInstall       = "skills.install"
)

// MediaTypeMarkdown is the media type of a SKILL.md sent alone to POST /v1/skills.
const MediaTypeMarkdown = "text/markdown"

// Skill visibilities and review states (seed 002: a public skill is listed once review approves it).
const (
	SkillVisibilityPrivate = "private"
	SkillVisibilityPublic  = "public"
	SkillReviewPending     = "pending_review"
	SkillReviewApproved    = "approved"
	SkillReviewRefused     = "refused"
)

// Skill is a skill as its owner sees it: SKILL.md's frontmatter, review state, and, when read one at a
// time, its body and files.
type Skill struct {
	Name         string   `json:"name" doc:"The skill's address: slug-friendly, unique within the account."`
	Description  string   `json:"description"`
	Version      float64  `json:"version" doc:"SKILL.md's version (default 1)."`
	Visibility   string   `json:"visibility" enum:"private,public"`
	ReviewStatus string   `json:"reviewStatus,omitempty" doc:"A public skill's review: pending_review, approved or refused."`
	ReviewReason string   `json:"reviewReason,omitempty"`
	Tags         []string `json:"tags"`
	Emoji        string   `json:"emoji,omitempty" doc:"metadata.clawdbot.emoji."`
	Homepage     string   `json:"homepage,omitempty" doc:"metadata.clawdbot.homepage."`
	// Requires are metadata.clawdbot.requires' binaries and packages.
	Requires *SkillRequires `json:"requires,omitempty"`
	// Source is the skill an installed copy came from.
	Source    *SkillSource `json:"source,omitempty"`
	Body      string       `json:"body,omitempty" doc:"SKILL.md's markdown body (GET /v1/skills/{name} only)."`
	Files     []SkillFile  `json:"files,omitempty" doc:"SKILL.md, references and resources (GET /v1/skills/{name} only)."`
	CreatedAt time.Time    `json:"createdAt"`
	UpdatedAt time.Time    `json:"updatedAt"`
}

// SkillRequires are the binaries and packages a skill expects.
type SkillRequires struct {
	Bins     []string `json:"bins,omitempty"`
	Packages []string `json:"packages,omitempty"`
}

// SkillSource names the skill an installed copy came from.
type SkillSource struct {
	Owner string `json:"owner" doc:"The original's account id."`
	Name  string `json:"name"`
}

// SkillFile is one file of a skill's folder.
type SkillFile struct {
	Path      string    `json:"path"`
	Kind      string    `json:"kind" enum:"skill,reference,resource"`
	MediaType string    `json:"mediaType"`
	Bytes     int64     `json:"bytes"`
	SHA256    string    `json:"sha256"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// SkillEnvelope answers one skill.
type SkillEnvelope struct {
	OK    bool  `json:"ok"`
	Skill Skill `json:"skill"`
}

// SkillList answers the account's skills, by name.
type SkillList struct {
	OK     bool    `json:"ok"`
	Skills []Skill `json:"skills"`
}

// PublicSkill is a skill of the public directory: an approved public skill of any account.
type PublicSkill struct {
	Owner       string   `json:"owner" doc:"The owner's account id (install takes it)."`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Version     float64  `json:"version"`
	Emoji       string   `json:"emoji,omitempty"`
}

// PublicSkillList is a page of the public directory, newest first.
type PublicSkillList struct {
	OK         bool          `json:"ok"`
	Skills     []PublicSkill `json:"skills"`
	NextCursor *string       `json:"nextCursor"`
}

// InstallSkillRequest is the body of POST /v1/skills/install.
type InstallSkillRequest struct {
	Owner string `json:"owner" maxLength:"64" doc:"The account id owning the approved public skill."`
	Name  string `json:"name" maxLength:"64" doc:"The skill's name."`
}

// skillPath is the escaped path of the skill name, plus rest.
func skillPath(name, rest string) string { return "/skills/" + url.PathEscape(name) + rest }

// CreateSkill creates (or replaces, by name) a skill from a SKILL.md sent alone.
func (c *Client) CreateSkill(ctx context.Context, skillMD []byte, opts ...CallOption) Response[SkillEnvelope] {
	if len(skillMD) == 0 {
		return invalidArg[SkillEnvelope]("body", "the SKILL.md is empty")
	}
	return send[SkillEnvelope](ctx, c, call{method: http.MethodPost, path: "/skills", raw: bytes.NewReader(skillMD),
		rawLen: int64(len(skillMD)), rawType: MediaTypeMarkdown, auth: authKey, idem: true, opts: opts})
}

// CreateSkillZip creates (or replaces, by name) a skill from a ZIP of its folder (SKILL.md at the root).
func (c *Client) CreateSkillZip(ctx context.Context, zip []byte, opts ...CallOption) Response[SkillEnvelope] {
	if len(zip) == 0 {
		return invalidArg[SkillEnvelope]("body", "the skill archive is empty")
	}
	return send[SkillEnvelope](ctx, c, call{method: http.MethodPost, path: "/skills", raw: bytes.NewReader(zip), rawLen: int64(len(zip)),
		rawType: MediaTypeZip, auth: authKey, idem: true, opts: opts})
}

// ListSkills lists the account's skills, by name.
func (c *Client) ListSkills(ctx context.Context) Response[SkillList] {
	return send[SkillList](ctx, c, call{method: http.MethodGet, path: "/skills", auth: authKey})
}

// ListPublicSkills lists the directory of approved public skills, newest first (no key needed).
func (c *Client) ListPublicSkills(ctx context.Context, p ListParams) Response[PublicSkillList] {
	return send[PublicSkillList](ctx, c, call{method: http.MethodGet, path: "/skills/public", query: p.query()})
}

// GetSkill reads a skill: frontmatter, body and files.
func (c *Client) GetSkill(ctx context.Context, name string) Response[SkillEnvelope] {
	if name == "" {
		return invalidArg[SkillEnvelope]("name", "the skill name is empty")
	}
	return send[SkillEnvelope](ctx, c, call{method: http.MethodGet, path: skillPath(name, ""), auth: authKey})
}

// SkillResourcePath is the API path (below /v1) of a skill's file, each segment escaped.
func SkillResourcePath(name, path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return skillPath(name, "/resources/"+strings.Join(segs, "/"))
}

// DeleteSkill deletes a skill with its files.
func (c *Client) DeleteSkill(ctx context.Context, name string, opts ...CallOption) Response[SkillEnvelope] {
	if name == "" {
		return invalidArg[SkillEnvelope]("name", "the skill name is empty")
	}
	return send[SkillEnvelope](ctx, c, call{method: http.MethodDelete, path: skillPath(name, ""), auth: authKey, idem: true, opts: opts})
}

// InstallSkill copies another account's approved public skill into the key's account.
func (c *Client) InstallSkill(ctx context.Context, req InstallSkillRequest, opts ...CallOption) Response[SkillEnvelope] {
	if req.Owner == "" || req.Name == "" {
		return invalidArg[SkillEnvelope]("name", "install needs the owner's account id and the skill name")
	}
	return send[SkillEnvelope](ctx, c, call{method: http.MethodPost, path: "/skills/install", body: req, auth: authKey, idem: true, opts: opts})
}

// OpenSkillResource starts reading a file of a skill's folder (such as references/api.md),
// GET /v1/skills/{name}/resources/{path}: when OK, Body.Body streams and verifies the bytes against
// their length and SHA-256, and the caller must close it.
func (c *Client) OpenSkillResource(ctx context.Context, name, path string) Response[*ArtifactContent] {
	if name == "" || path == "" {
		return invalidArg[*ArtifactContent]("path", "the skill name or resource path is empty")
	}
	return c.openContent(ctx, SkillResourcePath(name, path), path, "skill resource")
}
