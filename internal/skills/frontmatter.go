// Package skills keeps an account's skills (issue 27, seed 002 "Skill file (SKILL.md)"): a SKILL.md with
// YAML frontmatter and a markdown body, optional references/*.md and resource files. It validates a skill
// against seed 002's rules (each refusal names its field), stores the row in PostgreSQL and the files in
// the files capability under the purpose folder /skills/<name>/, lists the public directory of approved
// skills, installs a copy of another account's approved skill, and loads a skill's body with its
// references and resources inline for the agent.
package skills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/svcplatform/svc/internal/svcerr"
)

// Visibilities of a skill: private (the default, only the owner sees it) and public (listed in the
// directory once approved by review).
const (
	VisibilityPrivate = "private"
	VisibilityPublic  = "public"
)

// Review states of a public skill: pending_review until svcd skills review approves or refuses it.
const (
	ReviewPending  = "pending_review"
	ReviewApproved = "approved"
	ReviewRefused  = "refused"
)

// NamePattern is the rule of a skill's name: slug-friendly, 1 to 64 lowercase letters, digits and '-',
// starting and ending with a letter or digit.
const NamePattern = `^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$`

var namePattern = regexp.MustCompile(NamePattern)

// fence opens and closes the frontmatter.
const fence = "---"

// Frontmatter is a SKILL.md's validated frontmatter.
type Frontmatter struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Version     float64  `json:"version"`
	Visibility  string   `json:"visibility"`
	// Emoji, Homepage, Bins and Packages come from metadata.clawdbot.
	Emoji    string   `json:"emoji,omitempty"`
	Homepage string   `json:"homepage,omitempty"`
	Bins     []string `json:"bins,omitempty"`
	Packages []string `json:"packages,omitempty"`
	// Metadata is the frontmatter's metadata mapping as JSON (other keys than clawdbot kept as written).
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Extra holds the top-level keys seed 002 does not name, as JSON.
	Extra json.RawMessage `json:"extra,omitempty"`
}

// Document is a parsed SKILL.md: its frontmatter and markdown body.
type Document struct {
	Frontmatter Frontmatter
	Body        string
}

// reservedNames are path segments of the skills routes (GET /v1/skills/public, POST /v1/skills/install),
// which a skill's address cannot be.
var reservedNames = map[string]bool{"public": true, "install": true}

// ValidateName checks a skill name against NamePattern and the names the routes reserve; the error
// names param.
func ValidateName(param, name string) error {
	if !namePattern.MatchString(name) {
		return svcerr.Invalid(param, "%s %q is not slug-friendly: it matches %s (1 to 64 lowercase letters, digits and '-')",
			param, name, NamePattern)
	}
	if reservedNames[name] {
		return svcerr.Invalid(param, "%s %q is reserved by the skills routes (/v1/skills/public, /v1/skills/install)", param, name)
	}
	return nil
}

// Parse validates a SKILL.md and answers its frontmatter and body: at most MaxSkillBytes of UTF-8 that
// starts with a '---' line, YAML frontmatter closed by a '---' line, then the markdown body. Every
// refusal is 400 naming the field (or "SKILL.md" for the file's own rules).
func Parse(data []byte) (*Document, error) {
	if len(data) > MaxSkillBytes {
		return nil, svcerr.Invalid(SkillFile, "SKILL.md has %d bytes, more than %d (100 KB)", len(data), MaxSkillBytes)
	}
	if !utf8.Valid(data) {
		return nil, svcerr.Invalid(SkillFile, "SKILL.md is not UTF-8 text")
	}
	head, body, err := split(string(data))
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(head), &root); err != nil {
		return nil, svcerr.Invalid("frontmatter", "the frontmatter is not YAML: %v", err)
	}
	fm, err := fromNode(&root)
	if err != nil {
		return nil, err
	}
	return &Document{Frontmatter: *fm, Body: body}, nil
}

// split cuts a SKILL.md into its frontmatter and body: the first line is exactly '---', the frontmatter
// ends at the next line that is exactly '---'.
func split(s string) (string, string, error) {
	first, rest, _ := strings.Cut(s, "\n")
	if strings.TrimSuffix(first, "\r") != fence {
		return "", "", svcerr.Invalid("frontmatter", "SKILL.md must start with a '---' line opening its YAML frontmatter")
	}
	var head strings.Builder
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		if strings.TrimSuffix(line, "\r") == fence {
			return head.String(), strings.TrimLeft(after, "\r\n"), nil
		}
		head.WriteString(line)
		head.WriteByte('\n')
		rest = after
	}
	return "", "", svcerr.Invalid("frontmatter", "the frontmatter is not closed: a '---' line must follow it")
}

// fromNode reads the frontmatter's document node into a Frontmatter, checking every field's type.
func fromNode(root *yaml.Node) (*Frontmatter, error) {
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, svcerr.Invalid("frontmatter", "the frontmatter is a YAML mapping of fields (name, description, ...)")
	}
	fm := &Frontmatter{Tags: []string{}, Version: 1, Visibility: VisibilityPrivate}
	extra := map[string]any{}
	seen := map[string]bool{}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i].Value, m.Content[i+1]
		if seen[key] {
			return nil, svcerr.Invalid(key, "%s appears twice in the frontmatter", key)
		}
		seen[key] = true
		if err := fm.setField(key, val, extra); err != nil {
			return nil, err
		}
	}
	return fm, fm.finish(extra)
}

// setField sets one top-level field of the frontmatter; unknown keys go to extra.
func (fm *Frontmatter) setField(key string, val *yaml.Node, extra map[string]any) error {
	var err error
	switch key {
	case "name":
		fm.Name, err = str("name", val)
	case "description":
		fm.Description, err = str("description", val)
	case "tags":
		fm.Tags, err = strList("tags", val)
	case "version":
		fm.Version, err = number("version", val)
	case "visibility":
		fm.Visibility, err = str("visibility", val)
	case "metadata":
		err = fm.setMetadata(val)
	default:
		extra[key], err = jsonValue(key, val)
	}
	return err
}

// finish checks the rules across fields and records extra.
func (fm *Frontmatter) finish(extra map[string]any) error {
	if fm.Name == "" {
		return svcerr.Invalid("name", "name is required: the skill's slug-friendly name")
	}
	if err := ValidateName("name", fm.Name); err != nil {
		return err
	}
	if strings.TrimSpace(fm.Description) == "" {
		return svcerr.Invalid("description", "description is required: it tells the agent when to load the skill")
	}
	if fm.Visibility != VisibilityPrivate && fm.Visibility != VisibilityPublic {
		return svcerr.Invalid("visibility", "visibility is private or public, not %q", fm.Visibility)
	}
	if len(extra) > 0 {
		raw, err := json.Marshal(extra)
		if err != nil {
			return svcerr.Invalid("frontmatter", "the frontmatter's other fields do not encode as JSON: %v", err)
		}
		fm.Extra = raw
	}
	return nil
}

// setMetadata reads metadata: a mapping whose clawdbot entry holds emoji, homepage and requires.
func (fm *Frontmatter) setMetadata(val *yaml.Node) error {
	if isNull(val) {
		return nil
	}
	if val.Kind != yaml.MappingNode {
		return svcerr.Invalid("metadata", "metadata is a mapping (metadata.clawdbot: ...)")
	}
	doc, err := jsonValue("metadata", val)
	if err != nil {
		return err
	}
	if raw, err := json.Marshal(doc); err == nil {
		fm.Metadata = raw
	}
	if cb := lookup(val, "clawdbot"); cb != nil && !isNull(cb) {
		return fm.setClawdbot(cb)
	}
	return nil
}

// setClawdbot reads metadata.clawdbot: emoji (one emoji), homepage (an http(s) URL) and requires.
func (fm *Frontmatter) setClawdbot(cb *yaml.Node) error {
	const p = "metadata.clawdbot"
	if cb.Kind != yaml.MappingNode {
		return svcerr.Invalid(p, "%s is a mapping (emoji, homepage, requires)", p)
	}
	var err error
	if n := lookup(cb, "emoji"); n != nil {
		if fm.Emoji, err = str(p+".emoji", n); err != nil {
			return err
		}
		if fm.Emoji != "" && !IsSingleEmoji(fm.Emoji) {
			return svcerr.Invalid(p+".emoji", "%s.emoji is a single emoji, not %q", p, fm.Emoji)
		}
	}
	if n := lookup(cb, "homepage"); n != nil {
		if fm.Homepage, err = str(p+".homepage", n); err != nil {
			return err
		}
		if fm.Homepage != "" && !isHTTPURL(fm.Homepage) {
			return svcerr.Invalid(p+".homepage", "%s.homepage is an http or https URL, not %q", p, fm.Homepage)
		}
	}
	return fm.setRequires(lookup(cb, "requires"))
}

// setRequires reads metadata.clawdbot.requires: bins and packages, arrays of strings.
func (fm *Frontmatter) setRequires(req *yaml.Node) error {
	const p = "metadata.clawdbot.requires"
	if req == nil || isNull(req) {
		return nil
	}
	if req.Kind != yaml.MappingNode {
		return svcerr.Invalid(p, "%s is a mapping (bins, packages)", p)
	}
	var err error
	if n := lookup(req, "bins"); n != nil {
		if fm.Bins, err = strList(p+".bins", n); err != nil {
			return err
		}
	}
	if n := lookup(req, "packages"); n != nil {
		if fm.Packages, err = strList(p+".packages", n); err != nil {
			return err
		}
	}
	return nil
}

// lookup answers the value of key in mapping m, nil when absent.
func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// str answers a string scalar; anything else (a number, a list, ...) is refused naming param.
func str(param string, n *yaml.Node) (string, error) {
	if isNull(n) {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", svcerr.Invalid(param, "%s is a string", param)
	}
	return n.Value, nil
}

// strList answers an array of strings; null is the empty array.
func strList(param string, n *yaml.Node) ([]string, error) {
	if isNull(n) {
		return []string{}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, svcerr.Invalid(param, "%s is an array of strings", param)
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		if item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
			return nil, svcerr.Invalid(fmt.Sprintf("%s[%d]", param, i), "%s is an array of strings: item %d is not a string", param, i)
		}
		out = append(out, item.Value)
	}
	return out, nil
}

// number answers a finite YAML number (an int or a float, not a quoted string).
func number(param string, n *yaml.Node) (float64, error) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		var v float64
		if err := n.Decode(&v); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			return v, nil
		}
	}
	return 0, svcerr.Invalid(param, "%s is a number (default 1)", param)
}

// jsonValue decodes a node into a JSON-encodable value (mappings need string keys).
func jsonValue(param string, n *yaml.Node) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, svcerr.Invalid(param, "%s does not decode: %v", param, err)
	}
	if _, err := json.Marshal(v); err != nil {
		return nil, svcerr.Invalid(param, "%s is not representable as JSON (mapping keys are strings): %v", param, err)
	}
	return v, nil
}

// isHTTPURL reports an absolute http or https URL with a host.
func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !bytes.ContainsAny([]byte(s), " \t\r\n")
}
