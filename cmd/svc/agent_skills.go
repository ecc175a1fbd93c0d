package main

import (
	"fmt"

	"github.com/svcplatform/svc/client"
)

// agentSkillsHelp is the help of "svc agent skills".
const agentSkillsHelp = `Usage: svc agent skills

Lists the skills the agent sees (GET /v1/skills; scope runs:read, service managed-agents): every skill
of the account, with its name, version, visibility, review state and description. The agent's system
prompt lists each skill's name, emoji and description; the agent loads a skill's body, references and
resources (inline up to 200 KB) with its load_skill tool when a task matches. Manage skills with
"svc skills". --json prints the API's answer.

` + globalFlagsHelp

// agentSkills lists the skills the agent sees.
func (a *app) agentSkills(args []string) int {
	const cmd = "agent skills"
	fs := a.commandFlags(cmd, nil)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.ListSkills(a.ctx), func(r client.Response[client.SkillList]) {
		if len(r.Body.Skills) == 0 {
			fmt.Fprintln(a.stdout, `The agent sees no skills: add one with "svc skills create".`)
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
