package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/svcplatform/svc/internal/skills"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Skills lists and loads the account's skills (issue 27; skills.Store implements it). The agent sees
// every skill's name and description in its system prompt and loads one with load_skill.
type Skills interface {
	List(ctx context.Context, accountID string) ([]skills.Skill, error)
	Load(ctx context.Context, accountID, name string) (*skills.Loaded, error)
}

// LoadSkillTool is the name of the tool that loads a skill.
const LoadSkillTool = "load_skill"

// Bounds of what the agent is shown of skills.
const (
	// MaxSkillsListed bounds the skills listed in the system prompt (the per-account limit).
	MaxSkillsListed = skills.MaxPerAccount
	// MaxSkillDescription bounds one skill's description in the system prompt, in characters.
	MaxSkillDescription = 300
	// MaxSkillResult bounds load_skill's result, in bytes: SKILL.md (at most 100 KB), the files inline
	// (at most 200 KB) and the headers around them.
	MaxSkillResult = skills.MaxSkillBytes + skills.MaxInlineBytes + 16<<10
)

// Skill routes: the tool and the listing are offered only to a key that may use them.
const (
	skillsListPath = "/v1/skills"
	skillReadPath  = "/v1/skills/{name}"
)

// loadSkillTool is the read-only tool that answers a skill's body, references and resources.
func loadSkillTool() Tool {
	return Tool{Name: LoadSkillTool, Method: http.MethodGet, Path: skillReadPath, MaxResult: MaxSkillResult,
		Description: "Load one of the account's skills (listed in the system prompt under Skills) by name: its instructions " +
			"(SKILL.md's body), its references and its resources inline up to 200 KB. Load a skill when the task matches its description.",
		Params: obj(map[string]any{"name": strProp("The skill's name, as listed.")}, "name"),
		Local:  loadSkill}
}

// retryable marks a local tool's error as an infrastructure failure: the activity is retried instead of
// telling the model.
type retryable struct{ error }

func (e retryable) Unwrap() error { return e.error }

// loadSkill answers the named skill of the job's account as text for the model; an unknown name is a
// clear refusal listing the names there are.
func loadSkill(ctx context.Context, r *Runner, jc jobCaller, args map[string]any) (string, error) {
	if r.Skills == nil {
		return "", errors.New("skills are not configured for this worker")
	}
	name, _ := args["name"].(string)
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("name is required: one of the skills listed in the system prompt")
	}
	loaded, err := r.Skills.Load(ctx, jc.job.AccountID, name)
	if svcerr.Is(err, svcerr.NotFound) || svcerr.Is(err, svcerr.InvalidRequest) {
		return "", fmt.Errorf("there is no skill %q in this account%s", name, r.skillNames(ctx, jc))
	}
	if err != nil {
		return "", retryable{fmt.Errorf("load skill %s of %s: %w", name, jc.job.AccountID, err)}
	}
	return renderSkill(loaded), nil
}

// skillNames is the hint of an unknown skill's refusal: the names there are ("" when they cannot be read).
func (r *Runner) skillNames(ctx context.Context, jc jobCaller) string {
	list, err := r.Skills.List(ctx, jc.job.AccountID)
	if err != nil {
		return ""
	}
	if len(list) == 0 {
		return " (it has none)"
	}
	names := make([]string, 0, len(list))
	for _, s := range list {
		names = append(names, s.Name)
	}
	return "; its skills are: " + strings.Join(names, ", ")
}

// renderSkill is a loaded skill as the model reads it: its header, body, then each file between
// <file> tags; files left out are listed with why and how to read them.
func renderSkill(l *skills.Loaded) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s (version %s)", l.Name, formatVersion(l.Version))
	if l.Emoji != "" {
		b.WriteString(" " + l.Emoji)
	}
	fmt.Fprintf(&b, ": %s\n\n<skill_body>\n%s\n</skill_body>\n", l.Description, strings.TrimSpace(l.Body))
	var omitted []skills.Inline
	for _, group := range []struct {
		kind  string
		files []skills.Inline
	}{{"reference", l.References}, {"resource", l.Resources}} {
		for _, f := range group.files {
			if f.Omitted != "" {
				omitted = append(omitted, f)
				continue
			}
			fmt.Fprintf(&b, "\n<file kind=%q path=%q bytes=\"%d\">\n%s\n</file>\n", group.kind, f.Path, f.Bytes, f.Text)
		}
	}
	if len(omitted) > 0 {
		b.WriteString("\nFiles not inline (the user or a script reads each at the URL given):\n")
		for _, f := range omitted {
			fmt.Fprintf(&b, "- %s (%d bytes): omitted, %s; GET %s\n", f.Path, f.Bytes, f.Omitted, skillResourceURL(l.Name, f.Path))
		}
	}
	return b.String()
}

// formatVersion writes a version without a needless fraction (1, 2.5).
func formatVersion(v float64) string { return fmt.Sprintf("%g", v) }

// skillsPrompt is the Skills section of the system prompt: every skill of the account (at most
// MaxSkillsListed) with its emoji, name and description. "" when the job cannot load skills or the
// account has none; a failed listing leaves the section out rather than failing the model call.
func (r *Runner) skillsPrompt(ctx context.Context, jc jobCaller) string {
	if r.Skills == nil || r.Dispatch == nil || !r.Dispatch.Allows(ctx, jc.caller, http.MethodGet, skillReadPath) {
		return ""
	}
	list, err := r.Skills.List(ctx, jc.job.AccountID)
	if err != nil || len(list) == 0 {
		return ""
	}
	if len(list) > MaxSkillsListed {
		list = list[:MaxSkillsListed]
	}
	var b strings.Builder
	b.WriteString("\n\n# Skills\nThe account's skills: when the task matches a skill's description, load its instructions with " +
		LoadSkillTool + " {name} and follow them.")
	for _, s := range list {
		b.WriteString("\n- ")
		if s.Emoji != "" {
			b.WriteString(s.Emoji + " ")
		}
		fmt.Fprintf(&b, "%s: %s", s.Name, oneLine(s.Description, MaxSkillDescription))
	}
	return b.String()
}

// oneLine is s on one line, cut to at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		return string([]rune(s)[:n]) + "…"
	}
	return s
}

// skillResourceURL is where a file of a skill left out of load_skill is read.
func skillResourceURL(name, path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/v1/skills/" + url.PathEscape(name) + "/resources/" + strings.Join(segs, "/")
}
