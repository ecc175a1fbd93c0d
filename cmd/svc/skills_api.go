package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// skillsCreateHelp is the help of "svc skills create".
const skillsCreateHelp = `Usage: svc skills create PATH

Creates a skill, or replaces the skill of the same name (scope runs:write, service managed-agents).
PATH is a SKILL.md file, sent alone, or a folder holding SKILL.md, references/*.md and resource files,
zipped (hidden files and folders, such as .git, are left out). Every rule is checked before anything is
stored; a refusal names the field, e.g. metadata.clawdbot.emoji. A public skill waits for review before
the directory lists it.

` + globalFlagsHelp

// skillsCreate uploads a SKILL.md or a zipped skill folder.
func (a *app) skillsCreate(args []string) int {
	const cmd = "skills create"
	var idemKey string
	fset := a.commandFlags(cmd, &idemKey)
	path, code, ok := a.parseID(idSpec{cmd: cmd, what: "SKILL.md or skill folder"}, fset, args)
	if !ok {
		return code
	}
	info, err := os.Stat(path)
	if err != nil {
		return a.usageError(cmd, "%s", err)
	}
	var data []byte
	if info.IsDir() {
		data, err = zipFolder(path, "SKILL.md", "a skill folder")
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return a.usageError(cmd, "%s", err)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	var resp client.Response[client.SkillEnvelope]
	if info.IsDir() {
		resp = c.CreateSkillZip(a.ctx, data, idemOpts(idemKey)...)
	} else {
		resp = c.CreateSkill(a.ctx, data, idemOpts(idemKey)...)
	}
	return answer(a, resp, func(r client.Response[client.SkillEnvelope]) {
		s := r.Body.Skill
		fmt.Fprintf(a.stdout, "Saved skill %s (version %g, %s%s), %d files.\n", s.Name, s.Version, s.Visibility, reviewNote(s), len(s.Files))
	})
}

// reviewNote is ", pending_review" for a public skill, "" for a private one.
func reviewNote(s client.Skill) string {
	if s.ReviewStatus == "" {
		return ""
	}
	return ", " + s.ReviewStatus
}

// skillsListHelp is the help of "svc skills list".
const skillsListHelp = `Usage: svc skills list

Lists the account's skills by name (scope runs:read): version, visibility, review state and description.

` + globalFlagsHelp

// skillsList lists the account's skills.
func (a *app) skillsList(args []string) int {
	return a.listSkills("skills list", "No skills.", args)
}

// listSkills is "svc skills list" and "svc agent skills" (cmd): the account's skills as a table, or
// empty when there are none.
func (a *app) listSkills(cmd, empty string, args []string) int {
	fset := a.commandFlags(cmd, nil)
	if code, ok := a.parseNone(cmd, fset, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.ListSkills(a.ctx), func(r client.Response[client.SkillList]) {
		if len(r.Body.Skills) == 0 {
			fmt.Fprintln(a.stdout, empty)
			return
		}
		tw := a.table()
		fmt.Fprintln(tw, "NAME\tVERSION\tVISIBILITY\tREVIEW\tDESCRIPTION")
		for _, s := range r.Body.Skills {
			fmt.Fprintf(tw, "%s\t%g\t%s\t%s\t%s\n", s.Name, s.Version, s.Visibility, dash(s.ReviewStatus), oneLine(s.Description, 80))
		}
		_ = tw.Flush()
	})
}

// dash is s, or "-" when empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// skillsGetHelp is the help of "svc skills get".
const skillsGetHelp = `Usage: svc skills get NAME

Shows a skill (scope runs:read): its frontmatter, review state, files and SKILL.md's body.

` + globalFlagsHelp

// skillsGet shows one skill.
func (a *app) skillsGet(args []string) int {
	return oneID(a, idSpec{cmd: "skills get", what: "skill name"}, args,
		func(c *client.Client, name string, _ []client.CallOption) client.Response[client.SkillEnvelope] {
			return c.GetSkill(a.ctx, name)
		}, a.showSkill)
}

// showSkill prints a skill: its fields, files and body.
func (a *app) showSkill(r client.Response[client.SkillEnvelope]) {
	s := r.Body.Skill
	fmt.Fprintf(a.stdout, "Skill %s %s(version %g, %s%s)\n", s.Name, emojiPrefix(s.Emoji), s.Version, s.Visibility, reviewNote(s))
	fmt.Fprintf(a.stdout, "Description: %s\nTags: %s\n", s.Description, strings.Join(s.Tags, ", "))
	if s.Homepage != "" {
		fmt.Fprintf(a.stdout, "Homepage: %s\n", s.Homepage)
	}
	if s.Requires != nil {
		fmt.Fprintf(a.stdout, "Requires: bins %s; packages %s\n", strings.Join(s.Requires.Bins, ", "), strings.Join(s.Requires.Packages, ", "))
	}
	if s.Source != nil {
		fmt.Fprintf(a.stdout, "Installed from: %s of %s\n", s.Source.Name, s.Source.Owner)
	}
	if s.ReviewReason != "" {
		fmt.Fprintf(a.stdout, "Review: %s\n", s.ReviewReason)
	}
	tw := a.table()
	fmt.Fprintln(tw, "PATH\tKIND\tBYTES\tUPDATED")
	for _, f := range s.Files {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", f.Path, f.Kind, f.Bytes, f.UpdatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
	fmt.Fprintf(a.stdout, "\n%s\n", strings.TrimRight(s.Body, "\n"))
}

func emojiPrefix(e string) string {
	if e == "" {
		return ""
	}
	return e + " "
}

// skillsDeleteHelp is the help of "svc skills delete".
const skillsDeleteHelp = `Usage: svc skills delete NAME

Deletes a skill with its files (scope runs:write; the files are purged 24 hours later). Copies other
accounts installed stay as they are.

` + globalFlagsHelp

// skillsDelete deletes one skill.
func (a *app) skillsDelete(args []string) int {
	return oneID(a, idSpec{cmd: "skills delete", what: "skill name", idem: true}, args,
		func(c *client.Client, name string, opts []client.CallOption) client.Response[client.SkillEnvelope] {
			return c.DeleteSkill(a.ctx, name, opts...)
		},
		func(r client.Response[client.SkillEnvelope]) {
			fmt.Fprintf(a.stdout, "Deleted skill %s.\n", r.Body.Skill.Name)
		})
}

// skillsPublicHelp is the help of "svc skills public".
const skillsPublicHelp = `Usage: svc skills public

Lists the approved public skills of every account, newest first (no key needed): the owner's
account id and the name are what "svc skills install" takes.

` + globalFlagsHelp

// skillsPublic lists the public directory.
func (a *app) skillsPublic(args []string) int {
	const cmd = "skills public"
	fset := a.commandFlags(cmd, nil)
	if code, ok := a.parseNone(cmd, fset, args); !ok {
		return code
	}
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	// The directory is public: the request carries no key.
	s.apiKey = ""
	return answer(a, a.newClient(s).ListPublicSkills(a.ctx, client.ListParams{Limit: 200}), func(r client.Response[client.PublicSkillList]) {
		if len(r.Body.Skills) == 0 {
			fmt.Fprintln(a.stdout, "No public skills.")
			return
		}
		tw := a.table()
		fmt.Fprintln(tw, "OWNER\tNAME\tVERSION\tEMOJI\tDESCRIPTION")
		for _, s := range r.Body.Skills {
			fmt.Fprintf(tw, "%s\t%s\t%g\t%s\t%s\n", s.Owner, s.Name, s.Version, dash(s.Emoji), oneLine(s.Description, 80))
		}
		_ = tw.Flush()
	})
}

// skillsInstallHelp is the help of "svc skills install".
const skillsInstallHelp = `Usage: svc skills install OWNER NAME

Installs a copy of the approved public skill NAME of the account OWNER (acct_..., as "svc skills
public" lists it), with all its files, into your account as a private skill (scope runs:write). A later
change of the original leaves your copy as it is; installing again refreshes it. Your own skills, and
skills not approved, are refused.

` + globalFlagsHelp

// skillsInstall installs a public skill.
func (a *app) skillsInstall(args []string) int {
	const cmd = "skills install"
	var idemKey string
	fset := a.commandFlags(cmd, &idemKey)
	pos, code, ok := a.parse(cmd, fset, args)
	if !ok {
		return code
	}
	if len(pos) != 2 || pos[0] == "" || pos[1] == "" {
		return a.usageError(cmd, "skills install takes OWNER (an account id) and NAME")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	req := client.InstallSkillRequest{Owner: pos[0], Name: pos[1]}
	return answer(a, c.InstallSkill(a.ctx, req, idemOpts(idemKey)...), func(r client.Response[client.SkillEnvelope]) {
		fmt.Fprintf(a.stdout, "Installed skill %s (version %g) from %s, %d files.\n", r.Body.Skill.Name, r.Body.Skill.Version, pos[0], len(r.Body.Skill.Files))
	})
}
